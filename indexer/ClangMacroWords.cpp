// Words of a repository macro's replacement list that name what only a system header declares:
// `#define LOG(...) fprintf(stderr, __VA_ARGS__)` in a logging header, `#define CHECK(c)
// assert(c)`. The preprocessor keeps no cursor at a word of a definition, so libclang reports
// nothing there; and where no code of the repository names the entity itself (the macro is never
// expanded, or `assert` is met only inside CHECK's expansion, which libclang reports as CHECK's)
// nib had no symbol of that name to answer with. clangd 14 answers such a word with the macro in
// effect there (stdio.h's `#define stderr stderr`), else with its index's symbols of that name,
// and its background index holds the system headers' declarations too (`fprintf` in stdio.h).
// So the unit records, for each such word, what its top level outside the repository defines or
// declares by that name: the last macro definition (the one in effect once the headers were
// read), else the declarations, each where clangd's go-to-definition goes (noteOutsideTarget).
// So do the words of code the preprocessor left out, which clangd answers by the bare word from
// its index (Exiv2's `#define timegm _mkgmtime` for MSVC: time.h's timegm), and which may name a
// member of a system header's struct (chrony's `uid` in a NetBSD section: ipc-perm.h's field).
#include <algorithm>

#include "indexer/ClangCollector.h"
#include "support/CodeIdentifiers.h"

namespace nib::clangindex {
namespace {

std::string_view wordAt(std::string_view text, size_t at) {
  size_t end = at;
  while (end < text.size() && Collector::identifierChar(text[end])) ++end;
  return text.substr(at, end - at);
}

// Records the outside target of `cursor` if its name is one of the unit's macro words: a macro
// definition (the latest first) once per name, a declaration once per entity.
void considerCandidate(Collector& c, CXCursor cursor, std::unordered_set<std::string>& macrosFound) {
  CXCursorKind kind = clang_getCursorKind(cursor);
  // Most candidates are not wanted: their spelling is looked at without a copy.
  CXString spelling = clang_getCursorSpelling(cursor);
  const char* chars = clang_getCString(spelling);
  bool wanted = chars && *chars && c.replacementWords.count(std::string_view(chars)) > 0;
  std::string name = wanted ? chars : "";
  clang_disposeString(spelling);
  if (!wanted) return;
  if (kind == CXCursor_MacroDefinition && !macrosFound.insert(name).second) return;
  CXFile file = nullptr;
  clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, nullptr);
  // A predefined macro has no file; the repository's own declarations have their sites.
  if (!file || c.fileId(file) >= 0) return;
  std::string usr = take(clang_getCursorUSR(cursor));
  if (usr.empty()) return;
  uint32_t id = c.usrId(usr, name.c_str());
  size_t before = c.facts.outsideTargets.size();
  noteOutsideTarget(c, id, cursor);
  if (c.facts.outsideTargets.size() == before) return;
  ClangOutsideTarget& t = c.facts.outsideTargets.back();
  t.macroWord = true;
  t.kind = static_cast<uint8_t>(kind == CXCursor_MacroDefinition ? SymbolKind::Macro : kindOf(entityKindOf(kind)));
}

bool recordKind(CXCursorKind kind) {
  return kind == CXCursor_StructDecl || kind == CXCursor_UnionDecl || kind == CXCursor_EnumDecl;
}

// A system header's struct, union or enum: its members and nested tags are candidates too, as
// clangd's index holds them and answers a word by any symbol of that name (ipc-perm.h's `uid`
// field for the word `uid` in a platform's section chrony's build leaves out).
void considerMembers(Collector& c, CXCursor record, std::unordered_set<std::string>& macrosFound) {
  struct Visit {
    Collector* c;
    std::unordered_set<std::string>* macrosFound;
  } visit{&c, &macrosFound};
  clang_visitChildren(
      record,
      [](CXCursor child, CXCursor, CXClientData data) {
        auto* v = static_cast<Visit*>(data);
        CXCursorKind kind = clang_getCursorKind(child);
        if (kind == CXCursor_FieldDecl || kind == CXCursor_EnumConstantDecl) considerCandidate(*v->c, child, *v->macrosFound);
        if (!recordKind(kind)) return CXChildVisit_Continue;
        considerCandidate(*v->c, child, *v->macrosFound);
        return CXChildVisit_Recurse;
      },
      &visit);
}

}  // namespace

void noteMacroWords(Collector& c, uint32_t id, uint32_t begin, uint32_t end) {
  const std::string& text = c.contentOf(id);
  if (end > text.size() || begin >= end) return;
  std::string_view definition(text.data() + begin, end - begin);
  // The macro's name, then a function-like macro's parameters (a `(` right after the name).
  size_t body = wordAt(definition, 0).size();
  std::vector<std::string_view> parameters;
  if (body < definition.size() && definition[body] == '(') {
    size_t close = definition.find(')', body);
    if (close == std::string_view::npos) return;
    for (size_t at = body + 1; at < close; ++at)
      if (Collector::identifierChar(definition[at]) && !Collector::identifierChar(definition[at - 1]))
        parameters.push_back(wordAt(definition, at));
    body = close + 1;
  }
  std::string_view list = definition.substr(body);
  for (uint32_t start : codeIdentifierStarts(list, Language::Cpp)) {
    std::string_view word = wordAt(list, start);
    if (word == "__VA_ARGS__" || word == "__VA_OPT__" ||
        std::find(parameters.begin(), parameters.end(), word) != parameters.end())
      continue;
    c.replacementWords.emplace(word);
  }
}

void noteSkippedWords(Collector& c) {
  using Ranges = std::unordered_map<uint64_t, std::vector<std::string_view>>;
  std::vector<Ranges*> byFile;  // the session's record of each file's ranges, found once a unit
  for (const ClangSkipped& k : c.facts.skipped) {
    const std::string& text = c.contentOf(k.file);
    if (k.end > text.size() || k.start >= k.end) continue;
    std::string_view code(text.data() + k.start, k.end - k.start);
    if (!c.session) {
      for (uint32_t at : codeIdentifierStarts(code, Language::Cpp)) c.replacementWords.emplace(wordAt(code, at));
      continue;
    }
    if (k.file >= byFile.size()) byFile.resize(c.facts.files.size(), nullptr);
    if (!byFile[k.file]) byFile[k.file] = &c.session->skippedWords[c.facts.files[k.file]];
    auto [words, added] = byFile[k.file]->try_emplace(static_cast<uint64_t>(k.start) << 32 | k.end);
    if (added) {
      for (uint32_t at : codeIdentifierStarts(code, Language::Cpp)) words->second.push_back(wordAt(code, at));
      std::sort(words->second.begin(), words->second.end());
      words->second.erase(std::unique(words->second.begin(), words->second.end()), words->second.end());
    }
    c.replacementWords.insert(words->second.begin(), words->second.end());
  }
}

void resolveMacroWords(Collector& c) {
  std::vector<CXCursor> candidates;
  candidates.swap(c.outsideCandidates);
  if (c.replacementWords.empty()) return;
  std::unordered_set<std::string> macrosFound;
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    CXCursorKind kind = clang_getCursorKind(*it);
    if (kind != CXCursor_LinkageSpec && kind != CXCursor_UnexposedDecl) {
      considerCandidate(c, *it, macrosFound);
      // In C units only: libstdc++'s classes hold thousands of members a C++ unit would visit.
      if (!c.cplusplus && recordKind(kind)) {
        CXFile file = nullptr;
        clang_getFileLocation(clang_getCursorLocation(*it), &file, nullptr, nullptr, nullptr);
        if (file && c.fileId(file) < 0) considerMembers(c, *it, macrosFound);
      }
      continue;
    }
    // A system header's `extern "C" {` block (glibc's __BEGIN_DECLS, in C++) holds its functions.
    std::vector<CXCursor> inside;
    clang_visitChildren(
        *it,
        [](CXCursor child, CXCursor, CXClientData data) {
          if (clang_isDeclaration(clang_getCursorKind(child)))
            static_cast<std::vector<CXCursor>*>(data)->push_back(child);
          return CXChildVisit_Continue;
        },
        &inside);
    for (CXCursor child : inside) considerCandidate(c, child, macrosFound);
  }
  c.replacementWords.clear();
}

}  // namespace nib::clangindex
