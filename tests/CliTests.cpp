// End-to-end tests of the real `nib` binary on repositories created by the test: what a user
// or an agent sees, including the errors for bad input.
#include <catch2/catch.hpp>

#include <set>

#include <nlohmann/json.hpp>

#include "TestRepo.h"
#include "support/FileIo.h"

namespace nib::test {
namespace {

struct Run {
  int rc;
  std::string out;
};

Run nib(const TestRepo& repo, const std::string& args, bool mergeStderr = false) {
  Run r;
  r.rc = runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " " + args, &r.out,
                    mergeStderr);
  return r;
}

void makeProject(TestRepo& repo) {
  repo.write("src/geometry.py",
             "class Point:\n"
             "    def __init__(self, x):\n"
             "        self.x = x\n"
             "\n"
             "\n"
             "def distance(a, b):\n"
             "    return abs(a.x - b.x)\n");
  repo.write("src/main.py",
             "from geometry import Point, distance\n"
             "\n"
             "p = Point(1)\n"
             "print(distance(p, Point(2)))  # caf\xC3\xA9 \xF0\x9F\x98\x80 distance\n"
             "s = '\xF0\x9F\x98\x80'; d = distance(p, p)\n");
  repo.commitAll();
}

}  // namespace

TEST_CASE("nib index, status, def, refs and symbols work end to end", "[cli]") {
  TestRepo repo;
  makeProject(repo);
  Run idx = nib(repo, "index --wait-dense");
  INFO(idx.out);
  REQUIRE(idx.rc == 0);
  CHECK(idx.out.find("python      2") != std::string::npos);
  CHECK(idx.out.find("definitions") != std::string::npos);

  Run status = nib(repo, "status --json");
  REQUIRE(status.rc == 0);
  auto s = nlohmann::json::parse(status.out);
  CHECK(s["freshness"]["fresh"] == true);
  CHECK(s["freshness"]["headCommit"] == s["manifest"]["sourceCommit"]);
  CHECK(s["views"][0]["name"] == "structural");
  CHECK(s["views"][0]["status"] == "complete");
  CHECK(s["stats"]["files"] == 2);

  // `distance` on line 4, column 7 (1-based, bytes) of src/main.py.
  Run def = nib(repo, "def src/main.py:4:7");
  INFO(def.out);
  REQUIRE(def.rc == 0);
  CHECK(def.out == "src/geometry.py:6:5: function distance\n");

  Run defJson = nib(repo, "def --json src/main.py:4:7");
  REQUIRE(defJson.rc == 0);
  auto d = nlohmann::json::parse(defJson.out);
  REQUIRE(d["locations"].size() == 1);
  CHECK(d["locations"][0]["path"] == "src/geometry.py");
  CHECK(d["locations"][0]["range"]["start"]["line"] == 5);
  CHECK(d["locations"][0]["range"]["start"]["character"] == 4);
  CHECK(d["confidence"] == "scope");  // tree-sitter's resolution, not a compiler's
  CHECK(d["freshness"]["fresh"] == true);

  Run refs = nib(repo, "refs --json src/geometry.py:6:5");
  REQUIRE(refs.rc == 0);
  auto r = nlohmann::json::parse(refs.out);
  REQUIRE(r["locations"].size() == 4);  // the definition, the import, two calls on line 4-5
  // Line 5 (0-based 4): "s = '😀'; d = distance(p, p)": the emoji is 4 bytes but 2 UTF-16
  // units, so the byte column 16 becomes character 14 on the wire.
  auto last = r["locations"][3];
  CHECK(last["path"] == "src/main.py");
  CHECK(last["range"]["start"]["line"] == 4);
  CHECK(last["range"]["start"]["character"] == 14);

  Run refsNoDecl = nib(repo, "refs --no-declaration src/geometry.py:6:5");
  REQUIRE(refsNoDecl.rc == 0);
  CHECK(std::count(refsNoDecl.out.begin(), refsNoDecl.out.end(), '\n') == 3);

  Run sym = nib(repo, "symbols dist");
  REQUIRE(sym.rc == 0);
  CHECK(sym.out.find("function     distance  src/geometry.py:6:5") != std::string::npos);
  Run symJson = nib(repo, "symbols --json Poi");
  REQUIRE(symJson.rc == 0);
  auto sj = nlohmann::json::parse(symJson.out);
  REQUIRE_FALSE(sj.empty());
  CHECK(sj[0]["name"] == "Point");
  CHECK(sj[0]["kind"] == "class");
}

TEST_CASE("nib reports stale files and a moved HEAD instead of answering silently", "[cli]") {
  TestRepo repo;
  makeProject(repo);
  REQUIRE(nib(repo, "index -q --wait-dense").rc == 0);
  repo.write("src/main.py", "\n\nfrom geometry import Point, distance\n");
  // The edit shifted lines: the answer is for the file as it is now (re-extracted and laid over
  // the index), not the indexed positions printed next to today's text.
  Run def = nib(repo, "def src/main.py:3:30", true);
  INFO(def.out);
  CHECK(def.rc == 0);
  CHECK(def.out.find("src/geometry.py:6:5") != std::string::npos);
  CHECK(def.out.find("warning") == std::string::npos);
  Run refs = nib(repo, "refs --json src/geometry.py:6:5");
  REQUIRE(refs.rc == 0);
  auto r = nlohmann::json::parse(refs.out);
  CHECK(r["freshness"]["overlaid"] == true);
  CHECK(r["freshness"]["partial"] == false);
  CHECK(r["freshness"]["overlaidFiles"] == "1");
  std::set<std::pair<std::string, int>> at;
  for (const auto& l : r["locations"]) at.insert({l["path"].get<std::string>(), l["range"]["start"]["line"].get<int>()});
  CHECK(at.count({"src/main.py", 2}) == 1);  // the import, two lines lower than indexed
  CHECK(at.count({"src/main.py", 0}) == 0);
  Run status = nib(repo, "status --json");
  auto s = nlohmann::json::parse(status.out);
  CHECK(s["freshness"]["fresh"] == false);
  CHECK(s["freshness"]["headCommit"] == s["manifest"]["sourceCommit"]);
  // An edit is found by stat data alone, and named.
  CHECK(s["freshness"]["worktreeMethod"] == "stat");
  CHECK(s["freshness"]["changedFiles"] == nlohmann::json::array({"src/main.py"}));
  // A new file needs git's ignore rules: the full scan in the worker decides.
  repo.write("src/extra.py", "z = 1\n");
  auto s3 = nlohmann::json::parse(nib(repo, "status --json").out);
  CHECK(s3["freshness"]["worktreeMethod"] == "scan");
  CHECK(s3["freshness"]["fresh"] == false);
  repo.write(".gitignore", "*.log\n");
  repo.remove("src/extra.py");
  repo.write("src/main.py", "from geometry import Point, distance\n\np = Point(1)\n");
  repo.commitAll("ignore logs");
  REQUIRE(nib(repo, "index -q --wait-dense").rc == 0);
  repo.write("debug.log", "noise\n");  // ignored: the index stays fresh
  auto s4 = nlohmann::json::parse(nib(repo, "status --json").out);
  CHECK(s4["freshness"]["worktreeMethod"] == "scan");
  CHECK(s4["freshness"]["fresh"] == true);

  repo.commitAll("second");
  Run s2 = nib(repo, "status");
  CHECK(s2.out.find("differs: index is behind") != std::string::npos);
}

TEST_CASE("untracked binary files, such as clangd's index, leave the index fresh", "[cli]") {
  TestRepo repo;
  makeProject(repo);
  const std::string binary("RIFF\0\0\0\0CdIx", 12);
  repo.write(".cache/clangd/index/geometry.py.idx", binary + "1");
  REQUIRE(nib(repo, "index -q").rc == 0);
  auto status = [&] { return nlohmann::json::parse(nib(repo, "status --json").out)["freshness"]; };
  auto s = status();
  CHECK(s["fresh"] == true);
  CHECK(s["indexDirty"] == false);  // its tree is HEAD's: the binary file is no part of it
  CHECK(s["worktreeMethod"] == "stat");
  // clangd rewrites its shards and adds new ones; a build leaves objects behind.
  repo.write(".cache/clangd/index/geometry.py.idx", binary + "22");
  repo.write(".cache/clangd/index/main.py.idx", binary);
  repo.write("build/main.o", binary);
  s = status();
  CHECK(s["fresh"] == true);
  CHECK(s["worktreeMethod"] == "stat");
  Run def = nib(repo, "def --json src/main.py:3:5");
  REQUIRE(def.rc == 0);
  CHECK(nlohmann::json::parse(def.out)["freshness"]["fresh"] == true);
  // Text in such a folder is part of the worktree: the index is behind it.
  repo.write(".cache/clangd/index/notes.py", "n = 1\n");
  s = status();
  CHECK(s["fresh"] == false);
  CHECK(s["worktreeMethod"] == "scan");
  REQUIRE(nib(repo, "index -q").rc == 0);
  CHECK(status()["fresh"] == true);
  CHECK(nib(repo, "symbols n").out.find(".cache/clangd/index/notes.py") != std::string::npos);
}

TEST_CASE("without the worktree module a query on a changed worktree says what it left out", "[cli]") {
  TestRepo repo;
  makeProject(repo);
  REQUIRE(nib(repo, "index -q --wait-dense").rc == 0);
  ::setenv("NIB_WORKTREE_MODULE", "/nonexistent/libnib-worktree.so", 1);
  struct Unset {
    ~Unset() { ::unsetenv("NIB_WORKTREE_MODULE"); }
  } unset;
  // A clean worktree needs no module: the answer is fresh.
  Run clean = nib(repo, "refs --json src/geometry.py:6:5");
  REQUIRE(clean.rc == 0);
  CHECK(nlohmann::json::parse(clean.out)["freshness"]["fresh"] == true);
  repo.write("src/main.py", "\n\nfrom geometry import Point, distance\n");
  Run r = nib(repo, "refs src/geometry.py:6:5", true);
  INFO(r.out);
  CHECK(r.rc == 0);  // the index's answer, labelled
  CHECK(r.out.find("the answer may miss changes: the worktree cannot be overlaid: cannot load the worktree module "
                   "/nonexistent/libnib-worktree.so") != std::string::npos);
  Run j = nib(repo, "refs --json src/geometry.py:6:5");
  auto a = nlohmann::json::parse(j.out);
  CHECK(a["freshness"]["partial"] == true);
  CHECK(a["freshness"]["overlaid"] == false);
}

TEST_CASE("bad input gets a clear error and a non-zero exit", "[cli]") {
  TestRepo repo;
  makeProject(repo);

  Run noIndex = nib(repo, "def src/main.py:1:1", true);
  CHECK(noIndex.rc == 1);
  CHECK(noIndex.out.find("run `nib index`") != std::string::npos);
  REQUIRE(nib(repo, "index -q --wait-dense").rc == 0);

  struct Case {
    std::string args, expect;
    int rc;
  };
  for (const Case& c : std::vector<Case>{
           {"def src/main.py", "expected FILE:LINE:COL", 1},
           {"def src/main.py:0:1", "positive numbers", 1},
           {"def src/main.py:x:1", "positive numbers", 1},
           {"def src/missing.py:1:1", "no such file", 1},
           {"def src:1:1", "is a directory", 1},
           {"def src/main.py:99:1", "does not exist", 1},
           {"def src/main.py:1:500", "past its end", 1},
           {"def /etc/hostname:1:1", "not inside a git repository", 1},
           {"def --root . /etc/hostname:1:1", "outside the workspace", 1},
           {"def src/main.py:2:1", "no identifier", 1},
           {"refs .nib/CURRENT:1:1", "not in the index", 1},
           {"symbols zzzzqqq", "no symbol matches", 1},
           {"frobnicate", "", 2},
           {"def", "position is required", 2},
           {"index --max-file-size -5", "", 2},
       }) {
    Run r = nib(repo, c.args, true);
    INFO("nib " << c.args << " -> " << r.out);
    CHECK(r.rc == c.rc);
    CHECK(r.out.find(c.expect) != std::string::npos);
  }
  Run outside = nib(repo, "status /", true);
  CHECK(outside.rc == 1);
  CHECK(outside.out.find("not inside a git repository") != std::string::npos);
}

TEST_CASE("nib index --commit indexes a revision's tree, not the worktree", "[cli]") {
  TestRepo repo;
  repo.write("x.py", "def first():\n    pass\n");
  repo.commitAll("one");
  repo.write("x.py", "def second():\n    pass\n");
  repo.commitAll("two");
  repo.write("x.py", "def third():\n    pass\n");  // uncommitted
  Run idx = nib(repo, "index --commit HEAD~1 --json");
  INFO(idx.out);
  REQUIRE(idx.rc == 0);
  CHECK(nib(repo, "symbols first").rc == 0);
  CHECK(nib(repo, "symbols second").rc == 1);
  CHECK(nib(repo, "symbols third").rc == 1);
  auto s = nlohmann::json::parse(nib(repo, "status --json").out);
  CHECK(s["manifest"]["dirty"] == false);
  CHECK(s["freshness"]["headCommit"] != s["manifest"]["sourceCommit"]);
  CHECK(s["freshness"]["fresh"] == false);
  Run bad = nib(repo, "index --commit no-such-rev", true);
  CHECK(bad.rc == 1);
  CHECK(bad.out.find("unknown revision 'no-such-rev'") != std::string::npos);
  CHECK(bad.out.find("hint") == std::string::npos);
}

TEST_CASE("line-ending filters do not make fresh files look changed", "[cli]") {
  // With eol=crlf the worktree bytes differ from git's blob; facts are keyed by the bytes parsed,
  // so positions line up and the file is not reported as changed.
  TestRepo repo;
  repo.write("m.py", "def f():\n    return 1\n\nf()\n");
  repo.commitAll();
  repo.write(".gitattributes", "*.py text eol=crlf\n");
  repo.commitAll("attributes");
  repo.remove("m.py");
  REQUIRE(repo.git("checkout -- m.py") == 0);
  REQUIRE(nib(repo, "index -q --wait-dense").rc == 0);
  Run def = nib(repo, "def m.py:4:1", true);
  INFO(def.out);
  CHECK(def.rc == 0);
  CHECK(def.out.find("m.py:1:5: function f") != std::string::npos);
  CHECK(def.out.find("changed since") == std::string::npos);
}

TEST_CASE("nib index does nothing when nothing changed, unless forced", "[cli]") {
  TestRepo repo;
  makeProject(repo);
  REQUIRE(nib(repo, "index -q --wait-dense").rc == 0);
  Run again = nib(repo, "index");
  CHECK(again.rc == 0);
  CHECK(again.out.rfind("index is current: version ", 0) == 0);
  Run forced = nib(repo, "index --force --wait-dense");
  CHECK(forced.rc == 0);
  CHECK(forced.out.rfind("indexed ", 0) == 0);
  repo.write("src/geometry.py", "def moved():\n    pass\n");
  CHECK(nib(repo, "index --wait-dense").out.rfind("indexed ", 0) == 0);
}

TEST_CASE("nib verify compares the current version with a rebuild from scratch", "[cli]") {
  TestRepo repo;
  makeProject(repo);
  REQUIRE(nib(repo, "index -q --wait-dense").rc == 0);
  Run same = nib(repo, "verify");
  INFO(same.out);
  CHECK(same.rc == 0);
  CHECK(same.out.rfind("identical: version ", 0) == 0);
  // An edit the index has not seen: the rebuild sees it, and verify names where they differ.
  repo.write("src/geometry.py", "def moved():\n    pass\n");
  Run changed = nib(repo, "verify", true);
  CHECK(changed.rc == 1);
  CHECK(changed.out.find("differences are expected") != std::string::npos);
  CHECK(changed.out.find("DIFFERENT: version ") != std::string::npos);
  CHECK(changed.out.find("structural/") != std::string::npos);
  REQUIRE(nib(repo, "index -q --wait-dense").rc == 0);
  Run again = nib(repo, "verify --json");
  CHECK(again.rc == 0);
  CHECK(nlohmann::json::parse(again.out)["identical"] == true);
  // The scratch index is gone.
  for (const auto& e : std::filesystem::directory_iterator(repo.root() / ".nib"))
    CHECK(e.path().filename().string().rfind("verify-", 0) != 0);
}

TEST_CASE("nib index resolves the call graph once structural queries use it", "[cli]") {
  TestRepo repo;
  makeProject(repo);
  REQUIRE(nib(repo, "index -q --wait-dense").rc == 0);
  auto graphOfCurrent = [&] {
    std::string id = *readFile(repo.root() / ".nib" / "CURRENT");
    while (!id.empty() && id.back() == '\n') id.pop_back();
    return repo.root() / ".nib" / "versions" / id / "structural" / "callgraph.bin";
  };
  CHECK_FALSE(std::filesystem::exists(graphOfCurrent()));
  Run callers = nib(repo, "callers distance");
  CHECK(callers.rc == 0);
  CHECK(callers.out.find("src/main.py") != std::string::npos);  // its top level calls distance
  CHECK(std::filesystem::exists(graphOfCurrent()));
  Run rebuilt = nib(repo, "index --force --wait-dense");
  CHECK(rebuilt.out.find("call-graph") != std::string::npos);
  CHECK(std::filesystem::exists(graphOfCurrent()));
}

TEST_CASE("every command has true --help", "[cli]") {
  TestRepo repo;
  for (const char* cmd : {"", "index", "verify", "status", "def", "refs", "symbols", "search", "context", "callers", "impact", "trace", "mcp", "daemon", "rollback"}) {
    Run r = nib(repo, std::string(cmd) + " --help");
    INFO(cmd);
    CHECK(r.rc == 0);
    CHECK(r.out.find("Usage:") != std::string::npos);
  }
  Run top = nib(repo, "--help");
  for (const char* cmd : {"index", "status", "def", "refs", "symbols", "search", "daemon", "rollback"})
    CHECK(top.out.find(cmd) != std::string::npos);
}

}  // namespace nib::test
