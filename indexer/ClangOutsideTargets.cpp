// Where clangd's go-to-definition goes for an entity declared outside the repository: a C
// library function (string.h's `memcpy`), a typedef (`size_t` in the compiler's stddef.h), a
// standard-library template and its members (`std::vector`, `push_back`), a system header's
// macro (`NULL`, gtest.h's `ASSERT_EQ`), `namespace std`. clangd answers the definition its AST
// or index has, else the entity's canonical (first) declaration, each at the name's place;
// libclang gives both for the entity a reference names.
#include <cctype>
#include <optional>

#include "indexer/ClangCollector.h"

namespace nib::clangindex {
namespace {

// The declaration clangd's go-to-definition answers for `referenced`: a macro's definition is
// the one in effect; a namespace is "defined" by every block, so its first one (canonical); any
// other entity's definition where the unit has one (a typedef is its own), else its first
// declaration (`memcpy`'s in string.h; clang's implicit builtin one has no place: nothing).
CXCursor answeredDeclaration(CXCursor referenced, bool* definition) {
  CXCursorKind kind = clang_getCursorKind(referenced);
  *definition = kind == CXCursor_MacroDefinition;
  if (kind == CXCursor_MacroDefinition) return referenced;
  if (kind == CXCursor_Namespace) return clang_getCanonicalCursor(referenced);
  // Every typedef of a name is a definition to clangd's index, which keeps the first its unit
  // met, where clang's lookup names the last (glibc's glob.h declares size_t again after
  // stddef.h under _GNU_SOURCE: clangd 14 goes to stddef.h's, or to glob.h's where that came
  // first).
  if (kind == CXCursor_TypedefDecl || kind == CXCursor_TypeAliasDecl) {
    *definition = true;
    return clang_getCanonicalCursor(referenced);
  }
  CXCursor found = clang_getCursorDefinition(referenced);
  if (!clang_Cursor_isNull(found) && !clang_isInvalid(clang_getCursorKind(found))) {
    *definition = true;
    return found;
  }
  return clang_getCanonicalCursor(referenced);
}

bool functionKind(CXCursorKind kind) {
  return kind == CXCursor_FunctionDecl || kind == CXCursor_CXXMethod || kind == CXCursor_Constructor ||
         kind == CXCursor_Destructor || kind == CXCursor_ConversionFunction || kind == CXCursor_FunctionTemplate;
}

// A C++ unit's indexing session skips every function body of a system header
// (CXIndexOpt_SkipParsedBodiesInSession), so a function declared first and defined further down
// the header (gtest.h's `int RUN_ALL_TESTS() GTEST_MUST_USE_RESULT_;`, then `inline int
// RUN_ALL_TESTS() { ... }`) has no definition in any unit, where clangd's index, whose first unit
// reads the header whole, has one and answers it. The body-less redeclaration is found by its name
// after the first declaration in the same file: the same entity, whose extent ends where the
// skipped body's brace (or a constructor's initializers) begins. C library prototypes (C linkage,
// no signature in the USR) are never defined in a header, and are not looked at.
std::optional<CXCursor> skippedDefinition(Collector& c, CXCursor declaration) {
  if (!c.cplusplus || !functionKind(clang_getCursorKind(declaration))) return std::nullopt;
  std::string usr = take(clang_getCursorUSR(declaration));
  std::string name = take(clang_getCursorSpelling(declaration));
  name = name.substr(0, name.find_first_of("<( "));
  if (usr.find('#') == std::string::npos || name.empty() || name.rfind("operator", 0) == 0) return std::nullopt;
  std::optional<Collector::Place> declared = c.placeOf(declaration);
  if (!declared) return std::nullopt;
  CXFile file = declared->file;
  const unsigned offset = declared->offset;
  const std::string& text = c.outsideText(declared->path);
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(declaration);
  auto identifier = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  int looked = 0;  // a name spelt all over the header is not worth a long search
  for (size_t at = text.find(name, offset + name.size()); at != std::string::npos && looked < 16; at = text.find(name, at + 1)) {
    if ((at > 0 && identifier(text[at - 1])) || (at + name.size() < text.size() && identifier(text[at + name.size()]))) continue;
    ++looked;
    CXCursor there = clang_getCursor(tu, clang_getLocationForOffset(tu, file, static_cast<unsigned>(at)));
    if (!functionKind(clang_getCursorKind(there)) || take(clang_getCursorUSR(there)) != usr) continue;
    if (clang_isCursorDefinition(there)) return there;
    unsigned end = 0;
    clang_getFileLocation(clang_getRangeEnd(clang_getCursorExtent(there)), nullptr, nullptr, nullptr, &end);
    while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    if (end < text.size() && (text[end] == '{' || text[end] == ':')) return there;
  }
  return std::nullopt;
}

// The place of `answered`, a declaration outside the repository, as the answer for `usr`.
void recordOutsideTarget(Collector& c, uint32_t usr, CXCursor answered, bool definition) {
  // Where the name is: a declaration a macro of the system header writes is where the file spells
  // the macro's argument, else at the macro's use (the file location, as clangd's nameLocation).
  unsigned line = 0, column = 0;
  clang_getFileLocation(clang_getCursorLocation(answered), nullptr, &line, &column, nullptr);
  std::optional<Collector::Place> place = c.placeOf(answered);
  // Nowhere in a file (a predefined macro), or in the repository after all.
  if (!place || line == 0 || c.fileId(place->file) >= 0) return;
  ClangOutsideTarget t;
  t.definition = definition;
  t.usr = usr;
  t.path = place->path;
  t.line = line - 1;
  t.column = column - 1;
  const unsigned offset = place->offset;
  t.offset = offset;
  // The token there, as clangd's range: the name, or one character (a destructor's `~`).
  const std::string& text = c.outsideText(t.path);
  t.length = static_cast<uint32_t>(Collector::identifierAt(text, offset).size());
  if (t.length == 0) t.length = 1;
  c.facts.outsideTargets.push_back(std::move(t));
}

// Whether `usr` is looked at for the first time (each is looked at once).
bool firstLook(Collector& c, uint32_t usr) {
  if (usr >= c.outsideLooked.size()) c.outsideLooked.resize(c.facts.usrs.size(), false);
  if (usr >= c.outsideLooked.size() || c.outsideLooked[usr]) return false;
  c.outsideLooked[usr] = true;
  return true;
}

}  // namespace

void noteOutsideTarget(Collector& c, uint32_t usr, CXCursor referenced) {
  if (clang_Cursor_isNull(referenced) || !firstLook(c, usr)) return;
  // Declared in the repository, its own sites answer — but a namespace the repository reopens,
  // whose first block may lie outside it (`std`: the block a reference names is the last one).
  CXFile declared = nullptr;
  clang_getFileLocation(clang_getCursorLocation(referenced), &declared, nullptr, nullptr, nullptr);
  if (declared && c.fileId(declared) >= 0 && clang_getCursorKind(referenced) != CXCursor_Namespace) return;
  bool definition = false;
  CXCursor answered = answeredDeclaration(referenced, &definition);
  if (!definition)
    if (std::optional<CXCursor> skipped = skippedDefinition(c, answered)) answered = *skipped, definition = true;
  recordOutsideTarget(c, usr, answered, definition);
}

void noteOutsideDeclaration(Collector& c, uint32_t usr, CXCursor declaration, bool definition) {
  if (!clang_Cursor_isNull(declaration) && firstLook(c, usr)) recordOutsideTarget(c, usr, declaration, definition);
}

}  // namespace nib::clangindex
