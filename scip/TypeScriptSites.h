// The rules ScipImport applies to a TypeScript or JavaScript document's planned occurrences
// where scip-typescript's symbols alone do not say how TypeScript's server answers; each
// function's comment (TypeScriptSites.cpp) gives its case.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "scip/ScipSites.h"
#include "scip/TypeScriptExports.h"
#include "scip/TypeScriptSyntax.h"

namespace nib::typescript_sites {

using scip_sites::Planned;

// A name declared as a type and as a value: each use keeps the symbol of its meaning.
void keepMeaningAsked(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree);
// The name before `as` in an import or export clause: what its alias names.
void namesBeforeAs(std::vector<Planned>& planned, const std::string& text);
// A name imported from a module that does not resolve: defined by its import clause.
void unresolvedImports(std::vector<Planned>& planned, const std::string& text);
// Each overload signature's parameter: a symbol of its own.
void overloadParameters(std::vector<Planned>& planned);
// A function's `arguments`: one symbol of the program (sites added, in `file`).
// `require("./m")` in JavaScript, which scip-typescript names by no symbol: TypeScript's server
// answers it as one symbol, defined nowhere, whose references are the program's `require`
// calls (sites added, in `file`).
void requireCalls(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& text,
                  uint32_t file);
void argumentsObjects(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& text,
                      uint32_t file);
// scip-typescript names a class's static member and an instance member of the same name by one
// symbol (`Volume#fromJSON().`); TypeScript's server tells them apart. For the symbols
// `collisions` holds (defined both ways in the index), the static definitions and the uses through
// the class's name (`Volume.fromJSON`) get the static member's own symbol (`staticSymbol`).
void staticMembers(std::vector<Planned>& planned, const std::string& text, const std::unordered_set<std::string>& collisions);
std::string staticSymbol(const std::string& usr);
// `{ depth }` where the object has a contextual type: scip-typescript writes only the type's
// property there; TypeScript's server goes to the value too. The value — the nearest declaration
// of the name in this document whose scope holds the shorthand — is added there (sites added).
void contextualShorthands(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& text);
// A constructor declared with a modifier first (`public constructor(`): scip-typescript writes no
// definition of it; one is added at the declaration's first token, where TypeScript's server
// places it (sites added, in `file`).
void modifiedConstructors(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, uint32_t file);
// `opts().shared`, `opts().debug` where opts() returns a type with an index signature
// (`[key: string]: any`): scip-typescript writes one local symbol, defined nowhere, at every
// name accessed through it; TypeScript's server lists no references there (and goes to the
// signature). A local defined nowhere and spelled two ways or more is such an access: its sites
// are left out. (One spelled one way stays: a JavaScript property made by assignment, `this.x =
// 1`, is a local defined nowhere too.)
void indexSignatureAccesses(std::vector<Planned>& planned, const std::string& text);
// A type name nothing resolves (`Buffer` without Node's types, `http.IncomingMessage` of a module
// that is not installed): scip-typescript writes no symbol there; TypeScript's server answers
// it as the checker's one unknown symbol, defined nowhere, whose references are the program's
// unresolved type names of that spelling. One symbol per spelling is added at each (a name the
// document declares is left alone: only what the indexer resolved nowhere counts).
void unresolvedTypes(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& text, uint32_t file);
// Names a documentation comment refers to code by (`@returns {IProcess | undefined}`, `@see
// Opts`, `{@link Opts}`): scip-typescript writes nothing inside comments; TypeScript's server
// lists them among the named symbol's references. A type's name in braces takes the one type its
// spelling names in the document's code; a name after `@see` or `{@link` the one symbol it names
// there (or the one type among several); else it is left alone.
void docReferences(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& text, uint32_t file);
// A destructuring pattern's shorthand name whose property the indexer resolved to nothing: a
// symbol of its own there, defined nowhere (TypeScript's server goes nowhere from it).
void unresolvedProperties(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& relative);
// `{ greet }` where the module imports `greet` (under its own name, or as its default): TypeScript's
// server goes from the shorthand to the import, not through it. The import's local symbol
// (`local:PATH#import@OFFSET`, a renamed import's alias's) at the shorthand and at the import,
// to add beside what is there (expanded, as references).
std::vector<Planned> shorthandImports(const std::vector<Planned>& planned, const typescript_syntax::ModuleSyntax& syntax,
                                      const std::string& text, const std::string& relative);
// `export { Options }` of a name an import binds from a module the indexer could not resolve
// (`import { Options } from "no-case"` in a checkout without node_modules): scip-typescript
// writes a local of its own at the specifier, bound to nothing; TypeScript's server lists the
// specifier with the import and the name's uses. The specifier takes the import's symbol.
void exportedImports(std::vector<Planned>& planned, const typescript_syntax::ModuleSyntax& syntax);
// The document's import and export bindings with the symbols at them, for
// typescript_exports::planAliases; nullopt when it has none.
std::optional<typescript_exports::ModuleBindings> noteBindings(const std::vector<Planned>& planned,
                                                                typescript_syntax::ModuleSyntax syntax, const std::string& text,
                                                                const std::string& relative, uint32_t file);

}  // namespace nib::typescript_sites
