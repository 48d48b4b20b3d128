// The clang view's made-up units: files no compile command reaches (headers nothing includes,
// programs the build leaves out, source files another unit #includes whole), indexed with the
// command clangd would borrow, kept apart from the build's answers, left to the follow-up.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "ClangTesting.h"
#include "TestRepo.h"
#include "indexer/DenseFollowUp.h"
#include "indexer/IndexBuilder.h"
#include "providers/StaticProvider.h"
#include "server/Engine.h"
#include "views/ClangView.h"

namespace nib::test {
using namespace clangview;
namespace fs = std::filesystem;

TEST_CASE("files no compile command reaches get clang facts of their own, apart from the build's", "[clang]") {
  TestRepo repo;
  const char* lonely = "#include \"../shared.h\"\nstatic inline int lonely(void) { return shared(5); }\n";
  repo.writeAll({{"shared.h", kHeader}, {"shared.c", kShared}, {"main.c", kMain}, {"extra/lonely.h", lonely}});
  writeDatabase(repo, {"shared.c", "main.c"});
  repo.commitAll();
  Manifest m = build(repo);
  CHECK(stat(m, "clang.units") == "2");
  CHECK(stat(m, "clang.interpolated") == "1");  // extra/lonely.h, with shared.c's command
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  // Inside the header, libclang's facts answer (with a neighbour's command).
  CHECK((*provider)->hasClangFacts("extra/lonely.h"));
  auto def = (*provider)->definition("extra/lonely.h", offsetOf(lonely, "shared(5)"));
  REQUIRE(def.hasValue());
  CHECK(def->source == "clang");
  REQUIRE(def->locations.size() == 1);
  CHECK(def->locations[0].path == "shared.c");
  CHECK((*provider)->clangInterpolatedFiles() == std::vector<std::string>{"extra/lonely.h"});
  // Its call is no reference of the build's: from a compiled file, references leave it out and
  // say so; from the header itself (the file in front of the user), they list it, as clangd
  // lists the calls of a file it has open. The answer there is in its own category.
  auto fromMain = (*provider)->references("main.c", offsetOf(kMain, "shared(1)"), true);
  REQUIRE(fromMain.hasValue());
  CHECK(fromMain->locations.size() == 4);
  CHECK(std::none_of(fromMain->locations.begin(), fromMain->locations.end(),
                     [](const SymbolLocation& l) { return l.path == "extra/lonely.h"; }));
  CHECK(fromMain->note == "1 reference(s) in files no compile command builds are left out");
  CHECK(fromMain->confidence == Confidence::Exact);
  CHECK(fromMain->facet != "uncompiled");
  auto fromHeader = (*provider)->references("extra/lonely.h", offsetOf(lonely, "shared(5)"), true);
  REQUIRE(fromHeader.hasValue());
  CHECK(fromHeader->locations.size() == 5);
  CHECK(std::count_if(fromHeader->locations.begin(), fromHeader->locations.end(),
                      [](const SymbolLocation& l) { return l.path == "extra/lonely.h"; }) == 1);
  CHECK(fromHeader->facet == "uncompiled");

  // In the editor, the header open: its call is listed from main.c too, until it is closed.
  auto engine = Engine::open(repo.root());
  REQUIRE(engine.hasValue());
  Engine& e = **engine;
  REQUIRE(e.openBuffer("extra/lonely.h", lonely).isOk());
  auto whileOpen = e.references("main.c", offsetOf(kMain, "shared(1)"), true);
  REQUIRE(whileOpen.hasValue());
  CHECK(whileOpen->locations.size() == 5);
  CHECK(whileOpen->note.empty());
  REQUIRE(e.closeBuffer("extra/lonely.h").isOk());
  auto closed = e.references("main.c", offsetOf(kMain, "shared(1)"), true);
  REQUIRE(closed.hasValue());
  CHECK(closed->locations.size() == 4);
}

TEST_CASE("a main file another unit #includes is listed as shared, one nothing includes is not", "[clang]") {
  // The live benchmark opens these in clangd: its background index keeps one unit's view of
  // such a file, chosen by the order it happened to index the units in.
  TestRepo repo;
  repo.writeAll({{"one.c", "int one(void) { return 1; }\n"},
                 {"two.c", "int two(void) { return 2; }\n"},
                 {"all.c", "#include \"one.c\"\nint all(void) { return one(); }\n"}});
  writeDatabase(repo, {"one.c", "two.c", "all.c"});
  repo.commitAll();
  Manifest m = build(repo);
  CHECK(stat(m, "clang.shared") == "1");
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  CHECK((*provider)->clangSharedMainFiles() == std::vector<std::string>{"one.c"});
}

TEST_CASE("a source file no command builds, #included whole, is parsed alone too, and units record what they read",
          "[clang]") {
  // clangd opens such a file (expat's xmltok_impl.c) alone with a borrowed command: what that
  // parse leaves out is code the preprocessor left out there, whatever the includer compiled.
  TestRepo repo;
  const char* impl = "#ifdef IMPL_C\nstatic int scan(void) { return ONE; }\n#endif\n";
  repo.writeAll({{"one.h", "#define ONE 1\n"},
                 {"impl.c", impl},
                 {"tok.c", "#include \"one.h\"\n#define IMPL_C\n#include \"impl.c\"\nint main(void) { return scan(); }\n"},
                 {"other.c", "int other(void) { return 0; }\n"}});
  writeDatabase(repo, {"tok.c", "other.c"});
  repo.commitAll();
  Manifest m = build(repo);
  CHECK(stat(m, "clang.units") == "2");
  CHECK(stat(m, "clang.interpolated") == "1");  // impl.c, with tok.c's command (one.h, a header, has none)
  auto view = currentClangView(repo);
  REQUIRE(view.hasValue());
  CHECK((*view)->skippedAt("impl.c", static_cast<uint32_t>(offsetOf(impl, "scan"))));
  auto read = (*view)->filesReadBy("tok.c");
  REQUIRE(read.hasValue());
  REQUIRE(read->has_value());
  CHECK(std::vector<std::string>((*read)->begin(), (*read)->end()) == std::vector<std::string>{"impl.c", "one.h"});
  auto alone = (*view)->filesReadBy("impl.c");
  REQUIRE(alone.hasValue());
  REQUIRE(alone->has_value());
  CHECK((*alone)->empty());
  auto header = (*view)->filesReadBy("one.h");  // no unit's main file
  REQUIRE(header.hasValue());
  CHECK_FALSE(header->has_value());
}

TEST_CASE("a header without an include guard is parsed alone, and keeps that parse only where it has errors", "[clang]") {
  // table.h makes sense only after types.h (zlib's trees.h): clangd, opening it, parses it alone
  // with errors and answers from that parse. clean.h, no guard either, parses alone cleanly:
  // its includers' view of it stays.
  TestRepo repo;
  const char* table = "local const ct_data tab[2] = {{1}, {2}};\n";
  const char* lib = "#include \"types.h\"\n#include \"table.h\"\n#include \"clean.h\"\n"
                    "int use(void) { return tab[0].freq + twice(1); }\nint twice(int n) { return 2 * n; }\n";
  repo.writeAll({{"types.h", "#ifndef TYPES_H\n#define TYPES_H\ntypedef struct { int freq; } ct_data;\n#define local static\n#endif\n"},
                 {"table.h", table},
                 {"clean.h", "int twice(int n);\n"},
                 {"lib.c", lib}});
  writeDatabase(repo, {"lib.c"});
  repo.commitAll();
  Manifest m = build(repo);
  CHECK(stat(m, "clang.interpolated") == "0");
  CHECK(stat(m, "clang.headers-alone") == "1");  // table.h; clean.h's clean parse is dropped
  CHECK(stat(m, "clang.interpolated-failed") == "0");
  auto view = currentClangView(repo);
  REQUIRE(view.hasValue());
  CHECK((*view)->parsedWithErrors("table.h"));
  CHECK_FALSE((*view)->parsedWithErrors("clean.h"));
  CHECK_FALSE((*view)->parsedWithErrors("lib.c"));
  CHECK((*view)->mayHoldForeign("table.h"));  // lib.c's names there are lib.c's, not table.h's
  CHECK_FALSE((*view)->mayHoldForeign("clean.h"));
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  // In table.h, `local` names nothing clang knows: the declared variable after it is `ct_data`.
  auto atLocal = (*provider)->definition("table.h", 0);
  REQUIRE(atLocal.hasValue());
  REQUIRE(atLocal->locations.size() == 1);
  CHECK(atLocal->locations[0].path == "table.h");
  CHECK(atLocal->locations[0].range.start.column == static_cast<uint32_t>(offsetOf(table, "ct_data")));
  auto inLib = (*provider)->definition("lib.c", static_cast<uint32_t>(offsetOf(lib, "tab[0]")));
  REQUIRE(inLib.hasValue());
  REQUIRE(inLib->locations.size() == 1);
  CHECK(inLib->locations[0].range.start.column == static_cast<uint32_t>(offsetOf(table, "tab")));
}

TEST_CASE("made-up units of files no compile command builds are left to the follow-up, which adds them",
          "[clang][follow-up]") {
  const std::string tool = "#include \"shared.h\"\nint tool(void) { return shared(3); }\n";
  TestRepo repo;
  repo.writeAll({{"shared.h", kHeader}, {"shared.c", kShared}, {"main.c", kMain}, {"tool.c", tool},
                 {"notes.py", "def f():\n    return 1\n"}});
  writeDatabase(repo, {"shared.c", "main.c"});  // tool.c: no compile command
  repo.commitAll();
  ::setenv("NIB_CLANG_WORKER", NIB_CLANG_WORKER_PATH, 1);
  IndexOptions options;
  options.threads = 2;
  options.dense = false;
  options.deferUncompiled = true;
  auto definitionSource = [&](const std::string& path, const std::string& text, const std::string& needle) {
    auto provider = StaticProvider::open(repo.root() / ".nib");
    REQUIRE(provider.hasValue());
    auto def = (*provider)->definition(path, offsetOf(text, needle));
    REQUIRE(def.hasValue());
    return def->source;
  };
  auto first = buildIndex(repo.root(), options);
  REQUIRE(first.hasValue());
  const Manifest& t = first->manifest;
  REQUIRE(t.view("clang"));
  CHECK(t.view("clang")->has(ViewRecord::kUncompiledPending));
  CHECK(stat(t, "clang.deferred") == "1");
  CHECK(stat(t, "clang.indexed") == "2");
  CHECK(definitionSource("main.c", kMain, "shared(1)") == "clang");
  CHECK(definitionSource("tool.c", tool, "shared(3)") != "clang");  // tree-sitter until the follow-up

  SECTION("the follow-up publishes the view with the made-up unit") {
    auto followUp = completeDenseView(repo.root(), options);
    REQUIRE(followUp.hasValue());
    CHECK(followUp->published);
    CHECK(followUp->clangCompleted);
    CHECK(followUp->clangIndexed == 1);
    auto now = IndexLayout(repo.root() / ".nib").currentManifest();
    REQUIRE(now.hasValue());
    CHECK(now->previous == t.versionId);
    CHECK(stat(*now, kFollowUpOf) == t.versionId);
    CHECK_FALSE(now->view("clang")->has(ViewRecord::kUncompiledPending));
    CHECK(stat(*now, "clang.cached") == "2");
    CHECK(definitionSource("tool.c", tool, "shared(3)") == "clang");
    // Once cached, a full build has nothing to leave to a follow-up.
    IndexOptions full = options;
    full.deltaBudget = 0;
    full.skipIfCurrent = false;
    auto again = buildIndex(repo.root(), full);
    REQUIRE(again.hasValue());
    CHECK_FALSE(again->manifest.view("clang")->has(ViewRecord::kUncompiledPending));
    CHECK(stat(again->manifest, "clang.indexed") == "0");
  }
  SECTION("a delta made meanwhile is published again over the follow-up's version, its clang view complete") {
    repo.write("notes.py", "def f():\n    return 2\n");
    auto delta = buildIndex(repo.root(), options);
    REQUIRE(delta.hasValue());
    REQUIRE(delta->manifest.base == t.versionId);
    CHECK(delta->manifest.view("clang")->has(ViewRecord::kUncompiledPending));
    auto followUp = completeDenseView(repo.root(), options);
    REQUIRE(followUp.hasValue());
    CHECK(followUp->published);
    auto now = IndexLayout(repo.root() / ".nib").currentManifest();
    REQUIRE(now.hasValue());
    CHECK(now->base != t.versionId);
    CHECK_FALSE(now->base.empty());
    CHECK_FALSE(now->view("clang")->has(ViewRecord::kUncompiledPending));
    CHECK(definitionSource("tool.c", tool, "shared(3)") == "clang");
  }
  SECTION("a C file edited meanwhile makes a delta that indexes every unit it needs at once") {
    const std::string tool2 = "/* moved */\n" + tool;
    repo.write("tool.c", tool2);
    auto delta = buildIndex(repo.root(), options);
    REQUIRE(delta.hasValue());
    CHECK(delta->manifest.base == t.versionId);
    CHECK(delta->manifest.view("clang")->coversDelta());
    CHECK_FALSE(delta->manifest.view("clang")->has(ViewRecord::kUncompiledPending));
    CHECK(definitionSource("tool.c", tool2, "shared(3)") == "clang");
  }
  SECTION("a worktree that changed before the follow-up runs leaves the made-up units to the next build") {
    repo.write("tool.c", "/* edited */\n" + tool);
    auto followUp = completeDenseView(repo.root(), options);
    REQUIRE(followUp.hasValue());
    CHECK_FALSE(followUp->published);
    CHECK(followUp->clangSkipped.find("changed since the version was built") != std::string::npos);
    auto now = IndexLayout(repo.root() / ".nib").currentManifest();
    REQUIRE(now.hasValue());
    CHECK(now->versionId == t.versionId);
  }
}

}  // namespace nib::test

namespace nib::test {
using namespace clangview;

TEST_CASE("answers in a file whose own parse reported errors are a category of their own", "[clang][agreement]") {
  TestRepo repo;
  // broken.c includes a header no include path reaches: clang recovers and goes on, and so does
  // the live server, each in its own way.
  const char* broken = "#include \"shared.h\"\n#include \"nowhere.h\"\nint use(void) { return shared(2); }\n";
  repo.writeAll({{"shared.h", kHeader}, {"shared.c", kShared}, {"main.c", kMain}, {"broken.c", broken}});
  writeDatabase(repo, {"shared.c", "main.c", "broken.c"});
  repo.commitAll();
  Manifest m = build(repo);
  CHECK(stat(m, "clang.failed") == "0");
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto inBroken = (*provider)->definition("broken.c", offsetOf(broken, "shared(2)"));
  REQUIRE(inBroken.hasValue());
  CHECK(inBroken->source == "clang");
  CHECK(inBroken->facet == "parse-errors");
  REQUIRE(inBroken->locations.size() == 1);
  CHECK(inBroken->locations[0].path == "shared.c");
  auto inMain = (*provider)->definition("main.c", offsetOf(kMain, "shared(1)"));
  REQUIRE(inMain.hasValue());
  CHECK(inMain->facet == "function");
}

TEST_CASE("definitions several source files hold, and words many symbols are named, are categories of their own",
          "[clang][agreement]") {
  TestRepo repo;
  // Two programs of one build, each with its own `die` (nettle's tools and testsuite).
  const char* misc = "void die(const char *m);\n";
  const char* tool = "#include \"misc.h\"\nvoid die(const char *m) { (void)m; }\nint main(void) { die(\"x\"); return 0; }\n";
  const char* test = "void die(const char *m) { (void)m; }\nint run(void) { die(\"y\"); return 0; }\n";
  // A macro's text names `x`, the name of six fields (none close enough to answer as the same word
  // nearby: a one-letter word looks two lines away at most).
  const char* fields =
      "#define HI(x) ((x) >> 8)\n\n\n\nstruct a { int x; }; struct b { int x; }; struct c { int x; };\n"
      "struct d { int x; }; struct e { int x; }; struct f { int x; };\n";
  repo.writeAll({{"misc.h", misc}, {"tool.c", tool}, {"test.c", test}, {"fields.c", fields}});
  writeDatabase(repo, {"tool.c", "test.c", "fields.c"});
  repo.commitAll();
  build(repo);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto die = (*provider)->definition("misc.h", offsetOf(misc, "die"));
  REQUIRE(die.hasValue());
  CHECK(die->locations.size() == 2);
  CHECK(die->facet == kSeveralDefinitionsFacet);
  // Asked in a file that defines it, that file's unit sees its own definition, as clangd's parse.
  auto own = (*provider)->definition("test.c", offsetOf(test, "die(\"y"));
  REQUIRE(own.hasValue());
  REQUIRE(own->locations.size() == 1);
  CHECK(own->locations[0].path == "test.c");
  CHECK(own->facet == "function");
  auto word = (*provider)->definition("fields.c", offsetOf(fields, "x) >>"));
  REQUIRE(word.hasValue());
  CHECK(word->locations.empty());
  CHECK(word->facet == kManyNamedFacet);
  CHECK(word->note.find("more than 5 symbols") != std::string::npos);
}

}  // namespace nib::test
