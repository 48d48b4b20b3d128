// Runs every annotated fixture under tests/fixtures/navigation through a real index build and
// the static provider. `# check: definition` fixtures ask for the definition at each point and
// expect exactly the ranges of the point's group; `# check: references` fixtures ask for the
// references (declaration included) and expect exactly the group's ranges; `implementation`,
// `typeDefinition` and `highlight` (documentHighlight's occurrences) likewise. A `# clang: FLAGS`
// fixture gets a compilation database (every .c/.cc/.cpp file compiled with FLAGS), so its C/C++
// answers come from libclang's facts, and each answer must say so, but for the groups a
// `# tree-sitter: GROUP ...` directive names (positions libclang reports nothing about). A
// `# precise` fixture is indexed by the SCIP indexers likewise (its answers say "scip").
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "Annotations.h"
#include "TestRepo.h"
#include "indexer/IndexBuilder.h"
#include "providers/StaticProvider.h"

namespace nib::test {
namespace fs = std::filesystem;
namespace {

std::string show(const Annotations& a, const std::set<MarkedRange>& ranges) {
  std::string out;
  for (const MarkedRange& r : ranges) {
    std::string text = a.files.count(r.path) ? a.files.at(r.path).substr(r.begin, r.end - r.begin) : "?";
    out += "  " + a.describe(r.path, r.begin) + " '" + text + "'\n";
  }
  return out.empty() ? "  (none)\n" : out;
}

Expected<NavigationResult> ask(StaticProvider& provider, const std::string& check, const MarkedPoint& p) {
  if (check == "references") return provider.references(p.path, p.offset, /*includeDeclaration=*/true);
  if (check == "implementation") return provider.implementations(p.path, p.offset);
  if (check == "typeDefinition") return provider.typeDefinitions(p.path, p.offset);
  if (check == "highlight") return provider.highlights(p.path, p.offset);
  return provider.definition(p.path, p.offset);
}

void runFixture(const fs::path& file) {
  Annotations a = parseAnnotations(readText(file));
  std::string check = a.directives["check"];
  const std::set<std::string> kChecks = {"definition", "references", "implementation", "typeDefinition", "highlight"};
  INFO("check: " << check);
  REQUIRE(kChecks.count(check));
  REQUIRE_FALSE(a.points.empty());
  // Every range group must be asked about by some point, so no marker goes unchecked.
  for (const MarkedRange& r : a.ranges) {
    bool asked = std::any_of(a.points.begin(), a.points.end(), [&](const MarkedPoint& p) { return p.group == r.group; });
    INFO("range at " << a.describe(r.path, r.begin) << " in group '" << r.group << "' has no request point");
    REQUIRE(asked);
  }

  TestRepo repo;
  repo.writeAll(a.files);
  bool clang = a.directives.count("clang") > 0;
  if (clang) {
    std::string db = "[";
    for (const auto& [path, text] : a.files) {
      std::string ext = fs::path(path).extension().string();
      if (ext != ".c" && ext != ".cc" && ext != ".cpp") continue;
      std::string compiler = ext == ".c" ? "cc" : "c++";
      db += std::string(db.size() > 1 ? "," : "") + "{\"directory\":\"" + repo.root().string() + "\",\"file\":\"" + path +
            "\",\"command\":\"" + compiler + " " + a.directives["clang"] + " -c " + path + "\"}";
    }
    repo.write("compile_commands.json", db + "]");
    // The index builds in this process: the worker is the one built next to `nib`.
    ::setenv("NIB_CLANG_WORKER", NIB_CLANG_WORKER_PATH, 1);
  }
  repo.commitAll();
  IndexOptions options;
  options.threads = 1;
  // A `# precise` fixture is indexed by the pinned SCIP indexers: its TypeScript (with a
  // tsconfig.json among its files) and Python answers come from the precise view.
  bool precise = a.directives.count("precise") > 0;
  if (precise)
    options.scipIndexers = {{"typescript", fs::path(NIB_BACKENDS_BIN) / "scip-typescript"},
                            {"python", fs::path(NIB_BACKENDS_BIN) / "scip-python"}};
  auto report = buildIndex(repo.root(), options);
  INFO(report.status().toString());
  REQUIRE(report.hasValue());
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  for (const char* name : {"clang", "precise"}) {
    if (!(std::string(name) == "clang" ? clang : precise)) continue;
    const ViewRecord* view = (*provider)->manifest().view(name);
    REQUIRE(view);
    INFO(view->error);
    REQUIRE(view->status == ViewStatus::Complete);
  }

  for (const MarkedPoint& p : a.points) {
    auto expectedList = a.rangesOf(p.group);
    std::set<MarkedRange> expected(expectedList.begin(), expectedList.end());
    auto result = ask(**provider, check, p);
    INFO("request at " << a.describe(p.path, p.offset) << " (group '" << p.group << "')");
    INFO((result ? "" : result.status().toString()));
    REQUIRE(result.hasValue());
    std::set<MarkedRange> got;
    for (const SymbolLocation& l : result->locations)
      got.insert(MarkedRange{l.path, l.range.startByte, l.range.endByte, p.group});
    INFO("expected:\n" << show(a, expected) << "got:\n" << show(a, got) << "note: " << result->note);
    CHECK(got == expected);
    std::istringstream treeSitter(a.directives["tree-sitter"]);
    std::set<std::string> fromTreeSitter{std::istream_iterator<std::string>(treeSitter), {}};
    if (clang || precise)
      CHECK(result->source == (fromTreeSitter.count(p.group) ? "tree-sitter" : clang ? "clang" : "scip"));
    if (a.directives.count("confidence")) CHECK(confidenceName(result->confidence) == a.directives["confidence"]);
  }
}

}  // namespace

TEST_CASE("navigation fixtures resolve definitions, references, implementations, type definitions and highlights", "[fixtures]") {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(NIB_FIXTURE_DIR) / "navigation"))
    if (e.path().extension() == ".fixture") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 16);
  for (const fs::path& f : files) {
    DYNAMIC_SECTION(f.filename().string()) { runFixture(f); }
  }
}

}  // namespace nib::test
