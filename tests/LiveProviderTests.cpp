// The live provider end to end: `nib serve` proxying real language servers (clangd, pylsp,
// typescript-language-server), checked against the same servers driven directly; the provider
// policies; and faults (a backend that hangs, dies or is missing) with a fake backend.
#include <catch2/catch.hpp>

#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "LspClient.h"
#include "TestRepo.h"

namespace nib::test {
namespace {
using json = nlohmann::json;

const std::map<std::string, std::string> kProject = {
    {"c/util.h", "int add(int a, int b);\nstatic inline int twice(int x) { return add(x, x); }\n"},
    {"c/util.c", "#include \"util.h\"\n\nint add(int a, int b) { return a + b; }\n"},
    {"c/main.c", "#include \"util.h\"\n\nint main(void) {\n  int s = add(1, 2);\n  return twice(s) + add(s, 3);\n}\n"},
    {"cpp/shapes.hpp",
     "namespace geo {\n"
     "struct Shape {\n"
     "  virtual ~Shape() {}\n"
     "  virtual double area() const = 0;\n"
     "};\n"
     "struct Square : Shape {\n"
     "  double side = 1;\n"
     "  double area() const override;\n"
     "};\n"
     "double total(const Shape& s);\n"
     "double total(const Shape& a, const Shape& b);\n"
     "}  // namespace geo\n"},
    {"cpp/shapes.cpp",
     "#include \"shapes.hpp\"\n"
     "namespace geo {\n"
     "double Square::area() const { return side * side; }\n"
     "double total(const Shape& s) { return s.area(); }\n"
     "double total(const Shape& a, const Shape& b) { return total(a) + total(b); }\n"
     "}  // namespace geo\n"},
    {"cpp/main.cpp",
     "#include \"shapes.hpp\"\n"
     "int main() {\n"
     "  geo::Square sq;\n"
     "  double one = geo::total(sq);\n"
     "  double two = geo::total(sq, sq);\n"
     "  return static_cast<int>(one + two + sq.area());\n"
     "}\n"},
    {"py/geometry.py",
     "class Point:\n"
     "    def __init__(self, x):\n"
     "        self.x = x\n"
     "\n"
     "    def moved(self, dx):\n"
     "        return Point(self.x + dx)\n"
     "\n"
     "\n"
     "def distance(a, b):\n"
     "    return abs(a.x - b.x)\n"},
    {"py/main.py",
     "from geometry import Point, distance\n"
     "\n"
     "\n"
     "def run():\n"
     "    p = Point(1)\n"
     "    return distance(p, p.moved(2))\n"},
    {"ts/shapes.ts",
     "export interface Shape { area(): number; }\n"
     "export class Circle implements Shape {\n"
     "  constructor(private r: number) {}\n"
     "  area(): number { return 3 * this.r * this.r; }\n"
     "}\n"
     "export function sum(shapes: Shape[]): number {\n"
     "  return shapes.reduce((t, s) => t + s.area(), 0);\n"
     "}\n"},
    {"ts/main.ts",
     "import { Circle, sum } from \"./shapes\";\n"
     "const c = new Circle(2);\n"
     "console.log(sum([c, new Circle(1)]), c.area());\n"},
    {"tsconfig.json", "{ \"compilerOptions\": { \"strict\": true, \"target\": \"es2019\" }, \"include\": [\"ts\"] }\n"},
};

std::string tsls() {
  std::string bin = std::string(NIB_BACKENDS_BIN) + "/typescript-language-server";
  return std::filesystem::exists(bin) ? bin : "typescript-language-server";
}

const std::vector<std::string> kClangd = {"clangd", "--background-index=false", "--log=error"};

void makeProject(TestRepo& repo) {
  repo.writeAll(kProject);
  std::string dir = repo.root().string();
  json db = json::array();
  for (const char* f : {"c/util.c", "c/main.c"})
    db.push_back({{"directory", dir}, {"file", f}, {"arguments", {"cc", "-c", f}}});
  for (const char* f : {"cpp/shapes.cpp", "cpp/main.cpp"})
    db.push_back({{"directory", dir}, {"file", f}, {"arguments", {"c++", "-std=c++17", "-c", f}}});
  repo.write("compile_commands.json", db.dump(1));
  repo.commitAll();
  std::string out;
  REQUIRE(runCommand("cd " + shellQuote(dir) + " && " + shellQuote(nibBinary()) + " index -q --no-dense", &out, true) == 0);
}

// The (line, UTF-16 column) of the `nth` occurrence of `needle` in a fixture file (ASCII), plus
// `shift` columns.
json positionOf(const std::string& path, const std::string& needle, int nth = 0, int shift = 0) {
  const std::string& text = kProject.at(path);
  size_t at = text.find(needle);
  for (int i = 0; i < nth && at != std::string::npos; ++i) at = text.find(needle, at + 1);
  REQUIRE(at != std::string::npos);
  int line = 0;
  size_t lineStart = 0;
  for (size_t i = 0; i < at; ++i)
    if (text[i] == '\n') ++line, lineStart = i + 1;
  return {{"line", line}, {"character", static_cast<int>(at - lineStart) + shift}};
}

json request(const TestRepo& repo, const std::string& path, const json& position, bool references) {
  json p = {{"textDocument", {{"uri", LspClient::uri(repo.root() / path)}}}, {"position", position}};
  if (references) p["context"] = {{"includeDeclaration", true}};
  return p;
}

// Locations in a stable order (servers need not sort them).
json sorted(json locations) {
  if (locations.is_object()) locations = json::array({locations});
  if (!locations.is_array()) return locations;
  std::vector<json> v(locations.begin(), locations.end());
  std::sort(v.begin(), v.end(), [](const json& a, const json& b) { return a.dump() < b.dump(); });
  return json(v);
}

// What nib sends typescript-language-server (its syntax-only server would answer before the
// project is loaded, differently from one run to the next); others get nothing.
json liveInitializationOptions() { return {{"tsserver", {{"useSyntaxServer", "never"}}}}; }

// Initializes a directly driven backend with the capabilities nib itself announces.
void initializeDirect(LspClient& c, const TestRepo& repo, const json& initializationOptions) {
  std::string root = LspClient::uri(repo.root());
  json caps = {{"general", {{"positionEncodings", {"utf-16"}}}},
               {"window", {{"workDoneProgress", true}}},
               {"workspace", {{"configuration", true}, {"workspaceFolders", true}}},
               {"textDocument",
                {{"synchronization", {{"didSave", false}, {"dynamicRegistration", false}}},
                 {"definition", {{"linkSupport", false}}},
                 {"references", json::object()}}}};
  json r = c.request("initialize", {{"processId", nullptr},
                                    {"rootUri", root},
                                    {"rootPath", repo.root().string()},
                                    {"workspaceFolders", {{{"uri", root}, {"name", repo.root().filename().string()}}}},
                                    {"capabilities", caps},
                                    {"initializationOptions", initializationOptions}},
                     60000);
  REQUIRE(r.contains("result"));
  c.notify("initialized", json::object());
}

std::string languageId(const std::string& path) {
  if (path.rfind("c/", 0) == 0) return "c";
  if (path.rfind("cpp/", 0) == 0) return "cpp";
  if (path.rfind("py/", 0) == 0) return "python";
  return "typescript";
}

int countLines(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.find(needle) != std::string::npos;
  return n;
}

// An orderly shutdown: the server exits with status 0.
void shutDown(LspClient& nib) { CHECK(nib.shutDown() == 0); }

std::string fakeBackend(const std::string& mode, const std::filesystem::path& events) {
  return "python=" + std::string(NIB_TESTS_DIR) + "/live/fake_backend.py " + mode + " " + events.string();
}

}  // namespace

TEST_CASE("live answers proxied through nib equal the backends' direct answers", "[live]") {
  TestRepo repo;
  makeProject(repo);
  struct Probe {
    std::string path;
    json position;
  };
  struct Backend {
    std::string language;
    std::vector<std::string> argv;
    std::vector<Probe> probes;
    std::string spec;  // what `--live LANGUAGE=` names (default: the command itself)
  };
  std::vector<Backend> backends = {
      {"c", kClangd,
       {{"c/main.c", positionOf("c/main.c", "add(1")}, {"c/main.c", positionOf("c/main.c", "twice(s)")},
        {"c/util.h", positionOf("c/util.h", "add(x")}}, {}},
      {"cpp", kClangd,
       {{"cpp/main.cpp", positionOf("cpp/main.cpp", "total(sq)")},
        {"cpp/main.cpp", positionOf("cpp/main.cpp", "total(sq, sq)")},
        {"cpp/main.cpp", positionOf("cpp/main.cpp", "area()")},
        {"cpp/shapes.cpp", positionOf("cpp/shapes.cpp", "Square::area", 0, 8)}}, {}},
      {"python", {"/usr/bin/pylsp"},
       {{"py/main.py", positionOf("py/main.py", "Point(1)")}, {"py/main.py", positionOf("py/main.py", "distance(p")},
        {"py/main.py", positionOf("py/main.py", "moved")}}, {}},
      {"typescript", {tsls(), "--stdio"},
       {{"ts/main.ts", positionOf("ts/main.ts", "Circle(2)")}, {"ts/main.ts", positionOf("ts/main.ts", "sum([")},
        {"ts/main.ts", positionOf("ts/main.ts", "area()")}}, {}},
      // pyright, by the short name nib resolves to the pinned pyright-langserver.
      {"python", {std::string(NIB_BACKENDS_BIN) + "/pyright-langserver", "--stdio"},
       {{"py/main.py", positionOf("py/main.py", "Point(1)")}, {"py/main.py", positionOf("py/main.py", "distance(p")},
        {"py/main.py", positionOf("py/main.py", "moved")}},
       "pyright"},
  };
  for (const Backend& b : backends) {
    DYNAMIC_SECTION(b.language << " " << std::filesystem::path(b.argv[0]).filename().string()) {
      std::string command = b.spec;
      for (const std::string& a : b.argv)
        if (b.spec.empty()) command += (command.empty() ? "" : " ") + a;
      LspClient nib(repo.root(), {"--provider", "live", "--live-timeout-ms", "60000", "--live", b.language + "=" + command});
      nib.initialize(repo.root());
      LspClient direct(repo.root(), b.argv, LspClient::Direct{});
      initializeDirect(direct, repo, b.language == "typescript" ? liveInitializationOptions() : json(nullptr));
      std::set<std::string> opened;
      int nonEmpty = 0;
      for (const Probe& p : b.probes) {
        if (opened.insert(p.path).second)
          direct.notify("textDocument/didOpen", {{"textDocument",
                                                  {{"uri", LspClient::uri(repo.root() / p.path)},
                                                   {"languageId", languageId(p.path)},
                                                   {"version", 1},
                                                   {"text", kProject.at(p.path)}}}});
        for (bool references : {false, true}) {
          const char* method = references ? "textDocument/references" : "textDocument/definition";
          json expected = direct.request(method, request(repo, p.path, p.position, references), 60000);
          json proxied = nib.request(method, request(repo, p.path, p.position, references), 90000);
          INFO(b.language << " " << method << " at " << p.path << " " << p.position.dump());
          REQUIRE(expected.contains("result"));
          REQUIRE(proxied.contains("result"));
          CHECK(sorted(proxied["result"]) == sorted(expected["result"]));
          nonEmpty += !sorted(expected["result"]).empty();
        }
      }
      // The comparison means something only when the backend answered.
      CHECK(nonEmpty == static_cast<int>(2 * b.probes.size()));
      // nib/locate names the backend that answered.
      json located = nib.request("nib/locate", request(repo, b.probes[0].path, b.probes[0].position, false), 60000);
      CHECK(located["result"]["provider"] == "live");
      CHECK(!located["result"]["backend"].get<std::string>().empty());
      shutDown(nib);
    }
  }
}

TEST_CASE("auto answers from the index when it is fresh and exact, from the backend otherwise", "[live]") {
  TestRepo repo;
  makeProject(repo);
  json overload = request(repo, "cpp/main.cpp", positionOf("cpp/main.cpp", "total(sq, sq)"), false);
  {
    LspClient nib(repo.root(), {"--live-timeout-ms", "60000"});
    nib.initialize(repo.root());
    // Python, resolved exactly by the index: static.
    json py = nib.request("nib/locate", request(repo, "py/main.py", positionOf("py/main.py", "distance(p"), false));
    CHECK(py["result"]["provider"] == "static");
    CHECK(py["result"]["policy"] == "auto");
    CHECK(py["result"]["facts"] == "tree-sitter");
    CHECK(py["result"]["locations"].size() == 1);
    // C++ with libclang's facts (the project has a compilation database): static too, and the
    // overload is the two-argument definition.
    json cpp = nib.request("nib/locate", overload, 60000);
    CHECK(cpp["result"]["provider"] == "static");
    CHECK(cpp["result"]["facts"] == "clang");
    REQUIRE(cpp["result"]["locations"].size() == 1);
    CHECK(cpp["result"]["locations"][0]["range"]["start"]["line"] == 4);  // shapes.cpp
    shutDown(nib);
  }
  // Without the clang index, C++ needs the compiler's resolution: clangd answers and picks the
  // overload.
  std::string out;
  REQUIRE(runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) +
                         " index -q --no-dense --no-clang",
                     &out, true) == 0);
  LspClient nib(repo.root(), {"--live-timeout-ms", "60000"});
  nib.initialize(repo.root());
  json cpp = nib.request("nib/locate", overload, 90000);
  CHECK(cpp["result"]["provider"] == "live");
  REQUIRE(cpp["result"]["locations"].size() == 1);
  // The two-argument overload: its definition once clangd's background index holds shapes.cpp,
  // its declaration in the header before.
  const json& loc = cpp["result"]["locations"][0];
  bool definition = loc["uri"] == LspClient::uri(repo.root() / "cpp/shapes.cpp") && loc["range"]["start"]["line"] == 4;
  bool declaration = loc["uri"] == LspClient::uri(repo.root() / "cpp/shapes.hpp") && loc["range"]["start"]["line"] == 10;
  CHECK((definition || declaration));
  // The per-request override.
  json forced = overload;
  forced["provider"] = "static";
  CHECK(nib.request("nib/locate", forced)["result"]["provider"] == "static");
  forced["provider"] = "sometimes";
  CHECK(nib.request("nib/locate", forced)["error"]["code"] == -32602);

  // Every answer's provenance is in the trace log (written after each response: read once the
  // server has stopped).
  shutDown(nib);
  std::string trace = readText(repo.root() / ".nib/trace.log");
  CHECK(countLines(trace, "provider=static reason=\"fresh and exact\"") >= 2);
  CHECK(countLines(trace, "provider=live reason=\"cpp needs the compiler's resolution\" backend=\"clangd\"") >= 1);
}

TEST_CASE("clangd's references cover files it never opened: its background index lives under .nib", "[live][clang]") {
  TestRepo repo;
  makeProject(repo);
  LspClient nib(repo.root(), {"--provider", "live", "--live-timeout-ms", "60000"});
  nib.initialize(repo.root());
  // `add` where util.c defines it: clangd has opened util.c only, never main.c.
  json at = request(repo, "c/util.c", positionOf("c/util.c", "add(int"), true);
  at["request"] = "references";
  json r;
  bool sawMerged = false;
  for (int i = 0; i < 300; ++i) {
    r = nib.request("nib/locate", at, 90000);
    INFO(r.dump(2));
    // main.c's two uses in every answer: from clangd's background index once it has loaded,
    // from nib's index before (clangd lists the open file's references only while it loads).
    int inMain = 0;
    for (const json& l : r["result"]["locations"]) inMain += l["uri"] == LspClient::uri(repo.root() / "c/main.c");
    CHECK(inMain == 2);
    CHECK(r["result"]["provider"] == "live");
    CHECK(r["result"]["partial"] == false);
    std::string note = r["result"].value("note", "");
    if (note.find("still indexing") == std::string::npos) break;
    sawMerged = true;
    CHECK(note.find("merged with the index's references") != std::string::npos);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  INFO(r.dump(2) << " (an answer was merged with the index's first: " << sawMerged << ")");
  CHECK(r["result"]["note"].is_null());
  CHECK(nib.shutDown() == 0);
  // The index is nib's to keep, outside the worktree: git sees nothing new.
  size_t shards = 0;
  for (const auto& e : std::filesystem::directory_iterator(repo.root() / ".nib/clangd/.cache/clangd/index"))
    shards += e.path().extension() == ".idx";
  CHECK(shards >= 2);
  CHECK(!std::filesystem::exists(repo.root() / ".cache"));
  std::string status;
  REQUIRE(runCommand("cd " + shellQuote(repo.root().string()) + " && git status --porcelain", &status) == 0);
  CHECK(status.empty());
}

TEST_CASE("editor buffers reach the live backend before its next request", "[live]") {
  TestRepo repo;
  makeProject(repo);
  LspClient nib(repo.root(), {"--provider", "live", "--live-timeout-ms", "60000", "--live", "python=/usr/bin/pylsp"});
  nib.initialize(repo.root());
  // Unsaved edit: two lines pushed in front of everything. pylsp reads other modules from disk,
  // so the request is about the edited file itself: `Point` in `moved` (line 5 on disk).
  std::string uri = LspClient::uri(repo.root() / "py/geometry.py");
  std::string edited = "import os\n\n" + kProject.at("py/geometry.py");
  nib.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", edited}}}});
  json at = {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 7}, {"character", 15}}}};
  json def = nib.request("textDocument/definition", at, 60000);
  REQUIRE(def["result"].size() == 1);
  CHECK(def["result"][0]["range"]["start"]["line"] == 2);  // 0 on disk, 2 in the buffer
  // A change to the buffer follows too.
  nib.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                        {"contentChanges", {{{"text", "\n" + edited}}}}});
  at["position"]["line"] = 8;
  def = nib.request("textDocument/definition", at, 60000);
  REQUIRE(def["result"].size() == 1);
  CHECK(def["result"][0]["range"]["start"]["line"] == 3);
  shutDown(nib);
}

TEST_CASE("a hanging backend never hangs a request, cancellation reaches it", "[live]") {
  TestRepo repo;
  makeProject(repo);
  auto events = repo.root() / ".git" / "fake-events";
  json at = request(repo, "py/main.py", positionOf("py/main.py", "distance(p"), false);
  {
    LspClient nib(repo.root(), {"--provider", "live", "--live-timeout-ms", "300", "--live", fakeBackend("hang", events)});
    nib.initialize(repo.root());
    for (int i = 0; i < 3; ++i) {
      // Answered from the index, labelled, within the client's patience (not the backend's).
      json r = nib.request("nib/locate", at, 20000);
      CHECK(r["result"]["provider"] == "static");
      CHECK(r["result"]["locations"].size() == 1);
      CHECK(r["result"]["liveError"].get<std::string>().find("took longer than 300 ms") != std::string::npos);
      CHECK(r["result"]["note"].get<std::string>().find("answered from the index") != std::string::npos);
    }
    // Two timeouts in a row restart the backend; the restart is logged once.
    int restarts = 0;
    for (const json& m : nib.messages("window/logMessage"))
      restarts += m["params"]["message"].get<std::string>().find("timed out 2 times in a row") != std::string::npos;
    CHECK(restarts == 1);
    CHECK(countLines(readText(events), "start") == 2);
    shutDown(nib);
  }
  {
    // One that never finishes initialize: the first request waits for the start-up limit
    // (here 2 s), later ones not at all, and the failure is logged once.
    std::filesystem::remove(events);
    LspClient nib(repo.root(), {"--provider", "live", "--live-timeout-ms", "300", "--live", fakeBackend("mute", events)});
    nib.initialize(repo.root());
    for (int i = 0; i < 3; ++i) {
      json r = nib.request("nib/locate", at, 20000);
      CHECK(r["result"]["provider"] == "static");
      CHECK(r["result"]["liveError"].get<std::string>().find("did not initialize") != std::string::npos);
    }
    CHECK(countLines(readText(events), "start") == 1);
    int reports = 0;
    for (const json& m : nib.messages("window/logMessage"))
      reports += m["params"]["message"].get<std::string>().find("did not initialize") != std::string::npos;
    CHECK(reports == 1);
    shutDown(nib);
  }
  {
    std::filesystem::remove(events);
    LspClient nib(repo.root(), {"--provider", "live", "--live-timeout-ms", "60000", "--live", fakeBackend("hang", events)});
    nib.initialize(repo.root());
    int id = nib.sendRequest("textDocument/definition", at);
    for (int i = 0; i < 200 && countLines(readText(events), "request") == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    REQUIRE(countLines(readText(events), "request") == 1);
    nib.notify("$/cancelRequest", {{"id", id}});
    json r = nib.waitResponse(id, 20000);
    CHECK(r["error"]["code"] == -32800);
    for (int i = 0; i < 200 && countLines(readText(events), "cancel") == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    CHECK(countLines(readText(events), "cancel") == 1);
    shutDown(nib);
  }
}

TEST_CASE("a dying backend is restarted a few times, a missing one is reported once", "[live]") {
  TestRepo repo;
  makeProject(repo);
  auto events = repo.root() / ".git" / "fake-events";
  json at = request(repo, "py/main.py", positionOf("py/main.py", "distance(p"), false);
  {
    LspClient nib(repo.root(), {"--provider", "live", "--live", fakeBackend("die", events)});
    nib.initialize(repo.root());
    for (int i = 0; i < 5; ++i) {
      json r = nib.request("nib/locate", at, 20000);
      CHECK(r["result"]["provider"] == "static");
      CHECK(r["result"]["locations"].size() == 1);
      CHECK(!r["result"]["liveError"].get<std::string>().empty());
    }
    // Started for each of the first three requests, then left alone for a minute.
    CHECK(countLines(readText(events), "start") == 3);
    CHECK(countLines(readText(events), "request") == 3);
    shutDown(nib);
  }
  {
    LspClient nib(repo.root(), {"--provider", "live", "--live", "python=/nonexistent/pylsp"});
    nib.initialize(repo.root());
    for (int i = 0; i < 3; ++i) {
      json r = nib.request("textDocument/definition", at, 20000);
      CHECK(r["result"].size() == 1);  // the index's answer
    }
    int reports = 0;
    for (const json& m : nib.messages("window/logMessage"))
      reports += m["params"]["message"].get<std::string>().find("cannot start `/nonexistent/pylsp`") != std::string::npos;
    CHECK(reports == 1);
    shutDown(nib);
  }
}

// The fault loop of issue 29: a backend killed in the middle of a request 100 times, then one
// that hangs 20 times. Every request is answered (from the index, labelled with the backend's
// failure) and the backend is started again for the next one. The fake backend is the fault
// injector; no assertion here is about time beyond the client's patience.
TEST_CASE("a backend killed 100 times mid-request and hung 20 times: every request answered, labelled, restarted",
          "[live]") {
  TestRepo repo;
  makeProject(repo);
  auto events = repo.root() / ".git" / "fake-events";
  auto steer = [&](const std::string& how) {
    std::ofstream(events.string() + ".steer", std::ios::trunc) << how;
  };
  auto lastPid = [&] {
    std::istringstream in(readText(events));
    std::string line;
    pid_t pid = 0;
    while (std::getline(in, line))
      if (line.rfind("start ", 0) == 0) pid = static_cast<pid_t>(std::stol(line.substr(6)));
    return pid;
  };
  json at = request(repo, "py/main.py", positionOf("py/main.py", "distance(p"), false);
  LspClient nib(repo.root(), {"--provider", "live", "--live-timeout-ms", "3000", "--live", fakeBackend("steer", events)});
  nib.initialize(repo.root());
  int killed = 0;
  for (int i = 0; i < 100; ++i) {
    steer("");
    json served = nib.request("nib/locate", at, 20000);
    INFO("round " << i << ": " << served.dump());
    REQUIRE(served["result"]["provider"] == "live");  // started again after the last kill
    steer("slow 20000");
    int before = countLines(readText(events), "request");
    int id = nib.sendRequest("nib/locate", at);
    for (int w = 0; w < 800 && countLines(readText(events), "request") == before; ++w)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(countLines(readText(events), "request") == before + 1);
    REQUIRE(::kill(lastPid(), SIGKILL) == 0);
    ++killed;
    json r = nib.waitResponse(id, 20000);
    REQUIRE(r.contains("result"));
    CHECK(r["result"]["provider"] == "static");
    CHECK(r["result"]["locations"].size() == 1);
    CHECK(!r["result"]["liveError"].get<std::string>().empty());
  }
  CHECK(killed == 100);
  // One start, then one after each kill but the last (whose restart is the hang phase's).
  CHECK(countLines(readText(events), "start") == 100);

  // Hanging: each request is answered from the index at the live time limit, labelled; two
  // timeouts in a row restart the backend, and a backend that never answers is not started
  // over and over (the restart limit), its requests answered at once.
  steer("hang");
  const int startsBefore = countLines(readText(events), "start");
  for (int i = 0; i < 20; ++i) {
    json r = nib.request("nib/locate", at, 20000);
    INFO("hang " << i << ": " << r.dump());
    REQUIRE(r.contains("result"));
    CHECK(r["result"]["provider"] == "static");
    CHECK(r["result"]["locations"].size() == 1);
    CHECK(!r["result"]["liveError"].get<std::string>().empty());
  }
  // The start after the last kill, and restarts after timeouts up to the restart limit.
  const int restarts = countLines(readText(events), "start") - startsBefore;
  CHECK(restarts >= 2);
  CHECK(restarts <= 3);
  shutDown(nib);
}

TEST_CASE("compare answers by the policy's choice and traces the difference", "[live]") {
  TestRepo repo;
  makeProject(repo);
  LspClient nib(repo.root(), {"--provider", "compare", "--live-timeout-ms", "60000", "--live", "python=/usr/bin/pylsp"});
  nib.initialize(repo.root());
  json r = nib.request("nib/locate", request(repo, "py/main.py", positionOf("py/main.py", "distance(p"), false), 60000);
  CHECK(r["result"]["provider"] == "static");  // fresh and exact: the index's answer
  CHECK(r["result"]["policy"] == "compare");
  CHECK(r["result"]["agree"] == true);  // pylsp finds the same definition
  CHECK(r["result"]["backend"] == "pylsp");
  shutDown(nib);  // the trace line is written after the response
  std::string trace = readText(repo.root() / ".nib/trace.log");
  CHECK(countLines(trace, "policy=compare provider=static reason=\"fresh and exact\" backend=\"pylsp\"") == 1);
  CHECK(countLines(trace, " agree") == 1);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("nib bench live-vs-static compares both sides on sampled positions", "[live][bench]") {
  TestRepo repo;
  makeProject(repo);
  std::string base = "cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " bench live-vs-static";
  std::string out;
  std::string report = (repo.root() / ".git" / "report.html").string();
  REQUIRE(runCommand(base + " --samples 8 --seed 3 --languages python,c --no-background-index --json --html " +
                         shellQuote(report),
                     &out) == 0);
  json r = json::parse(out);
  CHECK(r["seed"] == 3);
  {
    // The HTML report, as headless Chromium renders it: agreement bars with intervals, a latency
    // CDF per row with a line for each side, the mismatch table.
    std::string dom;
    REQUIRE(runCommand("timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom file://" + shellQuote(report) +
                           " 2>/dev/null",
                       &dom) == 0);
    auto count = [&](const std::string& needle) {
      size_t n = 0;
      for (size_t at = dom.find(needle); at != std::string::npos; at = dom.find(needle, at + 1)) ++n;
      return n;
    };
    CHECK(count("class=\"cdf\"") == 4);
    CHECK(count("class=\"cdf-line static\"") == 4);
    CHECK(count("class=\"cdf-line live\"") == 4);
    CHECK(count("class=\"bar\"") == 4 + r["categories"].size());
    CHECK(count("class=\"interval\"") == 4 + r["categories"].size());
    size_t mismatched = 0;
    for (const json& q : r["requests"]) mismatched += !q["matched"].get<bool>();
    CHECK(count("class=\"mismatch\"") == mismatched);
    CHECK(dom.find("id=\"mismatches\"") != std::string::npos);
  }
  // The static side is nib serve over stdio, like the backend.
  CHECK(r["staticCommand"].get<std::string>().find(" serve --provider static") != std::string::npos);
  REQUIRE(r["rows"].size() == 4);  // c and python, definition and references
  for (const json& row : r["rows"]) {
    INFO(row.dump());
    CHECK(row["requests"].get<int>() > 0);
    CHECK(row["requests"].get<int>() <= 8);
    CHECK(row["liveFailed"] == 0);
    CHECK(row["staticFailed"] == 0);
    CHECK(row["staticMs"].size() == row["requests"].get<size_t>());
    // Every request counts: the rate is over all of them.
    CHECK(row["matchRate"].get<double>() == Approx(row["matched"].get<double>() / row["requests"].get<double>()));
  }
  // The requests' categories add up to the rows.
  size_t categorized = 0;
  for (const json& c : r["categories"]) categorized += c["requests"].get<size_t>();
  CHECK(categorized == r["requests"].size());
  // On this small project pylsp and the index agree on most definitions (both resolve imports).
  const json& pyDef = r["rows"][2];
  REQUIRE(pyDef["language"] == "python");
  REQUIRE(pyDef["method"] == "definition");
  CHECK(pyDef["matched"].get<int>() >= 1);
  REQUIRE(r["languages"].size() == 2);
  for (const json& l : r["languages"]) {
    CHECK(l["livePeakRssKiB"].get<int>() > 0);
    CHECK(!l["backend"].get<std::string>().empty());
  }
  CHECK(r["staticPeakRssKiB"].get<int>() > 0);
  // The same seed samples the same positions.
  std::string again;
  REQUIRE(runCommand(base + " --samples 8 --seed 3 --languages python,c --no-background-index --json", &again) == 0);
  json r2 = json::parse(again);
  REQUIRE(r2["requests"].size() == r["requests"].size());
  for (size_t i = 0; i < r["requests"].size(); ++i) {
    CHECK(r2["requests"][i]["path"] == r["requests"][i]["path"]);
    CHECK(r2["requests"][i]["line"] == r["requests"][i]["line"]);
    CHECK(r2["requests"][i]["column"] == r["requests"][i]["column"]);
  }
  // Bad input is refused plainly.
  CHECK(runCommand(base + " --languages cobol 2>&1", &out) == 1);
  CHECK(out.find("unknown language 'cobol'") != std::string::npos);
  CHECK(runCommand(base + " --languages go 2>&1", &out) == 1);
  CHECK(out.find("no live backend is configured for go") != std::string::npos);
}

TEST_CASE("the benchmark's positions come from the files' text, not from nib's index", "[live][bench]") {
  // An index of an empty commit: it holds no file, yet the files git lists are sampled.
  TestRepo repo;
  repo.write("README", "empty\n");
  repo.commitAll();
  std::string out;
  REQUIRE(runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " index -q --no-dense",
                     &out, true) == 0);
  repo.write("py/geometry.py", kProject.at("py/geometry.py"));
  repo.commitAll();
  REQUIRE(runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) +
                         " bench live-vs-static --samples 6 --seed 2 --languages python --json",
                     &out) == 0);
  json r = json::parse(out);
  REQUIRE(r["rows"].size() == 2);
  CHECK(r["rows"][0]["requests"] == 5);  // at most five positions from one file
  for (const json& q : r["requests"]) CHECK(q["path"] == "py/geometry.py");
}

}  // namespace nib::test

namespace nib::test {

// A cloned repository runs nothing by being opened (issue 29, item 6), through the live
// backends either: typescript-language-server prefers the workspace's node_modules/typescript
// to its own, and a PATH that names the current folder would find a program of the
// repository's in the backend's working directory. Both are planted here, with a marker each
// writes when run.
TEST_CASE("a repository's own TypeScript or programs are never run by a live backend", "[live]") {
  TestRepo repo;
  makeProject(repo);
  const std::filesystem::path marker = repo.root() / ".git" / "repository-code-ran";
  repo.write("node_modules/typescript/package.json", "{\"name\": \"typescript\", \"version\": \"9.9.9\"}\n");
  repo.write("node_modules/typescript/lib/tsserver.js",
             "require('fs').writeFileSync(" + json(marker.string()).dump() + ", 'tsserver');\n");
  repo.write("clangd", "#!/bin/sh\necho clangd >> '" + marker.string() + "'\n");
  std::filesystem::permissions(repo.root() / "clangd", std::filesystem::perms::owner_all);
  repo.commitAll();
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  ::setenv("PATH", (".:" + path).c_str(), 1);
  LspClient nib(repo.root(), {"--provider", "live", "--live-timeout-ms", "60000", "--live",
                              "typescript=" + tsls() + " --stdio", "--live", "c=clangd --background-index=false"});
  ::setenv("PATH", path.c_str(), 1);
  nib.initialize(repo.root());
  json ts = nib.request("nib/locate", request(repo, "ts/main.ts", positionOf("ts/main.ts", "Circle(2)"), false), 60000);
  INFO(ts.dump());
  CHECK(ts["result"]["provider"] == "live");  // answered, by nib's own TypeScript
  json c = nib.request("nib/locate", request(repo, "c/main.c", positionOf("c/main.c", "add(1"), false), 60000);
  INFO(c.dump());
  CHECK(c["result"]["provider"] == "live");
  CHECK(c["result"]["backend"] == "clangd");
  shutDown(nib);
  CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("backend commands from the repository's .nib.conf run only when allowed", "[live]") {
  TestRepo repo;
  makeProject(repo);
  repo.write(".nib.conf", "live.python = /nonexistent/evil --flag\nlive.trace-log = ../outside.log\n");
  json at = request(repo, "py/main.py", positionOf("py/main.py", "distance(p"), false);
  {
    LspClient nib(repo.root(), {"--provider", "live", "--live-timeout-ms", "60000"});
    nib.initialize(repo.root());
    json r = nib.request("nib/locate", at, 60000);
    CHECK(r["result"]["provider"] == "live");  // the default pylsp, not the repository's command
    CHECK(r["result"]["backend"] == "pylsp");
    int ignored = 0, refused = 0;
    for (const json& m : nib.messages("window/logMessage")) {
      std::string text = m["params"]["message"];
      ignored += text.find("live.python is ignored") != std::string::npos;
      refused += text.find("live.trace-log must be a path inside the repository") != std::string::npos;
    }
    CHECK(ignored == 1);
    CHECK(refused == 1);
    CHECK_FALSE(std::filesystem::exists(repo.root().parent_path() / "outside.log"));
    shutDown(nib);
  }
  LspClient nib(repo.root(), {"--provider", "live", "--allow-project-commands"});
  nib.initialize(repo.root());
  json r = nib.request("nib/locate", at, 60000);
  CHECK(r["result"]["provider"] == "static");
  CHECK(r["result"]["liveError"].get<std::string>().find("cannot start `/nonexistent/evil`") != std::string::npos);
  shutDown(nib);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("the benchmark asks clangd as a user runs it: references in files no compile command builds are left out", "[live][bench][clang]") {
  TestRepo repo;
  repo.writeAll({{"c/util.h", kProject.at("c/util.h")},
                 {"c/util.c", kProject.at("c/util.c")},
                 {"c/main.c", kProject.at("c/main.c")},
                 // No compile command reaches this one: the index covers it with a neighbour's
                 // command; neither side lists its calls among references from other files
                 // (clangd's background index does not know it, and the bench opens no file
                 // clangd was not asked about).
                 {"c/extra.c", "#include \"util.h\"\n\nint extra(void) { return add(4, 5) + twice(6); }\n"}});
  std::string dir = repo.root().string();
  json db = json::array();
  for (const char* f : {"c/util.c", "c/main.c"}) db.push_back({{"directory", dir}, {"file", f}, {"arguments", {"cc", "-c", f}}});
  repo.write("compile_commands.json", db.dump(1));
  repo.write(".gitignore", ".cache/\n");
  repo.commitAll();
  std::string out;
  REQUIRE(runCommand("cd " + shellQuote(dir) + " && " + shellQuote(nibBinary()) + " index -q --no-dense", &out, true) == 0);
  REQUIRE(runCommand("cd " + shellQuote(dir) + " && " + shellQuote(nibBinary()) +
                         " bench live-vs-static --samples 16 --seed 1 --languages c --json",
                     &out) == 0);
  json r = json::parse(out);
  REQUIRE(r["languages"].size() == 1);
  const json& refs = r["rows"][1];
  REQUIRE(refs["method"] == "references");
  INFO(r["mismatches"].dump());
  REQUIRE(refs["requests"].get<int>() >= 8);
  // Neither side lists extra.c's calls from main.c: every reference request agrees.
  CHECK(refs["matched"] == refs["requests"]);
  // Every request is listed with both sides' digests, agreeing with the rows' counts.
  CHECK(r["requests"].size() == r["rows"][0]["requests"].get<size_t>() + refs["requests"].get<size_t>());
  size_t listed = 0, matched = 0;
  for (const json& q : r["requests"]) {
    if (q["method"] != "references") continue;
    ++listed;
    matched += q["matched"].get<bool>();
    CHECK(q["matched"].get<bool>() == (q["staticDigest"] == q["liveDigest"]));
  }
  CHECK(listed == refs["requests"].get<size_t>());
  CHECK(matched == refs["matched"].get<size_t>());
}

}  // namespace nib::test
