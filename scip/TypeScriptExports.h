// Where TypeScript's find-references stops between modules, as symbols ScipImport adds.
//
// scip-typescript gives an exported class and every name any module imports it by one symbol.
// TypeScript's server does not list them all from everywhere: it follows an import to the export
// it names only when the import keeps the exported name, and an export that renames (`export {
// default as Polyline } from "./polyline"`) or assigns (`export default Path;`) is a symbol of its
// own, whose references are the export and what imports it — not the declaration's own file.
// Asked at the declaration, everything is listed; asked at `import Pth from "./path"` (another
// name), only this file's `Pth`. So each such site gets the symbol that answers there (the
// export's, or a local alias's) and keeps the others it belongs to as expanded occurrences
// (listed among their references, never the name under the cursor).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scip/TypeScriptSyntax.h"

namespace nib::typescript_exports {

// What one document binds, as ScipImport read it.
struct ModuleBindings {
  std::string module;  // the document's module symbol
  std::string relative;  // its repository path
  uint32_t file = 0;   // into TuFacts::files
  std::optional<typescript_syntax::DefaultAssignment> defaultAssignment;
  struct Bound {
    typescript_syntax::Binding syntax;
    std::string source;                    // the source module's symbol ("" for a local export)
    std::string target;                    // the symbol the indexer wrote at the local name
    std::vector<uint32_t> localSites;      // offsets of the local name's occurrences of `target`
    std::optional<uint32_t> importedSite;  // the imported name's occurrence of `target`, when apart
    // The file a relative source module names (its path in the repository; "" when not relative
    // or not found), for a module this index holds no document of (another project's file).
    std::string sourceFile;
  };
  std::vector<Bound> bindings;
};

// One site's symbols: `target`'s occurrence there answers as `primary` and stays listed among
// the references of each of `expanded` (`target` among them).
struct SiteSymbols {
  uint32_t file = 0, offset = 0;
  std::string target, primary, name;
  std::vector<std::string> expanded;
  // The indexer declared a local there (a default import of an expression): it names `primary`
  // as a use does, the declaration being the export statement.
  bool reference = false;
};

// The `default` keyword of `export default NAME;`, a site of the module's default export.
struct KeywordSite {
  uint32_t file = 0, offset = 0, line = 0, column = 0;
  std::string symbol, name;
};

// The first line of `export default EXPRESSION;`: where the module's default export is declared
// (answers definitions; the `default` keyword is what references list).
struct StatementSite {
  uint32_t file = 0, offset = 0, line = 0, column = 0, length = 0;
  std::string symbol;
};

struct AliasPlan {
  std::vector<SiteSymbols> sites;
  std::vector<KeywordSite> keywords;
  std::vector<StatementSite> statements;
};

// `nameOf`: the name a symbol's last descriptor spells (a default-exported declaration's name).
// `expressionDefault`: whether a file (by its path in the repository) no document of `modules` is
// says `export default EXPRESSION;`.
AliasPlan planAliases(const std::vector<ModuleBindings>& modules, const std::function<std::string(const std::string&)>& nameOf,
                      const std::function<bool(const std::string&)>& expressionDefault);

}  // namespace nib::typescript_exports
