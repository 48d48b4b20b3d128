// The provider policy at the navigation interface (providers/PolicyNavigator, through
// Engine::navigate), with real backends (pylsp, clangd) and the fake one for faults; then the
// same policy at the CLI (`nib def/refs --provider`) and the MCP tools.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "McpRun.h"
#include "TestRepo.h"
#include "providers/PolicyNavigator.h"
#include "server/LiveSetup.h"
#include "support/FileIo.h"

namespace nib::test {
namespace fs = std::filesystem;
using json = nlohmann::json;
namespace {

const char* kGeometry =
    "def distance(a, b):\n"
    "    return abs(a - b)\n";
const char* kMain =
    "from geometry import distance\n"
    "\n"
    "\n"
    "def run():\n"
    "    return distance(1, 2) + distance(3, 4)\n";
const char* kOverloads =
    "double total(int a);\n"
    "double total(int a, int b);\n"
    "double total(int a) { return a; }\n"
    "double total(int a, int b) { return a + b; }\n"
    "int main() { return static_cast<int>(total(1, 2)); }\n";

NavigationResult answerAt(const std::string& path, uint32_t line, Confidence confidence, std::string source) {
  NavigationResult r;
  SymbolLocation l;
  l.path = path;
  l.range.start.line = line;
  r.locations.push_back(l);
  r.confidence = confidence;
  r.source = std::move(source);
  return r;
}

PolicyRequest requestFor(Language language, ProviderPolicy policy, bool partial = false) {
  PolicyRequest r;
  r.path = "f";
  r.language = language;
  r.policy = policy;
  r.partial = partial;
  return r;
}

std::unique_ptr<LiveProvider> backends(const fs::path& root, const std::map<Language, std::vector<std::string>>& commands) {
  LiveSettings settings;
  settings.root = root;
  settings.commands = commands;
  settings.timeout = std::chrono::milliseconds(60000);
  return startLiveProvider(root, std::move(settings), {});
}

LineKeys keysOf(const NavigationResult& r) {
  LineKeys keys;
  for (const SymbolLocation& l : r.locations) keys.insert({l.path, l.range.start.line});
  return keys;
}

uint32_t offsetOf(const std::string& text, const std::string& needle, int nth = 0) {
  size_t at = text.find(needle);
  for (int i = 0; i < nth; ++i) at = text.find(needle, at + 1);
  REQUIRE(at != std::string::npos);
  return static_cast<uint32_t>(at);
}

}  // namespace

TEST_CASE("a backend's references while it indexes get the index's for the files it listed none of", "[policy]") {
  TestRepo repo;
  // b.c's line holds a two-byte character before the name: the wire range counts UTF-16 units.
  // No command builds c.c (closed) nor d.c (open in the editor).
  repo.writeAll({{"a.c", "int f(void);\nint g(void) { return f(); }\n"},
                 {"b.c", "/* \xc3\xa9 */ int h(void) { return f(); }\n"},
                 {"c.c", "int c(void) { return f(); }\n"},
                 {"d.c", "int d(void) { return f(); }\n"}});
  LiveSettings settings;
  settings.root = repo.root();
  LiveProvider live(settings, [&](const std::string& p) { return readWorktreeFile(repo.root(), p); }, nullptr);
  LiveAnswer answer;
  answer.backend = "clangd";
  answer.indexing = true;
  auto listed = [](std::string path, uint32_t line, uint32_t column) {
    LiveLocation l;
    l.path = std::move(path);
    l.range.start = {line, column};
    l.range.end = {line, column + 1};
    l.wire = {{line, column}, {line, column + 1}};
    return l;
  };
  // The backend lists a.c's call, and c.c's from its memory of a file it once opened.
  answer.locations = {listed("a.c", 1, 21), listed("c.c", 0, 21)};
  auto site = [](std::string path, uint32_t line, uint32_t column, bool ascii) {
    SymbolLocation l;
    l.path = std::move(path);
    l.range.start = {line, column};
    l.range.end = {line, column + 1};
    l.ascii = ascii;
    return l;
  };
  // The index's: a.c's two sites (the backend listed that file: its own answer stands), b.c's,
  // and those of the files no command builds.
  NavigationResult index;
  index.locations = {site("a.c", 0, 4, true), site("a.c", 1, 21, true), site("b.c", 0, 30, false),
                     site("c.c", 0, 21, true), site("d.c", 0, 21, true)};
  PolicyRequest request;
  request.kind = NavigationKind::References;
  request.unbuiltFiles = std::make_shared<const std::set<std::string>>(std::set<std::string>{"c.c", "d.c"});
  request.shownFiles = {"a.c", "d.c"};
  settleLiveReferences(request, index, answer, live);
  CHECK(answer.leftOut == 1);  // c.c: closed, and no command builds it
  std::vector<std::string> paths;
  for (const LiveLocation& l : answer.locations) paths.push_back(l.path);
  REQUIRE(paths == std::vector<std::string>{"a.c", "b.c", "d.c"});
  const LiveLocation& added = answer.locations[1];
  CHECK(added.inWorkspace);
  CHECK(added.range.start.column == 30);
  CHECK(added.wire.start.character == 29);  // é: two bytes, one UTF-16 unit
  CHECK(added.uri.find("/b.c") != std::string::npos);
  CHECK(answer.fromIndex == 2);
  CHECK(liveReferencesNote(answer) ==
        "clangd was still indexing the workspace: merged with the index's references (2 in files it listed none of); "
        "left out 1 reference clangd gave in files no project builds that are not open (no compile command, no "
        "tsconfig.json): it knows those only from files it opened before");

  // Under compare the backend's own answer stands, set against the index's.
  LiveAnswer own;
  own.backend = "clangd";
  own.indexing = true;
  own.locations = {listed("a.c", 1, 21)};
  request.policy = ProviderPolicy::Compare;
  settleLiveReferences(request, index, own, live);
  CHECK(own.locations.size() == 1);
  CHECK_FALSE(own.indexMerged);
}

TEST_CASE("the policy answers from the index when it is exact and fresh, and says why not otherwise", "[policy]") {
  PolicyNavigator noBackends(nullptr);
  auto exactPython = answerAt("f.py", 0, Confidence::Exact, "tree-sitter");
  PolicyOutcome o = noBackends.decide(requestFor(Language::Python, ProviderPolicy::Auto), exactPython);
  CHECK(o.reason == "fresh and exact");
  CHECK(!o.askLive);
  CHECK(std::string(o.provider()) == "static");
  CHECK(o.liveError.empty());

  // C++ needs the compiler's resolution unless libclang's facts answered.
  o = noBackends.decide(requestFor(Language::Cpp, ProviderPolicy::Auto), answerAt("f.cpp", 0, Confidence::Exact, "tree-sitter"));
  CHECK(o.reason == "cpp needs the compiler's resolution");
  CHECK(!o.askLive);
  CHECK(o.liveError == "no live backend is running");
  o = noBackends.decide(requestFor(Language::Cpp, ProviderPolicy::Auto), answerAt("f.cpp", 0, Confidence::Exact, "clang"));
  CHECK(o.reason == "fresh and exact");

  o = noBackends.decide(requestFor(Language::Python, ProviderPolicy::Auto), answerAt("f.py", 0, Confidence::Name, "tree-sitter"));
  CHECK(o.reason == "the index resolved by name only");
  o = noBackends.decide(requestFor(Language::Python, ProviderPolicy::Auto, /*partial=*/true), exactPython);
  CHECK(o.reason == "the index may miss changes to this file");
  o = noBackends.decide(requestFor(Language::Python, ProviderPolicy::Auto),
                        Status(ErrorCode::NotFound, Reason::NoSymbol, "nothing here"));
  CHECK(o.reason == "no identifier at the position");
  CHECK(o.liveError.empty());
  CHECK(o.answer(NavigationKind::Definition).status().is(Reason::NoSymbol));
  o = noBackends.decide(requestFor(Language::Cpp, ProviderPolicy::Static), answerAt("f.cpp", 0, Confidence::Name, "tree-sitter"));
  CHECK(o.reason == "the static policy");
  CHECK(o.liveError.empty());
}

TEST_CASE("live and compare through the navigation interface with pylsp, and a failing backend", "[policy][live]") {
  TestRepo repo;
  repo.writeAll({{"geometry.py", kGeometry}, {"main.py", kMain}});
  repo.commitAll();
  auto engine = indexAndOpen(repo);
  auto pylsp = backends(repo.root(), {{Language::Python, {"/usr/bin/pylsp"}}});
  PolicyNavigator navigator(pylsp.get());
  const uint32_t call = offsetOf(kMain, "distance(1");

  for (NavigationKind kind : {NavigationKind::Definition, NavigationKind::References}) {
    auto index = engine->navigationRequest(kind, "main.py", call, 4, true, ProviderPolicy::Static);
    REQUIRE(index.hasValue());
    CHECK(index->language == Language::Python);
    auto fromIndex = engine->navigate(navigator, *index).answer(kind);
    REQUIRE(fromIndex.hasValue());
    REQUIRE(!fromIndex->locations.empty());

    PolicyRequest live = *index;
    live.policy = ProviderPolicy::Live;
    PolicyOutcome o = engine->navigate(navigator, live);
    INFO(o.describe(live));
    // The backend was sent the call's line and byte column; the index alone needed neither.
    CHECK(live.position.line == 4);
    CHECK(live.position.column == 11);
    CHECK(index->position.line == 0);
    REQUIRE(o.answeredLive());
    CHECK(o.reason == "the live policy");
    auto fromLive = o.answer(kind);
    REQUIRE(fromLive.hasValue());
    CHECK(fromLive->source == "live");
    // pylsp lists the import too, as the index does: both name the same lines.
    CHECK(keysOf(*fromLive) == keysOf(*fromIndex));

    PolicyRequest compare = *index;
    compare.policy = ProviderPolicy::Compare;
    o = engine->navigate(navigator, compare);
    // Tree-sitter's Python definitions answer from the index; its references, not measured
    // yet, from the backend. Either way the other side is asked too.
    CHECK(std::string(o.provider()) == (kind == NavigationKind::Definition ? "static" : "live"));
    CHECK(o.category == "tree-sitter scope");
    REQUIRE(o.agree.has_value());
    CHECK(*o.agree);
    CHECK(o.describe(compare).find(" agree") != std::string::npos);
  }

  // A backend that dies: the index answers, and says the backend did not.
  auto events = repo.root() / ".git" / "fake-events";
  auto dying = backends(repo.root(), {{Language::Python, {"python3", std::string(NIB_TESTS_DIR) + "/live/fake_backend.py",
                                                          "die", events.string()}}});
  PolicyNavigator failing(dying.get());
  auto request = engine->navigationRequest(NavigationKind::Definition, "main.py", call, 4, true, ProviderPolicy::Live);
  REQUIRE(request.hasValue());
  PolicyOutcome o = engine->navigate(failing, *request);
  CHECK(!o.answeredLive());
  CHECK(!o.liveError.empty());
  auto answer = o.answer(NavigationKind::Definition);
  REQUIRE(answer.hasValue());
  CHECK(answer->locations.size() == 1);
  CHECK(answer->note.find("the live backend did not answer") != std::string::npos);
}

TEST_CASE("auto asks clangd for a C++ overload the index resolves by name", "[policy][live][clang]") {
  TestRepo repo;
  repo.write("total.cpp", kOverloads);
  repo.commitAll();
  auto engine = indexAndOpen(repo);
  auto clangd = backends(repo.root(), {{Language::Cpp, {"clangd", "--background-index=false", "--log=error"}}});
  PolicyNavigator navigator(clangd.get());
  auto request = engine->navigationRequest(NavigationKind::Definition, "total.cpp", offsetOf(kOverloads, "total(1, 2)"), 4,
                                           true, ProviderPolicy::Auto);
  REQUIRE(request.hasValue());
  CHECK(request->language == Language::Cpp);
  PolicyOutcome o = engine->navigate(navigator, *request);
  INFO(o.describe(*request));
  CHECK(o.reason == "cpp needs the compiler's resolution");
  REQUIRE(o.answeredLive());
  auto answer = o.answer(NavigationKind::Definition);
  REQUIRE(answer.hasValue());
  REQUIRE(answer->locations.size() == 1);
  CHECK(answer->locations[0].range.start.line == 3);  // the two-argument definition
}

TEST_CASE("live through the navigation interface with typescript-language-server", "[policy][live]") {
  const std::string shapes =
      "export class Circle {\n"
      "  constructor(private r: number) {}\n"
      "  area(): number { return 3 * this.r * this.r; }\n"
      "}\n";
  const std::string main =
      "import { Circle } from \"./shapes\";\n"
      "const c = new Circle(2);\n"
      "console.log(c.area());\n";
  TestRepo repo;
  repo.writeAll({{"ts/shapes.ts", shapes}, {"ts/main.ts", main},
                 {"tsconfig.json", "{ \"compilerOptions\": { \"strict\": true }, \"include\": [\"ts\"] }\n"}});
  repo.commitAll();
  auto engine = indexAndOpen(repo);
  std::string tsls = std::string(NIB_BACKENDS_BIN) + "/typescript-language-server";
  if (!fs::exists(tsls)) tsls = "typescript-language-server";
  auto ts = backends(repo.root(), {{Language::TypeScript, {tsls, "--stdio"}}});
  PolicyNavigator navigator(ts.get());
  auto request = engine->navigationRequest(NavigationKind::Definition, "ts/main.ts", offsetOf(main, "area()"), 2, true,
                                           ProviderPolicy::Compare);
  REQUIRE(request.hasValue());
  CHECK(request->language == Language::TypeScript);
  PolicyOutcome o = engine->navigate(navigator, *request);
  INFO(o.describe(*request));
  REQUIRE(o.live.has_value());
  REQUIRE(o.live->hasValue());
  CHECK((*o.live)->backend.find("typescript") != std::string::npos);
  REQUIRE((*o.live)->locations.size() == 1);
  CHECK((*o.live)->locations[0].path == "ts/shapes.ts");
  CHECK((*o.live)->locations[0].range.start.line == 2);
  // The index resolves the member through the type too: compare finds them equal.
  REQUIRE(o.agree.has_value());
  CHECK(*o.agree);
}

TEST_CASE("nib def and refs --provider answer through the same policy, for the worktree as it is", "[policy][live][cli]") {
  TestRepo repo;
  repo.writeAll({{"geometry.py", kGeometry}, {"main.py", kMain}});
  repo.commitAll();
  REQUIRE(runNibIn(repo, "", "index -q --no-dense").rc == 0);
  // An uncommitted edit that shifts the call two lines down: both providers answer for it.
  repo.write("main.py", std::string("# a\n# b\n") + kMain);

  NibRun live = runNibIn(repo, "", "def --provider live --no-daemon main.py:7:12");
  INFO(live.out);
  CHECK(live.rc == 0);
  CHECK(live.out.find("geometry.py:1:5:") != std::string::npos);
  CHECK(live.out.find("provider=live") != std::string::npos);
  CHECK(live.out.find("backend=\"pylsp\"") != std::string::npos);

  NibRun refs = runNibIn(repo, "", "refs --provider compare --json --no-daemon main.py:7:12");
  INFO(refs.out);
  REQUIRE(refs.rc == 0);
  json answer = json::parse(refs.out.substr(refs.out.find('{')));
  // Tree-sitter's references are not measured yet: the backend answers, the index compared.
  CHECK(answer["provider"] == "live");
  CHECK(answer["policy"] == "compare");
  CHECK(answer["backend"] == "pylsp");
  CHECK(answer["agree"] == true);
  // The call sites on the shifted lines (0-based 6), both of them.
  int onShiftedLine = 0;
  for (const json& l : answer["locations"]) onShiftedLine += l["path"] == "main.py" && l["range"]["start"]["line"] == 6;
  CHECK(onShiftedLine == 2);

  NibRun bad = runNibIn(repo, "", "def --provider sometimes main.py:7:12");
  CHECK(bad.rc != 0);
  CHECK(bad.out.find("sometimes") != std::string::npos);
}

TEST_CASE("the MCP definition tool takes a provider and names who answered", "[policy][live][mcp]") {
  TestRepo repo;
  repo.writeAll({{"geometry.py", kGeometry}, {"main.py", kMain}});
  repo.commitAll();
  REQUIRE(runNibIn(repo, "", "index -q --no-dense").rc == 0);
  auto call = [](int id, const std::string& provider) {
    json args = {{"path", "main.py"}, {"line", 5}, {"column", 12}, {"provider", provider}};
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
                {"params", {{"name", "definition"}, {"arguments", args}}}}.dump() + "\n";
  };
  std::ofstream(repo.root() / ".git" / "mcp-in.txt") << call(1, "live") << call(2, "static") << call(3, "sometimes");
  std::vector<json> replies = mcpReplies(repo, ".git/mcp-in.txt");
  REQUIRE(replies.size() == 3);
  const json& live = replies[0]["result"]["structuredContent"];
  CHECK(live["provider"] == "live");
  CHECK(live["backend"] == "pylsp");
  REQUIRE(live["locations"].size() == 1);
  CHECK(live["locations"][0]["path"] == "geometry.py");
  CHECK(replies[0]["result"]["content"][0]["text"].get<std::string>().find("answered by the live backend pylsp") !=
        std::string::npos);
  CHECK(replies[1]["result"]["structuredContent"]["provider"] == "static");
  const json& fromIndex = replies[1]["result"]["structuredContent"]["locations"];
  REQUIRE(fromIndex.size() == 1);
  CHECK(fromIndex[0]["path"] == live["locations"][0]["path"]);
  CHECK(fromIndex[0]["range"] == live["locations"][0]["range"]);
  CHECK(replies[2]["result"]["isError"] == true);
  CHECK(replies[2]["result"]["content"][0]["text"].get<std::string>().find("'provider' must be") != std::string::npos);
}

}  // namespace nib::test
