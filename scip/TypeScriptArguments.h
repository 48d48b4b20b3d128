// Object literals passed as arguments (`rm(path, { recursive: true })`): TypeScript's server
// reads a property there as the parameter's type's property (its contextual type), goes to that
// property's declaration and lists it among the property's references; scip-typescript writes a
// symbol of the literal's own (`use.ts/recursive0:`), defined there. ScipImport notes, before
// reading any document, the declared type of every parameter (`opts?: RmOptions`: the symbol at
// `RmOptions`), and each argument's property then takes the type's property where the type
// declares one of that name.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scip/ScipSites.h"
#include "scip/TypeScriptSyntax.h"

namespace nib::typescript_arguments {

// Each callable's signatures (several for overloads), each the type symbol of its parameters in
// order ("" where a parameter's type is not a plain named type); keyed by the callable's symbol.
using ParameterTypes = std::unordered_map<std::string, std::vector<std::vector<std::string>>>;

// Where the named type of a parameter declared by the name ending at `nameEnd` is written:
// `opts?: RmOptions`, `options: ParserOptions<T> = {}` (the last name of a dotted one, `ns.Opts`;
// the type argument of `Partial<Opts>`, `Required<…>`, `Readonly<…>`, whose properties are
// Opts's); nullopt for none or another kind of type (a literal, a union's later part, a function
// type).
std::optional<size_t> annotatedTypeAt(std::string_view text, size_t nameEnd);

// Where the types an interface or a class declared by the name ending at `nameEnd` extends or
// implements are named (`interface RmOptions extends Base, ns.Other<T> {`: Base, Other).
std::vector<size_t> heritageAt(std::string_view text, size_t nameEnd);

// The property `name` of `type` (a type's symbol, `…/RmOptions#`) or of the types it extends,
// nearest first, as `property` finds one (its symbol, "" for none); `bases` gives a type's.
std::string propertyOf(const std::string& type, const std::string& name,
                       const std::function<const std::vector<std::string>*(const std::string&)>& bases,
                       const std::function<bool(const std::string&)>& exists);

// The callable a parameter symbol belongs to (`…/rm().(opts)` → `…/rm().`), "" for another symbol.
std::string callableOfParameter(const std::string& usr);

// The properties of object literals passed as arguments whose callee's parameter has a named type
// declaring the property (`property` finds it: propertyOf): they take the type's property
// (`RmOptions#recursive.`), as a reference.
void contextualArguments(std::vector<scip_sites::Planned>& planned, const typescript_syntax::SyntaxTree& tree,
                         const ParameterTypes& types,
                         const std::function<std::string(const std::string&, const std::string&)>& property);

}  // namespace nib::typescript_arguments
