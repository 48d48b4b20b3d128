// Which arguments of a function-like macro clangd selects nothing at. clangd's selection maps a
// token a macro argument spells to the argument's last expansion (SourceManager's
// getMacroArgExpandedLocation keeps the last one the preprocessor made, through nested macros);
// where that expansion is an operand of `##`, the name pasted there is another token and no node
// of the AST lies at the argument: clangd lists no references there, and go-to-definition falls
// back to the word. The preprocessor substitutes a macro's parameters at once, then rescans the
// result and expands the macros it invokes, so an argument passed on to another macro is expanded
// last there. `#define M(T, n) T n; int n##_count;` pastes `n` last (M(A, a1): nothing at a1),
// `int n##_count; T n;` does not (the variable a2); googletest's TEST_F(Fixture, name) passes
// both to GTEST_TEST_, whose last macro pastes them into the test's class name. A stringified
// use (`#n`) is no expansion. (Checked against clangd 14.)
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nib {

// A function-like macro's definition as tokens: its parameters (a variadic one last, named
// `__VA_ARGS__` unless the definition names it) and its replacement list.
struct MacroTokens {
  std::string name;
  std::vector<std::string> params;
  bool variadic = false;
  std::vector<std::string> body;
};

// The definition from the tokens of `#define`'s extent as libclang gives them: the macro's name,
// `(`, the parameters, `)`, the replacement list. nullopt for an object-like macro's.
std::optional<MacroTokens> macroTokens(const std::vector<std::string>& definition);

// The function-like macro of a name, or null (the name is no such macro).
using MacroLookup = std::function<const MacroTokens*(const std::string&)>;

// Which tokens of an argument its last expansion leaves no token of the AST: the first (`x ## p`
// pastes it), the last (`p ## x`), every one (handed to a macro that never expands it).
inline constexpr uint8_t kPastedFirst = 1, kPastedLast = 2, kPastedEvery = 4;
// Per parameter of `macro`, at its last expansion followed through the macros the replacement
// list invokes: kPasted* bits, 0 where the argument is selected (or never expanded).
std::vector<uint8_t> pastedLast(const MacroTokens& macro, const MacroLookup& lookup);

// The arguments of an invocation, from its tokens (the macro's name, `(`, ..., `)`): per
// argument, the index of its first and one past its last token (an empty argument's are equal).
std::vector<std::pair<size_t, size_t>> invocationArguments(const std::vector<std::string>& tokens);

}  // namespace nib
