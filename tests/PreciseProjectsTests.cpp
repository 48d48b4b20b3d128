// The precise view's TypeScript and JavaScript projects as TypeScript's server forms them: the
// inferred project of the files no tsconfig.json reads (written outside the worktree), a
// tsconfig.json extending what is not installed, JavaScript without any tsconfig.json, and
// CommonJS modules reached through aliases — built with the real scip-typescript.
#include <catch2/catch.hpp>

#include "PreciseTesting.h"
#include "TestRepo.h"
#include "providers/StaticProvider.h"

namespace nib::test {

TEST_CASE("TypeScript files no tsconfig.json reads form one inferred project, written outside the worktree", "[precise]") {
  for (bool withConfig : {true, false}) {
    DYNAMIC_SECTION((withConfig ? "a tsconfig.json that leaves out the tests" : "no tsconfig.json at all")) {
      TestRepo repo;
      if (withConfig) repo.write("tsconfig.json", "{\"compilerOptions\": {\"strict\": true}, \"include\": [\"src\"]}\n");
      repo.write("src/timer.ts", "export class Timer { start(): void {} }\n");
      repo.write("test/timer.spec.ts", "import { Timer } from \"../src/timer\";\nnew Timer().start();\n");
      repo.commitAll();
      Manifest m = buildPrecise(repo);
      CHECK(stat(m, "precise.projects") == (withConfig ? "2" : "1"));
      CHECK(stat(m, "precise.files") == "2");
      auto provider = StaticProvider::open(repo.root() / ".nib");
      REQUIRE(provider.hasValue());
      // `start` in the test goes to Timer's method, whichever project read which file: the two
      // projects name the file's symbols alike (no package.json gives them a package).
      auto def = (*provider)->definition("test/timer.spec.ts", 50);
      REQUIRE(def.hasValue());
      CHECK(def->source == "scip");
      REQUIRE(def->locations.size() == 1);
      CHECK(def->locations[0].path == "src/timer.ts");
      // Asked in src, the test is in no program TypeScript's server has loaded (the tsconfig.json
      // leaves it out; without one, src/timer.ts's inferred project is the file and what it
      // imports): its reference is left out, and counted. Asked in the test, whose program holds
      // what it imports, both are there. (Checked against typescript-language-server.)
      auto refs = (*provider)->references("src/timer.ts", 22, true);
      REQUIRE(refs.hasValue());
      CHECK(refs->locations.size() == 1u);
      CHECK(refs->note ==
            "1 reference(s) outside the TypeScript program this file is read in (its tsconfig.json's files, or this file, "
            "and what they import) are left out");
      auto fromTest = (*provider)->references("test/timer.spec.ts", 50, true);
      REQUIRE(fromTest.hasValue());
      CHECK(fromTest->locations.size() == 2);
      // With the test open in the editor, as TypeScript's server has it then, its reference is
      // listed from src too.
      (*provider)->setShownFiles([](const std::string& p) { return p == "test/timer.spec.ts"; });
      auto whileOpen = (*provider)->references("src/timer.ts", 22, true);
      REQUIRE(whileOpen.hasValue());
      CHECK(whileOpen->locations.size() == 2);
      std::string status;
      runCommand("cd " + shellQuote(repo.root().string()) + " && git status --porcelain", &status);
      CHECK(status.empty());  // nothing written into the worktree
    }
  }
}

TEST_CASE("a root tsconfig.json extending a package not installed is read from its own options", "[precise]") {
  // scip-typescript indexes nothing where the base a tsconfig.json extends is missing (a
  // checkout without node_modules); TypeScript's server reports the error and reads the project
  // from its own options and files, and so does the precise view.
  TestRepo repo;
  repo.write("tsconfig.json", "{\"extends\": \"@missing/tsconfig\", \"include\": [\"src\"]}\n");
  repo.write("src/timer.ts", "export class Timer { start(): void {} }\n");
  repo.write("src/use.ts", "import { Timer } from \"./timer\";\nnew Timer().start();\n");
  repo.commitAll();
  Manifest m = buildPrecise(repo);
  CHECK(stat(m, "precise.failed") == "0");
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto def = (*provider)->definition("src/use.ts", 46);  // `start`
  REQUIRE(def.hasValue());
  CHECK(def->source == "scip");
  REQUIRE(def->locations.size() == 1);
  CHECK(def->locations[0].path == "src/timer.ts");
  // The project holds both files.
  auto refs = (*provider)->references("src/timer.ts", 21, true);
  REQUIRE(refs.hasValue());
  CHECK(refs->locations.size() == 2);
}

TEST_CASE("JavaScript files no project reads join the inferred project, minified bundles do not", "[precise]") {
  TestRepo repo;
  repo.write("src/clock.js", "export class Clock {\n  tick() { return 1; }\n}\n");
  repo.write("test/clock.test.js", "import { Clock } from \"../src/clock.js\";\nnew Clock().tick();\n");
  repo.write("vendor/lib.min.js", "function tick(){return 2}tick();\n");
  repo.commitAll();
  Manifest m = buildPrecise(repo);
  CHECK(stat(m, "precise.projects") == "1");
  CHECK(stat(m, "precise.files") == "2");  // the bundle is not among them
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  // `tick` in the test goes to the class's method, not to the bundle's function of that name.
  auto def = (*provider)->definition("test/clock.test.js", 53);
  REQUIRE(def.hasValue());
  CHECK(def->source == "scip");
  CHECK(def->confidence == Confidence::Exact);
  REQUIRE(def->locations.size() == 1);
  CHECK(def->locations[0].path == "src/clock.js");
  CHECK(def->locations[0].range.start.line == 1);
  // Asked in the test, whose inferred project holds what it imports: the class, the import,
  // the `new`. (Asked in src/clock.js, which imports nothing, the class alone.)
  auto refs = (*provider)->references("test/clock.test.js", 45, true);  // Clock
  REQUIRE(refs.hasValue());
  CHECK(refs->source == "scip");
  CHECK(refs->locations.size() == 3);
  auto bundle = (*provider)->definition("vendor/lib.min.js", 25);
  REQUIRE(bundle.hasValue());
  CHECK(bundle->source != "scip");
}

TEST_CASE("a CommonJS module's alias answers its own references and goes to the module", "[precise]") {
  TestRepo repo;
  repo.write("lib/loader.js", "function load(s) { return s; }\nmodule.exports.load = load;\n");
  repo.write("user.js", "const loader = require(\"./lib/loader\");\nloader.load(\"x\");\nloader.load(\"y\");\n");
  repo.write("other.js", "const loader = require(\"./lib/loader\");\nloader.load(\"z\");\n");
  repo.write("typed.ts", "import * as loader from \"./lib/loader\";\nloader.load(\"t\");\nloader.load(\"u\");\n");
  repo.write("lib/clock.js", "function Clock(n) { this.n = n; }\nmodule.exports = Clock;\n");
  repo.write("maker.js", "var Clock = require(\"./lib/clock\");\nnew Clock(1);\nClock.length;\n");
  repo.write("maker2.js", "var Clock = require(\"./lib/clock\");\nnew Clock(2);\n");
  repo.commitAll();
  buildPrecise(repo);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  const uint32_t secondLine = 40;  // `loader` in `loader.load("x")`
  // scip-typescript writes the module's symbol at each use of `loader`; TypeScript's server lists
  // the alias's own declaration and uses, in this file only.
  auto refs = (*provider)->references("user.js", secondLine, true);
  REQUIRE(refs.hasValue());
  CHECK(refs->source == "scip");
  REQUIRE(refs->locations.size() == 3);
  for (const SymbolLocation& l : refs->locations) CHECK(l.path == "user.js");
  for (uint32_t at : {secondLine, 6u}) {  // a use, and the declaration
    auto def = (*provider)->definition("user.js", at);
    REQUIRE(def.hasValue());
    REQUIRE(def->locations.size() == 1);
    CHECK(def->locations[0].path == "lib/loader.js");
    CHECK(def->locations[0].range.start.line == 0);
  }
  // `load` after `loader.`: scip-typescript names it by a symbol local to this file and defined
  // nowhere; the module's `module.exports.load = load` says what it is, as TypeScript's server
  // finds: the function.
  auto member = (*provider)->definition("user.js", secondLine + 7);
  REQUIRE(member.hasValue());
  CHECK(member->source == "scip");
  REQUIRE(member->locations.size() == 1);
  CHECK(member->locations[0].path == "lib/loader.js");
  CHECK(member->locations[0].range.start.column == 9);
  // Asked in user.js, whose inferred project is the file and the module it requires: the
  // function's definition, both names of `module.exports.load = load` (scip-typescript writes
  // the function at each), and this file's two calls through its alias.
  auto memberRefs = (*provider)->references("user.js", secondLine + 7, true);
  REQUIRE(memberRefs.hasValue());
  CHECK(memberRefs->locations.size() == 5);
  auto typedMemberRefs = (*provider)->references("typed.ts", 40 + 7, true);  // through `import * as`
  REQUIRE(typedMemberRefs.hasValue());
  CHECK(typedMemberRefs->locations.size() == 5);
  // `import * as loader`: the same references, though scip-typescript writes the module at the
  // name itself; but TypeScript's server goes to the module only from the declaration, and from
  // a use to the declaration (a namespace import is the one alias it stops at).
  const uint32_t typedSecondLine = 40;
  auto nsRefs = (*provider)->references("typed.ts", typedSecondLine, true);
  REQUIRE(nsRefs.hasValue());
  REQUIRE(nsRefs->locations.size() == 3);
  for (const SymbolLocation& l : nsRefs->locations) CHECK(l.path == "typed.ts");
  auto nsDef = (*provider)->definition("typed.ts", typedSecondLine);
  REQUIRE(nsDef.hasValue());
  REQUIRE(nsDef->locations.size() == 1);
  CHECK(nsDef->locations[0].path == "typed.ts");
  CHECK(nsDef->locations[0].range.start == Position{0, 12});
  auto nsDeclared = (*provider)->definition("typed.ts", 12);
  REQUIRE(nsDeclared.hasValue());
  REQUIRE(nsDeclared->locations.size() == 1);
  CHECK(nsDeclared->locations[0].path == "lib/loader.js");
  // `var Clock = require(...)` of a module that exports a value: an alias of that value, in this
  // file (TypeScript's server answers so); its definition is the value's.
  const uint32_t makerSecondLine = 36;
  auto valueRefs = (*provider)->references("maker.js", makerSecondLine + 4, true);
  REQUIRE(valueRefs.hasValue());
  REQUIRE(valueRefs->locations.size() == 3);
  for (const SymbolLocation& l : valueRefs->locations) CHECK(l.path == "maker.js");
  auto valueDef = (*provider)->definition("maker.js", makerSecondLine + 4);
  REQUIRE(valueDef.hasValue());
  REQUIRE(valueDef->locations.size() == 1);
  CHECK(valueDef->locations[0].path == "lib/clock.js");
  CHECK(valueDef->locations[0].range.start.column == 9);
}

}  // namespace nib::test
