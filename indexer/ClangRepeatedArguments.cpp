// Names a macro's arguments spell once and its body expands more than once, answered as clangd
// answers them.
//
// `#define NO_COPY(T) T(const T&) = delete; T& operator=(const T&) = delete;` expands `T` four
// times: a constructor's name, then three references to the class. libclang's indexer reports
// each at the argument's one spelling, so a request there meets a declaration of the
// constructor and references to the class, and nib took the declaration, as it does at an
// ordinary constructor's name (which is also a reference to its class). clangd's selection takes
// the argument's last expansion instead (checked against clangd 14 with its background index):
// `NO_COPY(Holder)` answers the class, `T(int)` after `void f(T*)` the constructor, `T::T() {}`
// the constructor, whose name comes after its qualifier. So where a later expansion of the
// argument is a reference, the declarations there are no name under a cursor: flagged
// `expanded`, as a macro body's names are, they stay sites of their entities.
//
// Which expansion came later: libclang 14's CXSourceLocation carries clang's raw source location
// in int_data, which for a macro location is its offset in the unit's source-location space;
// the preprocessor allots those as it expands, so a later expansion has a larger one. The
// indexer keeps a declaration's macro location but reports a reference at its file location, so
// a reference's own is read from the cursors of the declaration it lies in (the parameter's type
// under the constructor). Only at a declaration's name that a macro argument spells; a name
// expanded twice as one entity (`PAIR(Widget, x, y)`) or named once answers as anywhere.
#include <clang-c/Index.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "indexer/ClangCollector.h"

namespace nib::clangindex {
namespace {

bool isMacroLocation(CXSourceLocation location) {
  CXFile spellingFile = nullptr, expansionFile = nullptr;
  unsigned spelling = 0, expansion = 0;
  clang_getSpellingLocation(location, &spellingFile, nullptr, nullptr, &spelling);
  clang_getExpansionLocation(location, &expansionFile, nullptr, nullptr, &expansion);
  return spelling != expansion || !clang_File_isEqual(spellingFile, expansionFile);
}

// The latest macro location of a reference at `offset` of `file` among a declaration's cursors.
struct LatestReference {
  CXFile file;
  unsigned offset;
  unsigned latest = 0;
};

CXChildVisitResult latestReference(CXCursor cursor, CXCursor, CXClientData data) {
  auto* at = static_cast<LatestReference*>(data);
  CXCursorKind kind = clang_getCursorKind(cursor);
  if (clang_isReference(kind) || kind == CXCursor_DeclRefExpr || kind == CXCursor_MemberRefExpr) {
    CXSourceLocation location = clang_getCursorLocation(cursor);
    CXFile file = nullptr;
    unsigned offset = 0;
    clang_getFileLocation(location, &file, nullptr, nullptr, &offset);
    if (offset == at->offset && clang_File_isEqual(file, at->file) && isMacroLocation(location))
      at->latest = std::max(at->latest, location.int_data);
  }
  return CXChildVisit_Recurse;
}

// The names the indexer reported at one place, in the order it did: where a macro's argument
// spells a declaration and a later expansion of the argument references it, the declarations are
// expanded ones.
void settlePlace(std::vector<ClangOccurrence>& occurrences, const std::vector<Collector::Spelled>& spelled) {
  // The declarations a macro's arguments spell here, and their latest expansion.
  unsigned latestDeclaration = 0;
  for (const Collector::Spelled& s : spelled)
    if (occurrences[s.occurrence].role != ClangRole::Reference && isMacroLocation(s.location))
      latestDeclaration = std::max(latestDeclaration, s.location.int_data);
  if (latestDeclaration == 0) return;
  CXFile file = nullptr;
  unsigned offset = 0;
  clang_getFileLocation(spelled.front().location, &file, nullptr, nullptr, &offset);
  LatestReference references{file, offset};
  std::vector<CXCursor> visited;  // several references may lie in one declaration
  for (const Collector::Spelled& s : spelled) {
    const CXCursor& parent = s.parent;
    if (occurrences[s.occurrence].role != ClangRole::Reference || clang_Cursor_isNull(parent) ||
        std::any_of(visited.begin(), visited.end(), [&](const CXCursor& v) { return clang_equalCursors(v, parent); }))
      continue;
    visited.push_back(parent);
    if (isMacroLocation(clang_getCursorLocation(parent))) clang_visitChildren(parent, latestReference, &references);
  }
  if (references.latest <= latestDeclaration) return;
  for (const Collector::Spelled& s : spelled)
    if (occurrences[s.occurrence].role != ClangRole::Reference) occurrences[s.occurrence].expanded = true;
}

}  // namespace

void settleRepeatedArguments(Collector& c) {
  // The names by their place, in the order the indexer reported them at one place: sorted as
  // (place, order) pairs rather than moving the names themselves.
  std::vector<std::pair<uint64_t, uint32_t>> byPlace;
  byPlace.reserve(c.spelled.size());
  for (uint32_t k = 0; k < c.spelled.size(); ++k) {
    const ClangOccurrence& o = c.facts.occurrences[c.spelled[k].occurrence];
    byPlace.emplace_back(placeKey(o.file, o.offset), k);
  }
  std::sort(byPlace.begin(), byPlace.end());
  std::vector<Collector::Spelled> spelled;  // one place's
  for (size_t from = 0, to = 0; from < byPlace.size(); from = to) {
    for (to = from + 1; to < byPlace.size() && byPlace[to].first == byPlace[from].first; ++to) {
    }
    if (to - from < 2) continue;
    spelled.clear();
    for (size_t k = from; k < to; ++k) spelled.push_back(c.spelled[byPlace[k].second]);
    settlePlace(c.facts.occurrences, spelled);
  }
  c.spelled.clear();
  c.argumentsSettled = true;
}

}  // namespace nib::clangindex
