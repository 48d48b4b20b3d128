// The words of a function declaration clang rejected whole, as clangd answers them.
#include <clang-c/Index.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "indexer/ClangCollector.h"
#include "views/ClangFacts.h"

namespace nib::clangindex {
namespace {

// Where clangd's go-to-definition puts a declaration: its name where a macro's text spells it
// (the declaration's macroBody twin, which resolveMacroDeclarations placed just before the
// declaration at the expansion), else where the file writes it. nullopt where the unit reported
// no declaration there (a session that reported the header's sites in an earlier unit).
std::optional<CalledLocation> declarationPlace(const Collector& c, uint32_t file, uint32_t offset, uint32_t usr) {
  const std::vector<ClangOccurrence>& all = c.facts.occurrences;
  for (size_t i = 0; i < all.size(); ++i) {
    const ClangOccurrence& o = all[i];
    if (o.file != file || o.offset != offset || o.usr != usr || o.role == ClangRole::Reference) continue;
    const ClangOccurrence& named = o.expanded && i > 0 && all[i - 1].macroBody && all[i - 1].usr == usr ? all[i - 1] : o;
    std::string path = c.facts.files[named.file];
    if (path.rfind(c.root, 0) != 0) return std::nullopt;
    return CalledLocation{path.substr(c.root.size()), named.line, named.column, named.offset, named.length};
  }
  return std::nullopt;
}

// The file extents of a cursor's children: the parameters clang kept, a body.
std::vector<std::pair<unsigned, unsigned>> childExtents(CXCursor cursor) {
  std::vector<std::pair<unsigned, unsigned>> out;
  clang_visitChildren(
      cursor,
      [](CXCursor child, CXCursor, CXClientData data) {
        CXSourceRange r = clang_getCursorExtent(child);
        unsigned begin = 0, end = 0;
        clang_getFileLocation(clang_getRangeStart(r), nullptr, nullptr, nullptr, &begin);
        clang_getFileLocation(clang_getRangeEnd(r), nullptr, nullptr, nullptr, &end);
        static_cast<std::vector<std::pair<unsigned, unsigned>>*>(data)->emplace_back(begin, end);
        return CXChildVisit_Continue;
      },
      &out);
  return out;
}

}  // namespace

// A prototype whose name a macro spells that the file's own parse does not define
// (`#define pred_dc x264_template(pred_dc)` then `void pred_dc( uint8_t *src );` in a header
// clangd opens alone): clang reads `x264_template(pred_dc)` as a declarator with an identifier
// list, so the parameter list after it makes a function returning a function, and rejects the
// declaration whole, keeping no parameter. clangd's selection then finds no node under any word
// of it but the declaration, so its go-to-definition answers that very declaration (each one of
// the header's, not the first) and its references are the function's, without the word's place.
// Each identifier of the declaration no child covers and the indexer reported nothing at gets an
// unlisted reference to the function and, where a macro spells its name, for go-to-definition
// an expanded reference to a symbol spelling the declaration's place (views/ClangFacts:
// calledDefinitionsUsr), the mechanism TypeScript's recorded answers use. Words before the name
// get only the latter here: invalidTypeNames gives them the reference. A function rejected for
// an unknown type (`bool f(tsdn_t *t, bool b);` without <stdbool.h>) that clang kept apart from
// some parameters is answered the same way at the words no parameter kept: its definition, from
// the references, as clangd's does.
void addInvalidDeclarationWords(Collector& c, CXTranslationUnit tu, CXCursor function,
                                const Places& indexed) {
  CXSourceRange extent = clang_getCursorExtent(function);
  CXFile file = nullptr, endFile = nullptr, nameFile = nullptr;
  unsigned start = 0, end = 0, nameOffset = 0;
  clang_getFileLocation(clang_getRangeStart(extent), &file, nullptr, nullptr, &start);
  clang_getFileLocation(clang_getRangeEnd(extent), &endFile, nullptr, nullptr, &end);
  clang_getFileLocation(clang_getCursorLocation(function), &nameFile, nullptr, nullptr, &nameOffset);
  int64_t id = c.fileId(file);
  if (id < 0 || !clang_File_isEqual(file, endFile) || !clang_File_isEqual(file, nameFile) || nameOffset < start) return;
  std::string usr = take(clang_getCursorUSR(function));
  if (usr.empty()) return;
  const auto fileId = static_cast<uint32_t>(id);
  uint32_t symbol = c.usrId(usr, take(clang_getCursorSpelling(function)).c_str());
  // Where a macro spells the declaration's name, the name is the macro's (`x264_template`),
  // which nothing defines: go-to-definition answers this declaration. Any other function's
  // answer is its own (its definition in a source file), from the unlisted references.
  std::optional<CalledLocation> place;
  if (c.inExpansion(fileId, nameOffset)) place = declarationPlace(c, fileId, nameOffset, symbol);
  const uint32_t answer = place ? c.usrId(calledDefinitionsUsr({*place}), nullptr) : Collector::kNoUsr;
  const std::vector<std::pair<unsigned, unsigned>> children = childExtents(function);
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(tu, extent, &tokens, &n);
  for (unsigned i = 0; i < n; ++i) {
    if (clang_getTokenKind(tokens[i]) != CXToken_Identifier) continue;
    CXSourceLocation at = clang_getTokenLocation(tu, tokens[i]);
    CXFile tokenFile = nullptr;
    unsigned offset = 0;
    clang_getFileLocation(at, &tokenFile, nullptr, nullptr, &offset);
    bool covered = false;
    for (const auto& [begin, stop] : children) covered = covered || (offset >= begin && offset < stop);
    if (!clang_File_isEqual(tokenFile, file) || offset == nameOffset || covered || indexed.count(placeKey(fileId, offset))) continue;
    if (offset > nameOffset) {
      size_t before = c.facts.occurrences.size();
      c.add(at, symbol, ClangRole::Reference, SymbolKind::Function, false, -1);
      if (c.facts.occurrences.size() == before) continue;
      c.facts.occurrences.back().unlisted = true;
    }
    if (answer != Collector::kNoUsr) c.addAt(fileId, offset, answer, ClangRole::Reference, SymbolKind::Unknown, /*expanded=*/true, /*macroBody=*/false);
  }
  if (tokens) clang_disposeTokens(tu, tokens, n);
}

// A parameter of a function pointer's type (a field's, a variable's, a typedef's, a parameter's:
// `void (*time_init)(void (*after_hook)(void *), void *anything);` in chrony's rtc.c): clangd's
// go-to-definition at its name, or at a type of its clang did not know (`void (*denoise_dct)(
// dctcoef *dct, udctcoef *offset );` in x264's quant.h opened alone), answers the parameter; it
// lists no references (no index holds such a parameter). The indexer reports none of these, so
// the parameter gets a declaration of its own place, unlisted — reported once a session in a
// header, as a prototype's parameters are (Collector::leavesOut), unless clang rejected it: then
// each unit has it for invalidTypeNames to aim the type's words at. nullopt for any other
// parameter, and for one left out.
std::optional<uint32_t> addFunctionTypeParameter(Collector& c, CXCursor parameter, CXCursor parent) {
  CXCursorKind owner = clang_getCursorKind(parent);
  if (owner != CXCursor_FieldDecl && owner != CXCursor_VarDecl && owner != CXCursor_TypedefDecl &&
      owner != CXCursor_TypeAliasDecl && owner != CXCursor_ParmDecl)
    return std::nullopt;
  CXSourceLocation location = clang_getCursorLocation(parameter);
  CXFile file = nullptr;
  unsigned offset = 0;
  clang_getFileLocation(location, &file, nullptr, nullptr, &offset);
  int64_t id = c.fileId(file);
  if (id < 0 || c.inExpansion(static_cast<uint32_t>(id), offset)) return std::nullopt;
  const auto at = static_cast<uint32_t>(id);
  const bool once = !clang_isInvalidDeclaration(parameter);
  if (once && c.leavesOut(at, offset, parameter)) return std::nullopt;
  std::string name = take(clang_getCursorSpelling(parameter));
  if (name.empty()) return std::nullopt;
  std::string usr = std::string(kParameterUsr) + c.facts.files[static_cast<size_t>(id)] + "@" + std::to_string(offset);
  uint32_t symbol = c.usrId(usr, name.c_str());
  size_t before = c.facts.occurrences.size();
  c.add(location, symbol, ClangRole::Declaration, SymbolKind::Parameter, false, -1);
  if (c.facts.occurrences.size() == before) return std::nullopt;
  c.facts.occurrences.back().unlisted = true;
  if (once && c.facts.occurrences.back().offset == offset) c.reports(at, offset, parameter);
  return symbol;
}

}  // namespace nib::clangindex
