// SCIP symbol strings as nib reads them (ScipImport): what a symbol's descriptors say of its
// kind and name, and the repository-wide names nib gives symbols whose indexer named them by a
// project's own folder. Not used outside scip/.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "views/FileFacts.h"

namespace nib::scip_symbols {

// file:///a%20b/c -> /a b/c; "" when it is no file URI.
std::string pathOfUri(const std::string& uri);
// nib's kind for an SCIP SymbolInformation.Kind.
SymbolKind kindOf(int scipKind);
// The kind a symbol's last descriptor implies, for indexers that write no kind.
SymbolKind kindOfSymbol(std::string_view symbol);
// The name a symbol's last descriptor spells (backquotes removed).
std::string nameOfSymbol(std::string_view symbol);
// A symbol of a file of no npm package, named by the file's path in the repository (see the
// definition's comment); other symbols as they are.
std::string repositoryNamed(const std::string& symbol, const std::filesystem::path& projectRoot, const std::string& root,
                            const std::string& definedAt);
// The module symbol of a file of no npm package, by its path in the repository (`src/m.ts` ->
// "scip-typescript npm . . src/`m.ts`/"): how repositoryNamed names such files.
std::string fileSymbol(std::string_view relative);
// scip-python's module symbols: the module's dotted name, or "" when `symbol` names no module.
std::string moduleNameOf(std::string_view symbol);
// The symbol of module `name` in the package `like` (a module symbol) names.
std::string moduleSymbolLike(std::string_view like, const std::string& name);

}  // namespace nib::scip_symbols
