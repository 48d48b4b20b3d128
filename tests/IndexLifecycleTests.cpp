// Building, publishing and serving index versions: the manifest contract (digests, atomic
// switch, rollback), crash safety, worktree identity and the files nib refuses to index.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "LspClient.h"
#include "TestRepo.h"
#include "indexer/GitRepository.h"
#include "indexer/IndexBuilder.h"
#include "providers/StaticProvider.h"
#include "support/FileIo.h"
#include "views/CommitView.h"
#include "views/FactStore.h"
#include "views/IndexLayout.h"

namespace nib::test {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

IndexReport build(const TestRepo& repo, IndexOptions options = {}) {
  options.threads = options.threads ? options.threads : 2;
  auto r = buildIndex(repo.root(), options);
  INFO(r.status().toString());
  REQUIRE(r.hasValue());
  return std::move(*r);
}

std::string skipReasonOf(const TestRepo& repo, const std::string& path) {
  auto p = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(p.hasValue());
  auto reason = (*p)->skipReason(path);
  return reason ? *reason : "";
}

}  // namespace

TEST_CASE("manifest round-trips and detects tampering", "[manifest]") {
  Manifest m;
  m.versionId = "v1";
  m.created = "2026-11-30T00:00:00Z";
  m.sourceCommit = std::string(40, 'a');
  m.sourceTree = std::string(40, 'b');
  m.dirty = true;
  m.nibVersion = "0.1.0";
  m.extractorProfile = "p";
  m.grammars = "tree-sitter-c@0.23.6";
  m.configDigest = "c";
  ViewRecord v;
  v.name = "structural";
  v.status = ViewStatus::Complete;
  v.capabilities = {"definitions", "references"};
  v.artifacts = {{"structural/data.mdb", std::string(32, 'd'), 1234}};
  m.views = {v, ViewRecord{"dense", ViewStatus::Failed, "", {}, {}, "no model"}};
  m.stats["files"] = "3";
  std::string text = m.serialize();
  auto back = Manifest::parse(text);
  REQUIRE(back.hasValue());
  CHECK(back->serialize() == text);
  CHECK(back->dirty);
  CHECK(back->servable());
  REQUIRE(back->view("dense"));
  CHECK(back->view("dense")->status == ViewStatus::Failed);
  CHECK(back->view("dense")->error == "no model");

  std::string tampered = text;
  tampered.replace(tampered.find("dirty: true"), 11, "dirty: fals");
  auto t = Manifest::parse(tampered);
  REQUIRE_FALSE(t.hasValue());
  CHECK(t.status().code() == ErrorCode::Corrupt);
  CHECK_FALSE(Manifest::parse(text.substr(0, text.size() / 2)).hasValue());
  CHECK_FALSE(Manifest::parse("garbage").hasValue());
}

TEST_CASE("a clean worktree's tree id equals HEAD's tree, and a dirty one differs", "[git]") {
  TestRepo repo;
  repo.write("a.py", "def f():\n    return 1\n");
  repo.write("sub/dir/b.go", "package dir\n");
  repo.write("bin.dat", std::string("\0\1\2", 3));
  repo.commitAll();
  IndexReport clean = build(repo);
  std::string out;
  REQUIRE(runCommand("git -C " + shellQuote(repo.root().string()) + " rev-parse HEAD^{tree}", &out) == 0);
  CHECK(clean.manifest.sourceTree + "\n" == out);
  CHECK_FALSE(clean.manifest.dirty);
  REQUIRE(runCommand("git -C " + shellQuote(repo.root().string()) + " rev-parse HEAD", &out) == 0);
  CHECK(clean.manifest.sourceCommit + "\n" == out);

  repo.write("a.py", "def f():\n    return 2\n");
  repo.write("new.py", "x = 1\n");
  IndexReport dirty = build(repo);
  CHECK(dirty.manifest.dirty);
  CHECK(dirty.manifest.sourceTree != clean.manifest.sourceTree);
  // The dirty tree id is what git itself computes for the same content.
  repo.git("add -A");
  REQUIRE(runCommand("git -C " + shellQuote(repo.root().string()) + " write-tree", &out) == 0);
  CHECK(dirty.manifest.sourceTree + "\n" == out);
  CHECK(dirty.files == 3);
  CHECK(dirty.reused == 1);  // b.go did not change
}

TEST_CASE("the index stays out of git status and records skipped files with reasons", "[index]") {
  TestRepo repo;
  repo.write("ok.c", "int main(void) { return 0; }\n");
  repo.write("blob.c", std::string("int x;\0\0\0binary", 15));
  repo.write("huge.py", "x = 1\n" + std::string(2 << 20, '#'));
  repo.write("notes.txt", "hello\n");
  repo.write("bad.py", "def caf\xE9():\n    pass\n");
  fs::create_symlink("ok.c", repo.root() / "link.c");
  repo.commitAll();
  TestRepo nested;  // an untracked nested repository behaves like a submodule
  nested.write("inner.py", "y = 2\n");
  nested.commitAll();
  fs::rename(nested.root(), repo.root() / "vendor");
  fs::create_directories(nested.root());

  IndexReport r = build(repo);
  CHECK(r.files == 2);  // ok.c and bad.py: invalid UTF-8 is indexed, not rejected
  CHECK(r.skippedByReason["binary"] == 1);
  CHECK(r.skippedByReason["too-large"] == 1);
  CHECK(r.skippedByReason["symlink"] == 1);
  CHECK(r.skippedByReason["submodule"] == 1);
  CHECK(r.skippedByReason["no-grammar"] == 1);
  CHECK(skipReasonOf(repo, "blob.c") == "binary");
  CHECK(skipReasonOf(repo, "vendor") == "submodule");
  CHECK(r.manifest.sourceTree.empty());  // a nested repository has no blob id to hash

  std::string status;
  REQUIRE(runCommand("git -C " + shellQuote(repo.root().string()) + " status --porcelain", &status) == 0);
  CHECK(status.find(".nib") == std::string::npos);
  CHECK(fs::exists(repo.root() / ".nib" / "CURRENT"));

  IndexOptions small;
  small.maxFileSize = 10;
  IndexReport r2 = build(repo, small);
  CHECK(r2.skippedByReason["too-large"] >= 2);
  CHECK(r2.manifest.configDigest != r.manifest.configDigest);
}

TEST_CASE("a build killed before publication never becomes current", "[manifest]") {
  TestRepo repo;
  repo.write("a.py", "def first():\n    pass\n");
  repo.commitAll();
  IndexReport good = build(repo);
  IndexLayout layout = IndexLayout::forRepository(repo.root());
  REQUIRE(*layout.currentVersion() == good.manifest.versionId);

  repo.write("a.py", "def second():\n    pass\n");
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    IndexOptions options;
    options.threads = 1;
    options.beforePublish = [] { ::_exit(3); };  // dies with everything written but CURRENT
    (void)buildIndex(repo.root(), options);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 3);

  CHECK(*layout.currentVersion() == good.manifest.versionId);
  auto provider = StaticProvider::open(layout.dir());
  REQUIRE(provider.hasValue());
  auto syms = (*provider)->symbols("first", 5);
  REQUIRE(syms.size() == 1);
  CHECK(syms[0].location.name == "first");
  CHECK((*provider)->symbols("second", 5).empty());
  CHECK(layout.listVersions().size() == 2);  // the dead build's folder is still there...
  IndexReport next = build(repo);             // ...until the next build cleans it up
  CHECK(*layout.currentVersion() == next.manifest.versionId);
  CHECK(next.manifest.previous == good.manifest.versionId);
}

TEST_CASE("rollback restores the previous version and corrupt artifacts refuse to serve", "[manifest]") {
  TestRepo repo;
  repo.write("m.go", "package m\nfunc Old() {}\n");
  repo.commitAll();
  IndexReport v1 = build(repo);
  repo.write("m.go", "package m\nfunc New() {}\n");
  IndexReport v2 = build(repo);
  IndexLayout layout = IndexLayout::forRepository(repo.root());
  REQUIRE(v2.manifest.previous == v1.manifest.versionId);

  std::string out;
  int rc = runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " rollback", &out, true);
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(*layout.currentVersion() == v1.manifest.versionId);
  auto p = StaticProvider::open(layout.dir());
  REQUIRE(p.hasValue());
  CHECK((*p)->symbols("Old", 3).size() == 1);
  CHECK((*p)->symbols("New", 3).empty());

  // Truncating the current artifact makes the version unservable, with a clear error.
  fs::resize_file(layout.versionDir(v1.manifest.versionId) / "structural" / "data.mdb", 100);
  auto broken = StaticProvider::open(layout.dir());
  REQUIRE_FALSE(broken.hasValue());
  CHECK(broken.status().code() == ErrorCode::Corrupt);
  CHECK(broken.status().message().find("data.mdb") != std::string::npos);
}

TEST_CASE("versions are pruned to the newest few, keeping the rollback target", "[manifest]") {
  TestRepo repo;
  repo.write("a.rs", "fn a() {}\n");
  repo.commitAll();
  IndexOptions options;
  options.keepVersions = 2;
  options.deltaBudget = 0;  // full versions (with deltas, their base stays too: DeltaVersionTests)
  std::string previous;
  for (int i = 0; i < 4; ++i) {
    repo.write("a.rs", "fn a" + std::to_string(i) + "() {}\n");
    IndexReport r = build(repo, options);
    previous = r.manifest.previous;
  }
  IndexLayout layout = IndexLayout::forRepository(repo.root());
  auto versions = layout.listVersions();
  CHECK(versions.size() == 2);
  CHECK(std::find(versions.begin(), versions.end(), previous) != versions.end());
}


namespace nib::test {

TEST_CASE("hostile sources index without failing and stay queryable", "[index]") {
  TestRepo repo;
  std::string longName(700, 'x');
  repo.write("long.c", "int " + longName + "(void) { return 0; }\nint use(void) { return " + longName + "(); }\n");
  repo.write("empty.py", "");
  repo.write("crlf.py", "def f():\r\n    return 1\r\n\r\nf()\r\n");
  repo.write("dir with space/na\xC3\xAFve.py", "def g():\n    pass\n");
  repo.write("minified.js", "var a=1;" + std::string(200000, ';') + "function h(){return a}\n");
  repo.write("broken.go", "package main\nfunc (\n");
  std::string longDir = std::string(200, 'd') + "/" + std::string(200, 'e') + "/" + std::string(200, 'f');
  repo.write(longDir + "/deep.py", "def deep():\n    pass\n");
  repo.commitAll();
  IndexReport r = build(repo);
  CHECK(r.files == 6);
  CHECK(r.skippedByReason["path-too-long"] == 1);
  auto p = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(p.hasValue());
  // The over-long name is left out of the name tables, but its file still answers locally.
  auto facts = (*p)->facts("long.c");
  REQUIRE(facts.hasValue());
  CHECK(facts->definitions.size() == 2);
  auto def = (*p)->definition("long.c", static_cast<uint32_t>(facts->occurrences.back().range.startByte));
  REQUIRE(def.hasValue());
  REQUIRE(def->locations.size() == 1);
  CHECK(def->locations[0].range.start.line == 0);
  // CRLF line endings keep byte offsets and lines exact.
  auto crlf = (*p)->definition("crlf.py", 26);  // the `f` in the last line
  REQUIRE(crlf.hasValue());
  REQUIRE(crlf->locations.size() == 1);
  CHECK(crlf->locations[0].range.start == Position{0, 4});
  CHECK((*p)->symbols("g", 5).size() >= 1);
  CHECK((*p)->file("dir with space/na\xC3\xAFve.py").has_value());
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("a failed extraction is remembered: the next build does not parse the same bytes again", "[index]") {
  TestRepo repo;
  // Large enough that a 1 µs parse budget runs out (tree-sitter checks it as it goes).
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "int f" + std::to_string(i) + "(int x) { return x + " + std::to_string(i) + "; }\n";
  repo.write("big.c", big);
  repo.write("small.py", "x = 1\n");
  repo.commitAll();
  IndexOptions slow;
  slow.parseTimeoutMicros = 1;
  IndexReport first = build(repo, slow);
  CHECK(first.failed == 1);
  std::string reason = skipReasonOf(repo, "big.c");
  CHECK(reason.rfind("extract-failed: parse timed out", 0) == 0);
  // The same budget: the remembered failure stands, word for word, and nothing is parsed.
  IndexReport second = build(repo, slow);
  CHECK(second.failed == 1);
  CHECK(second.extracted == 0);
  CHECK(second.deltaFiles == 0);  // a delta over the first build: the same failure is no change
  CHECK(skipReasonOf(repo, "big.c") == reason);
  // A larger budget (the default) parses it again, and it succeeds.
  IndexReport third = build(repo);
  CHECK(third.failed == 0);
  CHECK(third.extracted == 1);
  CHECK(third.deltaFiles == 1);
  CHECK(skipReasonOf(repo, "big.c").empty());
}

TEST_CASE("skipIfCurrent publishes nothing when HEAD and the worktree are what the index reflects", "[index]") {
  TestRepo repo;
  repo.write("a.py", "def f():\n    return 1\n");
  repo.commitAll();
  IndexOptions options;
  options.skipIfCurrent = true;
  IndexReport first = build(repo, options);
  CHECK_FALSE(first.upToDate);
  IndexReport same = build(repo, options);
  CHECK(same.upToDate);
  CHECK(same.manifest.versionId == first.manifest.versionId);
  // An edit, a new file (which only git's ignore rules can judge) and a commit each rebuild.
  repo.write("a.py", "def f():\n    return 2\n");
  IndexReport edited = build(repo, options);
  CHECK_FALSE(edited.upToDate);
  CHECK(edited.manifest.versionId != first.manifest.versionId);
  repo.write("b.py", "y = 1\n");
  CHECK_FALSE(build(repo, options).upToDate);
  CHECK(build(repo, options).upToDate);
  repo.commitAll();
  CHECK_FALSE(build(repo, options).upToDate);
  // Another configuration is another index.
  IndexOptions smaller = options;
  smaller.maxFileSize = 1000;
  CHECK_FALSE(build(repo, smaller).upToDate);
  // Without the option a build always publishes.
  CHECK_FALSE(build(repo).upToDate);
  // Many files touched without a change (a checkout): every query would hash them again until a
  // version records their new stat data, so the index is rebuilt; a few are tolerated.
  for (int i = 0; i < 20; ++i) repo.write("many/f" + std::to_string(i) + ".py", "x = " + std::to_string(i) + "\n");
  repo.commitAll();
  CHECK_FALSE(build(repo, options).upToDate);
  CHECK(build(repo, options).upToDate);
  ::usleep(20 * 1000);  // a new mtime
  for (int i = 0; i < 2; ++i) repo.write("many/f" + std::to_string(i) + ".py", "x = " + std::to_string(i) + "\n");
  CHECK(build(repo, options).upToDate);
  for (int i = 0; i < 20; ++i) repo.write("many/f" + std::to_string(i) + ".py", "x = " + std::to_string(i) + "\n");
  CHECK_FALSE(build(repo, options).upToDate);
  CHECK(build(repo, options).upToDate);
}

}  // namespace nib::test

namespace nib::test {

// Search views written by other rules (a nib whose tokenization or units differ, with the same
// version number while it is developed) are neither current nor a delta's base: `nib index`
// rebuilds them rather than answering from views another rule made.
TEST_CASE("a version whose search views another revision wrote is rebuilt, not kept or shared", "[index]") {
  TestRepo repo;
  repo.write("a.py", "def f():\n    return 1\n");
  repo.commitAll();
  IndexOptions options;
  options.skipIfCurrent = true;
  options.dense = false;
  IndexReport first = build(repo, options);
  REQUIRE(first.manifest.view("lexical"));
  const std::string profile = first.manifest.view("lexical")->profile;
  CHECK(build(repo, options).upToDate);
  // As an earlier revision would have recorded it.
  Manifest old = first.manifest;
  for (ViewRecord& v : old.views)
    if (v.name == "lexical") v.profile = "s0-" + v.profile.substr(v.profile.find('-') + 1);
  IndexLayout layout(repo.root() / ".nib");
  REQUIRE(writeManifest(layout.versionDir(first.manifest.versionId), old).isOk());
  IndexReport rebuilt = build(repo, options);
  CHECK_FALSE(rebuilt.upToDate);
  CHECK(rebuilt.manifest.base.empty());  // a full version, not a delta sharing the old views
  REQUIRE(rebuilt.manifest.view("lexical"));
  CHECK(rebuilt.manifest.view("lexical")->profile == profile);
  CHECK(build(repo, options).upToDate);
}

}  // namespace nib::test

TEST_CASE("an index whose facts another nib wrote is refused with the remedy, and nib serve rebuilds it", "[index]") {
  TestRepo repo;
  repo.write("a.c", "int helper(int x) { return x + 1; }\nint main(void) { return helper(2); }\n");
  repo.commitAll();
  IndexReport first = build(repo);
  IndexLayout layout(repo.root() / ".nib");
  {
    // Every facts record as a nib of facts format 3 stored it: serialized, not packed.
    auto view = CommitView::open(layout.versionDir(first.manifest.versionId) / CommitView::kDirectory);
    REQUIRE(view.hasValue());
    auto store = FactStore::open(layout.factsDir(), /*readOnly=*/false);
    REQUIRE(store.hasValue());
    std::vector<std::pair<std::string, std::string>> old;
    {
      auto reader = (*store)->reader();
      REQUIRE(reader.hasValue());
      for (uint32_t id = 0; auto record = (*view)->fileById(id); ++id) {
        auto facts = reader->get(record->factKey());
        REQUIRE(facts.hasValue());
        std::string bytes = serializeFacts(*facts);
        bytes[0] = 3;
        old.emplace_back(record->factKey().bytes(), bytes);
      }
    }
    REQUIRE_FALSE(old.empty());
    REQUIRE((*store)->putBatch(old).isOk());
  }
  auto refused = StaticProvider::open(repo.root() / ".nib");
  REQUIRE_FALSE(refused.hasValue());
  CHECK(refused.status().is(Reason::OtherFormat));
  CHECK(refused.status().message().find("nib index") != std::string::npos);
  // `nib status` still says which version this is (from the manifest), then fails with the remedy.
  NibRun status = runNibIn(repo, "", "status --no-daemon");
  INFO(status.out);
  CHECK(status.rc != 0);
  CHECK(status.out.find("version     " + first.manifest.versionId) != std::string::npos);
  CHECK(status.out.find("view        structural") != std::string::npos);
  CHECK(status.out.find("another version of nib: run `nib index`") != std::string::npos);

  // The language server builds the index again, as it does when there is none, then answers.
  LspClient c(repo.root());
  c.initialize(repo.root());
  json def;
  for (int attempt = 0; attempt < 100; ++attempt) {
    def = c.request("textDocument/definition", {{"textDocument", {{"uri", LspClient::uri(repo.root() / "a.c")}}},
                                                {"position", {{"line", 1}, {"character", 25}}}});
    if (def.contains("result")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  INFO(def.dump());
  REQUIRE(def.contains("result"));
  REQUIRE(def["result"].size() == 1);
  CHECK(def["result"][0]["range"]["start"]["line"] == 0);
  CHECK(def["result"][0]["range"]["start"]["character"] == 4);
  CHECK(c.shutDown() == 0);
  CHECK(StaticProvider::open(repo.root() / ".nib").hasValue());
}

TEST_CASE("workspace symbols find the same names by scanning the key list and by its line index", "[symbols]") {
  TestRepo repo;
  repo.write("fs.c",
             "struct inode_cache { int n; };\nint get_inode(void) { return 0; }\nint i_node;\n"
             "int index_node(int x) { return x; }\nvoid mutex_lock(void) {}\nint node;\n");
  repo.write("Table.java", "class InodeTable { int MutexLock() { return 0; } int mtx; }\n");
  repo.commitAll();
  build(repo);
  // The first query of a provider scans the list; every later one uses the index it makes.
  auto warm = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(warm.hasValue());
  (void)(*warm)->symbols("zzzz", 5);
  auto key = [](const std::vector<SymbolMatch>& matches) {
    std::vector<std::string> out;
    for (const SymbolMatch& m : matches)
      out.push_back(m.location.name + "@" + m.location.path + ":" + std::to_string(m.location.range.start.line) + "=" +
                    std::to_string(m.score));
    return out;
  };
  size_t found = 0;
  for (const char* query : {"inode", "INODE", "node", "mutex_lock", "ml", "x", "get", "zq"}) {
    auto fresh = StaticProvider::open(repo.root() / ".nib");
    REQUIRE(fresh.hasValue());
    auto scanned = key((*fresh)->symbols(query, 50));
    auto indexed = key((*warm)->symbols(query, 50));
    INFO(query);
    CHECK(scanned == indexed);
    found += indexed.size();
  }
  CHECK(found >= 10);
  CHECK(key((*warm)->symbols("inode", 50)).size() >= 4);  // inode_cache, get_inode, InodeTable, i_node (fuzzy)
}

TEST_CASE("workspace symbols read only the best names of a common word, in the order a full sort gives", "[symbols]") {
  TestRepo repo;
  // 1,500 names holding "node": a thousand in its prefix tier, scored by length (node0-node9
  // best, then node10-node99, then 900 tied names node100-node999), more than the few hundred a
  // query with a small limit picks by score before sorting, so the pick must be sorted and the
  // tie across its edge taken whole.
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "int node" + std::to_string(i) + ";\n";
  for (int i = 0; i < 500; ++i) text += "int " + std::string(i % 2 ? "x_node" : "nd_o_e") + std::to_string(i) + ";\n";
  repo.write("many.c", text);
  repo.commitAll();
  build(repo);
  auto p = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(p.hasValue());
  for (const char* query : {"node", "nd", "node1", "ode"}) {
    auto all = (*p)->symbols(query, 5000);  // few enough names: every one sorted
    auto few = (*p)->symbols(query, 50);    // only the best part sorted
    INFO(query);
    REQUIRE(few.size() == 50);
    REQUIRE(all.size() >= 50);
    for (size_t i = 0; i < few.size(); ++i) {
      CHECK(few[i].location.name == all[i].location.name);
      CHECK(few[i].score == all[i].score);
    }
  }
}

}  // namespace nib::test
