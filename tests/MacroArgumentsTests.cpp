// Which macro arguments clangd selects nothing at: those whose last expansion is pasted
// (indexer/MacroArguments.h). Tokens as libclang gives a definition's extent.
#include <catch2/catch.hpp>

#include <map>

#include "indexer/MacroArguments.h"

namespace nib::test {
namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    if (j > i) out.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("a macro argument is pasted last when its last expansion, through nested macros, is an operand of ##",
          "[macro-arguments]") {
  std::map<std::string, MacroTokens> defined;
  auto define = [&](const std::string& tokens) {
    auto m = macroTokens(split(tokens));
    REQUIRE(m.has_value());
    defined[split(tokens)[0]] = *m;
    return *m;
  };
  MacroLookup lookup = [&](const std::string& name) -> const MacroTokens* {
    auto it = defined.find(name);
    return it == defined.end() ? nullptr : &it->second;
  };
  // `T n; int n##_count;`: n pasted last; `int n##_count; T n;`: not.
  CHECK(pastedLast(define("M1 ( T , n ) T n ; int n ## _count ;"), lookup) == std::vector<uint8_t>{0, kPastedLast});
  CHECK(pastedLast(define("M2 ( T , n ) int n ## _count ; T n ;"), lookup) == std::vector<uint8_t>{0, 0});
  // A stringified use is no expansion: T's last is the plain one before it.
  CHECK(pastedLast(define("M3 ( T , n ) T n ; const char * n ## _s = # T ;"), lookup) == std::vector<uint8_t>{0, kPastedLast});
  // Through a nested macro: the outer use's argument, and the inner macro's last use of it.
  CHECK(pastedLast(define("OUTER1 ( T , n ) M1 ( T , n )"), lookup) == std::vector<uint8_t>{0, kPastedLast});
  CHECK(pastedLast(define("OUTER2 ( T , n ) M2 ( T , n )"), lookup) == std::vector<uint8_t>{0, 0});
  // googletest's shape: the fixture is a base class, then pasted into the test's class name last.
  define("NAME_ ( s , t ) s ## _ ## t ## _Test");
  CHECK(pastedLast(define("TEST_ ( s , t , parent ) class NAME_ ( s , t ) : public parent { } ; void NAME_ ( s , t ) :: "
                          "Body ( )"),
                   lookup) == std::vector<uint8_t>{kPastedLast, kPastedFirst | kPastedLast, 0});
  CHECK(pastedLast(define("TEST_F ( fixture , name ) TEST_ ( fixture , name , fixture )"), lookup) ==
        std::vector<uint8_t>{kPastedLast, kPastedFirst | kPastedLast});
  // Variadic parameters, named or not.
  MacroTokens va = define("V ( a , ... ) a ## __VA_ARGS__");
  CHECK(va.variadic);
  CHECK(va.params == std::vector<std::string>{"a", "__VA_ARGS__"});
  CHECK(pastedLast(va, lookup) == std::vector<uint8_t>{kPastedLast, kPastedFirst});
  MacroTokens named = define("W ( args ... ) f ( args )");
  CHECK(named.params == std::vector<std::string>{"args"});
  CHECK(pastedLast(named, lookup) == std::vector<uint8_t>{0});
  // A pasted argument of several tokens: only the token next to `##` is pasted (gmock's
  // EXPECT_CALL(obj, Method(arg)): `gmock_##call`, then the call's arguments as they are).
  CHECK(pastedLast(define("CALL ( obj , call ) ( ( obj ) . gmock_ ## call )"), lookup) == std::vector<uint8_t>{0, kPastedFirst});
  CHECK(pastedLast(define("EXPECT ( obj , call ) CALL ( obj , call ) . Times ( 1 )"), lookup) ==
        std::vector<uint8_t>{0, kPastedFirst});
  CHECK(pastedLast(define("WRAP ( x ) CALL ( o , f x )"), lookup) == std::vector<uint8_t>{0});  // not first there
  // An argument handed to a macro that only stringifies it is never expanded as a token.
  define("STR ( s ) # s");
  CHECK(pastedLast(define("NAMED ( n ) STR ( n )"), lookup) == std::vector<uint8_t>{kPastedEvery});
  // A macro is not expanded inside its own expansion: curl's guard against a wrong argument count
  // calls the function, which takes every argument as it is (checked against clangd 14: libcurl's
  // CURLOPT_URL answers there); so is one nested macro invoking the outer one again.
  CHECK(pastedLast(define("setopt ( h , o , p ) setopt ( h , o , p )"), lookup) == std::vector<uint8_t>{0, 0, 0});
  define("INNER ( x ) OUTER_AGAIN ( x )");
  CHECK(pastedLast(define("OUTER_AGAIN ( x ) INNER ( x )"), lookup) == std::vector<uint8_t>{0});
  // An object-like macro has no parameters to settle.
  CHECK(!macroTokens(split("X 1 + 2")).has_value());
}

TEST_CASE("an invocation's arguments are split at its top-level commas", "[macro-arguments]") {
  auto args = invocationArguments(split("M ( a , f ( b , c ) , ) ;"));
  REQUIRE(args.size() == 3);
  CHECK(args[0] == std::make_pair(size_t{2}, size_t{3}));
  CHECK(args[1] == std::make_pair(size_t{4}, size_t{10}));
  CHECK(args[2] == std::make_pair(size_t{11}, size_t{11}));  // empty
  CHECK(invocationArguments(split("M")).empty());
}

}  // namespace nib::test
