#include "indexer/ClangFriends.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace nib::clangindex {
namespace {

// Whether a declaration is a friend's: declared inside a class (its lexical parent) as a member
// of an enclosing namespace (its semantic parent). An out-of-line member's is the other way round.
bool friendDeclaration(CXCursor cursor) {
  CXCursor lexical = clang_getCursorLexicalParent(cursor);
  CXCursorKind k = clang_getCursorKind(lexical);
  bool inClass = k == CXCursor_ClassDecl || k == CXCursor_StructDecl || k == CXCursor_UnionDecl ||
                 k == CXCursor_ClassTemplate || k == CXCursor_ClassTemplatePartialSpecialization;
  return inClass && !clang_equalCursors(clang_getCursorSemanticParent(cursor), lexical);
}

// Whether a class's declaration is spelt `friend class NAME` (`struct`, `union`): clang makes a
// friend class a declaration of the enclosing namespace's, in its lexical place too.
bool friendTag(Collector& c, const ClangOccurrence& o) {
  auto kind = static_cast<SymbolKind>(o.kind);
  if (kind != SymbolKind::Class && kind != SymbolKind::Struct && kind != SymbolKind::Union) return false;
  std::string_view text = c.contentOf(o.file);
  size_t at = std::min<size_t>(o.offset, text.size());
  auto wordBefore = [&]() {
    while (at > 0 && std::isspace(static_cast<unsigned char>(text[at - 1]))) --at;
    size_t end = at;
    while (at > 0 && Collector::identifierChar(text[at - 1])) --at;
    return text.substr(at, end - at);
  };
  std::string_view key = wordBefore();
  return (key == "class" || key == "struct" || key == "union") && wordBefore() == "friend";
}

// Whether a declaration's entity is a class template (a friend one is listed, as clangd's index
// lists it; a friend function template is not).
bool friendClassTemplate(const CXIdxEntityInfo* entity) {
  return entity->templateKind == CXIdxEntity_Template &&
         (entity->kind == CXIdxEntity_CXXClass || entity->kind == CXIdxEntity_Struct || entity->kind == CXIdxEntity_Union);
}

// Whether `entity`'s first declaration is the one at `loc` (a friend declaration naming a class
// no declaration before it did).
bool firstDeclaredAt(CXCursor entity, CXIdxLoc loc) {
  CXFile file = nullptr, first = nullptr;
  unsigned offset = 0, firstOffset = 0;
  clang_getFileLocation(clang_indexLoc_getCXSourceLocation(loc), &file, nullptr, nullptr, &offset);
  clang_getFileLocation(clang_getCursorLocation(clang_getCanonicalCursor(entity)), &first, nullptr, nullptr, &firstOffset);
  return file && first && clang_File_isEqual(file, first) && offset == firstOffset;
}

}  // namespace

bool unlistedFriendDeclaration(Collector& c, const CXIdxDeclInfo* info) {
  return !friendClassTemplate(info->entityInfo) &&
         (friendDeclaration(info->cursor) || friendTag(c, c.facts.occurrences.back()));
}

bool unlistedFriendReference(Collector& c, const CXIdxEntityRefInfo* info, CXCursor named) {
  return friendTag(c, c.facts.occurrences.back()) && firstDeclaredAt(named, info->loc);
}

}  // namespace nib::clangindex
