// Freshness acceptance: after each kind of change, the answers of an index built before it —
// with the worktree overlaid (changed files re-extracted, deleted ones tombstoned, new ones
// added), and after `nib index` caught up — equal those of a golden index built from scratch
// on the new state: every definition's definition and references.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <random>
#include <thread>
#include <set>

#include <nlohmann/json.hpp>

#include "LspClient.h"
#include "TestRepo.h"
#include "indexer/Extractor.h"
#include "indexer/GitRepository.h"
#include "indexer/IndexBuilder.h"
#include "server/Engine.h"
#include "support/FileIo.h"
#include "views/IndexLayout.h"
#include "views/VersionComparison.h"

namespace nib::test {
namespace fs = std::filesystem;
namespace {

const std::map<std::string, std::string> kBase = {
    {"pkg/util.py", "def helper(x):\n    return x + 1\n\n\ndef unused():\n    return 0\n"},
    {"pkg/main.py", "from pkg.util import helper\n\n\ndef run():\n    return helper(1)\n"},
    {"lib/shapes.h", "struct point { int x; int y; };\nint area(struct point *p);\n"},
    {"lib/shapes.c", "#include \"shapes.h\"\nint area(struct point *p) { return p->x * p->y; }\n"},
    {"lib/use.c", "#include \"shapes.h\"\nint use(void) { struct point q = {1, 2}; return area(&q); }\n"},
};

// Every definition's answers, as "path@start-end" sets, keyed by where the definition is.
using Answers = std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>>;

std::set<std::string> locations(const Expected<NavigationResult>& r) {
  std::set<std::string> out;
  if (r)
    for (const SymbolLocation& l : r->locations)
      out.insert(l.path + "@" + std::to_string(l.range.startByte) + "-" + std::to_string(l.range.endByte));
  return out;
}

// Asks `engine` about every definition `golden` knows (names of the golden's files).
Answers answersOf(Engine& engine, Engine& golden, const fs::path& root) {
  Answers out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    std::string rel = fs::relative(entry.path(), root).generic_string();
    if (rel.rfind(".git", 0) == 0 || rel.rfind(".nib", 0) == 0 || !entry.is_regular_file()) continue;
    auto facts = golden.facts(rel);
    if (!facts) continue;
    for (const Definition& d : facts->definitions) {
      uint32_t at = d.nameRange.startByte;
      std::string key = rel + ":" + d.name + "@" + std::to_string(at);
      out[key] = {locations(engine.definition(rel, at)), locations(engine.references(rel, at, true))};
    }
  }
  return out;
}

// The same answers as the front doors print them: "path:line:column" (0-based, ASCII sources, so
// UTF-16 columns are byte columns) of each location, keyed like Answers.
using WireAnswers = std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>>;

std::set<std::string> wireLocations(const Expected<NavigationResult>& r) {
  std::set<std::string> out;
  if (r)
    for (const SymbolLocation& l : r->locations)
      out.insert(l.path + ":" + std::to_string(l.range.start.line) + ":" + std::to_string(l.range.start.column));
  return out;
}

std::set<std::string> wireLocations(const nlohmann::json& locations) {
  std::set<std::string> out;
  for (const auto& l : locations)
    out.insert(l["path"].get<std::string>() + ":" + std::to_string(l["range"]["start"]["line"].get<int>()) + ":" +
               std::to_string(l["range"]["start"]["character"].get<int>()));
  return out;
}

// Every definition of the golden index, where it is now: key, path and 1-based line and column.
struct Asked {
  std::string key, path;
  uint32_t line, column, offset;
};
std::vector<Asked> goldenDefinitions(Engine& golden, const fs::path& root) {
  std::vector<Asked> out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    std::string rel = fs::relative(entry.path(), root).generic_string();
    if (rel.rfind(".git", 0) == 0 || rel.rfind(".nib", 0) == 0 || !entry.is_regular_file()) continue;
    auto facts = golden.facts(rel);
    if (!facts) continue;
    for (const Definition& d : facts->definitions)
      out.push_back(Asked{rel + ":" + d.name + "@" + std::to_string(d.nameRange.startByte), rel,
                          d.nameRange.start.line + 1, d.nameRange.start.column + 1, d.nameRange.startByte});
  }
  return out;
}

WireAnswers goldenWire(Engine& golden, const std::vector<Asked>& asked) {
  WireAnswers out;
  for (const Asked& a : asked)
    out[a.key] = {wireLocations(golden.definition(a.path, a.offset)), wireLocations(golden.references(a.path, a.offset, true))};
  return out;
}

// `nib def --json` and `nib refs --json` as whole processes (no daemon): the CLI front door.
WireAnswers cliAnswers(const fs::path& root, const std::vector<Asked>& asked) {
  WireAnswers out;
  for (const Asked& a : asked) {
    std::string at = a.path + ":" + std::to_string(a.line) + ":" + std::to_string(a.column);
    for (const char* command : {"def", "refs"}) {
      std::string text;
      runCommand("cd " + shellQuote(root.string()) + " && " + shellQuote(nibBinary()) + " " + command +
                     " --json --no-daemon " + shellQuote(at),
                 &text);
      auto j = nlohmann::json::parse(text, nullptr, false);
      std::set<std::string> got;
      if (!j.is_discarded() && j.contains("locations")) {
        got = wireLocations(j["locations"]);
        // Every answer says it reflects the worktree (overlaid, or fresh), never partial.
        if (j["freshness"]["partial"] != false) got.insert("partial: " + j["freshness"].dump());
        if (j["freshness"]["worktreeMethod"] != "stat") got.insert("unchecked: " + j["freshness"].dump());
      }
      (std::string(command) == "def" ? out[a.key].first : out[a.key].second) = std::move(got);
    }
  }
  return out;
}

// The definition and references tools of `nib mcp`, driven by the MCP SDK client: the MCP front
// door (tests/mcp/drive.mjs).
WireAnswers mcpAnswers(const fs::path& root, const std::vector<Asked>& asked) {
  nlohmann::json calls = nlohmann::json::array();
  for (const Asked& a : asked)
    for (const char* tool : {"definition", "references"})
      calls.push_back({{"tool", tool}, {"arguments", {{"path", a.path}, {"line", a.line}, {"column", a.column}}}});
  fs::path callsFile = root / ".git" / "mcp-calls.json";
  std::ofstream(callsFile) << calls.dump();
  std::string out;
  int rc = runCommand("node " + shellQuote((fs::path(NIB_TESTS_DIR) / "mcp" / "drive.mjs").string()) + " --command " +
                          shellQuote(nibBinary()) + " --cwd " + shellQuote(root.string()) + " --calls " +
                          shellQuote(callsFile.string()),
                      &out);
  INFO(out);
  REQUIRE(rc == 0);
  nlohmann::json d = nlohmann::json::parse(out);
  REQUIRE(d["results"].size() == calls.size());
  WireAnswers answers;
  for (size_t i = 0; i < asked.size(); ++i)
    for (int k = 0; k < 2; ++k) {
      const auto& r = d["results"][2 * i + k];
      std::set<std::string> got;
      if (r.contains("result") && !r["result"].value("isError", false)) {
        const auto& content = r["result"]["structuredContent"];
        got = wireLocations(content["locations"]);
        if (content["freshness"]["partial"] != false) got.insert("partial: " + content["freshness"].dump());
      }
      (k == 0 ? answers[asked[i].key].first : answers[asked[i].key].second) = std::move(got);
    }
  return answers;
}

struct Scenario {
  const char* name;
  std::function<void(TestRepo&)> change;
  bool beforeWatching = false;  // the change happens while nothing watches
};

std::unique_ptr<Engine> openWatched(const fs::path& root, const fs::path& indexDir = {}) {
  auto e = Engine::open(root, indexDir);
  REQUIRE(e.hasValue());
  auto extractor = std::make_shared<Extractor>();
  (*e)->setFactsExtractor([extractor](Language lang, std::string_view text) { return extractor->extract(lang, text); });
  std::shared_ptr<GitRepository> repo;
  if (auto r = GitRepository::discover(root)) repo = std::move(*r);
  (*e)->setIgnoredPredicate([repo](const std::string& p) { return !repo || repo->isIgnored(p); });
  (*e)->watchWorktree();
  return std::move(*e);
}

// kBase committed and indexed, then opened as the server opens it: watched, with an extractor.
std::unique_ptr<Engine> indexBaseAndWatch(TestRepo& repo) {
  repo.writeAll(kBase);
  repo.commitAll();
  indexAndOpen(repo, 1);
  return openWatched(repo.root());
}

}  // namespace

TEST_CASE("after every kind of change, answers equal a golden index of the new state", "[freshness][acceptance]") {
  const std::vector<Scenario> scenarios = {
      {"rename a function used across files",
       [](TestRepo& r) {
         r.write("pkg/util.py", "def assist(x):\n    return x + 1\n\n\ndef unused():\n    return 0\n");
         r.write("pkg/main.py", "from pkg.util import assist\n\n\ndef run():\n    return assist(1)\n");
       }},
      {"delete an exported symbol",
       [](TestRepo& r) { r.write("pkg/util.py", "def unused():\n    return 0\n"); }},
      {"move a file",
       [](TestRepo& r) {
         r.git("mv pkg/util.py pkg/tools.py");
         r.write("pkg/main.py", "from pkg.tools import helper\n\n\ndef run():\n    return helper(1)\n");
       }},
      {"change a header included by several files",
       [](TestRepo& r) {
         r.write("lib/shapes.h", "struct point { int x; int y; int z; };\nint area(struct point *p);\nint volume(struct point *p);\n");
         r.write("lib/shapes.c", "#include \"shapes.h\"\nint area(struct point *p) { return p->x * p->y; }\n"
                                 "int volume(struct point *p) { return area(p) * p->z; }\n");
       }},
      {"uncommitted edits",
       [](TestRepo& r) { r.write("lib/use.c", "#include \"shapes.h\"\nint use(void) { return 0; }\nint more(void) { return use(); }\n"); }},
      {"a new untracked file",
       [](TestRepo& r) { r.write("pkg/extra.py", "from pkg.util import helper\n\n\ndef twice(x):\n    return helper(helper(x))\n"); }},
      {"a forced switch to an unrelated branch",
       [](TestRepo& r) {
         r.git("checkout -q --orphan other");
         r.git("rm -rq --cached .");
         for (const auto& [path, _] : kBase) fs::remove(r.root() / path);
         r.write("app/core.py", "class Engine:\n    def start(self):\n        return boot()\n\n\ndef boot():\n    return 1\n");
         r.write("app/cli.py", "from app.core import Engine, boot\n\n\ndef main():\n    return Engine().start() + boot()\n");
         r.commitAll("unrelated");
         r.git("checkout -q -f other");
       }},
      {"a change made while nothing was watching",
       [](TestRepo& r) {
         r.write("pkg/main.py", "from pkg.util import helper, unused\n\n\ndef run():\n    return helper(1) + unused()\n");
       },
       true},
  };
  for (const Scenario& s : scenarios) {
    INFO(s.name);
    TestRepo repo;
    repo.writeAll(kBase);
    repo.commitAll();
    IndexOptions options;
    options.threads = 1;
    auto first = buildIndex(repo.root(), options);
    REQUIRE(first.hasValue());
    std::unique_ptr<Engine> stale;
    if (!s.beforeWatching) stale = openWatched(repo.root());
    s.change(repo);
    if (s.beforeWatching) stale = openWatched(repo.root());

    // The golden index: from scratch, in its own folder, on the new state.
    fs::path goldenDir = fs::temp_directory_path() / ("nib-golden-" + std::to_string(::getpid()) + "-" +
                                                      std::to_string(reinterpret_cast<uintptr_t>(&repo)));
    fs::remove_all(goldenDir);
    IndexOptions golden = options;
    golden.indexDir = goldenDir;
    // An update keeps the dense view's model; the golden embeds with that same model.
    golden.denseModel = IndexLayout(repo.root() / ".nib").versionDir(first->manifest.versionId) / "dense" / "model.bin";
    auto built = buildIndex(repo.root(), golden);
    REQUIRE(built.hasValue());
    auto goldenEngine = Engine::open(repo.root(), goldenDir);
    REQUIRE(goldenEngine.hasValue());
    Answers expected = answersOf(**goldenEngine, **goldenEngine, repo.root());
    REQUIRE(expected.size() >= 3);

    // 1. The stale index with the worktree overlaid.
    const Engine::WorktreeOverlay& overlay = stale->syncWorktreeOverlays();
    CHECK(overlay.complete);
    CHECK(overlay.files > 0);
    CHECK(answersOf(*stale, **goldenEngine, repo.root()) == expected);
    // ... and through the other front doors, as whole processes over the same stale index: the
    // CLI and the MCP server lay the worktree over it the same way.
    {
      std::vector<Asked> asked = goldenDefinitions(**goldenEngine, repo.root());
      WireAnswers wire = goldenWire(**goldenEngine, asked);
      INFO("the CLI front door");
      CHECK(cliAnswers(repo.root(), asked) == wire);
      INFO("the MCP front door");
      CHECK(mcpAnswers(repo.root(), asked) == wire);
    }

    // 2. `nib index` catching up declares what the golden does, and answers the same: first as
    // a delta version over the first build (its views shared, the changed files laid over
    // them), then as a full rewrite (facts of unchanged files reused).
    for (bool full : {false, true}) {
      INFO((full ? "full update" : "delta update"));
      IndexOptions update = options;
      if (full) update.deltaBudget = 0;
      auto report = buildIndex(repo.root(), update);
      REQUIRE(report.hasValue());
      CHECK(report->deltaBase == (full ? "" : first->manifest.versionId));
      auto updated = Engine::open(repo.root());
      REQUIRE(updated.hasValue());
      CHECK((*updated)->manifest().base == report->deltaBase);
      CHECK(answersOf(**updated, **goldenEngine, repo.root()) == expected);
      IndexLayout ours(repo.root() / ".nib"), theirs(goldenDir);
      auto cmp = compareVersions(ours.versionDir((*updated)->manifest().versionId), ours.factsDir(),
                                 theirs.versionDir(built->manifest.versionId), theirs.factsDir(), 5);
      REQUIRE(cmp.hasValue());
      for (const auto& d : cmp->differences) INFO(d.where + " " + d.key + " " + d.what);
      CHECK(cmp->identical);
      CHECK(cmp->delta == !full);
    }
    fs::remove_all(goldenDir);
  }
}

TEST_CASE("an overlay over budget says so instead of passing off a partial answer", "[freshness]") {
  TestRepo repo;
  auto watched = indexBaseAndWatch(repo);
  for (int i = 0; i < 5; ++i) repo.write("pkg/new" + std::to_string(i) + ".py", "def f" + std::to_string(i) + "():\n    return 1\n");
  const Engine::WorktreeOverlay& overlay = watched->syncWorktreeOverlays(3);
  CHECK_FALSE(overlay.complete);
  CHECK(overlay.reason.find("more than 3 files") != std::string::npos);
  // Reverting makes the overlay empty again.
  for (int i = 0; i < 5; ++i) fs::remove(repo.root() / ("pkg/new" + std::to_string(i) + ".py"));
  const Engine::WorktreeOverlay& back = watched->syncWorktreeOverlays(3);
  CHECK(back.complete);
  CHECK(back.files == 0);
  // A new project configuration: no overlay stands for it.
  repo.write(".nib.conf", "dense.encoder.url = http://127.0.0.1:9/v1/embeddings\n");
  const Engine::WorktreeOverlay& configured = watched->syncWorktreeOverlays(3);
  CHECK_FALSE(configured.complete);
  CHECK(configured.reason == ".nib.conf changed since the index was built");
  auto f = watched->freshness(true);
  REQUIRE(f.hasValue());
  CHECK(f->partial);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("an answer's labels describe the worktree its overlays saw, not changes made since", "[freshness]") {
  TestRepo repo;
  auto watched = indexBaseAndWatch(repo);
  repo.write("pkg/main.py", "from pkg.util import helper\n\n\ndef run():\n    return helper(1) + helper(2)\n");
  const Engine::WorktreeOverlay& overlay = watched->syncWorktreeOverlays();
  REQUIRE(overlay.complete);
  REQUIRE(overlay.files == 1);
  // Another file changes after the answer's overlays were synced, before its labels are read.
  repo.write("pkg/util.py", "def helper(x):\n    return x + 2\n");
  auto answered = watched->freshness(true, /*asAnswered=*/true);
  REQUIRE(answered.hasValue());
  CHECK(answered->overlaid);
  CHECK_FALSE(answered->partial);
  CHECK(answered->changedFiles == std::vector<std::string>{"pkg/main.py"});
  // Asked afresh (nib status), the new change is seen, and not yet overlaid: partial, not overlaid.
  auto now = watched->freshness(true);
  REQUIRE(now.hasValue());
  CHECK(now->changedFiles.size() == 2);
  CHECK_FALSE(now->overlaid);
  CHECK(now->partial);
  // Once the overlays follow it, answers are overlaid again.
  watched->syncWorktreeOverlays();
  auto synced = watched->freshness(true, /*asAnswered=*/true);
  REQUIRE(synced.hasValue());
  CHECK(synced->overlaid);
  CHECK(synced->changedFiles.size() == 2);
}

TEST_CASE("the server answers from the worktree as it is, and labels what that answer reflects", "[freshness][lsp]") {
  TestRepo repo;
  repo.writeAll(kBase);
  repo.commitAll();
  indexAndOpen(repo, 1);
  LspClient c(repo.root());
  c.initialize(repo.root());
  auto refs = [&](const char* path, int line, int character) {
    return c.request("nib/locate", {{"textDocument", {{"uri", LspClient::uri(repo.root() / path)}}},
                                    {"position", {{"line", line}, {"character", character}}},
                                    {"request", "references"}});
  };
  nlohmann::json before = refs("pkg/util.py", 0, 4);
  REQUIRE(before["result"]["locations"].size() == 3);  // definition, import, call
  CHECK(before["result"]["fresh"] == true);
  CHECK(before["result"]["partial"] == false);
  // Edited on disk, not in the editor, and a new file: nothing was re-indexed.
  repo.write("pkg/main.py", "from pkg.util import helper\n\n\ndef run():\n    return helper(1) + helper(2)\n");
  repo.write("pkg/more.py", "from pkg.util import helper\n\n\ndef again():\n    return helper(3)\n");
  nlohmann::json after = refs("pkg/util.py", 0, 4);
  CHECK(after["result"]["locations"].size() == 6);  // + the second call, the new import and call
  CHECK(after["result"]["fresh"] == false);
  CHECK(after["result"]["partial"] == false);   // the worktree is overlaid: nothing is missing
  repo.git("add -A");
  std::string tree;
  runCommand("cd " + shellQuote(repo.root().string()) + " && git write-tree", &tree);
  while (!tree.empty() && tree.back() == '\n') tree.pop_back();
  CHECK(after["result"]["worktreeTree"] == tree);
  // Deleting the definition's file: it leaves the answers (no stale hits).
  auto inUtil = [&](const nlohmann::json& symbols) {
    int n = 0;
    for (const auto& s : symbols["result"]) n += s["location"]["uri"] == LspClient::uri(repo.root() / "pkg/util.py");
    return n;
  };
  CHECK(inUtil(c.request("workspace/symbol", {{"query", "helper"}})) == 1);
  fs::remove(repo.root() / "pkg/util.py");
  CHECK(inUtil(c.request("workspace/symbol", {{"query", "helper"}})) == 0);
  nlohmann::json orphan = refs("pkg/main.py", 4, 12);  // the call of the deleted helper
  REQUIRE(orphan.contains("result"));
  CHECK(orphan["result"]["locations"].size() >= 1);    // its own call sites still answer
  for (const auto& l : orphan["result"]["locations"]) CHECK(l["uri"] != LspClient::uri(repo.root() / "pkg/util.py"));
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("the server builds a new version in the background when HEAD moves, and switches to it", "[freshness][lsp]") {
  TestRepo repo;
  repo.writeAll(kBase);
  repo.commitAll();
  indexAndOpen(repo, 1);
  std::string before = *readFile(repo.root() / ".nib" / "CURRENT");
  LspClient c(repo.root());
  c.initialize(repo.root());
  auto locate = [&] {
    return c.request("nib/locate", {{"textDocument", {{"uri", LspClient::uri(repo.root() / "pkg/util.py")}}},
                                    {"position", {{"line", 0}, {"character", 4}}},
                                    {"request", "references"}});
  };
  CHECK(locate()["result"]["fresh"] == true);
  repo.write("pkg/main.py", "from pkg.util import helper\n\n\ndef run():\n    return helper(1) + helper(2)\n");
  repo.commitAll("two calls");
  // The first answer after the commit is overlaid (right, not fresh) and starts a build.
  nlohmann::json overlaid = locate();
  CHECK(overlaid["result"]["locations"].size() == 4);
  CHECK(overlaid["result"]["partial"] == false);
  bool caughtUp = false;
  for (int i = 0; i < 200 && !caughtUp; ++i) {
    ::usleep(100 * 1000);
    nlohmann::json r = locate();
    caughtUp = r["result"]["fresh"] == true && r["result"]["indexCommit"] == r["result"]["headCommit"];
    if (caughtUp) CHECK(r["result"]["locations"].size() == 4);
  }
  CHECK(caughtUp);
  CHECK(*readFile(repo.root() / ".nib" / "CURRENT") != before);
}

}  // namespace nib::test

namespace nib::test {

// Issue 22's kill loop: `nib index` (a full rebuild, and an update that publishes a delta) is
// killed at seeded random moments; after each kill, `nib refs` and `nib def` as whole processes
// must give the answers of a golden index of the worktree as it is — whichever version the kill
// left current, never one version's positions printed with another's text.
TEST_CASE("killing nib index at any moment never yields a mixed answer", "[freshness][kill]") {
  TestRepo repo;
  std::map<std::string, std::string> files = kBase;
  // Enough files that a build takes long enough to be killed in the middle.
  for (int i = 0; i < 40; ++i)
    files["gen/m" + std::to_string(i) + ".py"] =
        "from pkg.util import helper\n\n\ndef g" + std::to_string(i) + "(x):\n    return helper(x) + " + std::to_string(i) + "\n";
  repo.writeAll(files);
  repo.commitAll();
  std::string out;
  const std::string nib = "cd " + shellQuote(repo.root().string()) + " && NIB_NO_DENSE_FOLLOW_UP=1 " + shellQuote(nibBinary());
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(runCommand(nib + " index -q", &out, true) == 0);
  // Kills land anywhere within a build's duration on this machine.
  const int buildMs = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                           std::chrono::steady_clock::now() - started).count());
  // The worktree moves on: lines shift in the definition's file and in users, a user goes.
  repo.write("pkg/util.py", "# moved down\n\n\ndef helper(x):\n    return x + 2\n\n\ndef unused():\n    return 0\n");
  for (int i = 0; i < 40; i += 3)
    repo.write("gen/m" + std::to_string(i) + ".py",
               "\n\nfrom pkg.util import helper\n\n\ndef g" + std::to_string(i) + "(x):\n    return helper(x)\n");
  fs::remove(repo.root() / "gen" / "m1.py");

  fs::path goldenDir = fs::temp_directory_path() / ("nib-kill-golden-" + std::to_string(::getpid()));
  fs::remove_all(goldenDir);
  IndexOptions golden;
  golden.threads = 1;
  golden.dense = false;
  golden.indexDir = goldenDir;
  REQUIRE(buildIndex(repo.root(), golden).hasValue());
  auto goldenEngine = Engine::open(repo.root(), goldenDir);
  REQUIRE(goldenEngine.hasValue());
  std::vector<Asked> asked;
  for (const Asked& a : goldenDefinitions(**goldenEngine, repo.root()))
    if (a.path == "pkg/util.py" || a.path == "gen/m3.py" || a.path == "gen/m2.py") asked.push_back(a);
  REQUIRE(asked.size() >= 4);
  WireAnswers expected = goldenWire(**goldenEngine, asked);
  size_t helperRefs = 0;
  for (const Asked& a : asked)
    if (a.key.find(":helper@") != std::string::npos) helperRefs = expected.at(a.key).second.size();
  REQUIRE(helperRefs > 40);  // helper: imported and called by every module

  // Every round starts from the first version, so that each kill lands somewhere in a build
  // from it (a finished round would otherwise leave nothing for the next to interrupt).
  const fs::path nibDir = repo.root() / ".nib", saved = repo.root() / ".git" / "nib-saved";
  fs::copy(nibDir, saved, fs::copy_options::recursive);
  const std::string firstVersion = *readFile(nibDir / "CURRENT");
  std::mt19937 random(22);
  int interrupted = 0;
  for (int round = 0; round < 10; ++round) {
    fs::remove_all(nibDir);
    fs::copy(saved, nibDir, fs::copy_options::recursive);
    const bool full = round % 2 == 0;
    const int delayMs = std::uniform_int_distribution<int>(0, buildMs)(random);
    INFO("round " << round << (full ? " (full rebuild)" : " (update)") << ", killed after " << delayMs << " ms");
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::setpgid(0, 0);
      ::execl("/bin/sh", "sh", "-c", (nib + (full ? " index -q --force" : " index -q") + " >/dev/null 2>&1").c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::setpgid(pid, pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
    ::kill(-pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (*readFile(nibDir / "CURRENT") == firstVersion) ++interrupted;
    CHECK(cliAnswers(repo.root(), asked) == expected);
  }
  // How many kills left the first version current (the rest landed after publication).
  WARN(interrupted << " of 10 kills landed before publication");
  fs::remove_all(goldenDir);
}

}  // namespace nib::test
