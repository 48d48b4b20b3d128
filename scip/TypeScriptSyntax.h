// What tree-sitter's parse of a TypeScript or JavaScript document tells that scip-typescript's
// symbols do not, for ScipImport: whether a name is read as a type or as a value, and what the
// module's import and export statements bind.
//
// Meanings: TypeScript's find-references keeps the meaning of the asked name. Where one name is
// declared twice, once as a type and once as a value (`interface Error` and `declare var Error` in
// the standard library; `type Opts = ...` beside `const Opts = ...`), a use as a type lists the
// type uses and one as a value the value uses; scip-typescript writes both symbols at every use.
//
// Bindings: TypeScript's find-references follows an import to the export it names only when the
// import keeps the exported name (`import Path from "./path"` where the module says `export
// default Path`), and stops at an export that renames (`export { default as Polyline }`) or
// assigns (`export default Path`): what lies beyond answers from its own side only
// (scip/TypeScriptExports).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct TSTree;

namespace nib::typescript_syntax {

enum class Meaning : uint8_t {
  Value,
  Type,
  Both,  // an import or export specifier: it binds every meaning the name has
};

enum class Dialect : uint8_t { TypeScript, Tsx, JavaScript };

// The dialect of a source file by its extension (JavaScript for .js, .jsx, .mjs, .cjs).
Dialect dialectOf(std::string_view path);

// One name an import or export statement binds: `import L from "m"` (imported "default"),
// `import { I as L } from "m"`, `export { I as L } from "m"`, `export { I as L }`.
struct Binding {
  std::string imported, local;
  uint32_t importedAt = 0;  // where the imported name is written; localAt when it is not
  uint32_t localAt = 0;
  std::optional<uint32_t> sourceAt;  // the module string's first byte (its quote); none for `export { a as b }`
  bool exported = false;             // an export specifier
};

// `export default NAME;`: the module's default export is the value NAME names. `export default
// EXPRESSION;` (an object literal, a call: no name, and no declaration but the statement itself)
// has an empty name and the statement's first line as `statement`.
struct DefaultAssignment {
  std::string name;
  uint32_t keywordAt = 0, line = 0, column = 0;  // `default`: byte offset, 0-based line, byte column
  struct Statement {
    uint32_t offset = 0, line = 0, column = 0;  // `export`
    uint32_t length = 0;  // to the statement's end, or its first line's end when it spans lines
  };
  std::optional<Statement> statement;  // set for an expression only
};

struct ModuleSyntax {
  std::vector<Binding> bindings;
  std::optional<DefaultAssignment> defaultAssignment;
};

class SyntaxTree {
 public:
  // nullptr when the parser cannot run (no language); a document with errors parses all the same.
  static std::unique_ptr<SyntaxTree> parse(std::string_view text, Dialect dialect);
  ~SyntaxTree();
  // The meaning of the name starting at `offset`: JavaScript has no types, so every name there
  // is a value (or Both, in a specifier); a place the parse does not show as a name is Both,
  // which keeps every symbol there.
  Meaning meaningAt(uint32_t offset) const;
  // The top-level import and export statements' bindings.
  ModuleSyntax moduleSyntax() const;
  // Where a function's implicit `arguments` object is named (an identifier, not a property).
  std::vector<uint32_t> argumentsUses() const;
  // Where `require` is called by that name (`require("./m")`).
  std::vector<uint32_t> requireCalls() const;
  // Where a destructuring pattern binds a property by its own name (`const { body } = ...`,
  // `function f({ depth })`).
  std::vector<uint32_t> shorthandBindings() const;
  // Where an object literal has a shorthand property (`{ depth }`).
  std::vector<uint32_t> objectShorthands() const;
  // Where a type names a type (`x: Buffer`, `http.IncomingMessage`'s last name, a declaration's
  // own name too): tree-sitter's type_identifier nodes, with their lengths — not the heritage
  // names an interface extends or a class implements.
  std::vector<std::pair<uint32_t, uint32_t>> typeNames() const;
  // Each object literal passed as an argument of a call or `new` whose callee is a name or a
  // member (`rm(p, { recursive: true })`, `vol.rm(...)`, `new Foo({...})`): where the callee's
  // name is, the argument's place among the arguments, and the literal's own keys (`key: value`
  // pairs with a plain name; not shorthands, methods, spreads or nested literals' keys).
  struct ObjectArgument {
    uint32_t calleeAt = 0;
    size_t index = 0;
    std::vector<std::pair<uint32_t, std::string>> keys;
  };
  std::vector<ObjectArgument> objectArguments() const;
  // The byte ranges of the documentation comments (`/** ... */`).
  std::vector<std::pair<uint32_t, uint32_t>> docComments() const;
  // The byte range of the scope a declaration's name at `offset` is visible in (a block, a
  // function for its parameters, the file), by the nearest enclosing block or function; nullopt
  // when no name is there.
  std::optional<std::pair<uint32_t, uint32_t>> scopeOf(uint32_t offset) const;
  // Constructors declared with a modifier first (`public constructor(`), by their class's name.
  struct ModifiedConstructor {
    uint32_t classNameAt = 0;
    uint32_t offset = 0, line = 0, column = 0, length = 0;  // the declaration's first token
  };
  std::vector<ModifiedConstructor> modifiedConstructors() const;

 private:
  SyntaxTree(std::string_view text, TSTree* tree) : text_(text), tree_(tree) {}
  std::string_view text_;
  TSTree* tree_;
};

}  // namespace nib::typescript_syntax
