// Which overload a TypeScript call resolves to, as far as the text tells. TypeScript's server,
// asked for the definition at a call of an overloaded function, answers the one signature the
// checker chose; SCIP records only the function, so the precise view knows every signature. The
// number of arguments narrows them: where exactly one signature (the implementation, which
// callers never see, left out) accepts that many, it is the checker's choice too, since a
// signature that cannot take the arguments is never chosen. Text rules, not a parser: anything
// they do not recognise (a spread argument, a signature they cannot read) decides nothing.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace nib {

// The arguments of the call whose callee's name ends at `nameEnd` (`f(a, b)`, `o.f<T>(a)`,
// `f?.(a)`); nullopt when the name is not called there or an argument is spread (`f(...xs)`).
std::optional<size_t> callArgumentCount(std::string_view text, size_t nameEnd);

// A signature's parameters: how many a call must pass (`min`) and may pass (`max`; SIZE_MAX with
// a rest parameter), and whether a body follows (the implementation).
struct SignatureShape {
  size_t min = 0, max = 0;
  bool body = false;
};
// The signature whose name ends at `nameEnd` (`function f<T>(a: T, b?: number): void;`, a
// method's `m(a = 1) {`); nullopt when no parameter list follows the name.
std::optional<SignatureShape> signatureShape(std::string_view text, size_t nameEnd);

// Of the signatures in declaration order, the index of the only one a call with `arguments`
// arguments can resolve to — the implementation (a last signature with a body, when an earlier
// one has none) left out; nullopt when none or several can.
std::optional<size_t> chooseOverload(const std::vector<SignatureShape>& signatures, size_t arguments);

}  // namespace nib
