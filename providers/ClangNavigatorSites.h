// What the clang view's answers share between ClangNavigator.cpp (answers by symbol) and
// ClangNavigatorWords.cpp (answers by the bare word, where the compiler saw no name).
#pragma once

#include <vector>

#include "providers/Navigation.h"
#include "support/Status.h"
#include "views/ClangView.h"

namespace nib::clangnav {

// A site of a symbol as an answer's location.
SymbolLocation siteLocation(const ClangSymbol& symbol, const ClangSite& site);
// The declaration clangd's index keeps for a symbol: the canonical one (the first the build
// saw), else the first declaring site; nullptr when the repository only references it.
const ClangSite* declarationSite(const ClangSymbol& symbol);
// The clang view has no say at a position: tree-sitter's facts answer.
Status declined();
// Whether every occurrence at `start` (of a file's, in offset order) is `foreign` — seen only by a
// unit #including the file, not its own parse — and there is one.
bool onlyForeignAt(const std::vector<ClangFileOccurrence>& occurrences, uint32_t start);
// Locations in (path, offset) order, one per site: answers merged from several symbols.
void uniqueSites(std::vector<SymbolLocation>& locations);

}  // namespace nib::clangnav
