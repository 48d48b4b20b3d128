// The text rules ScipImport reads TypeScript with (scip/TypeScriptText.h): where an import clause
// declares a name, a module specifier's text, and the file a relative specifier names. End to
// end: the precise_typescript_unresolved_namespace_definition and
// precise_typescript_default_expression_definition fixtures.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "scip/TypeScriptSites.h"
#include "scip/TypeScriptText.h"
#include "tests/TestRepo.h"

namespace nib::test {
namespace {

TEST_CASE("an import clause declares its default, named and namespace names, and nothing after 'from'", "[typescript]") {
  using typescript_text::inImportClause;
  std::string_view text = "import D, * as ns from 'm';\nimport { a, b as c } from 'n';\nconst x = ns;";
  CHECK(inImportClause(text, text.find("D,")));
  CHECK(inImportClause(text, text.find("ns from")));
  CHECK(inImportClause(text, text.find("a,")));
  CHECK(inImportClause(text, text.find("c }")));
  CHECK_FALSE(inImportClause(text, text.rfind("ns;")));  // a use
  std::string_view twice = "import * * as ns from 'm';";
  CHECK_FALSE(inImportClause(twice, twice.find("ns")));  // not an import clause's shape
  std::string_view product = "const y = a * b;";
  CHECK_FALSE(inImportClause(product, product.find("b;")));
}

TEST_CASE("a module specifier's text is read between its quotes, on one line", "[typescript]") {
  using typescript_text::stringAt;
  std::string_view text = "import a from './a.js';\nimport b from \"../b\";\nimport c from 'broken\n';";
  CHECK(stringAt(text, text.find('\'')) == "./a.js");
  CHECK(stringAt(text, text.find('"')) == "../b");
  CHECK(stringAt(text, text.find("'broken")).empty());  // no closing quote on its line
  CHECK(stringAt(text, 0).empty());                      // not at a quote
  CHECK(stringAt(text, text.size()).empty());
}

TEST_CASE("a relative module specifier names the file TypeScript resolves it to", "[typescript]") {
  using typescript_text::resolveRelativeModule;
  TestRepo repo;
  repo.write("src/process.ts", "export default 1;\n");
  repo.write("src/shim/index.ts", "export default 2;\n");
  repo.write("src/plain.js", "module.exports = 3;\n");
  repo.write("src/view.tsx", "export default 4;\n");
  const std::string from = (repo.root() / "test" / "a.test.ts").string();
  const std::string root = std::filesystem::weakly_canonical(repo.root()).string();
  CHECK(resolveRelativeModule(from, "../src/process.js") == root + "/src/process.ts");  // `.js` written for `.ts`
  CHECK(resolveRelativeModule(from, "../src/process") == root + "/src/process.ts");
  CHECK(resolveRelativeModule(from, "../src/shim") == root + "/src/shim/index.ts");  // a folder's index
  CHECK(resolveRelativeModule(from, "../src/plain.js") == root + "/src/plain.js");  // no .ts beside it
  CHECK(resolveRelativeModule(from, "../src/view.js") == root + "/src/view.tsx");
  CHECK(resolveRelativeModule((repo.root() / "src" / "shim" / "x.ts").string(), "..") == "");  // src/ has no index
  CHECK(resolveRelativeModule(from, "../src/missing").empty());
  CHECK(resolveRelativeModule(from, "lodash").empty());  // a package, not a relative path
}

TEST_CASE("a class member is static when only modifiers including 'static' stand before it on its line", "[typescript]") {
  using typescript_text::staticMemberAt;
  std::string_view text = "class V {\n  public static async fromJSON() {}\n  fromJSON() {}\n  static\n  late() {}\n  x = V.static;\n}";
  CHECK(staticMemberAt(text, text.find("fromJSON")));
  CHECK_FALSE(staticMemberAt(text, text.find("fromJSON", text.find("fromJSON") + 1)));
  CHECK_FALSE(staticMemberAt(text, text.find("late")));        // `static` on the line before: not read
  CHECK_FALSE(staticMemberAt(text, text.rfind("static")));     // `V.static`: not a modifier's place
  CHECK_FALSE(staticMemberAt(text, 0));
  CHECK_FALSE(staticMemberAt(text, text.size() + 1));
}

TEST_CASE("a static member's own symbol keeps its owner and its kind's suffix", "[typescript]") {
  using typescript_sites::staticSymbol;
  CHECK(staticSymbol("scip-typescript npm . . src/`v.ts`/Volume#fromJSON().") ==
        "scip-typescript npm . . src/`v.ts`/Volume#`static fromJSON`().");
  CHECK(staticSymbol("scip-typescript npm . . src/`v.ts`/Volume#count.") == "scip-typescript npm . . src/`v.ts`/Volume#`static count`.");
  CHECK(staticSymbol("scip-typescript npm . . src/`v.ts`/Volume#`a-b`().") ==
        "scip-typescript npm . . src/`v.ts`/Volume#`static a-b`().");
  CHECK(staticSymbol("no-owner.") == "no-owner.");
}

}  // namespace
}  // namespace nib::test
