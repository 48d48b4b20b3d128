// Words in a block the parser skipped inside a namespace or a struct, answered as clangd answers
// them.
//
// A declaration the compiler rejects at namespace scope can take the block after it along: with
// doctest's header missing, `TEST_CASE("name") { ... }` is a variable of implicit type whose
// initializer ends at `)`, and the parser skips the braces that follow. clangd's go-to-definition
// picks the innermost AST node whose tokens include the cursor's; no node below the namespace
// claims the skipped block's tokens, so every word there — a local, a call of a function the
// namespace declares, an undeclared name — answers the namespace (its first declaration), and
// its references are the namespace's in the asked file. At the top level the translation unit
// claims them, which names nothing: clangd answers nothing there. nib records each word of such
// a block as an unlisted reference to the namespace (an answer at its place, no site among the
// namespace's references). Only in a file parsed with errors, outside directives, inactive
// regions and macro invocations, at a word no other occurrence covers.
//
// The same holds inside a named struct, union or class whose member declaration the parser
// rejected (libjpeg's `JMETHOD(void, read_backing_store, (...));` in a header parsed alone,
// without the includer's JMETHOD): no field claims its words, so they answer the record — its
// definition, and its references everywhere, as at the record's name.
#include <clang-c/Index.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "indexer/ClangCollector.h"

namespace nib::clangindex {
namespace {

using Span = std::pair<unsigned, unsigned>;  // byte offsets in the main file, end exclusive

struct SkippedBlocks {
  Collector* c;
  CXTranslationUnit tu;
  CXFile main;
  uint32_t mainId;
  std::unordered_set<uint32_t> covered;  // offsets of the main file's occurrences

  std::optional<Span> spanOf(CXCursor cursor) const {
    std::optional<Collector::Extent> e = c->extentOf(cursor);
    if (!e || e->file != mainId) return std::nullopt;
    return Span{e->start, e->end};
  }

  bool excluded(uint32_t offset) {
    for (const ClangSkipped& s : c->facts.skipped)
      if (s.file == mainId && offset >= s.start && offset < s.end) return true;
    if (c->inExpansion(mainId, offset)) return true;
    // A directive's line (`#define WIDTH 3` inside the namespace), continued lines included
    // (x264's TRELLIS_PARAMS inside a struct): the preprocessor's words.
    const std::string& text = c->contentOf(mainId);
    size_t newline = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
    while (newline != std::string::npos && newline > 0 &&
           (text[newline - 1] == '\\' || (text[newline - 1] == '\r' && newline > 1 && text[newline - 2] == '\\')))
      newline = text.rfind('\n', newline - 1);
    size_t lineStart = newline == std::string::npos ? 0 : newline + 1;
    size_t first = text.find_first_not_of(" \t", lineStart);
    return first != std::string::npos && first < offset && text[first] == '#';
  }

  // The words of `gap` that no child of the namespace claims, as references to it.
  void addWords(Span gap, uint32_t usr, SymbolKind kind) {
    CXSourceRange range = clang_getRange(clang_getLocationForOffset(tu, main, gap.first),
                                         clang_getLocationForOffset(tu, main, gap.second));
    CXToken* tokens = nullptr;
    unsigned count = 0;
    clang_tokenize(tu, range, &tokens, &count);
    for (unsigned i = 0; i < count; ++i) {
      if (clang_getTokenKind(tokens[i]) != CXToken_Identifier) continue;
      CXFile file;
      unsigned line, column, offset;
      clang_getFileLocation(clang_getTokenLocation(tu, tokens[i]), &file, &line, &column, &offset);
      if (!file || !clang_File_isEqual(file, main) || offset < gap.first || offset >= gap.second || line == 0 ||
          covered.count(offset) || excluded(offset))
        continue;
      std::string word = take(clang_getTokenSpelling(tu, tokens[i]));
      ClangOccurrence o{mainId, line - 1, column - 1, offset, static_cast<uint32_t>(word.size()), usr, ClangRole::Reference,
                        false, -1, static_cast<uint8_t>(kind), false, false};
      o.unlisted = true;
      c->push(o);
      covered.insert(offset);
    }
    clang_disposeTokens(tu, tokens, count);
  }

  // The words of a namespace block or a record's definition that none of its children claims,
  // then those of the namespaces and records inside it.
  void scopeBlock(CXCursor ns) {
    std::optional<Span> whole = spanOf(ns);
    std::string usr = take(clang_getCursorUSR(ns));
    std::string name = take(clang_getCursorSpelling(ns));
    // An anonymous namespace or member record is left alone. An unnamed record a typedef names
    // (`typedef struct { pixel *p_fref[12]; } x264_me_t;`, USR `c:@SA@x264_me_t`) is answered
    // at its place, the `struct` keyword, as clangd's go-to-definition does: clang spells its
    // name as a description ("struct (unnamed at ...)"), which is no name of the symbol's.
    const bool unnamed = name.empty() || name.find(' ') != std::string::npos;
    const bool namespaceBlock = clang_getCursorKind(ns) == CXCursor_Namespace;
    if (!whole || usr.empty() || (namespaceBlock ? unnamed || clang_Cursor_isAnonymous(ns) : clang_Cursor_isAnonymousRecordDecl(ns)))
      return;
    if (unnamed) name.clear();
    unsigned offset;
    CXFile file;
    clang_getFileLocation(clang_getCursorLocation(ns), &file, nullptr, nullptr, &offset);
    std::vector<Span> children;
    std::vector<CXCursor> nested;
    struct Walk {
      SkippedBlocks* self;
      std::vector<Span>* children;
      std::vector<CXCursor>* nested;
    } walk{this, &children, &nested};
    clang_visitChildren(
        ns,
        [](CXCursor child, CXCursor, CXClientData data) {
          auto* w = static_cast<Walk*>(data);
          if (std::optional<Span> s = w->self->spanOf(child)) w->children->push_back(*s);
          else w->self->unclaim(child);
          if (isScope(child)) w->nested->push_back(child);
          return CXChildVisit_Continue;
        },
        &walk);
    std::sort(children.begin(), children.end());
    uint32_t id = c->usrId(usr, unnamed ? nullptr : name.c_str());
    SymbolKind kind = kindOfScope(clang_getCursorKind(ns));
    unsigned from = offset + static_cast<unsigned>(name.size());
    for (const Span& s : children) {
      if (s.first > from) addWords({from, s.first}, id, kind);
      from = std::max(from, s.second);
    }
    if (whole->second > from) addWords({from, whole->second}, id, kind);
    for (CXCursor inner : nested) scopeBlock(inner);
  }

  // A rejected member with no extent (a field of an array of an unknown type: opus's
  // `opus_int32 sIIR[6];` in a header parsed alone) claims no word: clangd's selection, which goes
  // by extents, never reaches it, so its name answers the record. Its own occurrences there go.
  void unclaim(CXCursor child) {
    CXCursorKind k = clang_getCursorKind(child);
    if ((k != CXCursor_FieldDecl && k != CXCursor_VarDecl) || !clang_isInvalidDeclaration(child)) return;
    CXFile file;
    unsigned offset;
    clang_getFileLocation(clang_getCursorLocation(child), &file, nullptr, nullptr, &offset);
    if (!file || !clang_File_isEqual(file, main)) return;
    std::erase_if(c->facts.occurrences, [&](const ClangOccurrence& o) { return o.file == mainId && o.offset == offset; });
    covered.erase(offset);
  }

  // A namespace block, or the definition of a struct, union or class.
  static bool isScope(CXCursor cursor) {
    CXCursorKind k = clang_getCursorKind(cursor);
    if (k == CXCursor_Namespace) return true;
    return (k == CXCursor_StructDecl || k == CXCursor_UnionDecl || k == CXCursor_ClassDecl) && clang_isCursorDefinition(cursor);
  }
  static SymbolKind kindOfScope(CXCursorKind k) {
    switch (k) {
      case CXCursor_StructDecl: return kindOf(CXIdxEntity_Struct);
      case CXCursor_UnionDecl: return kindOf(CXIdxEntity_Union);
      case CXCursor_ClassDecl: return kindOf(CXIdxEntity_CXXClass);
      default: return SymbolKind::Namespace;
    }
  }
};

}  // namespace

void addSkippedBlockWords(Collector& c, CXTranslationUnit tu) {
  if (c.facts.errors.empty()) return;
  CXFile main = clang_getFile(tu, c.facts.mainFile.c_str());
  int64_t mainId = main ? c.fileId(main) : -1;
  if (mainId < 0) return;
  SkippedBlocks blocks{&c, tu, main, static_cast<uint32_t>(mainId), {}};
  for (const ClangOccurrence& o : c.facts.occurrences)
    if (o.file == blocks.mainId) blocks.covered.insert(o.offset);
  std::vector<CXCursor> scopes;
  clang_visitChildren(
      clang_getTranslationUnitCursor(tu),
      [](CXCursor cursor, CXCursor, CXClientData data) {
        if (SkippedBlocks::isScope(cursor)) static_cast<std::vector<CXCursor>*>(data)->push_back(cursor);
        return CXChildVisit_Continue;
      },
      &scopes);
  for (CXCursor scope : scopes)
    if (blocks.spanOf(scope)) blocks.scopeBlock(scope);
}

}  // namespace nib::clangindex
