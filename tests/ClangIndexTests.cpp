// The clang index as a build step: translation units cached by their inputs (only TUs whose
// files changed are indexed again), failures isolated (a broken TU, a hanging worker, a broken
// compilation database) with tree-sitter facts answering for what libclang could not index.
// What the answers contain is checked by the `# clang:` navigation fixtures.
#include <algorithm>
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "ClangTesting.h"
#include "TestRepo.h"
#include "indexer/DenseFollowUp.h"
#include "indexer/Extractor.h"
#include "indexer/IndexBuilder.h"
#include "indexer/WorkerProcess.h"
#include "providers/CallGraph.h"
#include "providers/StaticProvider.h"
#include "server/Engine.h"
#include "views/ClangFacts.h"
#include "views/ClangView.h"
#include "views/TuFactsMainFile.h"

namespace nib::test {
using namespace clangview;
namespace fs = std::filesystem;

TEST_CASE("a worker's facts round-trip, and a cut or damaged record fails to decode", "[clang]") {
  TuFacts f;
  f.mainFile = "/r/a.c";
  f.files = {"/r/a.c", "/r/h.h"};
  f.usrs = {"c:@F@f", "c:@F@g"};
  f.names = {"f", "g"};
  ClangOccurrence o;
  o.file = 1;
  o.line = 3;
  o.offset = 40;
  o.length = 1;
  o.usr = 1;
  o.role = ClangRole::Definition;
  f.occurrences = {o};
  f.overrides = {{0, 1}};
  f.skipped = {{0, 10, 90}, {1, 0, 12}};
  f.bodiesParsed = {0};
  f.inclusions = {{0, 20, 1, true}, {0, 40, 1, false}};
  f.inclusions[1].externC = true;
  f.openedOutside = {1};
  f.sitesLeftOut = {{1, 7}, {1, 300}};
  f.expansionsLeftOut = {{1, 0x9e3779b97f4a7c15ULL}};
  f.outsideTargets = {{1, "/usr/include/string.h", 42, 13, 1500, 6, false}};
  f.specializations = {{0, 1}};
  f.designators = {{1, 640, 4}};
  std::string bytes = encodeTuFacts(f);
  auto back = decodeTuFacts(bytes);
  REQUIRE(back.hasValue());
  REQUIRE(back->skipped.size() == 2);
  CHECK(back->skipped[0].file == 0);
  CHECK(back->skipped[0].start == 10);
  CHECK(back->skipped[0].end == 90);
  CHECK(back->skipped[1].file == 1);
  CHECK(back->occurrences.size() == 1);
  CHECK(back->overrides == f.overrides);
  CHECK(back->bodiesParsed == std::vector<uint32_t>{0});
  REQUIRE(back->inclusions.size() == 2);
  CHECK(back->inclusions[0].includer == 0);
  CHECK(back->inclusions[0].offset == 20);
  CHECK(back->inclusions[0].included == 1);
  CHECK(back->inclusions[0].enclosed);
  CHECK_FALSE(back->inclusions[0].externC);
  CHECK(back->inclusions[1].externC);
  CHECK_FALSE(back->inclusions[1].enclosed);
  CHECK(back->openedOutside == std::vector<uint32_t>{1});
  REQUIRE(back->outsideTargets.size() == 1);
  CHECK(back->outsideTargets[0].usr == 1);
  CHECK(back->outsideTargets[0].path == "/usr/include/string.h");
  CHECK(back->outsideTargets[0].line == 42);
  CHECK(back->outsideTargets[0].column == 13);
  CHECK(back->outsideTargets[0].offset == 1500);
  CHECK(back->outsideTargets[0].length == 6);
  CHECK_FALSE(back->outsideTargets[0].definition);
  CHECK(back->specializations == f.specializations);
  CHECK(back->sitesLeftOut == f.sitesLeftOut);
  CHECK(back->expansionsLeftOut == f.expansionsLeftOut);
  CHECK(back->designators == f.designators);
  // Every proper prefix (a worker killed half-way) is refused, never misread.
  for (size_t n = 0; n < bytes.size(); ++n) CHECK_FALSE(decodeTuFacts(bytes.substr(0, n)).hasValue());
  // A skipped range in a file the unit did not read is refused.
  f.skipped = {{2, 0, 1}};
  CHECK_FALSE(decodeTuFacts(encodeTuFacts(f)).hasValue());
  f.skipped.clear();
  f.bodiesParsed = {2};
  CHECK_FALSE(decodeTuFacts(encodeTuFacts(f)).hasValue());
  f.bodiesParsed.clear();
  f.inclusions = {{0, 20, 2}};  // entering a file the unit did not read
  CHECK_FALSE(decodeTuFacts(encodeTuFacts(f)).hasValue());
  f.inclusions.clear();
  f.sitesLeftOut = {{2, 7}};  // a macro left out in a file the unit did not read
  CHECK_FALSE(decodeTuFacts(encodeTuFacts(f)).hasValue());
  f.sitesLeftOut.clear();
  f.expansionsLeftOut = {{2, 1}};  // expansions left out in a file the unit did not read
  CHECK_FALSE(decodeTuFacts(encodeTuFacts(f)).hasValue());
  f.expansionsLeftOut.clear();
  f.designators = {{2, 0, 1}};  // a designator in a file the unit did not read
  CHECK_FALSE(decodeTuFacts(encodeTuFacts(f)).hasValue());
  f.designators.clear();
  // Facts of format 5 (a precise project's, cached before #includes were recorded) are read,
  // without #includes: the format byte, and no count at the end.
  f.inclusions.clear();
  f.openedOutside.clear();
  f.outsideTargets.clear();
  f.specializations.clear();
  std::string older = encodeTuFacts(f);
  older[0] = 5;
  older.resize(older.size() - 7);  // no count of #includes, namespaces opened outside, targets, specializations, sites and expansions left out, designators
  auto old = decodeTuFacts(older);
  REQUIRE(old.hasValue());
  CHECK(old->inclusions.empty());
  CHECK(old->skipped.empty());
  CHECK(old->occurrences.size() == 1);

  // A batch's outcomes: a worker that died in the middle of the second leaves the first whole.
  std::string batch = encodeUnitOutcome({true, bytes, 0.25}) + encodeUnitOutcome({false, "libclang could not parse b.c", 0.5});
  auto outcomes = decodeUnitOutcomes(batch);
  REQUIRE(outcomes.size() == 2);
  CHECK(outcomes[0].ok);
  CHECK(outcomes[0].payload == bytes);
  CHECK(outcomes[0].seconds == Approx(0.25));
  CHECK_FALSE(outcomes[1].ok);
  CHECK(outcomes[1].payload == "libclang could not parse b.c");
  CHECK(decodeUnitOutcomes(batch.substr(0, batch.size() - 3)).size() == 1);
  // A session's reader knows where the first record ends, and that a part of it is not whole.
  size_t first = encodeUnitOutcome({true, bytes, 0.25}).size();
  CHECK(wholeUnitOutcomeSize(batch) == first);
  CHECK(wholeUnitOutcomeSize(batch.substr(first)) == batch.size() - first);
  for (size_t n = 0; n < first; ++n) CHECK(wholeUnitOutcomeSize(batch.substr(0, n)) == 0);
  // Requests to the worker carry their length first.
  std::string framed = frameCompileCommands({{"/r", "/r/a.c", {"cc", "-c", "a.c"}}});
  REQUIRE(framed.size() > 4);
  CHECK(static_cast<size_t>(static_cast<unsigned char>(framed[0]) + (static_cast<unsigned char>(framed[1]) << 8)) == framed.size() - 4);
  auto commands = decodeCompileCommands(std::string_view(framed).substr(4));
  REQUIRE(commands.hasValue());
  CHECK(commands->at(0).file == "/r/a.c");
  CHECK(decodeUnitOutcomes("").empty());
}

TEST_CASE("a unit that takes its worker down fails alone, and the other units are indexed", "[clang]") {
  TestRepo repo;
  std::vector<std::string> files;
  for (const char* name : {"a.c", "b.c", "bad.c", "c.c", "d.c"}) {
    repo.write(name, std::string("#include \"shared.h\"\nint f_") + name[0] + "(void) { return shared(1); }\n");
    files.push_back(name);
  }
  repo.writeAll({{"shared.h", kHeader}, {"shared.c", kShared}});
  files.push_back("shared.c");
  writeDatabase(repo, files);
  // A worker that passes each request on to the real one and dies, writing nothing, at the
  // request for bad.c.
  fs::path worker = writeWorker(repo, "crashing-worker",
                                std::string("#!/usr/bin/env python3\nimport os, subprocess, sys\nreal = '") + NIB_CLANG_WORKER_PATH +
                                    "'\nif sys.argv[1] == 'list':\n    os.execv(real, [real] + sys.argv[1:])\n"
                                    "child = subprocess.Popen([real] + sys.argv[1:], stdin=subprocess.PIPE)\n"
                                    "while True:\n    head = sys.stdin.buffer.read(4)\n    if len(head) < 4:\n        break\n"
                                    "    body = sys.stdin.buffer.read(int.from_bytes(head, 'little'))\n"
                                    "    if b'bad.c' in body:\n        child.kill()\n        sys.stderr.write('boom')\n        sys.exit(3)\n"
                                    "    child.stdin.write(head + body)\n    child.stdin.flush()\n"
                                    "child.stdin.close()\nsys.exit(child.wait())\n");
  repo.commitAll();
  IndexOptions options;
  options.clangWorker = worker;
  options.threads = 1;
  Manifest m = build(repo, options);
  CHECK(stat(m, "clang.units") == "6");
  CHECK(stat(m, "clang.failed") == "1");
  CHECK(stat(m, "clang.failure.0") == "bad.c: boom");
  CHECK(stat(m, "clang.indexed") == "5");
}

TEST_CASE("translation units are indexed again only when a file they read changed", "[clang]") {
  TestRepo repo;
  repo.writeAll({{"shared.h", kHeader}, {"shared.c", kShared}, {"main.c", kMain}});
  writeDatabase(repo, {"shared.c", "main.c"});
  repo.commitAll();
  Manifest first = build(repo);
  CHECK(stat(first, "clang.units") == "2");
  CHECK(stat(first, "clang.indexed") == "2");
  CHECK(stat(first, "clang.failed") == "0");

  // Nothing changed: both from the cache.
  IndexOptions again;
  Manifest second = build(repo, again);
  CHECK(stat(second, "clang.cached") == "2");
  CHECK(stat(second, "clang.indexed") == "0");

  // One source file: its TU only.
  repo.write("main.c", std::string(kMain) + "int unused(void) { return shared(2); }\n");
  Manifest third = build(repo);
  CHECK(stat(third, "clang.indexed") == "1");
  CHECK(stat(third, "clang.cached") == "1");

  // The header both include: both.
  repo.write("shared.h", std::string(kHeader) + "int extra(void);\n");
  Manifest fourth = build(repo);
  CHECK(stat(fourth, "clang.indexed") == "2");

  // The answers are libclang's, and the header's function is one symbol for both TUs.
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  std::string main = std::string(kMain) + "int unused(void) { return shared(2); }\n";
  auto refs = (*provider)->references("main.c", offsetOf(main, "shared(1)"), true);
  REQUIRE(refs.hasValue());
  CHECK(refs->source == "clang");
  // Declaration in shared.h, its use in twice(), the definition, and two calls in main.c.
  CHECK(refs->locations.size() == 5);
}

TEST_CASE("a failing translation unit is recorded and answered from tree-sitter facts", "[clang]") {
  TestRepo repo;
  repo.writeAll({{"shared.h", kHeader}, {"shared.c", kShared}, {"main.c", kMain}});
  // main.c's command names a language libclang does not know: its TU fails, shared.c's does not.
  writeDatabase(repo, {"shared.c"});
  std::string db = "[{\"directory\":\"" + repo.root().string() + "\",\"file\":\"shared.c\",\"command\":\"cc -c shared.c\"}," +
                   "{\"directory\":\"" + repo.root().string() +
                   "\",\"file\":\"main.c\",\"command\":\"cc -x no-such-language -c main.c\"}]";
  repo.write("compile_commands.json", db);
  repo.commitAll();
  Manifest m = build(repo);
  CHECK(stat(m, "clang.units") == "2");
  CHECK(stat(m, "clang.failed") == "1");
  CHECK(stat(m, "clang.failure.0").rfind("main.c: ", 0) == 0);
  const ViewRecord* view = m.view("clang");
  REQUIRE(view);
  CHECK(view->status == ViewStatus::Complete);

  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  // shared.c is libclang's; main.c (its TU failed) keeps its tree-sitter facts.
  auto fromClang = (*provider)->definition("shared.c", offsetOf(kShared, "shared(int"));
  REQUIRE(fromClang.hasValue());
  CHECK(fromClang->source == "clang");
  CHECK((*provider)->hasClangFacts("shared.c"));
  CHECK_FALSE((*provider)->hasClangFacts("main.c"));
  auto fallback = (*provider)->definition("main.c", offsetOf(kMain, "twice("));
  REQUIRE(fallback.hasValue());
  CHECK(fallback->source == "tree-sitter");
  CHECK(fallback->confidence == Confidence::Name);  // labelled: lower than libclang's
  CHECK(fallback->note.find("no compile command covers this file") != std::string::npos);
  REQUIRE(fallback->locations.size() == 1);
  CHECK(fallback->locations[0].path == "shared.h");
}

TEST_CASE("a compilation database made for another checkout is named in a warning, not silently empty", "[clang]") {
  // A checkout copied or moved after its database was made: every entry names the old place.
  TestRepo repo;
  repo.writeAll({{"a.c", "int a(void) { return 1; }\n"},
                 {"compile_commands.json", "[{\"directory\": \"/elsewhere/checkout\", \"file\": "
                                           "\"/elsewhere/checkout/a.c\", \"arguments\": [\"cc\", \"-c\", \"a.c\"]}]\n"}});
  repo.commitAll();
  std::string out;
  int rc = runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " index -q", &out, true);
  CHECK(rc == 0);
  CHECK(out.find("none under this repository (the first: /elsewhere/checkout/a.c)") != std::string::npos);
  // A database of this checkout's own files says nothing of the kind.
  writeDatabase(repo, {"a.c"});
  repo.commitAll();
  rc = runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " index -q", &out, true);
  CHECK(rc == 0);
  CHECK(out.find("none under this repository") == std::string::npos);
}

TEST_CASE("a hanging worker is stopped at its time limit, a broken database fails the view only", "[clang]") {
  TestRepo repo;
  repo.writeAll({{"shared.h", kHeader}, {"shared.c", kShared}, {"main.c", kMain}});
  writeDatabase(repo, {"shared.c", "main.c"});
  // A worker that lists the database but never finishes a translation unit.
  fs::path worker = writeWorker(repo, "hanging-worker",
                                std::string("#!/bin/sh\nif [ \"$1\" = list ]; then exec ") + NIB_CLANG_WORKER_PATH +
                                    " \"$@\"; fi\nexec sleep 60\n");
  repo.commitAll();
  IndexOptions options;
  options.clangWorker = worker;
  options.clangTimeoutSeconds = 1;
  Manifest m = build(repo, options);
  CHECK(stat(m, "clang.failed") == "2");
  CHECK(stat(m, "clang.failure.0").find("timed out after 1 s") != std::string::npos);

  // Malformed JSON: the clang view fails with the reason; every other view is published.
  repo.write("compile_commands.json", "[{\"directory\": ");
  repo.commitAll();
  Manifest broken = build(repo);
  const ViewRecord* view = broken.view("clang");
  REQUIRE(view);
  CHECK(view->status == ViewStatus::Failed);
  CHECK(view->error.find("broken compilation database") != std::string::npos);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto def = (*provider)->definition("main.c", offsetOf(kMain, "twice("));
  REQUIRE(def.hasValue());
  CHECK(def->source == "tree-sitter");
  CHECK(def->locations.size() == 1);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("a macro reached through -isystem and through -I is two symbols, as clang names them", "[clang]") {
  // clang names a macro from a system header without a location (`c:@macro@CASE`) and one from
  // an ordinary header with its file and offset: clangd keeps the two apart, and so does nib,
  // though both are defined at the same place. What the header's text holds is described by the
  // header's own parse, as a user header (clangd's, once the header is open: checked against
  // clangd 14), so the #define is a site of the located macro only; the place-less one goes to
  // it, and its references are the uses in the units that read the header as a system header.
  TestRepo repo;
  const char* header = "#define CASE(name) int name()\n";
  const char* a = "#include <cases.h>\n#include <only.h>\n#include <uses.h>\nCASE(one) { return ONLY(1); }\n";
  const char* b = "#include <cases.h>\nCASE(two) { return 2; }\n";
  const char* c = "#include <cases.h>\nCASE(three) { return 3; }\n";
  repo.writeAll({{"inc/cases.h", header},
                 {"inc/only.h", "#define ONLY(x) (x)\nstatic int only_zero(void) { return ONLY(0); }\n"},
                 {"inc/uses.h", "#include <cases.h>\nCASE(four) { return 4; }\n"},
                 {"a.c", a},
                 {"b.c", b},
                 {"c.c", c}});
  std::string db = "[";
  for (const auto& [file, flag] : {std::pair{"a.c", "-isystem inc"}, {"b.c", "-isystem inc"}, {"c.c", "-Iinc"}})
    db += std::string(db.size() > 1 ? "," : "") + "{\"directory\":\"" + repo.root().string() + "\",\"file\":\"" + file +
          "\",\"command\":\"cc " + flag + " -c " + file + "\"}";
  repo.write("compile_commands.json", db + "]");
  repo.commitAll();
  build(repo);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto paths = [&](const std::string& path, uint32_t offset) {
    auto refs = (*provider)->references(path, offset, true);
    REQUIRE(refs.hasValue());
    CHECK(refs->source == "clang");
    std::set<std::string> out;
    for (const SymbolLocation& l : refs->locations) out.insert(l.path);
    return out;
  };
  // uses.h, also read as a system header, uses a macro cases.h defines: its own parse names the
  // macro as a.c does, so the use stays a reference.
  CHECK(paths("a.c", offsetOf(a, "CASE(one)")) == std::set<std::string>{"a.c", "b.c", "inc/uses.h"});
  CHECK(paths("c.c", offsetOf(c, "CASE(three)")) == std::set<std::string>{"c.c", "inc/cases.h"});
  // A header no unit reads as a user header: its #define and its own use stay among the
  // references.
  CHECK(paths("a.c", offsetOf(a, "ONLY(")) == std::set<std::string>{"a.c", "inc/only.h"});
  auto only = (*provider)->references("a.c", offsetOf(a, "ONLY("), true);
  REQUIRE(only.hasValue());
  CHECK(only->locations.size() == 3);
  // Asked at the #define itself: the header's own parse names the located macro.
  CHECK(paths("inc/cases.h", offsetOf(header, "CASE")) == std::set<std::string>{"c.c", "inc/cases.h"});
  // Both go to the one #define.
  for (const auto& [path, text] : {std::pair{"a.c", a}, {"c.c", c}}) {
    auto def = (*provider)->definition(path, offsetOf(text, "CASE("));
    REQUIRE(def.hasValue());
    REQUIRE(def->locations.size() == 1);
    CHECK(def->locations[0].path == "inc/cases.h");
  }
}

TEST_CASE("a repository header read as a system header keeps its references to system entities", "[clang]") {
  // libclang's indexer reports no reference from a system header to a system entity; a header
  // of the repository reached through -isystem (googletest's, in its own tests) is one, and
  // clangd's index lists what it names. nib's walk of the AST fills them in.
  TestRepo repo;
  const char* header = "#include <stdio.h>\nstatic inline FILE* out_stream(void) { return stdout; }\n";
  const char* main = "#include <io.h>\nint main(void) { FILE* f = out_stream(); return f != 0; }\n";
  repo.writeAll({{"sys/io.h", header}, {"main.c", main}});
  writeDatabase(repo, {"main.c"}, "-isystem sys");
  repo.commitAll();
  build(repo);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto refs = (*provider)->references("main.c", offsetOf(main, "FILE*"), true);
  REQUIRE(refs.hasValue());
  CHECK(refs->source == "clang");
  std::set<std::pair<std::string, uint32_t>> got;
  for (const SymbolLocation& l : refs->locations) got.insert({l.path, l.range.startByte});
  CHECK(got == std::set<std::pair<std::string, uint32_t>>{{"main.c", offsetOf(main, "FILE*")}, {"sys/io.h", offsetOf(header, "FILE*")}});
}

// The clang answer at `needle` in `path` (its first byte), as (path, byte) pairs of its sites.
std::set<std::pair<std::string, uint32_t>> clangSites(const TestRepo& repo, const std::string& path,
                                                       const std::string& text, const std::string& needle,
                                                       bool references) {
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto answer = references ? (*provider)->references(path, offsetOf(text, needle), true)
                           : (*provider)->definition(path, offsetOf(text, needle));
  REQUIRE(answer.hasValue());
  CHECK(answer->source == "clang");
  std::set<std::pair<std::string, uint32_t>> sites;
  for (const SymbolLocation& l : answer->locations) sites.insert({l.path, l.range.startByte});
  return sites;
}

TEST_CASE("a change to a C file makes a delta whose clang view is its own: only the units that read it run",
          "[clang][delta]") {
  TestRepo repo;
  repo.writeAll({{"shared.h", kHeader}, {"shared.c", kShared}, {"main.c", kMain}, {"tool.py", "def f():\n    return 1\n"}});
  writeDatabase(repo, {"shared.c", "main.c"});
  repo.commitAll();
  Manifest first = build(repo, {}, true);
  REQUIRE(first.view("clang"));
  REQUIRE(first.view("clang")->status == ViewStatus::Complete);
  repo.write("tool.py", "def f():\n    return 2\n");
  Manifest pyEdit = build(repo, {}, true);
  CHECK(pyEdit.base == first.versionId);
  CHECK(pyEdit.view("clang")->status == ViewStatus::Complete);
  CHECK_FALSE(pyEdit.view("clang")->coversDelta());
  // The clang answers stand for the unchanged C files of a delta.
  CHECK(clangSites(repo, "main.c", kMain, "shared(1)", false) == std::set<std::pair<std::string, uint32_t>>{
                                                                     {"shared.c", offsetOf(kShared, "shared(int")}});

  // A C file changes (a new use of `shared`, and the old ones move): a delta over the same base,
  // its clang view built again from the cache with only main.c's unit run, and answering for
  // main.c as it is now.
  const std::string main2 = "/* moved */\n" + std::string(kMain) + "int unused(void) { return shared(2); }\n";
  repo.write("main.c", main2);
  Manifest cEdit = build(repo, {}, true);
  CHECK(cEdit.base == first.versionId);
  REQUIRE(cEdit.view("clang"));
  CHECK(cEdit.view("clang")->status == ViewStatus::Complete);
  CHECK(cEdit.view("clang")->coversDelta());
  CHECK(stat(cEdit, "clang.indexed") == "1");
  CHECK(stat(cEdit, "clang.cached") == "1");
  const std::set<std::pair<std::string, uint32_t>> uses{{"shared.h", offsetOf(kHeader, "shared(int")},
                                                        {"shared.h", offsetOf(kHeader, "shared(x)")},
                                                        {"shared.c", offsetOf(kShared, "shared(int")},
                                                        {"main.c", offsetOf(main2, "shared(1)")},
                                                        {"main.c", offsetOf(main2, "shared(2)")}};
  CHECK(clangSites(repo, "main.c", main2, "shared(2)", true) == uses);

  // Another edit elsewhere keeps main.c in the delta: the clang view is the version's own again
  // (the base's would answer for the old main.c), every unit from the cache.
  repo.write("tool.py", "def f():\n    return 3\n");
  Manifest pyAgain = build(repo, {}, true);
  CHECK(pyAgain.base == first.versionId);
  CHECK(pyAgain.view("clang")->coversDelta());
  CHECK(stat(pyAgain, "clang.indexed") == "0");
  CHECK(clangSites(repo, "shared.c", kShared, "shared(int", true) == uses);

  // A header every unit reads: both run again.
  repo.write("shared.h", std::string("/* header moved */\n") + kHeader);
  Manifest headerEdit = build(repo, {}, true);
  CHECK(headerEdit.base == first.versionId);
  CHECK(stat(headerEdit, "clang.indexed") == "2");
}

TEST_CASE("a delta over a version whose dense view was pending keeps its own clang view when published again",
          "[clang][delta][dense]") {
  TestRepo repo;
  repo.writeAll({{"shared.h", kHeader}, {"shared.c", kShared}, {"main.c", kMain}});
  writeDatabase(repo, {"shared.c", "main.c"});
  repo.commitAll();
  ::setenv("NIB_CLANG_WORKER", NIB_CLANG_WORKER_PATH, 1);
  IndexOptions options;
  options.threads = 2;
  options.deferDense = true;  // the dense view left pending, as `nib index` leaves it
  auto first = buildIndex(repo.root(), options);
  REQUIRE(first.hasValue());
  REQUIRE(first->manifest.view("dense")->status == ViewStatus::Pending);
  const std::string main2 = "/* moved */\n" + std::string(kMain);
  repo.write("main.c", main2);
  auto delta = buildIndex(repo.root(), options);
  REQUIRE(delta.hasValue());
  REQUIRE(delta->manifest.base == first->manifest.versionId);
  REQUIRE(delta->manifest.view("clang")->coversDelta());
  // The follow-up completes the base and publishes the delta again over the completion: the
  // completion's clang view describes the old main.c, the delta's the one on disk.
  auto followUp = completeDenseView(repo.root(), options);
  REQUIRE(followUp.hasValue());
  REQUIRE(followUp->published);
  IndexLayout layout(repo.root() / ".nib");
  auto now = layout.currentManifest();
  REQUIRE(now.hasValue());
  CHECK(now->versionId != delta->manifest.versionId);
  CHECK(now->base != first->manifest.versionId);
  CHECK(now->view("dense")->status == ViewStatus::Complete);
  CHECK(now->view("clang")->coversDelta());
  CHECK(clangSites(repo, "main.c", main2, "shared(1)", false) ==
        std::set<std::pair<std::string, uint32_t>>{{"shared.c", offsetOf(kShared, "shared(int")}});
  CHECK(clangSites(repo, "shared.c", kShared, "shared(int", true).count({"main.c", offsetOf(main2, "shared(1)")}) == 1);
}

TEST_CASE("a generated header git ignores is listed with its sites, and only while it is unchanged",
          "[clang][generated]") {
  const std::string config = "#define LIMIT 10\nint helper(int x);\n";
  const std::string main = "#include \"config.h\"\nint run(void) { return LIMIT + helper(1); }\n";
  const std::string helper = "#include \"config.h\"\nint helper(int x) { return x; }\n";
  TestRepo repo;
  repo.writeAll({{".gitignore", "build/\ncompile_commands.json\n"}, {"main.c", main}, {"helper.c", helper}});
  repo.write("build/config.h", config);  // what a configure step writes; git ignores it
  writeDatabase(repo, {"main.c", "helper.c"}, "-Ibuild");
  repo.commitAll();
  IndexOptions options;
  options.skipIfCurrent = true;
  Manifest first = build(repo, options, /*allowDelta=*/true);
  const std::set<std::pair<std::string, uint32_t>> limitThere{{"build/config.h", offsetOf(config, "LIMIT")}};
  CHECK(clangSites(repo, "main.c", main, "LIMIT", false) == limitThere);
  auto helperRefs = clangSites(repo, "helper.c", helper, "helper(int", true);
  CHECK(helperRefs.count({"build/config.h", offsetOf(config, "helper")}) == 1);
  CHECK(helperRefs.count({"main.c", offsetOf(main, "helper(1)")}) == 1);
  // A macro's references asked in the generated header, whose text the index does not hold (no
  // #undef can be looked for there): answered all the same.
  {
    auto provider = StaticProvider::open(repo.root() / ".nib");
    REQUIRE(provider.hasValue());
    auto refs = (*provider)->references("build/config.h", offsetOf(config, "LIMIT"), true);
    REQUIRE(refs.hasValue());
    CHECK(std::any_of(refs->locations.begin(), refs->locations.end(),
                      [&](const SymbolLocation& l) { return l.path == "main.c" && l.range.startByte == offsetOf(main, "LIMIT"); }));
  }

  // The build regenerates it: until the index is built again, its sites are left out (nothing
  // but the clang view knows the file), never answered at their old places.
  const std::string config2 = "/* generated */\n" + config;
  repo.write("build/config.h", config2);
  {
    auto provider = StaticProvider::open(repo.root() / ".nib");
    REQUIRE(provider.hasValue());
    auto def = (*provider)->definition("main.c", offsetOf(main, "LIMIT"));
    REQUIRE(def.hasValue());
    for (const SymbolLocation& l : def->locations) CHECK(l.path != "build/config.h");
  }
  // `nib index` does not take the version for current; the delta it makes builds the clang view again.
  Manifest second = build(repo, options, /*allowDelta=*/true);
  CHECK(second.versionId != first.versionId);
  CHECK(clangSites(repo, "main.c", main, "LIMIT", false) ==
        std::set<std::pair<std::string, uint32_t>>{{"build/config.h", offsetOf(config2, "LIMIT")}});
  // Unchanged since: current.
  Manifest third = build(repo, options, /*allowDelta=*/true);
  CHECK(third.versionId == second.versionId);
  // The compilation database (which git ignores, as a build writes it) regenerated with another
  // flag, nothing else: not current either, and the units run with their new commands.
  writeDatabase(repo, {"main.c", "helper.c"}, "-Ibuild -DEXTRA=1");
  Manifest fourth = build(repo, options, /*allowDelta=*/true);
  CHECK(fourth.versionId != third.versionId);
  CHECK(stat(fourth, "clang.indexed") == "2");
}

TEST_CASE("call edges of C++ files come from libclang: an overloaded call has one callee", "[clang][callgraph]") {
  const char* header = "int scale(int x);\ndouble scale(double x);\n";
  const char* util = "#include \"util.h\"\nint scale(int x) { return x * 2; }\ndouble scale(double x) { return x * 2.5; }\n";
  const char* main = "#include \"util.h\"\ndouble run() { return scale(1.5); }\nint count() { return scale(3); }\n";
  auto edgesOf = [&](bool clang) {
    TestRepo repo;
    repo.writeAll({{"util.h", header}, {"util.cpp", util}, {"main.cpp", main}});
    writeDatabase(repo, {"util.cpp", "main.cpp"}, "-std=c++17");
    repo.commitAll();
    IndexOptions options;
    options.clang = clang;
    build(repo, options);
    auto provider = StaticProvider::open(repo.root() / ".nib");
    REQUIRE(provider.hasValue());
    auto graph = CallGraph::build(**provider);
    REQUIRE(graph.hasValue());
    auto defIndex = [&](const std::string& path, uint32_t nameAt) {
      auto facts = (*provider)->facts(path);
      REQUIRE(facts.hasValue());
      for (size_t d = 0; d < facts->definitions.size(); ++d)
        if (facts->definitions[d].nameRange.startByte == nameAt) return static_cast<int32_t>(d);
      FAIL("no definition at " << path << ":" << nameAt);
      return -1;
    };
    std::map<std::string, std::set<std::string>> out;
    for (const char* caller : {"run", "count"}) {
      int32_t d = defIndex("main.cpp", offsetOf(main, caller));
      for (const GraphHop& h : graph->callees("main.cpp", d, 1, 100))
        out[caller].insert(h.to.path + ":" + std::to_string(h.to.nameRange.start.line));
    }
    return out;
  };
  // libclang: each call has the overload the compiler picks (util.cpp's line 1 or 2).
  auto exact = edgesOf(true);
  CHECK(exact["run"] == std::set<std::string>{"util.cpp:2"});
  CHECK(exact["count"] == std::set<std::string>{"util.cpp:1"});
  // tree-sitter alone cannot tell the overloads apart: both, for both calls.
  auto byName = edgesOf(false);
  CHECK(byName["run"].size() == 2);
  CHECK(byName["count"].size() == 2);
}

}  // namespace nib::test


namespace nib::test {
namespace {

// A repository whose big.c the index skips as too large while a compile command builds it (the
// clang view keeps its names), and an engine on it whose buffers become overlays, as in `nib serve`.
std::unique_ptr<Engine> engineWithTooLargeFile(TestRepo& repo, const std::string& big) {
  repo.writeAll({{"shared.h", kHeader}, {"shared.c", kShared}, {"main.c", kMain}, {"big.c", big}});
  writeDatabase(repo, {"shared.c", "main.c", "big.c"});
  repo.commitAll();
  IndexOptions small;
  small.maxFileSize = 300;
  Manifest m = build(repo, small);
  REQUIRE(stat(m, "skipped.too-large") == "1");
  auto engine = Engine::open(repo.root());
  REQUIRE(engine.hasValue());
  auto extractor = std::make_shared<Extractor>();
  (*engine)->setFactsExtractor([extractor](Language lang, std::string_view text) { return extractor->extract(lang, text); });
  return std::move(*engine);
}

TEST_CASE("a source file too large to index keeps the compiler's answers, open in the editor or not", "[clang]") {
  // The index skips big.c (too large), but its unit is compiled and the clang view keeps its
  // names: the file open in the editor with the text on disk must not hide them (double-
  // conversion's 6 MB test tables), nor must closing it leave the disk's text as an edit.
  TestRepo repo;
  std::string big = "#include \"shared.h\"\n/* " + std::string(400, 'x') + " */\nint big(void) { return shared(3); }\n";
  std::unique_ptr<Engine> engine = engineWithTooLargeFile(repo, big);
  Engine& e = *engine;
  auto listsBig = [&] {
    auto refs = e.references("main.c", offsetOf(kMain, "shared(1)"), true);
    REQUIRE(refs.hasValue());
    return std::any_of(refs->locations.begin(), refs->locations.end(), [](const SymbolLocation& l) { return l.path == "big.c"; });
  };
  auto inBig = [&] {
    auto def = e.definition("big.c", offsetOf(big, "shared(3)"));
    REQUIRE(def.hasValue());
    return def->source == "clang" && def->locations.size() == 1 && def->locations[0].path == "shared.c";
  };
  CHECK(listsBig());
  REQUIRE(e.openBuffer("big.c", big).isOk());
  CHECK(inBig());
  CHECK(listsBig());
  REQUIRE(e.closeBuffer("big.c").isOk());
  CHECK(inBig());
  CHECK(listsBig());
  // An edit in the editor is no longer the text the compiler read: its names are not the view's.
  REQUIRE(e.openBuffer("big.c", big + "int more(void) { return shared(4); }\n").isOk());
  CHECK_FALSE(inBig());
  CHECK_FALSE(listsBig());
}

TEST_CASE("a word in code left out of a too large source file answers as clangd does there whether open or not", "[clang]") {
  // The index skips big.c (a bundled sqlite3.c, 7 MB): no tree-sitter facts, no stored text. In
  // its `#if 0` code clangd 14 answers by the word: `shared` by the same name the compiler saw
  // on the next line, `only_here` (a name nothing declares) with nothing. So does nib, from the
  // file's text on disk, for the command line as for an editor that has the file open.
  TestRepo repo;
  std::string big = "#include \"shared.h\"\n/* " + std::string(400, 'x') + " */\n#if 0\nint unused(void) { return shared(7) + only_here; }\n"
                    "#endif\nint big(void) { return shared(3); }\n";
  std::unique_ptr<Engine> engine = engineWithTooLargeFile(repo, big);
  Engine& e = *engine;
  auto check = [&] {
    auto def = e.definition("big.c", offsetOf(big, "shared(7)"));
    REQUIRE(def.hasValue());
    CHECK(def->source == "clang");
    REQUIRE(def->locations.size() == 1);
    CHECK(def->locations[0].path == "shared.c");
    auto none = e.definition("big.c", offsetOf(big, "only_here"));
    REQUIRE(none.hasValue());
    CHECK(none->locations.empty());
    auto refs = e.references("big.c", offsetOf(big, "only_here"), true);
    REQUIRE(refs.hasValue());
    CHECK(refs->locations.empty());
  };
  check();
  REQUIRE(e.openBuffer("big.c", big).isOk());
  check();
}

}  // namespace
}  // namespace nib::test

namespace nib::test {
namespace {

TEST_CASE("a USR of what an anonymous namespace declares is told from a namespace named aN", "[clang]") {
  CHECK(inAnonymousNamespace("c:@N@YAML@aN@ex2_4"));
  CHECK(inAnonymousNamespace("c:file.cc@aN@S@Fixture"));
  CHECK(inAnonymousNamespace("c:@aN@F@helper#"));
  CHECK_FALSE(inAnonymousNamespace("c:@N@aN@F@named#"));  // namespace aN { void named(); }
  CHECK_FALSE(inAnonymousNamespace("c:@N@YAML@F@Load#"));
  CHECK_FALSE(inAnonymousNamespace("c:lib.h@120@macro@aN"));
}

}  // namespace
}  // namespace nib::test

namespace nib::test {
namespace {

TEST_CASE("a source file too large to index that another unit #includes whole is parsed alone too", "[clang]") {
  // utf8proc.c #includes the 1.9 MB utf8proc_data.c whole; opened alone, clangd's parse of it
  // knows nothing its includer declared. The index skips the file as too large, but its own
  // parse is still the view's answer there: the includer's enumerator answers no definition in
  // it, while references asked in the includer still list the uses its unit saw there.
  TestRepo repo;
  const std::string header = "enum color { COLOR_RED, COLOR_BLUE };\n";
  const std::string main = "#include \"color.h\"\n#include \"table.c\"\nint main(void) { return table[0] == COLOR_RED; }\n";
  const std::string table = "/* " + std::string(400, 'x') + " */\nstatic const int table[] = { COLOR_RED, COLOR_BLUE };\n";
  repo.writeAll({{"color.h", header}, {"main.c", main}, {"table.c", table}});
  writeDatabase(repo, {"main.c"});
  repo.commitAll();
  IndexOptions small;
  small.maxFileSize = 300;
  Manifest m = build(repo, small);
  CHECK(stat(m, "skipped.too-large") == "1");
  CHECK(stat(m, "clang.interpolated") == "1");
  auto engine = Engine::open(repo.root());
  REQUIRE(engine.hasValue());
  Engine& e = **engine;
  auto extractor = std::make_shared<Extractor>();
  e.setFactsExtractor([extractor](Language lang, std::string_view text) { return extractor->extract(lang, text); });
  REQUIRE(e.openBuffer("table.c", table).isOk());
  auto def = e.definition("table.c", offsetOf(table, "COLOR_RED"));
  REQUIRE(def.hasValue());
  CHECK(def->locations.empty());
  auto refs = e.references("main.c", offsetOf(main, "COLOR_RED"), true);
  REQUIRE(refs.hasValue());
  CHECK(std::any_of(refs->locations.begin(), refs->locations.end(), [](const SymbolLocation& l) { return l.path == "table.c"; }));
  CHECK(std::any_of(refs->locations.begin(), refs->locations.end(), [](const SymbolLocation& l) { return l.path == "color.h"; }));
}

}  // namespace
}  // namespace nib::test

namespace nib::test {

// A second parse of a unit (with a preamble, after a fatal error) replaces the first parse's
// facts of the main file only: its occurrences, skipped ranges, #includes and errors; the
// headers' occurrences stay, USRs and files are shared by name, edges are united.
TEST_CASE("the main file's facts of a second parse replace the first parse's, and only those", "[clang]") {
  TuFacts whole;
  whole.mainFile = "/r/t.cpp";
  whole.files = {"/r/lib.hpp", "/r/t.cpp"};
  whole.usrs = {"c:@F@fill", "c:@F@old"};
  whole.names = {"fill", "old"};
  whole.occurrences.push_back({0, 1, 5, 20, 4, 0, ClangRole::Definition});
  whole.occurrences.push_back({1, 3, 2, 40, 3, 1, ClangRole::Reference});
  whole.skipped.push_back({1, 100, 120});
  whole.skipped.push_back({0, 60, 70});
  whole.inclusions.push_back({1, 2, 0});
  whole.errors = {"t.cpp: fatal error: 'doctest/doctest.h' file not found"};
  whole.bases = {{0, 1}};

  TuFacts main;
  main.mainFile = "/r/t.cpp";
  main.files = {"/r/t.cpp", "/r/lib.hpp", "/usr/x.h"};
  main.usrs = {"c:t.cpp@55@F@run@buf", "c:@F@fill"};
  main.names = {"buf", "fill"};
  ClangOccurrence call{0, 6, 8, 90, 4, 1, ClangRole::Reference};
  call.container = 0;
  main.occurrences.push_back(call);
  main.occurrences.push_back({0, 5, 20, 80, 3, 0, ClangRole::Definition});
  main.occurrences.push_back({1, 9, 9, 99, 4, 1, ClangRole::Declaration});  // not the main file: left out
  main.skipped.push_back({0, 10, 30});
  main.inclusions.push_back({0, 2, 1});
  main.inclusions.push_back({0, 30, 2});
  main.errors = {"t.cpp:8:9: error: use of undeclared identifier 'INFO'"};
  main.bases = {{1, 0}};

  layMainFile(whole, main, "/r/t.cpp");
  REQUIRE(whole.files.size() == 3);
  CHECK(whole.files[2] == "/usr/x.h");
  REQUIRE(whole.usrs.size() == 3);
  CHECK(whole.usrs[2] == "c:t.cpp@55@F@run@buf");
  CHECK(whole.names[2] == "buf");
  // The header's definition stays; the main file's old reference is gone; the new ones use the
  // whole's ids (fill is 0, buf 2, the main file 1).
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> occurrences;
  for (const ClangOccurrence& o : whole.occurrences) occurrences.insert({o.file, o.offset, o.usr});
  CHECK(occurrences == std::set<std::tuple<uint32_t, uint32_t, uint32_t>>{{0, 20, 0}, {1, 90, 0}, {1, 80, 2}});
  for (const ClangOccurrence& o : whole.occurrences)
    if (o.offset == 90) CHECK(o.container == 2);
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> skipped;
  for (const ClangSkipped& s : whole.skipped) skipped.insert({s.file, s.start, s.end});
  CHECK(skipped == std::set<std::tuple<uint32_t, uint32_t, uint32_t>>{{0, 60, 70}, {1, 10, 30}});
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> inclusions;
  for (const ClangInclusion& i : whole.inclusions) inclusions.insert({i.includer, i.offset, i.included});
  CHECK(inclusions == std::set<std::tuple<uint32_t, uint32_t, uint32_t>>{{1, 2, 0}, {1, 30, 2}});
  CHECK(whole.errors == main.errors);
  std::set<std::pair<uint32_t, uint32_t>> bases(whole.bases.begin(), whole.bases.end());
  CHECK(bases == std::set<std::pair<uint32_t, uint32_t>>{{0, 1}, {0, 2}});

  // A second parse that read no such main file changes nothing.
  TuFacts before = whole;
  TuFacts other;
  other.files = {"/r/else.cpp"};
  other.usrs = {"c:@F@x"};
  other.names = {"x"};
  other.occurrences.push_back({0, 1, 1, 1, 1, 0, ClangRole::Reference});
  layMainFile(whole, other, "/r/t.cpp");
  CHECK(encodeTuFacts(whole) == encodeTuFacts(before));
}

}  // namespace nib::test
