// The precise view: SCIP read as nib's unit facts (scip/ScipImport), views built by the real SCIP
// indexers (scip-typescript, scip-python) and cached by what they read, and indexers that fail,
// hang or write garbage — each recorded with its reason, the rest of the version served.
// Navigation answers from the view are checked by the `precise_*` navigation fixtures.
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <thread>

#include "LspProject.h"
#include "PreciseTesting.h"
#include "TestRepo.h"
#include "indexer/IndexBuilder.h"
#include "indexer/PreciseBuilder.h"
#include "providers/StaticProvider.h"
#include "scip.pb.h"
#include "scip/ScipImport.h"
#include "views/IndexLayout.h"

namespace nib::test {
namespace fs = std::filesystem;

namespace {

scip::Occurrence* occurrence(scip::Document* doc, std::vector<int> range, const std::string& symbol, int roles = 0) {
  scip::Occurrence* o = doc->add_occurrences();
  for (int v : range) o->add_range(v);
  o->set_symbol(symbol);
  o->set_symbol_roles(roles);
  return o;
}

// A folder outside the repository for programs standing in for an indexer.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "nib-precise-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path script(const std::string& name, const std::string& body) {
    fs::path p = path / name;
    std::ofstream(p) << "#!/bin/sh\n" << body;
    ::chmod(p.c_str(), 0755);
    return p;
  }
};

const char* kPython =
    "class Job:\n"
    "    def run(self):\n"
    "        return 1\n"
    "\n"
    "def start(j: Job):\n"
    "    return j.run()\n";

}  // namespace

TEST_CASE("an SCIP index reads as unit facts in nib's positions", "[precise]") {
  TestRepo repo;
  // 'é' is two bytes and one UTF-16 unit: SCIP's column 22 is byte 23.
  repo.write("src/a.ts", "let s = \"\xC3\xA9\"; class Sub extends Base { m() { return s; } }\n");
  repo.write("src/b.ts", "let s = 1; export {};\n");
  scip::Index index;
  index.mutable_metadata()->set_project_root("file://" + repo.root().string() + "/src");
  index.mutable_metadata()->mutable_tool_info()->set_name("scip-typescript");
  scip::Document* a = index.add_documents();
  a->set_relative_path("a.ts");
  occurrence(a, {0, 4, 5}, "local 0", scip::Definition);
  occurrence(a, {0, 19, 22}, "npm . . a/Sub#", scip::Definition);
  occurrence(a, {0, 38, 39}, "npm . . a/Sub#m().", scip::Definition);
  occurrence(a, {0, 51, 52}, "local 0");
  occurrence(a, {0, 0, 0}, "npm . . a/", scip::Definition);      // a module's definition: kept, empty
  occurrence(a, {0, 6, 6}, "npm . . a/Sub#");                     // empty elsewhere: no name
  occurrence(a, {7, 0, 1}, "npm . . a/gone.", scip::Definition);  // past the file's end
  occurrence(a, {0, 35, 39}, "");                                 // no symbol
  scip::SymbolInformation* sub = a->add_symbols();
  sub->set_symbol("npm . . a/Sub#");
  sub->set_kind(scip::SymbolInformation::Class);
  auto* base = sub->add_relationships();
  base->set_symbol("npm . . a/Base#");
  base->set_is_implementation(true);
  scip::SymbolInformation* m = a->add_symbols();
  m->set_symbol("npm . . a/Sub#m().");
  auto* overridden = m->add_relationships();
  overridden->set_symbol("npm . . a/Base#m().");
  overridden->set_is_implementation(true);
  auto* type = m->add_relationships();
  type->set_symbol("npm . . a/Result#");
  type->set_is_type_definition(true);
  scip::Document* b = index.add_documents();
  b->set_relative_path("b.ts");
  occurrence(b, {0, 4, 5}, "local 0", scip::Definition);
  scip::Document* outside = index.add_documents();
  outside->set_relative_path("../../elsewhere.ts");
  occurrence(outside, {0, 0, 1}, "npm . . x.", scip::Definition);

  ScipImportStats stats;
  auto facts = importScip(index.SerializeAsString(), repo.root().string() + "/", &stats);
  REQUIRE(facts.hasValue());
  CHECK(stats.documents == 2);
  CHECK(stats.skippedDocuments == 1);
  CHECK(stats.skippedOccurrences == 3);
  REQUIRE(facts->files == std::vector<std::string>{repo.root().string() + "/src/a.ts", repo.root().string() + "/src/b.ts"});
  auto usrOf = [&](const ClangOccurrence& o) { return facts->usrs[o.usr]; };
  REQUIRE(facts->occurrences.size() == 6);
  const ClangOccurrence& local = facts->occurrences[0];
  CHECK(usrOf(local) == "local:src/a.ts#0");
  CHECK(local.offset == 4);
  CHECK(facts->names[local.usr] == "s");
  const ClangOccurrence& cls = facts->occurrences[1];
  CHECK(cls.column == 20);  // after the two-byte 'é'
  CHECK(cls.length == 3);
  CHECK(facts->names[cls.usr] == "Sub");
  CHECK(cls.role == ClangRole::Definition);
  CHECK(static_cast<SymbolKind>(cls.kind) == SymbolKind::Class);
  const ClangOccurrence& method = facts->occurrences[2];
  CHECK(facts->names[method.usr] == "m");
  CHECK(static_cast<SymbolKind>(method.kind) == SymbolKind::Method);  // from the symbol's `().` suffix
  const ClangOccurrence& use = facts->occurrences[3];
  CHECK(use.role == ClangRole::Reference);
  CHECK(use.usr == local.usr);
  const ClangOccurrence& module = facts->occurrences[4];
  CHECK((module.offset == 0 && module.length == 0 && module.role == ClangRole::Definition));
  CHECK(static_cast<SymbolKind>(module.kind) == SymbolKind::Module);
  CHECK(usrOf(facts->occurrences[5]) == "local:src/b.ts#0");  // another document's `local 0`
  REQUIRE(facts->bases.size() == 1);
  CHECK(facts->usrs[facts->bases[0].first] == "npm . . a/Sub#");
  CHECK(facts->usrs[facts->bases[0].second] == "npm . . a/Base#");
  REQUIRE(facts->overrides.size() == 1);
  CHECK(facts->usrs[facts->overrides[0].second] == "npm . . a/Base#m().");
  REQUIRE(facts->types.size() == 1);
  CHECK(facts->usrs[facts->types[0].second] == "npm . . a/Result#");
}

TEST_CASE("scip-python's dotted module names are one module per name, and star-imported names no module",
          "[precise]") {
  TestRepo repo;
  repo.write("app/main.py", "from pkg.core import run\nfrom .util import *\nhelper()\n");
  scip::Index index;
  index.mutable_metadata()->set_project_root("file://" + repo.root().string());
  scip::Document* d = index.add_documents();
  d->set_relative_path("app/main.py");
  const std::string core = "scip-python python . 0 `pkg.core`/__init__:";
  const std::string util = "scip-python python . 0 `app.util`/__init__:";
  occurrence(d, {0, 5, 13}, core);    // `pkg.core`
  occurrence(d, {0, 21, 24}, "scip-python python . 0 `pkg.core`/run().");
  occurrence(d, {1, 5, 10}, util);    // `.util`
  occurrence(d, {2, 0, 6}, util);     // `helper`, brought in by the star import
  auto facts = importScip(index.SerializeAsString(), repo.root().string() + "/");
  REQUIRE(facts.hasValue());
  std::vector<std::pair<uint32_t, std::string>> got;
  for (const ClangOccurrence& o : facts->occurrences) got.emplace_back(o.offset, facts->usrs[o.usr]);
  std::vector<std::pair<uint32_t, std::string>> want = {
      {5, "scip-python python . 0 pkg/__init__:"}, {9, core}, {21, "scip-python python . 0 `pkg.core`/run()."}, {31, util}};
  CHECK(got == want);
  CHECK(facts->occurrences[0].length == 3);
  CHECK(facts->occurrences[1].length == 4);
  CHECK(facts->occurrences[3].length == 4);  // `util`, without the relative import's dot
}

TEST_CASE("bytes that are not a whole SCIP index are refused, not read in part", "[precise]") {
  scip::Index index;
  index.mutable_metadata()->set_project_root("file:///tmp/x");
  scip::Document* d = index.add_documents();
  d->set_relative_path("a.ts");
  occurrence(d, {0, 0, 1}, "npm . . a/x.", scip::Definition);
  std::string bytes = index.SerializeAsString();
  auto cut = importScip(bytes.substr(0, bytes.size() - 3), "/tmp/");
  REQUIRE_FALSE(cut.hasValue());
  CHECK(cut.status().code() == ErrorCode::Corrupt);
  auto text = importScip("this is not protobuf at all, just text\n", "/tmp/");
  REQUIRE_FALSE(text.hasValue());
  scip::Index noRoot;
  auto rootless = importScip(noRoot.SerializeAsString(), "/tmp/");
  REQUIRE_FALSE(rootless.hasValue());
  CHECK(rootless.status().code() == ErrorCode::Corrupt);
}

TEST_CASE("the precise view is built by the SCIP indexers and re-runs only projects whose files changed", "[precise]") {
  TestRepo repo;
  repo.write("web/tsconfig.json", "{\"compilerOptions\": {\"strict\": true}, \"include\": [\"src\"]}\n");
  repo.write("web/src/timer.ts", "export class Timer { start(): void {} }\nexport function go(t: Timer) { t.start(); }\n");
  repo.write("jobs.py", kPython);
  repo.commitAll();
  Manifest first = buildPrecise(repo);
  CHECK(stat(first, "precise.projects") == "2");
  CHECK(stat(first, "precise.indexed") == "2");
  CHECK(stat(first, "precise.files") == "2");  // the two sources (tsconfig.json has no names)

  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  // `t.start()` in go(): the method of Timer, from the TypeScript indexer's facts.
  auto def = (*provider)->definition("web/src/timer.ts", 75);
  REQUIRE(def.hasValue());
  CHECK(def->source == "scip");
  REQUIRE(def->locations.size() == 1);
  CHECK(def->locations[0].range.start == Position{0, 21});
  auto refs = (*provider)->references("jobs.py", 20, true);  // `run` in Job
  REQUIRE(refs.hasValue());
  CHECK(refs->source == "scip");
  CHECK(refs->locations.size() == 2);

  // Nothing changed, a full build (not a delta sharing the views): both projects' facts come
  // from the cache, no indexer runs.
  IndexOptions options;
  options.scipIndexers = pinnedIndexers();
  options.deltaBudget = 0;
  Manifest second = build(repo, options);
  CHECK(stat(second, "precise.indexed") == "0");
  CHECK(stat(second, "precise.cached") == "2");
  // A Python file changed: only the Python project runs again.
  repo.write("jobs.py", std::string(kPython) + "\nstart(Job())\n");
  Manifest third = build(repo, options);
  CHECK(stat(third, "precise.indexed") == "1");
  CHECK(stat(third, "precise.cached") == "1");
  CHECK(third.view("precise")->status == ViewStatus::Complete);

  // As a delta (the other views shared with the third version): the precise view is built for
  // the delta, the TypeScript project from the cache, and answers for jobs.py as it is now.
  const std::string moved = "# moved\n" + std::string(kPython);
  repo.write("jobs.py", moved);
  options.deltaBudget = IndexOptions().deltaBudget;
  Manifest fourth = build(repo, options);
  CHECK(fourth.base == third.versionId);
  REQUIRE(fourth.view("precise"));
  CHECK(fourth.view("precise")->coversDelta());
  CHECK(stat(fourth, "precise.indexed") == "1");
  CHECK(stat(fourth, "precise.cached") == "1");
  auto now = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(now.hasValue());
  auto moved_refs = (*now)->references("jobs.py", 20 + 8, true);  // `run` in Job, a line down
  REQUIRE(moved_refs.hasValue());
  CHECK(moved_refs->source == "scip");
  REQUIRE(moved_refs->locations.size() == 2);
  CHECK(moved_refs->locations[0].range.start.line == 2);
}

TEST_CASE("a version whose precise view another nib-scip built is not current: nib index builds it again", "[precise]") {
  TestRepo repo;
  repo.write("web/tsconfig.json", "{\"compilerOptions\": {\"strict\": true}, \"include\": [\"src\"]}\n");
  repo.write("web/src/timer.ts", "export class Timer { start(): void {} }\n");
  repo.commitAll();
  IndexOptions options;
  options.scipIndexers = pinnedIndexers();
  options.skipIfCurrent = true;
  options.threads = 1;
  options.dense = false;
  auto first = buildIndex(repo.root(), options);
  REQUIRE(first.hasValue());
  REQUIRE(first->manifest.view("precise"));
  CHECK(first->manifest.view("precise")->status == ViewStatus::Complete);
  auto again = buildIndex(repo.root(), options);
  REQUIRE(again.hasValue());
  CHECK(again->upToDate);
  // Another nib-scip (these bytes and one more: an executable that reads SCIP as the first did,
  // whose digest differs): the version is not current, and the project runs again.
  ScratchDir scratch;
  fs::path other = scratch.path / "nib-scip";
  fs::copy_file(NIB_SCIP_WORKER_PATH, other);
  std::ofstream(other, std::ios::app) << '\n';
  ::chmod(other.c_str(), 0755);
  options.scipWorker = other;
  auto rebuilt = buildIndex(repo.root(), options);
  REQUIRE(rebuilt.hasValue());
  CHECK_FALSE(rebuilt->upToDate);
  CHECK(stat(rebuilt->manifest, "precise.indexed") == "1");
  auto settled = buildIndex(repo.root(), options);
  REQUIRE(settled.hasValue());
  CHECK(settled->upToDate);
}

TEST_CASE("an indexer that fails, hangs or writes garbage is recorded and its files answer from tree-sitter",
          "[precise]") {
  ScratchDir scratch;
  // Each stand-in is given `index --cwd DIR --output FILE ...`; $5 is the output file.
  struct Case {
    std::string name, body, reason;
  };
  std::vector<Case> cases = {
      {"crash", "echo '    at somewhere (x.js:1:1)' >&2\necho 'Error: the project is broken' >&2\nexit 3\n",
       "exited with status 3: Error: the project is broken"},
      // The stand-in and the child it starts must both be gone after the time limit.
      {"hang", "sleep 61 &\nwait\n", "timed out after 1 s"},
      {"garbage", "printf 'not protobuf \\001\\002\\003' > \"$5\"\n", "its SCIP could not be read"},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      TestRepo repo;
      repo.write("jobs.py", kPython);
      repo.commitAll();
      IndexOptions options;
      options.scipIndexers = {{"python", scratch.script(c.name, c.body)}};
      options.preciseTimeoutSeconds = 1;
      Manifest m = build(repo, options);
      const ViewRecord* view = m.view("precise");
      REQUIRE(view);
      CHECK(view->status == ViewStatus::Failed);
      INFO(view->error);
      CHECK(view->error.find(c.reason) != std::string::npos);
      CHECK(stat(m, "precise.failure.0").rfind("python:.: ", 0) == 0);
      // The version is served: the structural view answers, labelled as tree-sitter's.
      auto provider = StaticProvider::open(repo.root() / ".nib");
      REQUIRE(provider.hasValue());
      auto def = (*provider)->definition("jobs.py", 81);  // `run` in j.run()
      REQUIRE(def.hasValue());
      CHECK(def->source == "tree-sitter");
      CHECK_FALSE(def->locations.empty());
      std::string out;
      CHECK(runCommand("pgrep -f 'sleep 6[1]'", &out) != 0);
    }
  }
}

TEST_CASE("a Python tree with syntax errors is indexed, its good files answered from the precise view", "[precise]") {
  TestRepo repo;
  repo.write("broken.py", "def f(:\n  return 1\nx = f(\n");
  repo.write("jobs.py", kPython);
  repo.commitAll();
  Manifest m = buildPrecise(repo);
  CHECK(stat(m, "precise.failed") == "0");
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto def = (*provider)->definition("jobs.py", 81);  // `run` in j.run()
  REQUIRE(def.hasValue());
  CHECK(def->source == "scip");
  REQUIRE(def->locations.size() == 1);
  CHECK(def->locations[0].range.start == Position{1, 8});
}

TEST_CASE("one project's failure leaves the other projects' precise answers", "[precise]") {
  ScratchDir scratch;
  TestRepo repo;
  repo.write("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}\n");
  repo.write("timer.ts", "export class Timer { start(): void {} }\nexport function go(t: Timer) { t.start(); }\n");
  repo.write("jobs.py", kPython);
  // A tsconfig.json that does not parse: its project fails with the compiler's message.
  repo.write("broken/tsconfig.json", "{ \"compilerOptions\": { \"strict\": true,\n");
  repo.write("broken/a.ts", "export const a = 1;\n");
  repo.commitAll();
  IndexOptions options;
  options.scipIndexers = pinnedIndexers();
  options.scipIndexers["python"] = scratch.script("crash", "exit 1\n");
  Manifest m = build(repo, options);
  const ViewRecord* view = m.view("precise");
  REQUIRE(view);
  REQUIRE(view->status == ViewStatus::Complete);
  CHECK(stat(m, "precise.projects") == "3");
  CHECK(stat(m, "precise.failed") == "2");
  std::string failures = stat(m, "precise.failure.0") + "\n" + stat(m, "precise.failure.1");
  INFO(failures);
  CHECK(failures.find("typescript:broken: scip-typescript exited with status 1: Error: ") != std::string::npos);
  CHECK(failures.find("tsconfig.json(2,1): error TS1005") != std::string::npos);
  CHECK(failures.find("python:.: crash exited with status 1") != std::string::npos);
  // `nib status` says so.
  NibRun status = runNibIn(repo, "", "status");
  INFO(status.out);
  CHECK(status.out.find("2 of 3 projects failed, their files answer from the inferred TypeScript project or tree-sitter") !=
        std::string::npos);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto ts = (*provider)->definition("timer.ts", 75);
  REQUIRE(ts.hasValue());
  CHECK(ts->source == "scip");
  auto py = (*provider)->definition("jobs.py", 81);
  REQUIRE(py.hasValue());
  CHECK(py->source == "tree-sitter");
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("nib export scip writes what SCIP's own bindings read, with scip-typescript's definitions", "[precise][cli]") {
  TestRepo repo;
  repo.write("web/tsconfig.json", "{\"compilerOptions\": {\"strict\": true}, \"include\": [\"src\"]}\n");
  repo.write("web/src/shapes.ts",
             "export interface Shape { area(): number; }\n"
             "/** A square of a given side. */\n"
             "export class Square implements Shape {\n"
             "  constructor(private side: number) {}\n"
             "  area(): number { return this.side * this.side; }\n"
             "}\n");
  repo.write("web/src/main.ts", "import { Square } from \"./shapes\";\nconst s = new Square(2);\nexport const a = s.area();\n");
  repo.write("tool.go", "package main\n\n// helper returns one.\nfunc helper() int { return 1 }\n\nfunc main() { helper() }\n");
  // Text that is not UTF-8 — a comment in Latin-1, a signature cut at 300 bytes inside a
  // character — is written with U+FFFD: protobuf's strings must be UTF-8 (the C++ parser below
  // and Sourcegraph's tools refuse the index otherwise).
  repo.write("latin.go", "package main\n\n// caf\xe9 returns one.\nfunc cafe() int { return 1 }\n\nfunc long() int { return 1 } // " +
                             std::string(267, 'a') + "\xc3\xa9\n");
  repo.commitAll();
  const std::string env = "NIB_SCIP_TYPESCRIPT=" + shellQuote(std::string(NIB_BACKENDS_BIN) + "/scip-typescript");
  NibRun noIndex = runNibIn(repo, env, "export scip -o out.scip");
  CHECK(noIndex.rc == 1);
  CHECK(noIndex.out.find("nib index") != std::string::npos);
  NibRun index = runNibIn(repo, env, "index --no-dense");
  INFO(index.out);
  REQUIRE(index.rc == 0);
  CHECK(index.out.find("precise     1 projects (1 indexed") != std::string::npos);
  NibRun exported = runNibIn(repo, env, "export scip -o " + shellQuote((repo.root() / "nib.scip").string()));
  INFO(exported.out);
  REQUIRE(exported.rc == 0);
  CHECK(exported.out.find("4 documents") != std::string::npos);

  ScratchDir scratch;
  std::string theirs = (scratch.path / "theirs.scip").string();
  std::string out;
  REQUIRE(runCommand(shellQuote(std::string(NIB_BACKENDS_BIN) + "/scip-typescript") + " index --cwd " +
                         shellQuote((repo.root() / "web").string()) + " --output " + shellQuote(theirs) + " --no-progress-bar",
                     &out, true) == 0);
  std::string bindings = std::string(NIB_BACKENDS_BIN) + "/../@sourcegraph/scip-typescript/dist/src/scip.js";
  int rc = runCommand("node " + shellQuote(std::string(NIB_TESTS_DIR) + "/scip/compare_export.js") + " " + shellQuote(bindings) +
                          " " + shellQuote((repo.root() / "nib.scip").string()) + " " + shellQuote(theirs),
                      &out, true);
  INFO(out);
  CHECK(rc == 0);
  CHECK(out.find("\"compared\":2") != std::string::npos);
  CHECK(out.find("\"tool\":\"nib\"") != std::string::npos);

  // The Go file's definitions are the document's local symbols, its call resolved to one.
  scip::Index index2;
  std::ifstream in(repo.root() / "nib.scip", std::ios::binary);
  REQUIRE(index2.ParseFromIstream(&in));
  const scip::Document* go = nullptr;
  for (const scip::Document& d : index2.documents())
    if (d.relative_path() == "tool.go") go = &d;
  REQUIRE(go);
  std::map<std::string, int> helper;  // symbol -> occurrences
  for (const scip::Occurrence& o : go->occurrences())
    if (o.range(0) == 3 || o.range(0) == 5) helper[o.symbol()]++;
  CHECK(helper.size() >= 1);
  bool linked = std::any_of(helper.begin(), helper.end(), [](const auto& e) { return e.second == 2 && e.first.rfind("local ", 0) == 0; });
  CHECK(linked);

  // Symbols carry their signature and the comment that documents them, as nib's hover shows
  // them: from the precise view (TypeScript) and from tree-sitter's facts (Go) alike.
  auto documentation = [&](const std::string& path, const std::string& name) {
    for (const scip::Document& d : index2.documents())
      if (d.relative_path() == path)
        for (const scip::SymbolInformation& info : d.symbols())
          if (info.display_name() == name) return std::vector<std::string>(info.documentation().begin(), info.documentation().end());
    return std::vector<std::string>();
  };
  CHECK(documentation("web/src/shapes.ts", "Square") ==
        std::vector<std::string>{"```typescript\nexport class Square implements Shape {\n```", "A square of a given side."});
  CHECK(documentation("tool.go", "helper") ==
        std::vector<std::string>{"```go\nfunc helper() int { return 1 }\n```", "helper returns one."});
  CHECK(documentation("latin.go", "cafe") ==
        std::vector<std::string>{"```go\nfunc cafe() int { return 1 }\n```", "caf\xef\xbf\xbd returns one."});
  CHECK(documentation("latin.go", "long") ==
        std::vector<std::string>{"```go\nfunc long() int { return 1 } // " + std::string(267, 'a') + "\xef\xbf\xbd...\n```"});
}

}  // namespace nib::test

namespace nib::test {

// Issue 23's update policy: a saved edit to a file the precise view read is answered from
// tree-sitter (labelled) at once, and the server builds a new version in the background, which
// re-runs that project's indexer only, and answers from the precise view again.
TEST_CASE("nib serve re-runs the indexer of an edited project in the background", "[precise][lsp]") {
  TestRepo repo;
  makeProject(repo, /*index=*/false);
  indexWith(repo, "--no-dense", /*precise=*/true);
  // The server's own builds find the same indexer.
  struct Env {
    Env() { ::setenv("NIB_SCIP_PYTHON", (std::string(NIB_BACKENDS_BIN) + "/scip-python").c_str(), 1); }
    ~Env() { ::setenv("NIB_SCIP_PYTHON", "", 1); }
  } env;
  LspClient c(repo.root());
  c.initialize(repo.root());
  std::string main = LspClient::uri(repo.root() / "app/main.py");
  auto locate = [&] {
    return c.request("nib/locate", {{"textDocument", {{"uri", main}}}, {"position", {{"line", 5}, {"character", 13}}},
                                    {"request", "definition"}});
  };
  json before = locate();
  INFO(before.dump());
  CHECK(before["result"]["facts"] == "scip");
  CHECK(before["result"]["confidence"] == "exact");
  REQUIRE(before["result"]["locations"].size() == 1);
  CHECK(before["result"]["locations"][0]["range"]["start"]["line"] == 13);
  const std::string version = before["result"]["indexVersion"];

  // Saved on disk: two lines pushed in front of distance.
  repo.write("app/geometry.py", std::string("import math\n\n") + kGeometry);
  json after;
  bool rebuilt = false;
  for (int i = 0; i < 120 && !rebuilt; ++i) {
    after = locate();
    rebuilt = after["result"]["indexVersion"] != version && after["result"]["facts"] == "scip";
    if (!rebuilt) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  INFO(after.dump());
  REQUIRE(rebuilt);
  CHECK(after["result"]["confidence"] == "exact");
  REQUIRE(after["result"]["locations"].size() == 1);
  CHECK(after["result"]["locations"][0]["range"]["start"]["line"] == 15);
  auto manifest = IndexLayout::forRepository(repo.root()).currentManifest();
  REQUIRE(manifest.hasValue());
  CHECK(stat(*manifest, "precise.indexed") == "1");
  CHECK(c.shutDown() == 0);
}

}  // namespace nib::test

namespace nib::test {

// Issue 25's implementation request for TypeScript, from the precise view's is_implementation
// relationships (scip-typescript writes them for classes and their members); Python's methods
// and TypeScript's variables have no such facts, and say so rather than answer empty.
TEST_CASE("implementations of TypeScript interfaces and their members come from the precise view", "[precise]") {
  TestRepo repo;
  repo.write("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}\n");
  repo.write("shapes.ts",
             "export interface Shape { area(): number; }\n"
             "export class Square implements Shape { area(): number { return 4; } }\n"
             "export class Disc implements Shape { area(): number { return 3; } }\n"
             "export const s: Shape = new Square();\n");
  repo.write("jobs.py", kPython);
  repo.commitAll();
  buildPrecise(repo);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto lineOf = [](const SymbolLocation& l) { return l.range.start.line; };
  // At Shape: the two classes. At Shape.area: the two methods.
  auto classes = (*provider)->implementations("shapes.ts", 19);
  REQUIRE(classes.hasValue());
  CHECK(classes->source == "scip");
  REQUIRE(classes->locations.size() == 2);
  CHECK(lineOf(classes->locations[0]) + lineOf(classes->locations[1]) == 3);
  auto methods = (*provider)->implementations("shapes.ts", 26);
  REQUIRE(methods.hasValue());
  REQUIRE(methods->locations.size() == 2);
  for (const SymbolLocation& l : methods->locations) CHECK(l.name == "area");
  // No type facts for a variable; no override facts for a Python method: Unsupported, not [].
  auto type = (*provider)->typeDefinitions("shapes.ts", 194);
  CHECK_FALSE(type.hasValue());
  auto pyMethod = (*provider)->implementations("jobs.py", 20);
  REQUIRE_FALSE(pyMethod.hasValue());
  CHECK(pyMethod.status().code() == ErrorCode::Unsupported);
}

}  // namespace nib::test

namespace nib::test {

// Issue 25: typeDefinition and implementation where no indexer records the facts (a TypeScript
// variable's type; a Python method's overrides) go, under `auto`, to the live backend when it
// announced the method — typescript-language-server does, pylsp does not — and are answered by
// the index (the precise view's relationships) where it has them. A backend that cannot answer
// leaves the index's refusal, with the backend's reason in nib/locate.
TEST_CASE("typeDefinition and implementation the index cannot answer go to the live backend", "[precise][lsp][live]") {
  TestRepo repo;
  repo.write("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}\n");
  repo.write("shapes.ts",
             "export interface Shape { area(): number; }\n"
             "export class Square implements Shape { area(): number { return 4; } }\n"
             "export const s: Shape = new Square();\n");
  repo.write("jobs.py", kPython);
  repo.commitAll();
  indexWith(repo, "--no-dense", /*precise=*/true);
  LspClient c(repo.root());
  c.initialize(repo.root());
  std::string shapes = LspClient::uri(repo.root() / "shapes.ts");
  auto locate = [&](const std::string& file, int line, int character, const std::string& request) {
    return c.request("nib/locate", {{"textDocument", {{"uri", LspClient::uri(repo.root() / file)}}},
                                    {"position", {{"line", line}, {"character", character}}},
                                    {"request", request}},
                     60000)["result"];
  };
  // The variable's type: tsserver goes to the interface (the index records no type for it).
  json type = locate("shapes.ts", 2, 13, "typeDefinition");
  INFO(type.dump());
  CHECK(type["provider"] == "live");
  CHECK(type["backend"].get<std::string>().find("typescript") != std::string::npos);
  REQUIRE(type["locations"].size() == 1);
  CHECK(type["locations"][0]["uri"] == shapes);
  CHECK(type["locations"][0]["range"]["start"]["line"] == 0);
  json plain = c.request("textDocument/typeDefinition", at(repo, "shapes.ts", 2, 13), 60000);
  REQUIRE(plain["result"].is_array());
  CHECK(plain["result"] == type["locations"]);
  // The interface's implementations: the precise view's relationship, from the index.
  json impl = locate("shapes.ts", 0, 19, "implementation");
  INFO(impl.dump());
  CHECK(impl["provider"] == "static");
  CHECK(impl["facts"] == "scip");
  REQUIRE(impl["locations"].size() == 1);
  CHECK(impl["locations"][0]["range"]["start"]["line"] == 1);
  // A Python method's overrides: pylsp has no implementation provider; the refusal stands.
  json py = c.request("textDocument/implementation", at(repo, "jobs.py", 1, 8), 60000);
  INFO(py.dump());
  REQUIRE(py.contains("error"));
  CHECK(py["error"]["message"].get<std::string>().find("compiler") != std::string::npos);
  CHECK(py["error"]["message"].get<std::string>().find("does not answer textDocument/implementation") != std::string::npos);
  json pyLocate = c.request("nib/locate", {{"textDocument", {{"uri", LspClient::uri(repo.root() / "jobs.py")}}},
                                           {"position", {{"line", 1}, {"character", 8}}},
                                           {"request", "implementation"}},
                            60000);
  INFO(pyLocate.dump());
  CHECK(pyLocate.contains("error"));
  CHECK(c.shutDown() == 0);
}

}  // namespace nib::test

namespace nib::test {

// A name accessed through an index signature (`opts().shared`): scip-typescript writes one local
// symbol, defined nowhere, at every name accessed that way; TypeScript's server lists no
// references there. A JavaScript property made by assignment (`this.x = 1`) is also a local
// defined nowhere, but spelled one way: it keeps its references.
TEST_CASE("names read through an index signature list no references, a JavaScript property made by assignment does",
          "[precise]") {
  TestRepo repo;
  const std::string opts =
      "export interface Values { [key: string]: any }\n"
      "export function opts(): Values { return {}; }\n"
      "export const a = opts().shared + opts().debug;\n";
  const std::string foo = "class Foo { constructor() { this.x = 1; } get() { return this.x; } }\nmodule.exports = Foo;\n";
  repo.write("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"allowJs\": true}}\n");
  repo.write("opts.ts", opts);
  repo.write("foo.js", foo);
  repo.commitAll();
  buildPrecise(repo);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto shared = (*provider)->references("opts.ts", static_cast<uint32_t>(opts.find("shared")), true);
  INFO((shared ? "" : shared.status().toString()));
  CHECK((!shared.hasValue() || shared->locations.empty()));
  auto x = (*provider)->references("foo.js", static_cast<uint32_t>(foo.find("x = 1")), true);
  INFO((x ? "" : x.status().toString()));
  REQUIRE(x.hasValue());
  CHECK(x->source == "scip");
  CHECK(x->locations.size() == 2);
}


TEST_CASE("a folder's jsconfig.json is a TypeScript project unless a tsconfig.json is beside it", "[precise]") {
  std::map<std::string, std::string> blobs = {{"a/jsconfig.json", "1"}, {"a/x.js", "2"},
                                              {"b/jsconfig.json", "3"}, {"b/tsconfig.json", "4"},
                                              {"node_modules/m/jsconfig.json", "5"}, {"tools/t.py", "6"}};
  std::vector<PreciseProject> projects = findPreciseProjects(blobs);
  REQUIRE(projects.size() == 3);
  CHECK(projects[0].dir == "a");
  CHECK(projects[0].jsconfig);
  CHECK(std::string(projects[0].configFile()) == "jsconfig.json");
  CHECK(projects[1].dir == "b");
  CHECK_FALSE(projects[1].jsconfig);
  CHECK(projects[2].language == "python");
}

}  // namespace nib::test
