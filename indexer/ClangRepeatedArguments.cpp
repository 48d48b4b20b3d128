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

}  // namespace

void settleRepeatedArguments(Collector& c) {
  std::vector<Collector::Spelled>& spelled = c.spelled;
  std::vector<ClangOccurrence>& occurrences = c.facts.occurrences;
  auto place = [&](const Collector::Spelled& s) {
    const ClangOccurrence& o = occurrences[s.occurrence];
    return std::make_pair(o.file, o.offset);
  };
  std::stable_sort(spelled.begin(), spelled.end(), [&](const auto& a, const auto& b) { return place(a) < place(b); });
  for (size_t from = 0, to = 0; from < spelled.size(); from = to) {
    for (to = from + 1; to < spelled.size() && place(spelled[to]) == place(spelled[from]); ++to) {
    }
    if (to - from < 2) continue;
    // The declarations a macro's arguments spell here, and their latest expansion.
    unsigned latestDeclaration = 0;
    for (size_t k = from; k < to; ++k)
      if (occurrences[spelled[k].occurrence].role != ClangRole::Reference && isMacroLocation(spelled[k].location))
        latestDeclaration = std::max(latestDeclaration, spelled[k].location.int_data);
    if (latestDeclaration == 0) continue;
    CXFile file = nullptr;
    unsigned offset = 0;
    clang_getFileLocation(spelled[from].location, &file, nullptr, nullptr, &offset);
    LatestReference references{file, offset};
    std::vector<CXCursor> visited;  // several references may lie in one declaration
    for (size_t k = from; k < to; ++k) {
      const CXCursor& parent = spelled[k].parent;
      if (occurrences[spelled[k].occurrence].role != ClangRole::Reference || clang_Cursor_isNull(parent) ||
          std::any_of(visited.begin(), visited.end(), [&](const CXCursor& v) { return clang_equalCursors(v, parent); }))
        continue;
      visited.push_back(parent);
      if (isMacroLocation(clang_getCursorLocation(parent))) clang_visitChildren(parent, latestReference, &references);
    }
    if (references.latest <= latestDeclaration) continue;
    for (size_t k = from; k < to; ++k)
      if (occurrences[spelled[k].occurrence].role != ClangRole::Reference) occurrences[spelled[k].occurrence].expanded = true;
  }
  spelled.clear();
  c.argumentsSettled = true;
}

}  // namespace nib::clangindex
