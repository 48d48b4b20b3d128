// What the clang view's answers share between ClangNavigator.cpp (answers by symbol) and
// ClangNavigatorWords.cpp (answers by the bare word, where the compiler saw no name).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
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
// Leaves out of a references answer its locations in sections that fewer than half of the
// units reading their file compile (ClangViewContents::minority), but in the asked file and in
// files `shown` (open in the editor: a live server lists their own parse's); returns how many.
size_t leaveOutMinorityReferences(ClangView& view, const std::string& path,
                                  const std::function<bool(const std::string&)>& shown,
                                  std::vector<SymbolLocation>& locations);
// The definition sites a definitions answer asked in `path` passes over while anything else
// answers: those in a section that fewer than half of the units reading its file compile, in a
// file neither asked, open in the editor (`shown`) nor read by the asked file's own parse.
// clangd's index keeps one unit's view of each header, most likely one without the section, and
// the asked file's parse never sees it (libxml2's elfgcchack.h, #included at the end of each of
// its source files, redeclares that file's functions with an alias attribute — a definition to
// clang — under `#ifdef bottom_<file>`: clangd answers the public header's declaration).
std::function<bool(const ClangSite&)> minorityDefinitions(ClangView& view, const std::string& path,
                                                          const std::function<bool(const std::string&)>& shown);
// Leaves out of a references answer for `symbol` its locations in the headers where it is the
// twin only the fewer language's units name (ClangViewContents::minorityLanguage), but in the
// asked file and in files `shown`; returns how many.
size_t leaveOutFewerLanguageReferences(ClangView& view, uint32_t symbol, const std::string& path,
                                       const std::function<bool(const std::string&)>& shown,
                                       std::vector<SymbolLocation>& locations);
// Labels a references answer with sites in code the build's units see differently, and says how
// many were left out (see the definition).
void labelIncluderDependent(ClangView& view, const std::string& path, NavigationResult& out, size_t leftOut, size_t twins);
// Whether the declaration a name at `offset` belongs to is spelt `friend ...`: from the previous
// `;`, `{` or `}` (or the text's start) to the name.
bool friendSpeltBefore(std::string_view text, uint32_t offset);
// C declares a struct, union or enum at an elaborated name where none of that name is in scope:
// in a prototype's parameter list (`int f(struct single *s);` in a header parsed alone, without
// the header that defines it) the type is the prototype's own. libclang's indexer reports such a
// name as a reference to an entity declared nowhere; clangd answers its first name there, the
// declaration. That site in `path` (the first of the symbol's, which only references it and is
// declared nowhere outside the repository either), if any.
std::optional<ClangSite> implicitTagDeclaration(ClangView& view, const ClangSymbol& symbol, const std::string& path);
// Sites by file, each file's in offset order (string views of the sites' paths).
using SitesByFile = std::map<std::string_view, std::vector<const ClangSite*>>;
// The first of `sites` that `path`'s own parse meets before `limit` in it: the file's text and, at
// each #include before it, depth-first, what the included file meets first (the view's
// `inclusionsIn`); a file entered once (guards). nullptr when it meets none.
const ClangSite* firstMet(ClangView& view, const std::string& path, uint32_t limit, const SitesByFile& sites);
// The block opening a namespace that a file's own parse meets first (firstMet), where clangd
// 14's go-to-definition goes at any `namespace X {`: the namespace's canonical declaration in
// the open file's translation unit. Sites in files `changed` are passed over; nullptr when no
// block is met.
const ClangSite* firstNamespaceBlock(ClangView& view, const ClangSymbol& ns, const std::string& path,
                                     const std::function<bool(const std::string&)>& changed);
// The first declaration or definition of `symbol` that `path`'s own parse meets (firstMet): its
// canonical declaration in the translation unit of `path` alone, as a live server parses the
// open file. Sites in files `changed` are passed over; nullptr when none is met.
const ClangSite* firstDeclarationMet(ClangView& view, const ClangSymbol& symbol, const std::string& path,
                                     const std::function<bool(const std::string&)>& changed);
// A definition answer for a symbol declared outside the repository (what a system header
// declares; `kind`: "declared", or "defined" for an SCIP indexer's library symbol, "first opened"
// for a namespace): where the build saw it (ClangView::outsideSite) while that file is unchanged,
// else nothing; labelled `outside` either way.
void outsideAnswer(ClangView& view, const ClangSymbol& symbol, const char* kind, NavigationResult& out);
// The same place as a location, or nullopt (none, or its file changed since the build).
std::optional<SymbolLocation> outsideLocation(ClangView& view, const ClangSymbol& symbol);
// The clang view has no say at a position: tree-sitter's facts answer.
Status declined();
// Whether every occurrence at `start` (of a file's, in offset order) is `foreign` — seen only by a
// unit #including the file, not its own parse — and there is one. The own parse's unlisted
// occurrences (answers at a place that are no site, such as a word of a member the parser
// rejected, which answers its struct) do not count: they vouch for no site there.
bool onlyForeignAt(const std::vector<ClangFileOccurrence>& occurrences, uint32_t start);
// Locations in (path, offset) order, one per site: answers merged from several symbols.
void uniqueSites(std::vector<SymbolLocation>& locations);

}  // namespace nib::clangnav
