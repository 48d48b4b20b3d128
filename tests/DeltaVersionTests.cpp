// Delta versions (IndexBuilder's update path, views/VersionDelta): a small change publishes a
// version that shares the last full build's view files and lists the files that differ; the
// query side lays them over the base. The freshness acceptance suite checks that its answers
// equal a golden index for every kind of change; these tests check the mechanism itself.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>

#include "TestRepo.h"
#include "indexer/Extractor.h"
#include "indexer/IndexBuilder.h"
#include "server/Engine.h"
#include "views/IndexLayout.h"
#include "views/VersionComparison.h"

namespace nib::test {
namespace fs = std::filesystem;
namespace {

const std::map<std::string, std::string> kFiles = {
    {"a.py", "def helper(x):\n    return x + 1\n"},
    {"b.py", "from a import helper\n\n\ndef use():\n    return helper(2)\n"},
    {"c.py", "def other():\n    return 3\n"},
    {"notes.txt", "the zebra crossing is documented here\n"},
};

// Stat data is trusted only for files modified well before a version's scan (the racy-clean
// rule), and these tests build within a second of their edits: every file gets one fixed time an
// hour ago before each build (edits here all change sizes, so the stat data still tells them).
void ageFiles(TestRepo& repo) {
  static const auto past = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& e : fs::recursive_directory_iterator(repo.root())) {
    std::string rel = fs::relative(e.path(), repo.root()).generic_string();
    if (rel.rfind(".git", 0) == 0 || rel.rfind(".nib", 0) == 0 || !e.is_regular_file()) continue;
    fs::last_write_time(e.path(), past);
  }
}

IndexReport build(TestRepo& repo, size_t budget = 256, size_t keep = 3) {
  ageFiles(repo);
  IndexOptions options;
  options.threads = 1;
  options.dense = false;
  options.deltaBudget = budget;
  options.keepVersions = keep;
  auto r = buildIndex(repo.root(), options);
  INFO(r.status().toString());
  REQUIRE(r.hasValue());
  return *r;
}

ino_t inodeOf(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_ino;
}

std::set<std::string> hitPaths(Engine& engine, const std::string& query, SearchRoute route) {
  SearchRequest r;
  r.query = query;
  r.route = route;
  auto hits = engine.search(r);
  INFO(hits.status().toString());
  REQUIRE(hits.hasValue());
  std::set<std::string> out;
  for (const SearchHit& h : hits->hits) out.insert(h.path);
  return out;
}

// A golden index of the worktree as it is, built from scratch in its own folder, compared with
// `version` of the repository's index; the golden folder is removed afterwards unless kept.
VersionComparisonResult compareWithGolden(TestRepo& repo, const std::string& version, IndexReport* goldenOut = nullptr) {
  fs::path goldenDir = repo.root() / ".nib" / "golden";
  IndexOptions golden;
  golden.threads = 1;
  golden.dense = false;
  golden.indexDir = goldenDir;
  auto built = buildIndex(repo.root(), golden);
  REQUIRE(built.hasValue());
  IndexLayout ours(repo.root() / ".nib"), theirs(goldenDir);
  auto cmp = compareVersions(ours.versionDir(version), ours.factsDir(), theirs.versionDir(built->manifest.versionId),
                             theirs.factsDir(), 5);
  REQUIRE(cmp.hasValue());
  for (const auto& d : cmp->differences) INFO(d.where + " " + d.key + " " + d.what);
  if (goldenOut) *goldenOut = *built;
  return *cmp;
}

}  // namespace

TEST_CASE("a small change publishes a delta over the last full build, reading only what changed", "[delta]") {
  TestRepo repo;
  repo.writeAll(kFiles);
  repo.commitAll();
  IndexReport first = build(repo);
  CHECK(first.deltaBase.empty());
  IndexLayout layout(repo.root() / ".nib");

  repo.write("a.py", "def helper(x):\n    return x + 10\n");
  IndexReport one = build(repo);
  CHECK(one.deltaBase == first.manifest.versionId);
  CHECK(one.deltaFiles == 1);
  CHECK(one.extracted == 1);
  CHECK(one.manifest.stats.at("delta.read") == "1");
  CHECK(one.manifest.base == first.manifest.versionId);
  // The views are the base's files themselves.
  for (const char* f : {"structural/data.mdb", "lexical/data.mdb", "trigram/data.mdb"})
    CHECK(inodeOf(layout.versionDir(one.manifest.versionId) / f) == inodeOf(layout.versionDir(first.manifest.versionId) / f));

  // A second change: a delta over the same base, holding both files; only the new one is read.
  repo.write("c.py", "def other():\n    return 40\n");
  IndexReport two = build(repo);
  CHECK(two.deltaBase == first.manifest.versionId);
  CHECK(two.deltaFiles == 2);
  CHECK(two.manifest.stats.at("delta.read") == "1");
  CHECK(two.manifest.previous == one.manifest.versionId);

  // Back to the base's content: that file needs no entry any more.
  repo.write("a.py", kFiles.at("a.py"));
  IndexReport three = build(repo);
  CHECK(three.deltaFiles == 1);

  // A file modified within a second of the last scan is read again even when its stat data
  // matches (it could have changed within one timestamp tick).
  IndexOptions again;
  again.threads = 1;
  again.dense = false;
  IndexReport racy = *buildIndex(repo.root(), again);  // c.py, a.py: aged, read by `three`
  fs::last_write_time(repo.root() / "c.py", fs::file_time_type::clock::now());
  IndexReport fresh1 = *buildIndex(repo.root(), again);
  IndexReport fresh2 = *buildIndex(repo.root(), again);  // c.py's mtime is within a second of fresh1's scan
  CHECK(fresh2.manifest.stats.at("delta.read") == "1");
  CHECK(fresh2.deltaFiles == racy.deltaFiles);
  (void)fresh1;

  // More files differ than the budget allows: every view is rewritten.
  repo.write("b.py", kFiles.at("b.py") + "\n\ndef more():\n    return helper(3)\n");
  IndexReport full = build(repo, /*budget=*/1);
  CHECK(full.deltaBase.empty());
  CHECK(full.manifest.base.empty());
  CHECK(inodeOf(layout.versionDir(full.manifest.versionId) / "trigram/data.mdb") !=
        inodeOf(layout.versionDir(first.manifest.versionId) / "trigram/data.mdb"));
  // The next small change is a delta over that new full build.
  repo.write("c.py", "def other():\n    return 500\n");
  CHECK(build(repo).deltaBase == full.manifest.versionId);
}

TEST_CASE("a delta version answers for its files: navigation, search, buffers, pruning, verify", "[delta]") {
  TestRepo repo;
  repo.writeAll(kFiles);
  repo.commitAll();
  IndexReport first = build(repo);
  repo.write("a.py", "def helper(x):\n    return x + 1\n\n\ndef quokka():\n    return helper(0)\n");
  repo.write("d.py", "from a import quokka\n\nvalue = quokka()\n");
  repo.remove("notes.txt");
  repo.remove("c.py");
  IndexReport delta = build(repo);
  REQUIRE(delta.deltaBase == first.manifest.versionId);
  CHECK(delta.deltaFiles == 4);

  auto engine = Engine::open(repo.root());
  REQUIRE(engine.hasValue());
  Engine& e = **engine;
  std::string a = kFiles.at("a.py");
  std::string aNow = "def helper(x):\n    return x + 1\n\n\ndef quokka():\n    return helper(0)\n";
  uint32_t quokkaAt = static_cast<uint32_t>(aNow.find("quokka"));
  auto refs = e.references("a.py", quokkaAt, true);
  REQUIRE(refs.hasValue());
  std::set<std::string> refPaths;
  for (const auto& l : refs->locations) refPaths.insert(l.path);
  CHECK(refPaths == std::set<std::string>{"a.py", "d.py"});
  CHECK(refs->locations.size() == 3);  // the definition, the import and the call in d.py
  // The deleted files are gone.
  CHECK_FALSE(e.fileRecord("c.py"));
  CHECK(e.fileRecord("d.py"));
  CHECK(e.fileRecord("a.py")->blobOid != e.fileRecord("b.py")->blobOid);
  std::vector<std::string> files;
  e.forEachFile([&](const FileRecord& r) {
    files.push_back(r.path);
    return true;
  });
  CHECK(files == std::vector<std::string>{"a.py", "b.py", "d.py"});
  auto fresh = e.freshness(true);
  REQUIRE(fresh.hasValue());
  CHECK(fresh->fresh);

  // Search: the changed and added files as they are, the deleted ones not at all.
  CHECK(hitPaths(e, "quokka", SearchRoute::Trigram) == std::set<std::string>{"a.py", "d.py"});
  CHECK(hitPaths(e, "zebra", SearchRoute::Trigram).empty());
  CHECK(hitPaths(e, "quokka", SearchRoute::Lexical).count("a.py"));
  CHECK(hitPaths(e, "other", SearchRoute::Lexical).empty());
  {
    // A kind filter keeps the changed file's functions (the file itself is not a function).
    SearchRequest r;
    r.query = "quokka";
    r.route = SearchRoute::Lexical;
    r.kinds = {SymbolKind::Function};
    auto hits = e.search(r);
    REQUIRE(hits.hasValue());
    REQUIRE(!hits->hits.empty());
    CHECK(hits->hits.front().path == "a.py");
    CHECK(hits->hits.front().name == "quokka");
    for (const SearchHit& h : hits->hits) CHECK(h.kind == SymbolKind::Function);
  }

  // An editor buffer over a delta file wins while open; closing it brings the delta's back.
  auto extractor = std::make_shared<Extractor>();
  e.setFactsExtractor([extractor](Language lang, std::string_view text) { return extractor->extract(lang, text); });
  REQUIRE(e.openBuffer("a.py", a).isOk());
  CHECK(e.hasOverlays());
  auto gone = e.definition("d.py", static_cast<uint32_t>(std::string("from a import quokka\n\nvalue = ").size()));
  CHECK((!gone.hasValue() || gone->locations.empty() || gone->locations.front().path != "a.py"));
  REQUIRE(e.closeBuffer("a.py").isOk());
  CHECK_FALSE(e.hasOverlays());
  auto back = e.definition("d.py", static_cast<uint32_t>(std::string("from a import quokka\n\nvalue = ").size()));
  REQUIRE(back.hasValue());
  REQUIRE(back->locations.size() == 1);
  CHECK(back->locations.front().path == "a.py");
  CHECK(back->locations.front().range.startByte == quokkaAt);

  // The delta declares what a rebuild from scratch does.
  IndexReport built;
  VersionComparisonResult cmp = compareWithGolden(repo, delta.manifest.versionId, &built);
  CHECK(cmp.identical);
  CHECK(cmp.delta);
  CHECK(cmp.files == 3);
  fs::path goldenDir = repo.root() / ".nib" / "golden";
  IndexLayout ours(repo.root() / ".nib");
  // Its statistics are the rebuild's too (counts, files per language, skipped per reason).
  auto counts = [](const Manifest& m) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : m.stats)
      if (k == "files" || k == "definitions" || k == "occurrences" || k == "source-bytes" || k.rfind("files.", 0) == 0 ||
          k.rfind("skipped.", 0) == 0)
        out[k] = v;
    return out;
  };
  CHECK(counts(delta.manifest) == counts(built.manifest));
  CHECK(counts(delta.manifest).count("skipped.no-grammar") == 0);  // notes.txt was deleted
  // Changed files are ranked by their units, as the rebuild ranks them.
  auto goldenEngine = Engine::open(repo.root(), goldenDir);
  REQUIRE(goldenEngine.hasValue());
  for (const char* query : {"quokka", "helper", "use helper"}) {
    INFO(query);
    SearchRequest r;
    r.query = query;
    r.route = SearchRoute::Lexical;
    auto ours = e.search(r), theirs = (*goldenEngine)->search(r);
    REQUIRE(ours.hasValue());
    REQUIRE(theirs.hasValue());
    REQUIRE(!theirs->hits.empty());
    REQUIRE(ours->hits.size() == theirs->hits.size());
    for (size_t i = 0; i < ours->hits.size(); ++i) {
      CHECK(ours->hits[i].path == theirs->hits[i].path);
      CHECK(ours->hits[i].name == theirs->hits[i].name);
      CHECK(ours->hits[i].range.startByte == theirs->hits[i].range.startByte);
    }
  }
  goldenEngine->reset();
  fs::remove_all(goldenDir);

  // Pruning keeps the base of every version it keeps, however many deltas came after it.
  for (int i = 0; i < 4; ++i) {
    repo.write("b.py", kFiles.at("b.py") + "# " + std::to_string(i) + "\n");
    CHECK(build(repo, 256, /*keep=*/2).deltaBase == first.manifest.versionId);
  }
  CHECK(fs::exists(ours.versionDir(first.manifest.versionId) / "manifest"));
  CHECK_FALSE(fs::exists(ours.versionDir(delta.manifest.versionId)));
  auto later = Engine::open(repo.root());
  REQUIRE(later.hasValue());
  CHECK(hitPaths(**later, "quokka", SearchRoute::Trigram) == std::set<std::string>{"a.py", "d.py"});
}

TEST_CASE("a delta judges a file by the bytes read, not by git's normalized blob id", "[delta]") {
  // With a text attribute, git stores CRLF content as the LF blob: the blob id in git's index
  // does not change, the bytes nib parses do.
  TestRepo repo;
  repo.writeAll({{".gitattributes", "*.py text\n"}, {"a.py", "def helper(x):\n    return x + 1\n"},
                 {"b.py", "from a import helper\n"}});
  repo.commitAll();
  IndexReport first = build(repo);
  repo.write("a.py", "def helper(x):\r\n    return x + 1\r\n");
  repo.git("add a.py");
  IndexReport delta = build(repo);
  REQUIRE(delta.deltaBase == first.manifest.versionId);
  CHECK(delta.deltaFiles == 1);
  CHECK(compareWithGolden(repo, delta.manifest.versionId).identical);
}

TEST_CASE("whole-module imports resolve to files a delta added, never to ones it deleted", "[delta]") {
  TestRepo repo;
  repo.writeAll({{"main.js", "const u = require('./u');\nu.foo();\n"}, {"v.js", "function bar() {}\n"}});
  repo.commitAll();
  build(repo);
  repo.write("u.js", "function foo() {}\nmodule.exports = { foo };\n");
  IndexReport added = build(repo);
  REQUIRE(!added.deltaBase.empty());
  {
    auto engine = Engine::open(repo.root());
    REQUIRE(engine.hasValue());
    auto def = (*engine)->definition("main.js", static_cast<uint32_t>(std::string("const u = require('./u');\n").size()));
    REQUIRE(def.hasValue());
    REQUIRE(def->locations.size() == 1);
    CHECK(def->locations.front().path == "u.js");
  }
  // Built in full with u.js, then deleted in a delta: the module is gone.
  build(repo, /*budget=*/0);
  repo.remove("u.js");
  IndexReport deleted = build(repo);
  REQUIRE(!deleted.deltaBase.empty());
  auto engine = Engine::open(repo.root());
  REQUIRE(engine.hasValue());
  auto def = (*engine)->definition("main.js", static_cast<uint32_t>(std::string("const u = require('./u');\n").size()));
  if (def.hasValue())
    for (const auto& l : def->locations) CHECK(l.path != "u.js");
}

}  // namespace nib::test

