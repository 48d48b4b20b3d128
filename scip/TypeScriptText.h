// What the text around an occurrence says in TypeScript and JavaScript, where scip-typescript's
// symbols alone do not tell how TypeScript's server answers: whether a name is declared by
// `import * as`, `NAME = require(`, an import clause, or follows `new`; where a module's
// definition lies. Plain text rules, good for the code the indexer accepted (ScipImport).
#pragma once

#include <cstdint>
#include <string_view>

namespace nib::typescript_text {

bool identifierChar(char c);
// A character a name can start with (not a digit).
bool identifierStart(char c);

// Whether the name at `offset` follows `import * as` (not `export * as`, which names an export).
bool namespaceImportAt(std::string_view text, size_t offset);

// Whether the name ending at `end` is given a `require(...)`: `NAME = require(`.
bool requireAliasAt(std::string_view text, size_t end);

// Whether the name at `offset` follows the `new` keyword.
bool afterNew(std::string_view text, size_t offset);

// Whether the name at `offset` is one an import clause declares: `import { a, type b as c }`,
// `import d from`, `import d, { e } from` (not `import * as`, see namespaceImportAt).
bool inImportClause(std::string_view text, size_t offset);

// Whether the name at `offset` is in the braces of an import or export clause (`import { a as
// b }`, `export { default as c } from`), not a type assertion's `x as T`.
bool inSpecifierList(std::string_view text, size_t offset);

// Where the alias starts when the name ending at `end` is followed by `as` and another name
// (`Box as B2`, across white space and line breaks of any style); npos otherwise.
size_t aliasAfter(std::string_view text, size_t end);

// Where TypeScript's server says a module is defined: its source file's first token, after
// a byte order mark, a `#!` line, white space and comments (the node's start, trivia skipped).
// The text's size when nothing but trivia is there.
size_t moduleStart(std::string_view text);
// Whether the class member whose name starts at `offset` is declared `static`: only modifiers
// (`public static async`) stand before it on its line.
bool staticMemberAt(std::string_view text, size_t offset);
// The contents of the string literal whose opening quote is at `offset` ("" when none is there).
std::string_view stringAt(std::string_view text, size_t offset);
// The file a relative module specifier (`./m`, `../m.js`, `..`) names from the file `from`, as
// TypeScript resolves it: the path with a source extension (`.js` written for `.ts`), else the
// folder's index; "" when it is not relative or names no file.
std::string resolveRelativeModule(const std::string& from, std::string_view specifier);

}  // namespace nib::typescript_text
