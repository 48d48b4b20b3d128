// Whether a name in TypeScript is read as a type or as a value, from tree-sitter's syntax tree.
// TypeScript's find-references keeps the meaning of the asked name: where one name is declared
// twice, once as a type and once as a value (`interface Error` and `declare var Error` in the
// standard library; `type Opts = ...` beside `const Opts = ...`), a use as a type lists the type
// uses and one as a value the value uses. scip-typescript writes both symbols at every use, so
// ScipImport asks here which one the place means.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace nib::typescript_meanings {

enum class Meaning : uint8_t {
  Value,
  Type,
  Both,  // an import or export specifier: it binds every meaning the name has
};

enum class Dialect : uint8_t { TypeScript, Tsx, JavaScript };

// The dialect of a source file by its extension (JavaScript for .js, .jsx, .mjs, .cjs).
Dialect dialectOf(std::string_view path);

// The meaning of the name starting at each of `offsets` (byte offsets into `text`). JavaScript
// has no types: every name there is a value (or Both, in a specifier). A place the parse does
// not show as a name is Both, which keeps every symbol there.
std::vector<Meaning> meaningsAt(std::string_view text, Dialect dialect, const std::vector<uint32_t>& offsets);

}  // namespace nib::typescript_meanings
