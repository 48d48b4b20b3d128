// Code the build's units see differently (ClangViewContents::varying): clangd's background index
// keeps one unit's view of each header, the first its shuffled queue indexed, so a references
// answer listing a site there is labelled `includer-dependent` and measured apart.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "ClangTesting.h"
#include "TestRepo.h"
#include "providers/StaticProvider.h"
#include "views/ClangView.h"

namespace nib::test {
using namespace clangview;

namespace {

bool listsIn(const NavigationResult& r, const std::string& path) {
  return std::any_of(r.locations.begin(), r.locations.end(), [&](const SymbolLocation& l) { return l.path == path; });
}

// Writes the files and a compilation database of `units`, commits them and builds the index.
void buildUnits(TestRepo& repo, const std::map<std::string, std::string>& files,
                const std::vector<std::string>& units) {
  repo.writeAll(files);
  writeDatabase(repo, units);
  repo.commitAll();
  build(repo);
}

}  // namespace

TEST_CASE("references in an X-macro table each includer expands its own way are includer-dependent", "[clang]") {
  TestRepo repo;
  // ops.def has no include guard: ops.h expands it into enumerators, table.c into uses of the
  // types; clangd's index keeps the view of whichever unit it indexed first.
  const char* types = "#ifndef TYPES_H\n#define TYPES_H\nenum type { T_I32, T_V128 };\nint width(void);\n#endif\n";
  const char* def = "OP(T_I32, Add)\nOP(T_V128, Load)\n";
  const char* ops = "#ifndef OPS_H\n#define OPS_H\nenum op {\n#define OP(t, n) n,\n#include \"ops.def\"\n#undef OP\n};\n#endif\n";
  const char* table = "#include \"types.h\"\n#include \"ops.h\"\nenum type op_types[] = {\n#define OP(t, n) t,\n"
                      "#include \"ops.def\"\n#undef OP\n};\nint width(void) { return T_V128; }\n";
  const char* main = "#include \"types.h\"\n#include \"ops.h\"\nint main(void) { return width() + Load; }\n";
  buildUnits(repo, {{"types.h", types}, {"ops.def", def}, {"ops.h", ops}, {"table.c", table}, {"main.c", main}},
             {"table.c", "main.c"});
  auto view = currentClangView(repo);
  REQUIRE(view.hasValue());
  CHECK((*view)->variesAt("ops.def", offsetOf(def, "T_V128")));
  CHECK(!(*view)->variesAt("types.h", offsetOf(types, "T_V128")));
  CHECK(!(*view)->variesAt("ops.h", offsetOf(ops, "enum op")));
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  // T_V128's uses: table.c's expansion of ops.def (a site there) and width's return.
  auto v128 = (*provider)->references("types.h", offsetOf(types, "T_V128"), true);
  REQUIRE(v128.hasValue());
  CHECK(listsIn(*v128, "ops.def"));
  CHECK(listsIn(*v128, "table.c"));
  CHECK(v128->facet == kIncluderDependentFacet);
  CHECK(v128->note.find("1 reference(s) lie in code the build's units see differently") != std::string::npos);
  // width's references lie in files every unit sees alike: the answer keeps its symbol's kind.
  auto width = (*provider)->references("main.c", offsetOf(main, "width()"), true);
  REQUIRE(width.hasValue());
  CHECK(width->locations.size() == 3);
  CHECK(width->facet == "function");
}

TEST_CASE("references in a header's section only some units keep are includer-dependent", "[clang]") {
  TestRepo repo;
  // extra.c turns conf.h's WITH_EXTRA section on; base.c and main.c leave it out.
  const char* conf = "#ifndef CONF_H\n#define CONF_H\nint base(void);\n#ifdef WITH_EXTRA\n"
                     "static inline int more(void) { return base() + 1; }\n#endif\nint other(void);\n#endif\n";
  const char* base = "#include \"conf.h\"\nint base(void) { return 1; }\nint other(void) { return base(); }\n";
  const char* extra = "#define WITH_EXTRA\n#include \"conf.h\"\nint extra(void) { return more(); }\n";
  const char* main = "#include \"conf.h\"\nint main(void) { return other(); }\n";
  buildUnits(repo, {{"conf.h", conf}, {"base.c", base}, {"extra.c", extra}, {"main.c", main}},
             {"base.c", "extra.c", "main.c"});
  auto view = currentClangView(repo);
  REQUIRE(view.hasValue());
  CHECK((*view)->variesAt("conf.h", offsetOf(conf, "base() + 1")));
  CHECK(!(*view)->variesAt("conf.h", offsetOf(conf, "base(void)")));
  CHECK(!(*view)->variesAt("conf.h", offsetOf(conf, "other(void)")));
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  // One unit of the three reading conf.h keeps the section: clangd's index most likely holds
  // another's view of it, so more's call to base there is left out, and the answer says so.
  auto fromBase = (*provider)->references("base.c", offsetOf(base, "base(void)"), true);
  REQUIRE(fromBase.hasValue());
  CHECK(fromBase->locations.size() == 3);  // conf.h's declaration, base.c's two
  CHECK(!listsIn(*fromBase, "extra.c"));
  CHECK(fromBase->facet == kIncluderDependentFacet);
  CHECK(fromBase->note.find("1 reference(s) in sections that fewer than half") != std::string::npos);
  // other's sites lie outside the section: its answer keeps its symbol's kind.
  auto fromMain = (*provider)->references("main.c", offsetOf(main, "other()"), true);
  REQUIRE(fromMain.hasValue());
  CHECK(fromMain->locations.size() == 3);
  CHECK(fromMain->facet == "function");
}

TEST_CASE("references in a header's section half of its units keep are listed", "[clang]") {
  TestRepo repo;
  // extra.c and more.c turn conf.h's WITH_EXTRA section on, base.c and main.c leave it out: no
  // view is the likelier one, and every site is listed.
  const char* conf = "#ifndef CONF_H\n#define CONF_H\nint base(void);\n#ifdef WITH_EXTRA\n"
                     "static inline int more(void) { return base() + 1; }\n#endif\n#endif\n";
  const char* base = "#include \"conf.h\"\nint base(void) { return 1; }\n";
  const char* extra = "#define WITH_EXTRA\n#include \"conf.h\"\nint extra(void) { return more(); }\n";
  const char* more = "#define WITH_EXTRA\n#include \"conf.h\"\nint twice(void) { return more() * 2; }\n";
  const char* main = "#include \"conf.h\"\nint main(void) { return base(); }\n";
  buildUnits(repo, {{"conf.h", conf}, {"base.c", base}, {"extra.c", extra}, {"more.c", more}, {"main.c", main}},
             {"base.c", "extra.c", "more.c", "main.c"});
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto fromMain = (*provider)->references("main.c", offsetOf(main, "base()"), true);
  REQUIRE(fromMain.hasValue());
  CHECK(fromMain->locations.size() == 4);  // conf.h's declaration and more's call, base.c's, main.c's
  CHECK(fromMain->facet == kIncluderDependentFacet);
  CHECK(fromMain->note.find("fewer than half") == std::string::npos);
}

TEST_CASE("references in a source file a test #includes whole differ where the test's macros stand in", "[clang]") {
  TestRepo repo;
  // test_core.c includes core.c whole, with a macro standing in for send_packet (chrony's unit
  // tests): at that call the two units see different sites, and clangd's index holds core.c as
  // whichever of them it indexed first; at now() they see the same.
  const char* io = "#ifndef IO_H\n#define IO_H\nint send_packet(int x);\nint now(void);\n#endif\n";
  const char* core = "#include \"io.h\"\nint tick(int x) { return send_packet(x) + now(); }\n";
  const char* test = "#include \"io.h\"\nint fake(void);\n#define send_packet(x) fake()\n#include \"core.c\"\n"
                     "int main(void) { return tick(1); }\n";
  const char* impl = "#include \"io.h\"\nint send_packet(int x) { return x; }\nint now(void) { return 0; }\n";
  buildUnits(repo, {{"io.h", io}, {"core.c", core}, {"test_core.c", test}, {"io.c", impl}}, {"core.c", "test_core.c", "io.c"});
  auto view = currentClangView(repo);
  REQUIRE(view.hasValue());
  CHECK((*view)->variesAt("core.c", offsetOf(core, "send_packet(x)")));
  CHECK(!(*view)->variesAt("core.c", offsetOf(core, "now()")));
  CHECK(!(*view)->variesAt("core.c", offsetOf(core, "tick")));
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  // The call core.c's own unit sees, and the test's stand-in there: both listed, both labelled.
  auto sent = (*provider)->references("io.c", offsetOf(impl, "send_packet(int"), true);
  REQUIRE(sent.hasValue());
  CHECK(listsIn(*sent, "core.c"));
  CHECK(sent->facet == kIncluderDependentFacet);
  auto fake = (*provider)->references("test_core.c", offsetOf(test, "fake(void)"), true);
  REQUIRE(fake.hasValue());
  CHECK(listsIn(*fake, "core.c"));
  CHECK(fake->facet == kIncluderDependentFacet);
  // now()'s sites are the same in both views: the answer keeps its symbol's kind.
  auto now = (*provider)->references("io.c", offsetOf(impl, "now(void)"), true);
  REQUIRE(now.hasValue());
  CHECK(listsIn(*now, "core.c"));
  CHECK(now->facet == "function");
}

}  // namespace nib::test
