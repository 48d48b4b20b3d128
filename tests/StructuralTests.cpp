// Structural navigation: call graphs of annotated fixtures in several languages checked exactly
// (callers, callees, impact, trace), the structural search route, nib/context bundles (budget,
// order, line numbers, follow-up) and the LSP extensions.
#include <catch2/catch.hpp>

#include <map>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Annotations.h"
#include "LspClient.h"
#include "TestRepo.h"
#include "indexer/IndexBuilder.h"
#include "providers/StaticProvider.h"
#include "providers/SymbolMatcher.h"
#include "server/ContextBuilder.h"
#include "server/Engine.h"
#include "server/StructuralAnswer.h"
#include "support/FileIo.h"

namespace nib::test {
namespace fs = std::filesystem;
using json = nlohmann::json;
namespace {


std::string at(const lsp::GraphItem& i) { return i.name + "@" + i.path + ":" + std::to_string(i.range.start.line + 1); }

// The answer in the fixtures' notation.
std::string render(StructuralQuery q, const lsp::StructuralAnswer& a) {
  std::string out;
  auto add = [&](const std::string& s, const char* sep) { out += (out.empty() ? "" : sep) + s; };
  switch (q) {
    case StructuralQuery::Callers:
      for (const auto& h : a.hops) add(at(h.from), " ");
      break;
    case StructuralQuery::Callees:
      for (const auto& h : a.hops) add(at(h.to), " ");
      break;
    case StructuralQuery::Impact:
      for (const auto& e : a.impact) add(std::to_string(e.distance) + " " + e.via + " " + at(e.item), "; ");
      break;
    case StructuralQuery::Trace:
      if (!a.hops.empty()) out = a.hops.front().from.name;
      for (const auto& h : a.hops) out += " " + h.to.name;
      break;
  }
  return out;
}

// Writes and commits a call-graph fixture's files (tests/fixtures/callgraph/<name>).
Annotations writeFixture(TestRepo& repo, const std::string& name) {
  Annotations fixture = parseAnnotations(*readFile(fs::path(NIB_FIXTURE_DIR) / "callgraph" / name));
  repo.writeAll(fixture.files);
  repo.commitAll();
  return fixture;
}

}  // namespace

TEST_CASE("call graphs of fixtures in several languages are exact", "[structural]") {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(NIB_FIXTURE_DIR) / "callgraph")) {
    if (entry.path().extension() != ".fixture") continue;
    Annotations fixture = parseAnnotations(*readFile(entry.path()));
    TestRepo repo;
    repo.writeAll(fixture.files);
    repo.commitAll();
    auto engine = indexAndOpen(repo);
    for (const auto& [key, expected] : fixture.directives) {
      std::istringstream words(key);
      std::string method, symbol, to;
      words >> method >> symbol >> to;
      StructuralQuery q;
      if (!parseStructuralQuery(method, &q)) continue;
      StructuralOptions options;
      options.depth = q == StructuralQuery::Impact ? 4 : q == StructuralQuery::Trace ? 8 : 1;
      StructuralTarget target{symbol, "", 0, false}, end{to, "", 0, false};
      auto answer = structuralAnswer(*engine, q, target, q == StructuralQuery::Trace ? &end : nullptr, options);
      INFO(entry.path().filename().string() << ": " << key);
      REQUIRE(answer.hasValue());
      CHECK(render(q, *answer) == expected);
      CHECK(answer->freshness.at("fresh") == "true");
      ++checked;
    }
  }
  CHECK(checked >= 20);
}

TEST_CASE("structural targets: unknown names are errors, positions work, the call hierarchy agrees", "[structural]") {
  TestRepo repo;
  Annotations fixture = writeFixture(repo, "c.fixture");
  auto engine = indexAndOpen(repo);
  StructuralOptions options;
  auto unknown = structuralAnswer(*engine, StructuralQuery::Callers, {"no_such_function", "", 0, false}, nullptr, options);
  REQUIRE_FALSE(unknown.hasValue());
  CHECK(unknown.status().message().find("no definition named 'no_such_function'") != std::string::npos);
  // The position of `helper` in its definition (util.c line 2) names the same node.
  std::string util = fixture.files.at("util.c");
  uint32_t offset = static_cast<uint32_t>(util.find("helper(int x) {"));
  auto byPosition = structuralAnswer(*engine, StructuralQuery::Callers, {"", "util.c", offset, true}, nullptr, options);
  REQUIRE(byPosition.hasValue());
  CHECK(render(StructuralQuery::Callers, *byPosition) == "twice@util.c:3");
  // callHierarchy/incomingCalls is the same walk: one edge with both call sites.
  int32_t helperDef = -1;
  for (const CallNode& n : engine->definitionsNamed("helper"))
    if (n.path == "util.c") helperDef = n.definition;
  REQUIRE(helperDef >= 0);
  auto incoming = engine->incomingCalls("util.c", helperDef);
  REQUIRE(incoming.hasValue());
  REQUIRE(incoming->size() == 1);
  CHECK((*incoming)[0].node.name == "twice");
  CHECK((*incoming)[0].sites.size() == 2);
}

TEST_CASE("the structural route fuses lexical hits with their call-graph neighbours", "[structural][search]") {
  TestRepo repo;
  repo.write("net/retry.py",
             "def send_with_retry(request):\n    # Retry a failed request with backoff.\n    return transmit(request)\n");
  repo.write("net/wire.py", "def transmit(request):\n    return len(request)\n");
  repo.write("misc/other.py", "def unrelated():\n    return 42\n");
  repo.commitAll();
  auto engine = indexAndOpen(repo);
  SearchRequest r;
  r.query = "retry backoff";
  r.route = SearchRoute::Lexical;
  r.kinds = {SymbolKind::Function};
  auto lexical = engine->search(r);
  REQUIRE(lexical.hasValue());
  bool lexicalHasTransmit = false;
  for (const auto& h : lexical->hits) lexicalHasTransmit |= h.name == "transmit";
  r.route = SearchRoute::Structural;
  auto structural = engine->search(r);
  REQUIRE(structural.hasValue());
  REQUIRE(structural->hits.size() >= 2);
  CHECK(structural->route == SearchRoute::Structural);
  CHECK(structural->hits[0].name == "send_with_retry");
  // The callee comes in through the graph even though its text shares no word with the query.
  CHECK_FALSE(lexicalHasTransmit);
  bool hasTransmit = false;
  for (const auto& h : structural->hits) hasTransmit |= h.name == "transmit" && h.snippet.find("def transmit") == 0;
  CHECK(hasTransmit);
  for (const auto& h : structural->hits) CHECK(h.name != "unrelated");
}

TEST_CASE("context bundles respect the budget, order units and number lines, and name what did not fit",
          "[structural][context]") {
  TestRepo repo;
  Annotations fixture = parseAnnotations(*readFile(fs::path(NIB_FIXTURE_DIR) / "callgraph" / "c.fixture"));
  repo.writeAll(fixture.files);
  // A long function that cannot fit a small budget.
  std::string big = "int big_table(int i) {\n  switch (i) {\n";
  for (int i = 0; i < 300; ++i) big += "    case " + std::to_string(i) + ": return helper(" + std::to_string(i) + ");\n";
  big += "  }\n  return 0;\n}\n";
  repo.write("table.c", "#include \"util.h\"\n" + big);
  repo.commitAll();
  auto engine = indexAndOpen(repo);

  ContextRequest request{{"main", "helper"}, {}, "", 1000};
  auto a = buildContext(*engine, request);
  REQUIRE(a.hasValue());
  CHECK(a->tokensUsed <= request.budgetTokens);
  CHECK(a->tokensUsed == estimateTokens(a->text));
  CHECK(a->text.find("tokens: " + std::to_string(a->tokensUsed) + " of 1000") != std::string::npos);
  // Named symbols first, in the order asked.
  REQUIRE(a->units.size() >= 2);
  CHECK(a->units[0].name == "main");
  CHECK(a->units[0].reason == "symbol");
  CHECK(a->units[1].name == "helper");
  // The flow between them, and line numbers that match the files (1-based gutters).
  REQUIRE(a->flows.size() == 1);
  REQUIRE(a->flows[0].hops.size() == 4);
  CHECK(a->text.find("main -> helper: main (main.c:5) -> run (main.c:4") != std::string::npos);
  CHECK(a->units[0].text.find("5| int main(void) { return run(); }\n") != std::string::npos);
  // helper's blast radius holds big_table (300 call sites, one caller).
  bool blastHasTable = false;
  for (const auto& b : a->blast)
    for (const auto& e : b.entries) blastHasTable |= e.node.name == "big_table" && e.distance == 1;
  CHECK(blastHasTable);
  // big_table is relevant (a caller of a named symbol) but over the budget: omitted and named
  // in the follow-up, whose budget would fit it.
  bool omitted = false;
  for (const auto& o : a->omitted) omitted |= o.name == "big_table";
  CHECK(omitted);
  REQUIRE(a->hasFollowUp);
  CHECK(std::find(a->followUp.symbols.begin(), a->followUp.symbols.end(), "big_table") != a->followUp.symbols.end());
  CHECK(a->followUp.budgetTokens > 1000);
  CHECK(a->text.find("follow-up: nib context --symbol big_table") != std::string::npos);
  // Deterministic.
  auto again = buildContext(*engine, request);
  REQUIRE(again.hasValue());
  CHECK(again->text == a->text);
  // The follow-up fits what was left out.
  auto follow = buildContext(*engine, a->followUp);
  REQUIRE(follow.hasValue());
  bool included = false;
  for (const auto& u : follow->units) included |= u.name == "big_table";
  CHECK(included);

  // Repeated names count once; the outline stays bounded however many are asked for.
  std::vector<std::string> many(800, "main");
  many.push_back("helper");
  for (int i = 0; i < 50; ++i) many.push_back("unknown_" + std::to_string(i) + std::string(1000, 'x'));
  auto bounded = buildContext(*engine, ContextRequest{many, {}, "", 1000});
  REQUIRE(bounded.hasValue());
  CHECK(bounded->tokensUsed <= 1000);
  CHECK(bounded->flows.size() == 1);  // main -> helper, once
  CHECK(bounded->unresolved.size() == 18);  // 20 distinct names at most; main and helper resolve
  for (const std::string& u : bounded->unresolved) CHECK(u.size() <= 256);
  // Bad input is refused with a reason.
  CHECK_FALSE(buildContext(*engine, ContextRequest{{}, {}, "", 4000}).hasValue());
  CHECK_FALSE(buildContext(*engine, ContextRequest{{"main"}, {}, "", 10}).hasValue());
  auto unknown = buildContext(*engine, ContextRequest{{"nonexistent_fn"}, {"missing.c"}, "", 2000});
  REQUIRE(unknown.hasValue());
  CHECK(unknown->unresolved == std::vector<std::string>{"nonexistent_fn", "missing.c"});
  CHECK(unknown->units.empty());
}

// A file without a grammar is its own only unit: an intent that points into it gets the lines
// its words are in (a window), not nothing — whole-file hits were once left out of bundles for
// their functions to compete, which such a file does not have — and not the whole file.
TEST_CASE("an intent's bundle shows the part of a file without a grammar that its words point to",
          "[structural][context]") {
  TestRepo repo;
  std::string grammar = "%token IF ELSE EXPR OTHER\n%%\n";
  for (int i = 0; i < 200; ++i)
    grammar += "rule" + std::to_string(i) + " : OTHER rule" + std::to_string(i) + " | OTHER ;\n";
  grammar += "/* The dangling else binds to the nearest unmatched if: shift, do not reduce. */\n"
             "statement : IF EXPR statement %prec THEN | IF EXPR statement ELSE statement ;\n";
  for (int i = 200; i < 400; ++i)
    grammar += "rule" + std::to_string(i) + " : OTHER rule" + std::to_string(i) + " | OTHER ;\n";
  repo.write("parse.y", grammar);
  repo.write("main.c", "/* Runs the parser. */\nint main(void) { return yyparse(); }\n");
  repo.commitAll();
  auto engine = indexAndOpen(repo);
  auto a = buildContext(*engine, ContextRequest{{}, {}, "dangling else binds nearest unmatched if", 2000});
  REQUIRE(a.hasValue());
  const ContextUnit* excerpt = nullptr;
  for (const ContextUnit& u : a->units)
    if (u.path == "parse.y") excerpt = &u;
  REQUIRE(excerpt != nullptr);
  CHECK(excerpt->reason == "intent");
  CHECK(excerpt->range.start.line <= 202);
  CHECK(excerpt->range.end.line >= 203);
  CHECK(excerpt->range.end.line - excerpt->range.start.line < 60);
  CHECK(excerpt->text.find("203| /* The dangling else binds") != std::string::npos);
  CHECK(a->tokensUsed <= 2000);
}

// One file whose ten functions all say the intent's words outranks a file with one function
// that says them less often: the bundle still shows the second file, since a file's units after
// its first three wait until every other file's first ones are in.
TEST_CASE("an intent's bundle gives its first places to a few units of each file", "[structural][context]") {
  TestRepo repo;
  // Twenty-five functions that say every word of the intent, ranked above the one function of
  // another file that says one of them (26th): the limit holds over all the intent's hits.
  std::string big;
  for (int i = 0; i < 25; ++i)
    big += "/* Flushes the journal buffer to disk, then syncs the journal file. */\nint journal_flush_" +
           std::to_string(i) + "(int fd) {\n  int journal = fd + " + std::to_string(i) +
           ";\n  return journal_sync(journal, \"flush journal buffer disk\");\n}\n\n";
  repo.write("src/journal.c", big);
  repo.write("src/disk.c", "/* Waits for the device. */\nint device_wait(int fd) {\n"
                           "  return wait_for(fd, \"disk\");\n}\n");
  repo.commitAll();
  auto engine = indexAndOpen(repo);
  auto a = buildContext(*engine, ContextRequest{{}, {}, "flush the journal buffer to disk", 800});
  REQUIRE(a.hasValue());
  std::map<std::string, int> units;
  for (const ContextUnit& u : a->units) ++units[u.path];
  INFO(a->text);
  CHECK(units["src/disk.c"] == 1);
  CHECK(units["src/journal.c"] >= 2);  // its first two, and later ones as the budget allows
  CHECK(units["src/journal.c"] < 25);
}

TEST_CASE("nib/callers, nib/impact, nib/trace and nib/context over LSP", "[structural][lsp]") {
  TestRepo repo;
  Annotations fixture = writeFixture(repo, "python.fixture");
  indexAndOpen(repo);
  LspClient c(repo.root());
  c.initialize(repo.root());
  json callers = c.request("nib/callers", {{"symbol", "distance"}});
  REQUIRE(callers.contains("result"));
  REQUIRE(callers["result"]["hops"].size() == 1);
  CHECK(callers["result"]["hops"][0]["from"]["name"] == "run");
  CHECK(callers["result"]["hops"][0]["from"]["uri"] == LspClient::uri(repo.root() / "app/main.py"));
  CHECK(callers["result"]["hops"][0]["sites"][0]["start"]["line"] == 6);
  CHECK(callers["result"]["freshness"]["fresh"] == true);
  // By position: `distance` where main.py calls it (line 7, 0-based 6).
  json byPos = c.request("nib/callers", {{"textDocument", {{"uri", LspClient::uri(repo.root() / "app/main.py")}}},
                                         {"position", {{"line", 6}, {"character", 12}}}});
  CHECK(byPos["result"]["hops"] == callers["result"]["hops"]);
  json impact = c.request("nib/impact", {{"symbol", "distance"}});
  REQUIRE(impact["result"]["impact"].size() == 2);
  CHECK(impact["result"]["impact"][1]["item"]["name"] == "main");
  CHECK(impact["result"]["impact"][1]["distance"] == 2);
  json trace = c.request("nib/trace", {{"from", "main"}, {"to", "distance"}});
  CHECK(trace["result"]["found"] == true);
  CHECK(trace["result"]["hops"].size() == 2);
  json unknown = c.request("nib/callers", {{"symbol", "nope_nothing"}});
  CHECK(unknown["error"]["code"] == -32803);
  json ctx = c.request("nib/context", {{"symbols", {"run"}}, {"budgetTokens", 800}});
  REQUIRE(ctx.contains("result"));
  CHECK(ctx["result"]["tokensUsed"].get<int>() <= 800);
  CHECK(ctx["result"]["units"][0]["name"] == "run");
  CHECK(ctx["result"]["estimator"] == "ceil(utf8Bytes / 4)");
  CHECK(c.request("nib/context", {{"budgetTokens", 800}})["error"]["code"] == -32602);
}

TEST_CASE("a file replaced by a link to outside the repository is never read through", "[structural][context]") {
  TestRepo repo;
  repo.write("src/a.c", "int visible(void) { return 1; }\n");
  repo.commitAll();
  auto engine = indexAndOpen(repo);
  fs::path secret = repo.root().parent_path() / ("nib-secret-" + repo.root().filename().string() + ".txt");
  { std::ofstream(secret) << "SECRET_TOKEN=abc123\n"; }
  fs::remove(repo.root() / "src/a.c");
  fs::create_symlink(secret, repo.root() / "src/a.c");
  auto text = engine->currentText("src/a.c");
  REQUIRE_FALSE(text.hasValue());
  CHECK(text.status().message().find("symbolic link") != std::string::npos);
  auto a = buildContext(*engine, ContextRequest{{"visible"}, {"src/a.c"}, "", 2000});
  REQUIRE(a.hasValue());
  CHECK(a->text.find("SECRET_TOKEN") == std::string::npos);
  fs::remove(secret);
}

TEST_CASE("a version's call graph is kept beside it and reused, a damaged copy is resolved again", "[structural]") {
  TestRepo repo;
  Annotations fixture = writeFixture(repo, "c.fixture");
  auto engine = indexAndOpen(repo);
  fs::path kept = repo.root() / ".nib" / "versions" / engine->manifest().versionId / "structural" / "callgraph.bin";
  CHECK_FALSE(fs::exists(kept));
  StructuralOptions options;
  options.depth = 4;
  auto first = structuralAnswer(*engine, StructuralQuery::Impact, {"helper", "", 0, false}, nullptr, options);
  REQUIRE(first.hasValue());
  CHECK(fs::exists(kept));
  // Another process (a new engine) reads it and answers the same.
  auto reopened = Engine::open(repo.root());
  REQUIRE(reopened.hasValue());
  auto second = structuralAnswer(**reopened, StructuralQuery::Impact, {"helper", "", 0, false}, nullptr, options);
  REQUIRE(second.hasValue());
  CHECK(render(StructuralQuery::Impact, *second) == render(StructuralQuery::Impact, *first));
  auto bytes = readFile(kept);
  REQUIRE(bytes.hasValue());
  auto decoded = CallGraph::deserialize(*bytes);
  REQUIRE(decoded.hasValue());
  CHECK(decoded->serialize() == *bytes);
  // Truncated: ignored, resolved again, and the answer is unchanged.
  { std::ofstream(kept, std::ios::trunc) << bytes->substr(0, bytes->size() / 2); }
  CHECK_FALSE(CallGraph::deserialize(*readFile(kept)).hasValue());
  auto third = Engine::open(repo.root());
  REQUIRE(third.hasValue());
  auto again = structuralAnswer(**third, StructuralQuery::Impact, {"helper", "", 0, false}, nullptr, options);
  REQUIRE(again.hasValue());
  CHECK(render(StructuralQuery::Impact, *again) == render(StructuralQuery::Impact, *first));
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("the smallest budget still holds the whole answer", "[structural][context]") {
  TestRepo repo;
  Annotations fixture = writeFixture(repo, "c.fixture");
  auto engine = indexAndOpen(repo);
  for (size_t budget : {200, 300, 500}) {
    auto a = buildContext(*engine, ContextRequest{{"helper", "area", "twice", "run", "main"}, {}, "", budget});
    REQUIRE(a.hasValue());
    INFO(a->text);
    CHECK(a->tokensUsed <= budget);
    CHECK(a->text.find("tokens: " + std::to_string(a->tokensUsed) + " of " + std::to_string(budget)) !=
          std::string::npos);
  }
}

}  // namespace nib::test

TEST_CASE("workspace symbol scores: tiers, ASCII case, and names that cannot match", "[structural]") {
  nib::SymbolMatcher m("getCommit");
  CHECK(m.score("getCommit") == 100.0);
  CHECK(m.score("GETCOMMIT") == 90.0);  // the byte filter folds case as the comparison does
  CHECK(m.score("GetCommitDigest") == Approx(70.0 + 10.0 * 9 / 15));
  CHECK(m.score("doGetCommit") == Approx(50.0 + 10.0 * 9 / 11));
  CHECK(m.score("gitRecentCommit") == Approx(20.0 + 10.0 * 9 / 15));  // g-e-t-c-o-m-m-i-t in order
  CHECK(m.score("getCommi") == 0.0);          // shorter than the query
  CHECK(m.score("gitRecentComit") == 0.0);    // every byte present, one 'm' short
  CHECK(m.score("fetchCommand_xyz") == 0.0);  // no 'i': refused by the byte filter
  CHECK(nib::SymbolMatcher("").score("anything") == 0.0);
  // Only lines holding the query's rarest byte, in either case, are looked at; a line whose
  // kind byte alone is that byte is looked at too (and scores nothing).
  std::vector<std::string> seen;
  nib::SymbolMatcher("qx").forEachCandidate("Gabc\nGfooQbar\nMxyz\nGq\nMnothing\n",
                                            [&](std::string_view line) { seen.emplace_back(line); });
  CHECK(seen == std::vector<std::string>{"GfooQbar", "Gq"});
  seen.clear();
  nib::SymbolMatcher("m").forEachCandidate("Gabc\nMxyz\nGum\n", [&](std::string_view line) { seen.emplace_back(line); });
  CHECK(seen == std::vector<std::string>{"Mxyz", "Gum"});
}

TEST_CASE("references are the same whatever the loaded-file cache may hold", "[structural]") {
  // 60 modules each calling a function of util.py, each importing a helper of the one before:
  // a query loads them all, and with a tiny bound the cache is trimmed in its middle.
  nib::test::TestRepo repo;
  repo.write("util.py", "def shared(x):\n    return x\n");
  for (int i = 0; i < 60; ++i) {
    std::string prev = i == 0 ? "" : "from m" + std::to_string(i - 1) + " import helper" + std::to_string(i - 1) + "\n";
    repo.write("m" + std::to_string(i) + ".py", "from util import shared\n" + prev + "def helper" + std::to_string(i) +
                                                    "():\n    return shared(" + std::to_string(i) + ")\n");
  }
  repo.commitAll();
  nib::IndexOptions options;
  options.dense = false;
  REQUIRE(nib::buildIndex(repo.root(), options).hasValue());
  auto answer = [&](size_t bound) {
    auto provider = nib::StaticProvider::open(repo.root() / ".nib");
    REQUIRE(provider.hasValue());
    if (bound) (*provider)->setCacheBound(bound);
    std::vector<std::string> out;
    for (int round = 0; round < 2; ++round) {  // the second round meets a trimmed cache
      auto refs = (*provider)->references("util.py", 4, true);
      REQUIRE(refs.hasValue());
      out.clear();
      for (const auto& l : refs->locations) out.push_back(l.path + ":" + std::to_string(l.range.startByte));
    }
    return out;
  };
  auto whole = answer(0);
  CHECK(whole.size() == 121);  // the definition, and per module its import and its call
  CHECK(answer(8) == whole);
}
