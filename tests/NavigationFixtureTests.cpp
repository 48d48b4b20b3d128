// Runs every annotated fixture under tests/fixtures/navigation through a real index build and
// the static provider. `# check: definition` fixtures ask for the definition at each point and
// expect exactly the ranges of the point's group; `# check: references` fixtures ask for the
// references (declaration included) and expect exactly the group's ranges; `implementation`,
// `typeDefinition`, `highlight` (documentHighlight's occurrences), and through the engine
// `rename` (the occurrences a rename edits), `folding` (a file's folds, as whole lines) and
// `selection` (the selection chain inside the file) likewise. A `# clang: FLAGS`
// fixture gets a compilation database (every .c/.cc/.cpp file compiled with FLAGS), so its C/C++
// answers come from libclang's facts, and each answer must say so, but for the groups a
// `# tree-sitter: GROUP ...` directive names (positions libclang reports nothing about). A
// `# precise` fixture is indexed by the SCIP indexers likewise (its answers say "scip"). A place
// outside the repository (a system header's declaration) has no marker: `# outside:
// GROUP=FILE:WORD ...` expects, besides the group's ranges, one location in a file of that name
// outside the repository whose text spells WORD there.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "Annotations.h"
#include "TestRepo.h"
#include "indexer/IndexBuilder.h"
#include "providers/StaticProvider.h"
#include "server/Engine.h"

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

// The `# outside:` expectations of a group: (file name, word) pairs.
std::multiset<std::pair<std::string, std::string>> outsideExpected(const Annotations& a, const std::string& group) {
  std::multiset<std::pair<std::string, std::string>> out;
  std::istringstream list(a.directives.count("outside") ? a.directives.at("outside") : "");
  for (std::string item; list >> item;) {
    size_t eq = item.find('='), colon = item.rfind(':');
    REQUIRE((eq != std::string::npos && colon != std::string::npos && eq < colon));
    if (item.substr(0, eq) == group) out.emplace(item.substr(eq + 1, colon - eq - 1), item.substr(colon + 1));
  }
  return out;
}

// A location outside the repository as an `# outside:` expectation: its file's name and the word
// its text spells at the location ("" when unreadable).
std::pair<std::string, std::string> outsideFound(const SymbolLocation& l) {
  std::ifstream in(l.path);
  std::string line;
  for (uint32_t i = 0; i <= l.range.start.line && std::getline(in, line);) ++i;
  size_t end = l.range.start.column;
  while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
  std::string word = l.range.start.column < line.size() ? line.substr(l.range.start.column, end - l.range.start.column) : "";
  return {fs::path(l.path).filename().string(), word};
}

Expected<NavigationResult> ask(StaticProvider& provider, const std::string& check, const MarkedPoint& p) {
  if (check == "references") return provider.references(p.path, p.offset, /*includeDeclaration=*/true);
  if (check == "implementation") return provider.implementations(p.path, p.offset);
  if (check == "typeDefinition") return provider.typeDefinitions(p.path, p.offset);
  if (check == "highlight") return provider.highlights(p.path, p.offset);
  return provider.definition(p.path, p.offset);
}

// What the engine answers at a point, as marked ranges: `rename`, the occurrences a rename edits
// (a refusal: none); `folding`, the point's file's folds, each as the range from its first line's
// start to its last line's end; `selection`, the selection chain but for its last link (always
// the whole file).
Expected<std::set<MarkedRange>> engineAnswer(Engine& engine, const Annotations& a, const std::string& check,
                                            const MarkedPoint& p) {
  std::set<MarkedRange> got;
  auto add = [&](const std::string& path, uint32_t begin, uint32_t end) { got.insert(MarkedRange{path, begin, end, p.group}); };
  if (check == "rename") {
    auto plan = engine.planRename(p.path, p.offset, "renamed");
    if (!plan) return plan.status();
    for (const SymbolLocation& l : plan->occurrences) add(l.path, l.range.startByte, l.range.endByte);
  } else if (check == "folding") {
    auto folds = engine.foldingRanges(p.path);
    if (!folds) return folds.status();
    const std::string& text = a.files.at(p.path);
    std::vector<uint32_t> starts{0};
    for (uint32_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts.push_back(i + 1);
    for (const FoldRange& f : *folds)
      if (f.endLine + 1 < starts.size()) add(p.path, starts[f.startLine], starts[f.endLine + 1] - 1);
  } else {
    auto chain = engine.selectionRanges(p.path, p.offset);
    if (!chain) return chain.status();
    for (size_t i = 0; i + 1 < chain->ranges.size(); ++i) add(p.path, chain->ranges[i].startByte, chain->ranges[i].endByte);
  }
  return got;
}

// The checks answered by the engine rather than the provider. A `rename` group without ranges
// is a rename nib must refuse (Unsafe: its occurrences are not all exact).
void checkThroughEngine(const Annotations& a, TestRepo& repo, const std::string& check) {
  auto engine = Engine::open(repo.root());
  REQUIRE(engine.hasValue());
  for (const MarkedPoint& p : a.points) {
    auto expectedList = a.rangesOf(p.group);
    std::set<MarkedRange> expected(expectedList.begin(), expectedList.end());
    auto got = engineAnswer(**engine, a, check, p);
    INFO(check << " at " << a.describe(p.path, p.offset) << " (group '" << p.group << "')");
    INFO((got ? "" : got.status().toString()));
    if (check == "rename" && expected.empty()) {
      CHECK(got.status().is(Reason::Unsafe));
      continue;
    }
    REQUIRE(got.hasValue());
    INFO("expected:\n" << show(a, expected) << "got:\n" << show(a, *got));
    CHECK(*got == expected);
  }
}

void runFixture(const fs::path& file) {
  Annotations a = parseAnnotations(readText(file));
  std::string check = a.directives["check"];
  const std::set<std::string> kChecks = {"definition", "references", "implementation", "typeDefinition", "highlight",
                                         "rename", "folding", "selection"};
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
    // `# uncompiled: PATH ...` leaves files out of the compilation database (programs no command
    // builds, which the clang view indexes with a borrowed command).
    std::istringstream uncompiledList(a.directives["uncompiled"]);
    std::set<std::string> uncompiled{std::istream_iterator<std::string>(uncompiledList), {}};
    // `# clang-file: PATH FLAGS` adds FLAGS to that one file's command (an include path the other
    // commands lack).
    std::istringstream fileFlags(a.directives["clang-file"]);
    std::string flaggedPath, extraFlags;
    fileFlags >> flaggedPath;
    std::getline(fileFlags, extraFlags);
    std::string db = "[";
    for (const auto& [path, text] : a.files) {
      std::string ext = fs::path(path).extension().string();
      if ((ext != ".c" && ext != ".cc" && ext != ".cpp") || uncompiled.count(path)) continue;
      std::string compiler = ext == ".c" ? "cc" : "c++";
      db += std::string(db.size() > 1 ? "," : "") + "{\"directory\":\"" + repo.root().string() + "\",\"file\":\"" + path +
            "\",\"command\":\"" + compiler + " " + a.directives["clang"] + (path == flaggedPath ? extraFlags : "") + " -c " + path +
            "\"}";
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

  if (check == "rename" || check == "folding" || check == "selection") return checkThroughEngine(a, repo, check);
  for (const MarkedPoint& p : a.points) {
    auto expectedList = a.rangesOf(p.group);
    std::set<MarkedRange> expected(expectedList.begin(), expectedList.end());
    auto result = ask(**provider, check, p);
    INFO("request at " << a.describe(p.path, p.offset) << " (group '" << p.group << "')");
    INFO((result ? "" : result.status().toString()));
    REQUIRE(result.hasValue());
    std::set<MarkedRange> got;
    std::multiset<std::pair<std::string, std::string>> outside;
    for (const SymbolLocation& l : result->locations)
      if (fs::path(l.path).is_absolute()) outside.insert(outsideFound(l));
      else got.insert(MarkedRange{l.path, l.range.startByte, l.range.endByte, p.group});
    std::string outsideShown;
    for (const auto& [file, word] : outside) outsideShown += "  " + file + " '" + word + "'\n";
    INFO("expected:\n" << show(a, expected) << "got:\n" << show(a, got) << outsideShown << "note: " << result->note);
    CHECK(got == expected);
    CHECK(outside == outsideExpected(a, p.group));
    std::istringstream treeSitter(a.directives["tree-sitter"]);
    std::set<std::string> fromTreeSitter{std::istream_iterator<std::string>(treeSitter), {}};
    if (clang || precise)
      CHECK(result->source == (fromTreeSitter.count(p.group) ? "tree-sitter" : clang ? "clang" : "scip"));
    if (a.directives.count("confidence")) CHECK(confidenceName(result->confidence) == a.directives["confidence"]);
  }
}

}  // namespace

TEST_CASE("navigation fixtures: definitions, references, implementations, type definitions, highlights, renames, folds and selections", "[fixtures]") {
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
