// The search views: golden ranking of the lexical route, exactness of the trigram route
// against a brute-force scan (randomized), dirty files, and the CLI and LSP faces.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "LspClient.h"
#include "TestRepo.h"
#include "indexer/IndexBuilder.h"
#include "providers/RegexPlan.h"
#include "providers/SearchProvider.h"
#include "providers/SearchProximity.h"
#include "views/SearchFacts.h"
#include "server/Engine.h"
#include "support/FileIo.h"
#include "support/GitLite.h"
#include "views/FactStore.h"
#include "views/SearchViews.h"
#include "support/SearchText.h"

namespace nib::test {
namespace fs = std::filesystem;
using json = nlohmann::json;
namespace {

void copyFixture(TestRepo& repo) {
  fs::path src = fs::path(NIB_FIXTURE_DIR) / "search" / "repo";
  for (const auto& e : fs::recursive_directory_iterator(src))
    if (e.is_regular_file()) repo.write(fs::relative(e.path(), src).string(), *readFile(e.path()));
  repo.commitAll();
}


using MatchSet = std::set<std::tuple<std::string, uint32_t, uint32_t>>;

// Every (path, line, column of the first match) a line-by-line scan of the files finds.
MatchSet bruteForce(const fs::path& root, const std::vector<std::string>& files, const std::string& query, bool regex,
                    bool caseSensitive) {
  MatchSet out;
  RE2::Options o;
  o.set_case_sensitive(caseSensitive);
  o.set_never_nl(true);
  o.set_log_errors(false);
  RE2 re(regex ? query : RE2::QuoteMeta(query), o);
  for (const std::string& f : files) {
    std::string text = *readFile(root / f);
    std::istringstream in(text);
    std::string line;
    uint32_t n = 0;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      re2::StringPiece m;
      if (re.Match(line, 0, line.size(), RE2::UNANCHORED, &m, 1))
        out.insert({f, n, static_cast<uint32_t>(m.data() - line.data())});
      ++n;
    }
  }
  return out;
}

// The lexical route's first k hits for a query.
SearchResult lexically(Engine& engine, const std::string& query, size_t k) {
  SearchRequest r;
  r.query = query;
  r.route = SearchRoute::Lexical;
  r.k = k;
  auto result = engine.search(r);
  INFO(result.status().toString());
  REQUIRE(result.hasValue());
  return *result;
}

MatchSet found(Engine& engine, SearchRequest request) {
  request.route = SearchRoute::Trigram;
  request.k = 1000000;
  auto r = engine.search(request);
  INFO(r.status().toString());
  REQUIRE(r.hasValue());
  MatchSet out;
  for (const SearchHit& h : r->hits) out.insert({h.path, h.range.start.line, h.range.start.column});
  return out;
}

}  // namespace

TEST_CASE("lexical ranking puts the intended unit on top (golden)", "[search][golden]") {
  TestRepo repo;
  copyFixture(repo);
  auto engine = indexAndOpen(repo);
  int cases = 0;
  for (const RankingCase& c : readRankingCases()) {
    const std::string &query = c.query, &target = c.target;
    const int maxRank = c.maxRank;
    SearchRequest r;
    r.query = query;
    r.route = SearchRoute::Lexical;
    r.k = 10;
    auto result = engine->search(r);
    REQUIRE(result.hasValue());
    int rank = 0;
    std::string seen;
    for (size_t i = 0; i < result->hits.size(); ++i) {
      const SearchHit& h = result->hits[i];
      std::string id = h.name.empty() ? h.path : h.path + "#" + h.name;
      seen += "  " + std::to_string(i + 1) + ". " + id + " (" + std::to_string(h.score) + ")\n";
      if (id == target && !rank) rank = static_cast<int>(i) + 1;
    }
    INFO("query '" << query << "' wants " << target << " within rank " << maxRank << "; got:\n" << seen);
    CHECK(rank >= 1);
    CHECK(rank <= maxRank);
    ++cases;
  }
  CHECK(cases >= 8);
}

// A file without a grammar (a yacc grammar, a skeleton, a script) is its own only unit. Measured
// against one average length over all units — most of them functions — a 160-line grammar that
// says each query word three times scored below a five-line function that says one of them
// once (3.1 against 4.4); against the average length of whole files it ranks first.
TEST_CASE("a file without a grammar is scored against files' length, not functions'", "[search]") {
  TestRepo repo;
  const std::vector<std::string> words{"count", "value", "buffer", "entry", "table", "index", "width", "height",
                                       "offset", "length", "limit", "total", "first", "last", "next", "prev",
                                       "state", "mode", "flag", "level", "depth", "size", "step"};
  auto function = [&](const std::string& name, size_t i, const std::string& extra) {
    const std::string &a = words[i % words.size()], &b = words[(i * 7 + 3) % words.size()],
                      &c = words[(i * 5 + 1) % words.size()];
    std::string n = std::to_string(i);
    return "/* Updates the " + a + " from the " + b + "." + extra + " */\nint " + name + "(int " + a + ", int " + b +
           ") {\n  int " + c + " = " + a + " + " + b + ";\n  if (" + c + " > " + n + ") " + c + " = " + n +
           ";\n  return " + c + " * 2;\n}\n\n";
  };
  std::string big;
  for (size_t i = 0; i < 20; ++i) big += function("big_" + std::to_string(i), i, "");
  big += function("settle", 99, " Settles a conflict between two rules.");
  repo.write("src/big.c", big);
  for (std::string f : {"a", "b", "c"}) {
    std::string text;
    for (size_t i = 0; i < 5; ++i) text += function(f + "_" + std::to_string(i), i + 11, "");
    repo.write("src/" + f + ".c", text);
  }
  std::vector<std::string> rules{"%token NUMBER", "%%"};
  for (int i = 0; i < 160; ++i)
    rules.push_back("rule" + std::to_string(i) + " : rule" + std::to_string(i) + " NUMBER | NUMBER ;");
  rules[3] += " /* one token of lookahead */";
  rules[6] += " /* a reduction here */";
  rules[9] += " /* no conflict: */";
  rules[11] += " /* lookahead, reduction, conflict */";
  rules.back() += " /* lookahead, reduction, conflict */";
  std::string grammar;
  for (const std::string& line : rules) grammar += line + "\n";
  repo.write("src/spec.y", grammar);
  repo.commitAll();
  auto engine = indexAndOpen(repo);
  SearchResult result = lexically(*engine, "lookahead reduction conflict", 3);
  REQUIRE(result.hits.size() >= 2);
  CHECK(result.hits[0].path == "src/spec.y");
  CHECK(result.hits[1].name == "settle");
}

TEST_CASE("trigram search returns exactly what a full scan finds (randomized)", "[search]") {
  // Contents LZ4-packed (the default) and stored as they are (.nib.conf's index.pack-contents).
  const bool packed = GENERATE(false, true);
  INFO("packed contents: " << packed);
  TestRepo repo;
  copyFixture(repo);
  if (!packed) repo.write(".nib.conf", "index.pack-contents = false\n");
  // More text, with mixed case and repeats, so that random substrings hit many places.
  std::mt19937 rng(99);
  const char* words[] = {"alpha", "Beta", "GAMMA", "delta_x", "epsilon", "zeta(1)", "eta.theta", "iota-kappa", "Lambda"};
  for (int f = 0; f < 12; ++f) {
    std::string text;
    for (int l = 0; l < 60; ++l) {
      for (int w = 0; w < 6; ++w) text += std::string(words[rng() % 9]) + (rng() % 5 ? " " : "");
      text += (rng() % 7 == 0) ? "\r\n" : "\n";
    }
    repo.write("gen/file" + std::to_string(f) + (f % 2 ? ".py" : ".txt"), text);
  }
  repo.commitAll("generated");
  auto engine = indexAndOpen(repo);
  {
    // The store holds the generated files the way the setting says.
    auto store = FactStore::open(repo.root() / ".nib" / "facts", /*readOnly=*/true);
    REQUIRE(store.hasValue());
    auto reader = (*store)->reader();
    REQUIRE(reader.hasValue());
    auto record = reader->packedContent(gitlite::blobId(*readFile(repo.root() / "gen/file0.txt")));
    REQUIRE(record.hasValue());
    CHECK(static_cast<int>((*record)[0]) == (packed ? 1 : 0));
  }
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(repo.root())) {
    std::string rel = fs::relative(e.path(), repo.root()).string();
    if (e.is_regular_file() && rel.rfind(".git/", 0) != 0 && rel.rfind(".nib/", 0) != 0) files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  int checked = 0, nonEmpty = 0;
  for (int i = 0; i < 120; ++i) {
    // A random substring of a random file (so most queries match), sometimes altered.
    const std::string& f = files[rng() % files.size()];
    std::string text = *readFile(repo.root() / f);
    size_t len = 1 + rng() % 9;
    if (text.size() <= len) continue;
    std::string q = text.substr(rng() % (text.size() - len), len);
    if (q.find('\n') != std::string::npos || q.find('\r') != std::string::npos) continue;
    if (rng() % 4 == 0) q[rng() % q.size()] = "xQ_ ."[rng() % 5];
    bool caseSensitive = rng() % 2;
    SearchRequest r;
    r.query = q;
    r.caseSensitive = caseSensitive;
    MatchSet expected = bruteForce(repo.root(), files, q, false, caseSensitive);
    INFO("literal '" << q << "' case-sensitive=" << caseSensitive);
    CHECK(found(*engine, r) == expected);
    ++checked;
    if (!expected.empty()) ++nonEmpty;
  }
  for (const char* pattern : {"del+ta_x", "eta\\.the?ta", "[Aa]lpha Beta", "zeta\\(\\d\\)", "^GAMMA", "Lambda$",
                              "(alpha|epsilon) ", "iota-kap{1,2}a", "x*", "b[e]ta", "(?i)gamma|LAMBDA", "alpha|zeta\\(",
                              "Beta *$", "^eta\\.theta|GAMMA$", "[[:alpha:]]eta", "[^[:space:]]+_x", "[]a]lpha",
                              // Found by fuzzing the hand-written literal scanner this replaced.
                              "\\pLeta", "\\PLeta", "\\x61lpha", "\\Qzeta(\\E?", "\\Qalpha\\E{0}", "eta\\Q(\\E|",
                              "(\\Q)ta\\E)*", "\\Q{\\E((} >i)){0}a", "ß*alpha", "\\Qdelta_\\E*x",
                              // \A and \z mean a line's ends here, with or without a literal to look up.
                              "\\Aal", "\\Aalpha", "ta\\z", "\\Ae"}) {
    for (bool cs : {true, false}) {
      SearchRequest r;
      r.query = pattern;
      r.regex = true;
      r.caseSensitive = cs;
      INFO("regex '" << pattern << "' case-sensitive=" << cs);
      CHECK(found(*engine, r) == bruteForce(repo.root(), files, pattern, true, cs));
      ++checked;
    }
  }
  CHECK(checked > 100);
  CHECK(nonEmpty > 50);
  // Ranked hits cut their snippets from the same stored bytes.
  SearchResult ranked = lexically(*engine, "alpha epsilon lambda", 5);
  REQUIRE_FALSE(ranked.hits.empty());
  for (const SearchHit& h : ranked.hits) {
    INFO(h.path << ": " << h.snippet);
    CHECK_FALSE(h.snippet.empty());
    std::string text = *readFile(repo.root() / h.path);
    size_t firstLine = h.snippet.find('\n');
    CHECK(text.find(h.snippet.substr(0, firstLine)) != std::string::npos);
  }
}

// Revision 4's postings: each unit's delta from the previous one shifted left, the low bit for
// a term seen once, else the count after it. An id past the view's units ends the list.
TEST_CASE("lexical postings decode counts folded into the delta and written after it", "[search]") {
  std::string bytes;
  bytes += char((3 << 1) | 1);          // unit 3, once
  bytes += char(2 << 1), bytes += char(5);  // unit 5, five times
  bytes += char(0x81), bytes += char(0x01);  // delta 64 (varint 0x81 0x01 = 129 = 64 << 1 | 1): unit 69, once
  bytes += char((1 << 1) | 1);          // unit 70: past a view of 70 units
  auto postings = decodeLexicalPostings(bytes, 70);
  REQUIRE(postings.size() == 3);
  CHECK(postings[0] == std::pair<uint32_t, uint32_t>(3, 1));
  CHECK(postings[1] == std::pair<uint32_t, uint32_t>(5, 5));
  CHECK(postings[2] == std::pair<uint32_t, uint32_t>(69, 1));
  CHECK(decodeLexicalPostings(bytes, 71).size() == 4);
  // A count cut off at the end is no posting.
  CHECK(decodeLexicalPostings(std::string(1, char(2 << 1)), 70).empty());
}

TEST_CASE("trigram masks agree with a direct computation", "[search]") {
  std::mt19937 rng(5);
  const std::string alphabet = "abAB_ \n\xc3\xa9xyz";
  // The last rounds draw any byte: thousands of distinct trigrams, sorted by the radix passes
  // rather than by comparison.
  for (int round = 0; round < 320; ++round) {
    std::string text;
    size_t n = rng() % (round < 250 ? 200 : round < 300 ? 5000 : 40000);
    for (size_t i = 0; i < n; ++i)
      text += round < 300 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng() % 256);
    std::map<uint32_t, uint16_t> expected;
    for (size_t i = 0; i + 2 < text.size(); ++i) {
      uint16_t& m = expected[packTrigram(text[i], text[i + 1], text[i + 2])];
      m |= trigramLocationBit(i);
      if (i + 3 < text.size()) m |= trigramNextBit(static_cast<unsigned char>(text[i + 3]));
    }
    std::vector<uint32_t> trigrams;
    std::vector<uint16_t> masks;
    trigramMasksOf(text, &trigrams, &masks);
    REQUIRE(trigrams.size() == expected.size());
    REQUIRE(masks.size() == expected.size());
    size_t k = 0;
    for (const auto& [t, m] : expected) {
      REQUIRE(trigrams[k] == t);
      REQUIRE(masks[k] == m);
      ++k;
    }
  }
}

TEST_CASE("trigram masks rule out files holding a literal's trigrams but not the literal", "[search]") {
  TestRepo repo;
  // Every trigram of "redisCommand" (folded), but at positions that cannot line up.
  repo.write("decoy.txt", "redisc\nscommand\n");
  repo.write("real.c", "int x = redisCommand(c);\n");
  // The same bytes in a different case: the trigrams and masks are folded, so it stays a
  // candidate, and verification decides.
  repo.write("folded.txt", "REDISCOMMAND\n");
  repo.commitAll("files");
  auto engine = indexAndOpen(repo);
  SearchRequest r;
  r.query = "redisCommand";
  r.route = SearchRoute::Trigram;
  auto sensitive = engine->search(r);
  REQUIRE(sensitive.hasValue());
  REQUIRE(sensitive->hits.size() == 1);
  CHECK(sensitive->hits[0].path == "real.c");
  CHECK(sensitive->candidates == 2);  // real.c and folded.txt; the decoy never read
  r.caseSensitive = false;
  auto insensitive = engine->search(r);
  REQUIRE(insensitive.hasValue());
  CHECK(insensitive->hits.size() == 2);
  // A regex's required literal goes through the same filter.
  r.regex = true;
  r.caseSensitive = true;
  r.query = "redisCommand\\(c?\\)|redisCommand\\(\\w\\)";
  auto regex = engine->search(r);
  REQUIRE(regex.hasValue());
  CHECK(regex->hits.size() == 1);
  CHECK(regex->candidates == 1);  // "redisCommand(" is required: folded.txt has no "("
}

TEST_CASE("regex plans come from RE2's own analysis", "[search]") {
  RE2::Options o;
  o.set_never_nl(true);
  auto plan = [&](const std::string& p) {
    auto r = RegexPlan::build(p, o);
    REQUIRE(r.hasValue());
    return std::move(*r);
  };
  RegexPlan a = plan("foo_bar\\(");
  CHECK_FALSE(a.scansEverything());
  CHECK(a.atoms() == std::vector<std::string>{"foo_bar("});
  CHECK(a.mayMatch({0}));
  CHECK_FALSE(a.mayMatch({}));
  // Alternation: either branch's atom will do; an empty branch matches anything.
  RegexPlan b = plan("tty_init|uv_loop");
  CHECK(b.atoms().size() == 2);
  CHECK(b.mayMatch({1}));
  CHECK(b.lineAtoms().size() == 2);
  CHECK(plan("\\bstrn?cpy\\(").lineAtoms() == std::vector<std::string>{"cpy("});
  CHECK(plan("mps\\Q(\\E|").scansEverything());
  CHECK(plan("[0-9]{4}-[0-9]{2}").scansEverything());
  // A quantifier on \Q...\E applies to its last character only.
  RegexPlan q = plan("\\Qabc\\E*x");
  for (const std::string& atom : q.atoms()) CHECK(atom.find("abc") == std::string::npos);
  CHECK_FALSE(RegexPlan::build("a(b", o).hasValue());
}

TEST_CASE("search sees files as they are now, not as indexed", "[search]") {
  TestRepo repo;
  copyFixture(repo);
  auto engine = indexAndOpen(repo);
  SearchRequest r;
  r.query = "fnv1a_hash";
  CHECK(engine->search(r)->hits.size() == 1);
  // Edited on disk: the new line is found, the old one is gone; a deleted file disappears.
  repo.write("lib/hash.c", "// renamed\nuint32_t fnv1a_hash_v2(const char *s);\nuint32_t other(void);\n");
  repo.remove("src/Parser.java");
  auto hits = engine->search(r)->hits;
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].range.start.line == 1);
  CHECK(hits[0].snippet == "uint32_t fnv1a_hash_v2(const char *s);");
  r.query = "parseArguments";
  CHECK(engine->search(r)->hits.empty());
  r.query = "checksum of a buffer";
  r.route = SearchRoute::Lexical;
  for (const SearchHit& h : engine->search(r)->hits) CHECK(h.path != "lib/hash.c");
  // A new file is reported, not silently missed.
  repo.write("src/new_module.py", "def fnv1a_hash(): pass\n");
  r.query = "fnv1a_hash";
  r.route = SearchRoute::Trigram;
  auto withNew = engine->search(r);
  REQUIRE(withNew.hasValue());
  REQUIRE_FALSE(withNew->notes.empty());
  CHECK(withNew->notes.back().find("new_module.py") != std::string::npos);
}

TEST_CASE("search keeps the index's rules for files that changed kind", "[search]") {
  TestRepo repo;
  repo.write("a.c", "int marker_one;\n");
  repo.write("b.c", "int marker_two;\n");
  repo.write("c.c", "int marker_three;\n");
  repo.write("big.txt", std::string(2 << 20, 'x') + "\nmarker_big\n");  // over the 1 MiB limit
  repo.write("outside/secret.txt", "marker_secret\n");
  repo.commitAll("files");
  auto engine = indexAndOpen(repo);
  engine->watchWorktree();
  SearchRequest r;
  r.query = "marker_";
  r.route = SearchRoute::Trigram;
  auto first = engine->search(r);
  REQUIRE(first.hasValue());
  CHECK(first->hits.size() == 4);
  // The too-large file is said to be left out.
  bool noted = false;
  for (const std::string& n : first->notes) noted |= n.find("1 file(s) over the index's size limit") != std::string::npos;
  CHECK(noted);
  CHECK(first->partial);
  // A file that became a link is not followed; one that became binary is left out; a file
  // replaced by a folder is reported, not silently missed.
  repo.remove("a.c");
  std::filesystem::create_symlink(repo.root() / "outside/secret.txt", repo.root() / "a.c");
  repo.write("b.c", std::string("int marker_two;\n\0\1", 19));
  repo.remove("c.c");
  repo.write("c.c/inner.c", "int marker_inner;\n");
  auto after = engine->search(r);
  REQUIRE(after.hasValue());
  std::set<std::string> paths;
  for (const SearchHit& h : after->hits) paths.insert(h.path);
  CHECK(paths == std::set<std::string>{"outside/secret.txt"});
  std::string notes;
  for (const std::string& n : after->notes) notes += n + "\n";
  CHECK(notes.find("binary") != std::string::npos);
  CHECK(notes.find("c.c") != std::string::npos);
  // A watched folder deleted and restored (git checkout does this) keeps being watched.
  std::filesystem::remove_all(repo.root() / "outside");
  CHECK(engine->search(r)->hits.empty());
  repo.write("outside/secret.txt", "marker_secret\n");
  CHECK(engine->search(r)->hits.size() == 1);
  repo.write("outside/secret.txt", "marker_secret marker_again\nmarker_third\n");
  CHECK(engine->search(r)->hits.size() == 2);
}

TEST_CASE("nib search and nib/search return source-linked hits", "[search][cli][lsp]") {
  TestRepo repo;
  copyFixture(repo);
  std::string out;
  REQUIRE(runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " index -q --wait-dense", &out, true) == 0);
  auto nib = [&](const std::string& args, std::string* text) {
    return runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " " + args, text, true);
  };
  CHECK(nib("search fnv1a_hash", &out) == 0);
  CHECK(out == "lib/hash.c:4:10: uint32_t fnv1a_hash(const char *s) {\n");
  CHECK(nib("search 'retry failed request' -k 1", &out) == 0);
  CHECK(out.find("src/http_client.py:9-15  method send_request") != std::string::npos);
  CHECK(out.find("    10 |         # Retry a failed request") != std::string::npos);
  CHECK(nib("search --json -e 'uint32_t [a-z_0-9]+\\(' -p lib", &out) == 0);
  json j = json::parse(out);
  CHECK(j["route"] == "trigram");
  CHECK(j["hits"].size() == 2);
  CHECK(j["hits"][0]["range"]["start"]["line"] == 3);
  // Every answer says which version it reflects.
  CHECK(j["freshness"]["fresh"] == true);
  CHECK(j["freshness"]["indexCommit"].get<std::string>().size() == 40);
  CHECK(j["freshness"]["indexCommit"] == j["freshness"]["headCommit"]);
  CHECK(j["freshness"]["partial"] == false);
  CHECK(nib("search -e 'a(b' ", &out) == 1);
  CHECK(out.find("invalid regular expression") != std::string::npos);
  CHECK(nib("search x --route fast", &out) == 2);
  CHECK(nib("search -p ./lib fnv1a_hash", &out) == 0);  // "./" names the repository root
  CHECK(out.rfind("lib/hash.c:", 0) == 0);
  CHECK(nib("search -k 0 x", &out) == 2);
  CHECK(out.find("not in range 1") != std::string::npos);
  CHECK(nib("search \"$(printf 'two\\nlines')\"", &out) == 1);
  CHECK(out.find("line break") != std::string::npos);
  CHECK(nib("search zzqqxx_absent", &out) == 1);
  CHECK(out.find("no matches") != std::string::npos);
  CHECK(nib("search --json zzqqxx_absent", &out) == 1);
  CHECK(json::parse(out)["hits"].empty());

  LspClient c(repo.root());
  c.initialize(repo.root());
  json r = c.request("nib/search", {{"query", "least recently used"}, {"route", "lexical"}, {"k", 3},
                                    {"filters", {{"languages", {"go"}}}}});
  REQUIRE(r.contains("result"));
  REQUIRE_FALSE(r["result"]["hits"].empty());
  for (const json& h : r["result"]["hits"]) CHECK(h["path"].get<std::string>().rfind("lib/cache.go", 0) == 0);
  CHECK(r["result"]["hits"][0]["uri"] == LspClient::uri(repo.root() / "lib/cache.go"));
  CHECK(r["result"]["freshness"]["indexVersion"].get<std::string>().size() > 10);
  // An open buffer is searched as it is.
  std::string uri = LspClient::uri(repo.root() / "docs/README.md");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "markdown"}, {"version", 1},
                                                      {"text", "# Service\nunsaved_marker_token here\n"}}}});
  json b = c.request("nib/search", {{"query", "unsaved_marker_token"}});
  REQUIRE(b["result"]["hits"].size() == 1);
  CHECK(b["result"]["hits"][0]["range"]["start"]["line"] == 1);
  CHECK(c.request("nib/search", {{"query", "x"}, {"route", "fast"}})["error"]["code"] == -32602);
}

}  // namespace nib::test

namespace nib::test {

// `auto` ranks prose and matches code: a question with sentence punctuation (an apostrophe, a
// colon, a flag) is prose; brackets, operators and a lone token are code; a sentence that no
// line holds literally is ranked rather than answered with nothing.
TEST_CASE("auto search tells prose from code, and ranks words no line holds literally", "[search]") {
  TestRepo repo;
  copyFixture(repo);
  auto engine = indexAndOpen(repo);
  auto routeOf = [&](const std::string& query) {
    SearchRequest r;
    r.query = query;
    auto result = engine->search(r);
    REQUIRE(result.hasValue());
    return std::string(searchRouteName(result->route));
  };
  CHECK(routeOf("what's the checksum of a buffer?") == "lexical");
  CHECK(routeOf("hash: short strings, quickly") == "lexical");
  CHECK(routeOf("retry a failed request with --backoff") == "lexical");
  CHECK(routeOf("fnv1a_hash") == "trigram");
  CHECK(routeOf("fnv1a_hash(s)") == "trigram");
  CHECK(routeOf("a + b") == "trigram");
  CHECK(routeOf("std::vector") == "trigram");
  // Code-like but found nowhere literally: ranked, and said so.
  SearchRequest r;
  r.query = "checksum of a buffer; detect corrupted records";
  auto ranked = engine->search(r);
  REQUIRE(ranked.hasValue());
  CHECK(ranked->route == SearchRoute::Lexical);
  REQUIRE_FALSE(ranked->hits.empty());
  CHECK(ranked->hits[0].name == "buffer_checksum");
  CHECK(std::any_of(ranked->notes.begin(), ranked->notes.end(),
                    [](const std::string& n) { return n.find("ranked by its words") != std::string::npos; }));
  // Asked for trigram explicitly: exact lines only, however empty.
  r.route = SearchRoute::Trigram;
  CHECK(engine->search(r)->hits.empty());
}

}  // namespace nib::test

namespace nib::test {

// Proximity's own rule: consecutive query words close together and in order score, by the
// rarer one's idf over their distance; scattered, reversed or lone words do not.
TEST_CASE("proximity scores query words close together and in order", "[search]") {
  std::map<std::string, double> idf{{"time", 2.0}, {"live", 3.0}, {"key", 1.0}};
  ProximityQuery q = proximityQuery("time to live", idf);
  REQUIRE(q.words == std::vector<std::string>{"time", "live"});  // "to" is too short to pair
  CHECK(proximityScore("keys with a fixed time to live", q) == Approx(2.0 / 2));
  CHECK(proximityScore("long time_to_live = 5;", q) == Approx(2.0));  // one identifier's parts
  CHECK(proximityScore("live until the time", q) == 0);               // out of order
  CHECK(proximityScore("time is what the sweep checks before a key may live", q) == 0);  // too far
  CHECK(proximityScore("the time", q) == 0);
  CHECK(proximityScore("", proximityQuery("live", idf)) == 0);
}

}  // namespace nib::test

namespace nib::test {

// The comment block a unit's proximity (and its terms) count: the comment lines right above the
// unit's line, up to a blank or code line.
TEST_CASE("a unit's leading comment starts at the first comment line right above it", "[search]") {
  const std::string text = "int a;\n\n// first line\n  // second line\nint f(void) { return 0; }\n";
  const uint32_t unit = static_cast<uint32_t>(text.find("int f"));
  CHECK(leadingCommentStart(text, unit) == text.find("// first"));
  const std::string bare = "int a;\nint f(void) { return 0; }\n";
  CHECK(leadingCommentStart(bare, static_cast<uint32_t>(bare.find("int f"))) == bare.find("int f"));
  CHECK(leadingCommentStart("// only\nint f;", 8) == 0);
  CHECK(leadingCommentStart("int f;", 0) == 0);
  CHECK(leadingCommentStart("x", 99) == 1);  // past the end: clamped
}

}  // namespace nib::test
