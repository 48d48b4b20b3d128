// The launcher the precise view starts the SCIP indexers through (indexer/IndexerLaunch): the
// pinned scip-typescript and scip-python, run through it, write the same documents, occurrences,
// symbols and relationships as when run as they are, without the documentation nib never reads.
// Each case runs the real indexer both ways on one small project.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>

#include "TestRepo.h"
#include "indexer/IndexerLaunch.h"
#include "indexer/WorkerProcess.h"
#include "scip.pb.h"

namespace nib::test {
namespace fs = std::filesystem;

namespace {

constexpr const char* kMarker = "LAUNCHER-DOC-MARKER";

void runIndexer(const std::vector<std::string>& command) {
  WorkerResult run = runWorker(command, "", std::chrono::seconds(120), [] { return false; });
  INFO(run.err);
  REQUIRE(run.status == 0);
}

scip::Index readIndex(const fs::path& file) {
  scip::Index index;
  std::ifstream in(file, std::ios::binary);
  // An indexer writes one Index message per document, concatenated: parsed as one, their
  // repeated fields append.
  REQUIRE(index.ParseFromIstream(&in));
  return index;
}

std::string documentation(const scip::Index& index) {
  std::string all;
  for (const scip::Document& d : index.documents())
    for (const scip::SymbolInformation& s : d.symbols())
      for (const std::string& text : s.documentation()) all += text + "\n";
  for (const scip::SymbolInformation& s : index.external_symbols())
    for (const std::string& text : s.documentation()) all += text + "\n";
  return all;
}

// What the launcher adds: the server's answer at a callee (scip/TypeScriptCalls).
bool launcherOccurrence(const scip::Occurrence& o) { return o.symbol().rfind("nib-definitions\t", 0) == 0; }

// What the precise view reads of an index, by document (what the indexer wrote): occurrences and symbols with their
// relationships, each serialized.
std::map<std::string, std::string> readByView(const scip::Index& index) {
  std::map<std::string, std::string> out;
  auto symbol = [](scip::SymbolInformation s) {
    s.clear_documentation();
    return s.SerializeAsString();
  };
  for (const scip::Document& d : index.documents()) {
    std::string& text = out[d.relative_path()];
    for (const scip::Occurrence& o : d.occurrences())
      if (!launcherOccurrence(o)) text += o.SerializeAsString() + "|";
    for (const scip::SymbolInformation& s : d.symbols()) text += symbol(s) + "#";
  }
  for (const scip::SymbolInformation& s : index.external_symbols()) out["(external)"] += symbol(s) + "#";
  return out;
}

// Runs `indexer` on `cwd` as it is and through the launcher; returns both indexes.
std::pair<scip::Index, scip::Index> bothWays(const std::string& language, const fs::path& indexer, const fs::path& cwd,
                                             std::vector<std::string> extra) {
  std::vector<std::string> args = {"index", "--cwd", cwd.string() + "/", "--output"};
  std::vector<std::string> plain = {indexer.string()};
  plain.insert(plain.end(), args.begin(), args.end());
  plain.push_back((cwd / "plain.scip").string());
  plain.insert(plain.end(), extra.begin(), extra.end());
  args.push_back((cwd / "lean.scip").string());
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<std::string> lean = indexerCommand(language, indexer, args);
  REQUIRE(lean.size() > plain.size());  // through node and the launcher, not the program itself
  runIndexer(plain);
  runIndexer(lean);
  return {readIndex(cwd / "plain.scip"), readIndex(cwd / "lean.scip")};
}

}  // namespace

TEST_CASE("scip-typescript through the launcher writes what the precise view reads, without documentation", "[precise]") {
  TestRepo repo;
  repo.write("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}\n");
  repo.write("shapes.ts", std::string("/** ") + kMarker + " a shape. */\n"
                          "export interface Shape { area(): number; }\n"
                          "/** " + kMarker + " a square. */\n"
                          "export class Square implements Shape {\n"
                          "  constructor(private side: number) {}\n"
                          "  area(): number { return this.side * this.side; }\n"
                          "}\n"
                          "export const total = [new Square(2)].map((s) => s.area()).join(\",\");\n");
  auto [plain, lean] = bothWays("typescript", fs::path(NIB_BACKENDS_BIN) / "scip-typescript", repo.root(), {"--no-progress-bar"});
  // The plain run prints each declaration and its comment; through the launcher only modules
  // keep their one-line text.
  CHECK(documentation(plain).find(kMarker) != std::string::npos);
  CHECK(documentation(plain).find("class Square") != std::string::npos);
  CHECK(documentation(lean).find(kMarker) == std::string::npos);
  CHECK(documentation(lean).find("class Square") == std::string::npos);
  auto expected = readByView(plain);
  REQUIRE(expected.count("shapes.ts"));
  CHECK(expected["shapes.ts"].find("Square#area().") != std::string::npos);
  CHECK(readByView(lean) == expected);
  // And one occurrence more, at `new Square(2)`: TypeScript's server goes to the class and to its
  // constructor there (line 3, `Square`; line 4 from its first column to the end of `{}`).
  std::vector<std::string> added;
  for (const scip::Document& d : lean.documents())
    for (const scip::Occurrence& o : d.occurrences())
      if (launcherOccurrence(o)) added.push_back(std::to_string(o.range(0)) + ":" + std::to_string(o.range(1)) + " " + o.symbol());
  const std::string file = (repo.root() / "shapes.ts").string();
  CHECK(added == std::vector<std::string>{"7:26 nib-definitions\t" + file + "\t3\t13\t3\t19\t" + file + "\t4\t2\t4\t38"});
}

TEST_CASE("scip-python through the launcher writes what the precise view reads, without docstrings", "[precise]") {
  TestRepo repo;
  repo.write("shapes.py", "import os\n\n\nclass Shape:\n    \"\"\"A shape.\"\"\"\n\n"
                          "    def area(self) -> float:\n        return 0.0\n\n\n"
                          "class Square(Shape):\n    def area(self) -> float:\n        return 4.0\n\n\n"
                          "where = os.path.join(\"a\", \"b\")\ntotal = Square().area() + len(where)\n");
  fs::path environment = repo.root() / "environment.json";
  std::ofstream(environment) << "[]\n";
  auto [plain, lean] = bothWays("python", fs::path(NIB_BACKENDS_BIN) / "scip-python", repo.root(),
                                {"--quiet", "--project-version", "0", "--environment", environment.string()});
  // The plain run finds the docstring of `os` through the standard library's sources behind
  // its stub; through the launcher that lookup finds nothing, and the hover keeps its printed
  // type (scip-python records a name only where the hover has one) and the repository's own
  // docstrings, which pyright reads from the parsed file.
  CHECK(documentation(plain).find("OS routines") != std::string::npos);
  std::string leanDocs = documentation(lean);
  CHECK(leanDocs.find("OS routines") == std::string::npos);
  CHECK(leanDocs.find("def len(") != std::string::npos);
  auto expected = readByView(plain);
  REQUIRE(expected.count("shapes.py"));
  CHECK(expected["shapes.py"].find("Square#area().") != std::string::npos);
  CHECK(readByView(lean) == expected);
}

TEST_CASE("TypeScript projects run one after another in a warm session, each as it would alone", "[precise]") {
  TestRepo repo;
  for (const char* dir : {"a", "b"}) {
    repo.write(std::string(dir) + "/tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}\n");
    repo.write(std::string(dir) + "/shapes.ts", "export class Square { area(): number { return 4; } }\n"
                                               "export const total = new Square().area();\n");
  }
  // A project with no input files: scip-typescript says so and fails.
  repo.write("empty/tsconfig.json", "{\"files\": []}\n");
  const fs::path indexer = fs::path(NIB_BACKENDS_BIN) / "scip-typescript";
  auto arguments = [&](const std::string& dir, const std::string& output) {
    return std::vector<std::string>{"index", "--cwd", (repo.root() / dir).string(), "--output", (repo.root() / output).string(),
                                    "--no-progress-bar"};
  };
  IndexerSessions sessions;
  auto never = [] { return false; };
  WorkerResult a = sessions.run("typescript", indexer, arguments("a", "a.scip"), std::chrono::seconds(120), never);
  CHECK(a.status == 0);
  // The failing project runs again alone: its status and message are what the indexer says.
  WorkerResult empty = sessions.run("typescript", indexer, arguments("empty", "empty.scip"), std::chrono::seconds(120), never);
  CHECK(empty.status == 1);
  CHECK(empty.out.find("no files got indexed") != std::string::npos);
  WorkerResult b = sessions.run("typescript", indexer, arguments("b", "b.scip"), std::chrono::seconds(120), never);
  CHECK(b.status == 0);
  CHECK(sessions.inSessions() == 2);
  // Each as a process of its own writes it.
  for (const char* dir : {"a", "b"}) {
    runIndexer(indexerCommand("typescript", indexer, arguments(dir, std::string(dir) + "-alone.scip")));
    auto alone = readByView(readIndex(repo.root() / (std::string(dir) + "-alone.scip")));
    REQUIRE(alone.count("shapes.ts"));
    CHECK(readByView(readIndex(repo.root() / (std::string(dir) + ".scip"))) == alone);
  }
}

}  // namespace nib::test
