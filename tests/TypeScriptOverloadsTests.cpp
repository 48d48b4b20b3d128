// The text rules that pick the overload a TypeScript call resolves to
// (providers/TypeScriptOverloads.h); end to end, the precise_typescript_imports_overloads fixture.
#include <catch2/catch.hpp>

#include <cctype>
#include <cstdint>
#include <string>

#include "providers/TypeScriptOverloads.h"
#include "scip/TypeScriptText.h"

namespace nib::test {
namespace {

// The arguments after the first `f` of `text`.
std::optional<size_t> argumentsOf(const std::string& text) { return callArgumentCount(text, text.find('f') + 1); }

// The signature of the first name `f` in `text` (the word, not a letter of another).
std::optional<SignatureShape> shapeOf(const std::string& text) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find('f'); at != std::string::npos; at = text.find('f', at + 1))
    if ((at == 0 || !word(text[at - 1])) && (at + 1 == text.size() || !word(text[at + 1]))) return signatureShape(text, at + 1);
  return std::nullopt;
}

TEST_CASE("a call's arguments are counted at its top level", "[typescript]") {
  CHECK(argumentsOf("f(a, b);") == 2u);
  CHECK(argumentsOf("f();") == 0u);
  CHECK(argumentsOf("f(a,);") == 1u);
  CHECK(argumentsOf("f(a, (b, c), [d, e], {g, h}, \"x,y\", 'p,q', `${a, b}`, (x, y) => { return x, y; });") == 8u);
  CHECK(argumentsOf("o.f<Map<K, V>, U>(a);") == 1u);
  CHECK(argumentsOf("f?.(a, b);") == 2u);
  CHECK(argumentsOf("f(a /* , */, // b,\n c);") == 2u);
  CHECK(argumentsOf("f\n  (a);") == 1u);
  // Not a call, a spread argument, a call that never closes: nothing decided.
  CHECK_FALSE(argumentsOf("f;").has_value());
  CHECK_FALSE(argumentsOf("f < a;").has_value());
  CHECK_FALSE(argumentsOf("f(...xs);").has_value());
  CHECK_FALSE(argumentsOf("f(a, b").has_value());
}

TEST_CASE("a signature's parameters say how many arguments it takes, and whether a body follows", "[typescript]") {
  auto plain = shapeOf("function f(a: number, b?: string): void;");
  REQUIRE(plain);
  CHECK((plain->min == 1 && plain->max == 2 && !plain->body));
  auto rest = shapeOf("function f(a = 1, ...rest: T[]) { return a; }");
  REQUIRE(rest);
  CHECK((rest->min == 0 && rest->max == SIZE_MAX && rest->body));
  // Commas and arrows inside types are no parameters; an object type after `:` is no body.
  auto typed = shapeOf("function f<T extends (x: A, y: B) => void>(cb: T, m: Map<K, V>): { a: number } { return {a: 1}; }");
  REQUIRE(typed);
  CHECK((typed->min == 2 && typed->max == 2 && typed->body));
  auto arrow = shapeOf("function f(cb: (x: number) => void, d: () => void = g): void;");
  REQUIRE(arrow);
  CHECK((arrow->min == 1 && arrow->max == 2 && !arrow->body));
  // `this` is no argument; an interface member ends at the type's brace, without a semicolon.
  auto method = shapeOf("interface I {\n  f(this: X, a: number): void\n}");
  REQUIRE(method);
  CHECK((method->min == 1 && method->max == 1 && !method->body));
  // Without semicolons, a signature ends with its line unless the next continues its type.
  auto bare = shapeOf("export function f<T>(a: T): Static<T>\nexport function f(...args: any[]) { return 1; }");
  REQUIRE(bare);
  CHECK((bare->min == 1 && bare->max == 1 && !bare->body));
  auto wrapped = shapeOf("function f(a: number): A\n  | B\n{\n  return a;\n}");
  REQUIRE(wrapped);
  CHECK(wrapped->body);
  auto pattern = shapeOf("function f({a, b}: Opts = {}): void {}");
  REQUIRE(pattern);
  CHECK((pattern->min == 0 && pattern->max == 1 && pattern->body));
  CHECK_FALSE(shapeOf("const f = 1;").has_value());
}

TEST_CASE("a call resolves to the one visible signature that takes its arguments", "[typescript]") {
  // Two signatures and the implementation, which callers never see.
  std::vector<SignatureShape> area = {{1, 1, false}, {2, 2, false}, {1, 2, true}};
  CHECK(chooseOverload(area, 1) == 0u);
  CHECK(chooseOverload(area, 2) == 1u);
  CHECK_FALSE(chooseOverload(area, 3).has_value());
  // Several take one argument: their types decide, which the text does not tell.
  std::vector<SignatureShape> typed = {{1, 1, false}, {1, 1, false}, {1, 1, true}};
  CHECK_FALSE(chooseOverload(typed, 1).has_value());
  // Signatures alone (a declaration file): every one is visible.
  std::vector<SignatureShape> declared = {{0, 0, false}, {1, 2, false}};
  CHECK(chooseOverload(declared, 0) == 0u);
  CHECK(chooseOverload(declared, 2) == 1u);
  // One function defined twice has no overloads.
  std::vector<SignatureShape> twice = {{1, 1, true}, {2, 2, true}};
  CHECK_FALSE(chooseOverload(twice, 1).has_value());
}

// The alias after a name in an import or export clause's braces, whatever the line breaks.
TEST_CASE("the alias after 'as' is found across spaces and line breaks of any style", "[typescript]") {
  using typescript_text::aliasAfter;
  std::string_view unix = "export { default as Box } from './box';";
  CHECK(aliasAfter(unix, unix.find("default") + 7) == unix.find("Box"));
  std::string_view crlf = "import {\r\n  Box\r\n    as\r\n  B2,\r\n} from './index';";
  CHECK(aliasAfter(crlf, crlf.find("Box") + 3) == crlf.find("B2"));
  std::string_view none = "import { Box, assign } from './index';";
  CHECK(aliasAfter(none, none.find("Box") + 3) == std::string_view::npos);  // a comma follows
  CHECK(aliasAfter(none, none.find("{") + 1) == std::string_view::npos);    // `Box` is no `as`
  std::string_view cut = "import { Box as";
  CHECK(aliasAfter(cut, cut.find("Box") + 3) == std::string_view::npos);    // nothing after `as`
  std::string_view word = "x asBox";
  CHECK(aliasAfter(word, 1) == std::string_view::npos);                     // `asBox` is one name
}

}  // namespace
}  // namespace nib::test
