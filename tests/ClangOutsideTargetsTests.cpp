// Definitions of what the repository names but declares outside it (ClangOutsideSite): clangd
// answers the place its parse or index saw in the system header — the definition, else the first
// declaration — so the index answers that place too, while the header is as the build read it.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "ClangTesting.h"
#include "TestRepo.h"
#include "providers/StaticProvider.h"

namespace nib::test {
using namespace clangview;

namespace {

// A folder beside the repository, as /usr/include is: no path of the repository's.
struct OutsideDir {
  fs::path dir;
  explicit OutsideDir(const TestRepo& repo) : dir(repo.root().string() + "-system") { fs::create_directories(dir); }
  ~OutsideDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir / name, std::ios::binary) << text; }
};

std::string lineOf(const fs::path& path, uint32_t line) {
  std::ifstream in(path);
  std::string text;
  for (uint32_t i = 0; i <= line && std::getline(in, text); ++i) {
  }
  return text;
}

Position positionOf(const std::string& text, const std::string& needle) {
  uint32_t at = offsetOf(text, needle);
  Position p;
  for (uint32_t i = 0; i < at; ++i) {
    if (text[i] == '\n') ++p.line, p.column = 0;
    else ++p.column;
  }
  return p;
}

}  // namespace

TEST_CASE("definitions of what a system header declares go where the build saw it", "[clang]") {
  TestRepo repo;
  OutsideDir system(repo);
  const std::string lib =
      "#ifndef LIB_H\n#define LIB_H\n#define LIB_MAX 3\ntypedef unsigned lib_size;\nstruct lib_pair { int a, b; };\n"
      "struct lib_opaque;\nint lib_call(int x);\nstatic inline int lib_twice(int x) { return 2 * x; }\n#endif\n";
  system.write("lib.h", lib);
  const std::string main =
      "#include <lib.h>\n#include <stddef.h>\nstruct lib_opaque *keep;\n"
      "int main(void) { lib_size n = LIB_MAX; struct lib_pair p = {1, 2}; size_t z = 0;\n"
      "  return lib_call(p.a) + lib_twice((int)n) + (int)z; }\n";
  repo.writeAll({{"main.c", main}});
  writeDatabase(repo, {"main.c"}, "-isystem " + system.dir.string());
  repo.commitAll();
  build(repo);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  const std::string header = fs::canonical(system.dir / "lib.h").string();
  // The definition where the unit has one (a macro, a typedef, a struct, an inline function, a
  // field), else the first declaration (a function the unit only declares, an opaque struct).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"LIB_MAX;", "LIB_MAX 3"},        {"lib_size n", "lib_size;"},       {"lib_pair p", "lib_pair {"},
      {"lib_call(p", "lib_call(int"},   {"lib_twice((", "lib_twice(int"}, {"a) +", "a, b"},
      {"lib_opaque *", "lib_opaque;"}};
  for (const auto& [use, declared] : cases) {
    INFO(use);
    auto r = (*provider)->definition("main.c", offsetOf(main, use));
    REQUIRE(r.hasValue());
    REQUIRE(r->locations.size() == 1);
    CHECK(r->locations[0].path == header);
    CHECK(r->locations[0].range.start == positionOf(lib, declared));
    CHECK(r->facet == kOutsideFacet);
    CHECK(r->confidence == Confidence::Exact);
  }
  // The compiler's own header, wherever this machine keeps it: its typedef of size_t.
  auto size = (*provider)->definition("main.c", offsetOf(main, "size_t z"));
  REQUIRE(size.hasValue());
  REQUIRE(size->locations.size() == 1);
  const SymbolLocation& at = size->locations[0];
  CHECK(fs::path(at.path).filename() == "stddef.h");
  CHECK(lineOf(at.path, at.range.start.line).substr(at.range.start.column, 6) == "size_t");
  // A header that changed since the build (a package upgrade) answers nothing, and says why.
  system.write("lib.h", lib + "int lib_added(void);\n");
  auto stale = (*provider)->definition("main.c", offsetOf(main, "lib_call(p"));
  REQUIRE(stale.hasValue());
  CHECK(stale->locations.empty());
  CHECK(stale->facet == kOutsideFacet);
  CHECK(stale->note.find("changed since the index was built") != std::string::npos);
}

TEST_CASE("definitions of the standard library's templates and members go to the build's definitions", "[clang]") {
  TestRepo repo;
  const std::string main =
      "#include <algorithm>\n#include <vector>\n"
      "int run(std::vector<int>& v) {\n  v.push_back(1);\n  std::sort(v.begin(), v.end());\n  return (int)v.size(); }\n";
  repo.writeAll({{"main.cc", main}});
  repo.write("compile_commands.json", "[{\"directory\":\"" + repo.root().string() +
                                          "\",\"file\":\"main.cc\",\"command\":\"c++ -std=c++17 -c main.cc\"}]");
  repo.commitAll();
  build(repo);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  // Each answer is one place in a header outside the repository whose text spells the name
  // there: std::sort's definition (not algorithmfwd.h's declaration, the template's first), the
  // member the call names, the class template's definition, the first block opening std.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"vector", "vector<int>"}, {"push_back", "push_back"}, {"sort", "sort("}, {"size", "size()"}, {"std", "std::sort"}};
  for (const auto& [name, use] : cases) {
    INFO(name);
    auto r = (*provider)->definition("main.cc", offsetOf(main, use));
    REQUIRE(r.hasValue());
    REQUIRE(r->locations.size() == 1);
    const SymbolLocation& at = r->locations[0];
    CHECK(fs::path(at.path).is_absolute());
    CHECK(at.path.rfind(repo.root().string(), 0) != 0);
    CHECK(lineOf(at.path, at.range.start.line).substr(at.range.start.column, name.size()) == name);
    if (name == "sort") CHECK(fs::path(at.path).filename() == "stl_algo.h");
  }
}

TEST_CASE("a system header's function declared first and defined further down answers its definition", "[clang]") {
  // A C++ unit's session skips every function body of a system header, so no unit has the
  // definition; clangd's index does (gtest.h's RUN_ALL_TESTS: a prototype, then the inline
  // definition). A function only declared there keeps its declaration.
  TestRepo repo;
  OutsideDir system(repo);
  const std::string lib =
      "#ifndef RUNNER_H\n#define RUNNER_H\nnamespace run {\nclass Suite {\n public:\n  int Size() const;\n};\n}  // namespace run\n"
      "int RunAll(int x);\nint Declared(int x);\n// RunAll is defined below.\ninline int RunAll(int x) { return x; }\n"
      "inline int run::Suite::Size() const { return 1; }\n#endif\n";
  system.write("runner.h", lib);
  const std::string main = "#include <runner.h>\nint main() { run::Suite s; return RunAll(s.Size()) + Declared(1); }\n";
  repo.writeAll({{"a.cc", main}, {"b.cc", main}});
  repo.write("compile_commands.json", "[{\"directory\":\"" + repo.root().string() + "\",\"file\":\"a.cc\",\"command\":\"c++ -isystem " +
                                          system.dir.string() + " -c a.cc\"},{\"directory\":\"" + repo.root().string() +
                                          "\",\"file\":\"b.cc\",\"command\":\"c++ -isystem " + system.dir.string() + " -c b.cc\"}]");
  repo.commitAll();
  build(repo);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  const std::string header = fs::canonical(system.dir / "runner.h").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"RunAll(s", "RunAll(int x) {"}, {"Size()", "Size() const {"}, {"Declared(1", "Declared(int"}};
  for (const std::string file : {"a.cc", "b.cc"})
    for (const auto& [use, defined] : cases) {
      INFO(file << ": " << use);
      auto r = (*provider)->definition(file, offsetOf(main, use));
      REQUIRE(r.hasValue());
      REQUIRE(r->locations.size() == 1);
      CHECK(r->locations[0].path == header);
      CHECK(r->locations[0].range.start == positionOf(lib, defined));
    }
}

}  // namespace nib::test
