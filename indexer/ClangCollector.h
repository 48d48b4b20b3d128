// What one translation unit's indexing collects (libclang only: the `nib-clang` worker): the
// facts under construction with their file and USR tables, shared by the indexer callbacks and
// the preprocessing record (ClangIndexer.cpp) and the walk of the AST for the names libclang's
// indexer does not report (ClangAstNames.cpp). Internal to indexer/.
#pragma once

#include <clang-c/Index.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "indexer/ClangIndexer.h"
#include "indexer/ClangSessionFiles.h"
#include "support/FlatSet.h"
#include "support/Language.h"
#include "support/StringMap.h"
#include "views/FileFacts.h"

namespace nib::clangindex {
namespace fs = std::filesystem;

inline std::string take(CXString s) {
  const char* c = clang_getCString(s);
  std::string out = c ? c : "";
  clang_disposeString(s);
  return out;
}

// The indexer's kind of a declaration cursor's entity (what the indexer would report for it).
inline CXIdxEntityKind entityKindOf(CXCursorKind kind) {
  switch (kind) {
    case CXCursor_Namespace: return CXIdxEntity_CXXNamespace;
    case CXCursor_ClassDecl: case CXCursor_ClassTemplate: return CXIdxEntity_CXXClass;
    case CXCursor_StructDecl: return CXIdxEntity_Struct;
    case CXCursor_UnionDecl: return CXIdxEntity_Union;
    case CXCursor_EnumDecl: return CXIdxEntity_Enum;
    case CXCursor_EnumConstantDecl: return CXIdxEntity_EnumConstant;
    case CXCursor_TypedefDecl: return CXIdxEntity_Typedef;
    case CXCursor_TypeAliasDecl: case CXCursor_TypeAliasTemplateDecl: return CXIdxEntity_CXXTypeAlias;
    case CXCursor_FunctionDecl: case CXCursor_FunctionTemplate: return CXIdxEntity_Function;
    case CXCursor_CXXMethod: return CXIdxEntity_CXXInstanceMethod;
    case CXCursor_VarDecl: return CXIdxEntity_Variable;
    case CXCursor_FieldDecl: return CXIdxEntity_Field;
    default: return CXIdxEntity_Unexposed;
  }
}

inline SymbolKind kindOf(CXIdxEntityKind k) {
  switch (k) {
    case CXIdxEntity_Function: return SymbolKind::Function;
    case CXIdxEntity_CXXInstanceMethod:
    case CXIdxEntity_CXXStaticMethod:
    case CXIdxEntity_CXXDestructor:
    case CXIdxEntity_CXXConversionFunction: return SymbolKind::Method;
    case CXIdxEntity_CXXConstructor: return SymbolKind::Constructor;
    case CXIdxEntity_Variable:
    case CXIdxEntity_CXXStaticVariable: return SymbolKind::Variable;
    case CXIdxEntity_Field: return SymbolKind::Field;
    case CXIdxEntity_EnumConstant: return SymbolKind::EnumMember;
    case CXIdxEntity_Struct: return SymbolKind::Struct;
    case CXIdxEntity_Union: return SymbolKind::Union;
    case CXIdxEntity_CXXClass: return SymbolKind::Class;
    case CXIdxEntity_Enum: return SymbolKind::Enum;
    case CXIdxEntity_Typedef:
    case CXIdxEntity_CXXTypeAlias: return SymbolKind::TypeAlias;
    case CXIdxEntity_CXXNamespace:
    case CXIdxEntity_CXXNamespaceAlias: return SymbolKind::Namespace;
    default: return SymbolKind::Unknown;
  }
}

// Places in a unit's files, (file id, offset) as one word: placeKey.
using Places = std::unordered_set<uint64_t>;
inline uint64_t placeKey(uint32_t file, uint32_t offset) { return static_cast<uint64_t>(file) << 32 | offset; }

struct Collector {
  std::string root;  // canonical, with a trailing '/'
  TuFacts facts;
  // The parse reported a fatal error: a header not found, or clang's error limit reached (then
  // the second parse with a preamble, ClangSession::index, costs time and changes little).
  bool fatal = false;
  // An error in the main file itself: where clangd's parse, which corrects typos, may differ.
  bool mainFileError = false;
  std::vector<CXFile> errorFiles;  // where the errors are
  // Looked up with the C strings libclang hands over, without making a string each time.
  StringMap<uint32_t> fileIds;
  StringIndex usrIds;  // over facts.usrs
  FlatMap128<int64_t> fileCache;  // by (CXFile, 0); -1: outside the root
  CXFile lastFile = nullptr;
  int64_t lastFileId = -1;
  // What a worker session's units share about files (see SessionFiles); null: nothing shared.
  SessionFiles* session = nullptr;
  bool cplusplus = false;  // the unit is C++ (a C unit has no using-declarations to look for)
  // The header sites the session's earlier units reported are left out (TuFacts::sitesLeftOut);
  // `mainPath` is the unit's main file, canonical, never left out.
  bool leaveOutReportedSites = false;
  std::string mainPath;
  std::vector<std::pair<uint32_t, uint32_t>> sitesReported;  // the session learns them as the unit ends
  // By file id: the session's reported sites of a header this unit may leave out, else null;
  // looked up at the file's first such site.
  std::vector<std::unordered_set<uint32_t>*> reportedSets;
  std::vector<char> reportedLooked;
  // The session's record of file `id`'s reported sites, or null where the unit reports every
  // site: one outside a repository header, a system header (whose macros clang names by their
  // place only outside them), or a source file (one another unit compiles answers with that
  // unit's facts, UnitMerge's `foreign` sites). `at`: a cursor in the file.
  std::unordered_set<uint32_t>* reportedIn(uint32_t id, CXCursor at) {
    if (!leaveOutReportedSites || !session) return nullptr;
    if (id >= reportedLooked.size()) {
      reportedLooked.resize(facts.files.size(), 0);
      reportedSets.resize(facts.files.size(), nullptr);
    }
    if (!reportedLooked[id]) {
      reportedLooked[id] = 1;
      const std::string& path = facts.files[id];
      if (path != mainPath && !isCFamilySourceFile(path) && !clang_Location_isInSystemHeader(clang_getCursorLocation(at)))
        reportedSets[id] = &session->reportedSites[path];
    }
    return reportedSets[id];
  }
  // Whether the site at `offset` of file `id` (a macro's definition, a prototype's parameter: an
  // entity named by its place, whose one site every unit reads alike) is one the session
  // reported already: then the unit leaves it out, and says so.
  bool leavesOut(uint32_t id, uint32_t offset, CXCursor at) {
    std::unordered_set<uint32_t>* reported = reportedIn(id, at);
    if (!reported || !reported->count(offset)) return false;
    facts.sitesLeftOut.emplace_back(id, offset);
    return true;
  }
  // The unit reports the site at `offset` of file `id`: the session learns it when the unit ends.
  void reports(uint32_t id, uint32_t offset, CXCursor at) {
    if (reportedIn(id, at)) sitesReported.emplace_back(id, offset);
  }
  // Whether the site at `offset` of file `id` was left out (the session's record does not change
  // while a unit runs).
  bool leftOut(uint32_t id, uint32_t offset) const {
    return id < reportedSets.size() && reportedSets[id] && reportedSets[id]->count(offset);
  }
  // A header's macro expansions, once the unit's passes are done: left out where an earlier unit
  // of the session reported the very same set there (TuFacts::expansionsLeftOut), in the
  // headers whose sites a session reports once (reportedIn). What the unit's passes read of them
  // (the macros' bodies, arguments pasted, code left out) was read before.
  std::vector<std::pair<uint32_t, uint64_t>> expansionsReported;
  void leaveOutReportedExpansions() {
    if (!leaveOutReportedSites || !session) return;
    std::vector<uint64_t> digests = expansionDigests(facts);
    std::vector<char> leftOut(digests.size(), 0);
    for (uint32_t id = 0; id < digests.size() && id < reportedSets.size(); ++id) {
      if (!digests[id] || !reportedSets[id]) continue;
      if (session->reportedExpansions[facts.files[id]].count(digests[id])) {
        leftOut[id] = 1;
        facts.expansionsLeftOut.emplace_back(id, digests[id]);
      } else {
        expansionsReported.emplace_back(id, digests[id]);
      }
    }
    if (facts.expansionsLeftOut.empty()) return;
    std::erase_if(facts.occurrences, [&](const ClangOccurrence& o) {
      return o.role == ClangRole::Reference && static_cast<SymbolKind>(o.kind) == SymbolKind::Macro && o.file < leftOut.size() &&
             leftOut[o.file];
    });
  }
  // The session learns what the unit reported (when its facts are sent).
  void teachSession() {
    if (!session) return;
    for (const auto& [id, offset] : sitesReported) session->reportedSites[facts.files[id]].insert(offset);
    for (const auto& [id, digest] : expansionsReported) session->reportedExpansions[facts.files[id]].insert(digest);
  }
  std::unordered_map<std::string, std::string> texts;  // by canonical path, read on first use (no session)
  struct Pending {
    uint32_t file, offset, usr;
    ClangRole role;
    SymbolKind kind;
    size_t order;  // how many occurrences came before it: where its sites go in the TU's order
  };
  std::vector<Pending> pending;  // declarations spelt in a macro body
  // Each attribute a declaration of the repository lists at a place in a repository file (the
  // attribute's name: `nonnull` of `__attribute__((nonnull(1)))`), with the declared entity: its
  // written words answer the entity (addAttributeWords).
  struct AttributeAt {
    uint32_t file, offset, usr;
    SymbolKind kind;
    // The declaration's file, its extent's start and its name there (none: UINT32_MAX).
    uint32_t declarationFile = UINT32_MAX, start = 0, name = UINT32_MAX;
  };
  std::vector<AttributeAt> attributes;
  // The byte extents of the namespace blocks and class, struct, union and enum definitions, by
  // file: an #include inside one enters its file in that scope (an enclosed inclusion).
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> scopes;
  // The byte extents of `extern "C"` blocks by file, and the files that open one of their own:
  // an #include inside such a block in a file that opens none is an extern "C" inclusion.
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> linkageBlocks;
  std::unordered_set<uint32_t> ownLinkage;
  // The offsets file `id`'s lines start at (only '\n' ends one), null for a file holding a '\r',
  // which clang also takes for a line break: clang's own line numbers are asked for there.
  // Found once a session (SessionFiles::lineStarts), and once a unit by the file's id.
  const std::vector<uint32_t>* lineStartsOf(uint32_t id) {
    if (id >= lineStartsKnown.size()) lineStartsKnown.resize(facts.files.size(), 0), lineStartsById.resize(facts.files.size());
    if (!lineStartsKnown[id]) {
      lineStartsKnown[id] = 1;
      auto [starts, added] = (session ? session->lineStarts : ownLineStarts).try_emplace(facts.files[id]);
      const std::string& text = contentOf(id);
      if (added && text.find('\r') == std::string::npos) {
        starts->second.push_back(0);
        for (uint32_t i = 0; i < text.size(); ++i)
          if (text[i] == '\n') starts->second.push_back(i + 1);
      }
      lineStartsById[id] = starts->second.empty() ? nullptr : &starts->second;
    }
    return lineStartsById[id];
  }
  std::vector<char> lineStartsKnown;
  std::vector<const std::vector<uint32_t>*> lineStartsById;
  std::unordered_map<std::string, std::vector<uint32_t>> ownLineStarts;  // without a session
  // The 1-based line and column of `offset` in file `id`, as clang_getFileLocation gives them,
  // from the file's text: asking clang costs a unit a second for a million occurrences.
  void lineAndColumn(CXSourceLocation location, uint32_t id, unsigned offset, unsigned* line, unsigned* column) {
    const std::vector<uint32_t>* starts = lineStartsOf(id);
    if (!starts || offset > contentOf(id).size()) {
      clang_getFileLocation(location, nullptr, line, column, nullptr);
      return;
    }
    auto after = std::upper_bound(starts->begin(), starts->end(), offset);
    *line = static_cast<unsigned>(after - starts->begin());
    *column = offset - *(after - 1) + 1;
  }
  // Macro invocations (name through closing parenthesis) by file: what a macro's body names is
  // reported at the start of the outermost one.
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> expansions;
  // Where each macro invocation's name starts, as (file id << 32 | offset).
  std::unordered_set<uint64_t> expansionStarts;
  // A name a macro's body spells like the macro (`#define current tok->stack[d].current`) is
  // reported at the invocation, which then spells both: the macro is the name written there, the
  // field one its body names (flagged expanded, as `spelt` flags a body's other names). So is a
  // declaration a macro of its own name makes (XZ Utils' `#define tuklib_progname_init
  // TUKLIB_SYMBOL(tuklib_progname_init)`, which pastes an optional prefix): clangd answers the
  // macro at each of its names.
  void flagNamesOfMacroBodies() {
    for (ClangOccurrence& o : facts.occurrences)
      if (!o.expanded && static_cast<SymbolKind>(o.kind) != SymbolKind::Macro &&
          expansionStarts.count(static_cast<uint64_t>(o.file) << 32 | o.offset))
        o.expanded = true;
  }
  // A cursor's extent in one repository file: (file id, start, end byte), end after start.
  struct Extent {
    uint32_t file, start, end;
  };
  std::optional<Extent> extentOf(CXCursor cursor) {
    CXSourceRange extent = clang_getCursorExtent(cursor);
    CXFile file, endFile;
    unsigned start, end;
    clang_getFileLocation(clang_getRangeStart(extent), &file, nullptr, nullptr, &start);
    clang_getFileLocation(clang_getRangeEnd(extent), &endFile, nullptr, nullptr, &end);
    int64_t id = fileId(file);
    if (id < 0 || !clang_File_isEqual(file, endFile) || end <= start) return std::nullopt;
    return Extent{static_cast<uint32_t>(id), start, end};
  }
  void addScope(CXCursor definition) {
    if (std::optional<Extent> e = extentOf(definition)) scopes[e->file].emplace_back(e->start, e->end);
  }
  bool inScope(uint32_t file, uint32_t offset) const {
    auto it = scopes.find(file);
    if (it == scopes.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(), [&](const auto& s) { return s.first < offset && offset < s.second; });
  }
  bool inLinkageBlock(uint32_t file, uint32_t offset) const {
    auto it = linkageBlocks.find(file);
    if (it == linkageBlocks.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(), [&](const auto& s) { return s.first < offset && offset < s.second; });
  }
  bool inExpansion(uint32_t file, uint32_t offset) const {
    auto it = expansions.find(file);
    if (it == expansions.end()) return false;
    auto e = std::upper_bound(it->second.begin(), it->second.end(), std::make_pair(offset, UINT32_MAX));
    return e != it->second.begin() && std::prev(e)->second >= offset;
  }
  void sortExpansions() {
    // Sorted and merged (an invocation inside another's arguments is recorded too), so that the
    // last one starting at or before an offset is the one that could hold it.
    for (auto& [file, ranges] : expansions) {
      std::sort(ranges.begin(), ranges.end());
      std::vector<std::pair<uint32_t, uint32_t>> merged;
      for (const auto& r : ranges)
        if (!merged.empty() && r.first <= merged.back().second) merged.back().second = std::max(merged.back().second, r.second);
        else merged.push_back(r);
      ranges = std::move(merged);
    }
  }
  // The macro definitions the unit met, by the definition's cursor (clang_hashCursor, then
  // clang_equalCursors): its USR's id, and for one left out (leavesOut), its file until another
  // file expands it (reportExpandedDefinition).
  struct SeenMacro {
    CXCursor definition;
    uint32_t usr;
    int64_t leftOutIn = -1;
    int8_t functionLike = -1;  // clang_Cursor_isMacroFunctionLike, asked once (-1: not yet)
  };
  std::unordered_multimap<unsigned, SeenMacro> macroUsrs;
  SeenMacro* seenMacro(CXCursor definition) {
    auto [first, last] = macroUsrs.equal_range(clang_hashCursor(definition));
    for (auto it = first; it != last; ++it)
      if (clang_equalCursors(it->second.definition, definition)) return &it->second;
    return nullptr;
  }
  SeenMacro& rememberMacro(CXCursor definition, uint32_t id) {
    SeenMacro seen{definition, id};
    if (!facts.sitesLeftOut.empty()) {
      CXFile file = nullptr;
      unsigned offset = 0;
      clang_getFileLocation(clang_getCursorLocation(definition), &file, nullptr, nullptr, &offset);
      int64_t in = fileId(file);
      if (in >= 0 && leftOut(static_cast<uint32_t>(in), offset)) seen.leftOutIn = in;
    }
    return macroUsrs.emplace(clang_hashCursor(definition), seen)->second;
  }

  // By USR id: whether noteOutsideTarget looked at the entity already (each is looked at once).
  std::vector<bool> outsideLooked;

  // The words of the replacement lists of the repository's macros this unit reports, and the
  // cursors outside the repository they may name: the top level's macro definitions, its
  // declarations and linkage blocks, in the unit's order (ClangMacroWords.cpp).
  std::unordered_set<std::string_view> replacementWords;
  std::vector<CXCursor> outsideCandidates;

  // Invocations of function-like macros in the repository's files, each with its macro's
  // definition (settlePastedArguments).
  std::vector<std::pair<CXCursor, CXCursor>> functionLikeInvocations;

  struct MacroBody {
    uint32_t file, begin, end;
    size_t order;  // the how-manyth definition the unit met
  };
  std::unordered_map<std::string, MacroBody> macros;  // by name: where its last definition's text is
  size_t definitionsMet = 0;
  // Definitions left out (leavesOut), each with its order: placed among `macros` only when
  // a macro's body is read (placeLeftOutDefinitions), which few units need.
  std::vector<std::pair<CXCursor, size_t>> leftOutDefinitions;
  void placeLeftOutDefinitions() {
    for (const auto& [cursor, order] : leftOutDefinitions) {
      CXFile file;
      unsigned begin, end;
      clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, &begin);
      clang_getFileLocation(clang_getRangeEnd(clang_getCursorExtent(cursor)), nullptr, nullptr, nullptr, &end);
      MacroBody body{static_cast<uint32_t>(fileId(file)), begin, end, order};
      CXString name = clang_getCursorSpelling(cursor);
      auto [it, added] = macros.try_emplace(clang_getCString(name), body);
      clang_disposeString(name);
      if (!added && it->second.order < order) it->second = body;
    }
    leftOutDefinitions.clear();
  }

  // Without the locale's isalnum: this runs over every macro body and every occurrence's text.
  static bool identifierChar(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
  }

  // Places each pending declaration where clangd's nameLocation puts it: at its name in the body
  // of the macro expanded where clang reported it, or in the body of a macro that body names
  // (UV_HANDLE_FIELDS naming UV_HANDLE_PRIVATE_FIELDS, whose body declares the field) — the
  // spelling libclang cannot give. Its twin stays at the expansion point, where clangd lists
  // it among references; a name the body does not spell (pasted with ##) is only there, for
  // both.
  void resolveMacroDeclarations() {
    // The placed sites go back where clang reported them in the TU's order (the first
    // declaration the build sees is a symbol's canonical one: `namespace fmt {` written by
    // FMT_BEGIN_NAMESPACE), not after everything else.
    std::vector<ClangOccurrence> rest = std::move(facts.occurrences);
    facts.occurrences.clear();
    facts.occurrences.reserve(rest.size() + 2 * pending.size());
    size_t next = 0;
    for (const Pending& p : pending) {
      for (; next < p.order && next < rest.size(); ++next) facts.occurrences.push_back(std::move(rest[next]));
      // Outside any macro invocation the name is merely spelt otherwise (an operator written
      // with spaces): the declaration is where clang reports it.
      if (!inExpansion(p.file, p.offset)) {
        addAt(p.file, p.offset, p.usr, p.role, p.kind, false, false);
        continue;
      }
      const std::string& text = contentOf(p.file);
      const std::string& name = facts.names[p.usr];
      auto spelling = name.empty() ? std::nullopt : findInMacro(identifierAt(text, p.offset), name);
      // A destructor's place is its `~`, which a macro's body spells even where it pastes the
      // class's name together (`~GTEST_TEST_CLASS_NAME_(suite, name)()` in every TEST): clangd
      // puts the destructor there.
      if (!spelling && name.size() > 1 && name[0] == '~') spelling = findInMacro(identifierAt(text, p.offset), "~");
      if (spelling) addAt(spelling->first, spelling->second, p.usr, p.role, p.kind, false, true);
      addAt(p.file, p.offset, p.usr, p.role, p.kind, true, false);
    }
    for (; next < rest.size(); ++next) facts.occurrences.push_back(std::move(rest[next]));
  }
  static std::string identifierAt(const std::string& text, uint32_t offset) {
    size_t end = offset;
    while (end < text.size() && identifierChar(text[end])) ++end;
    return offset < end ? text.substr(offset, end - offset) : std::string();
  }
  // What a macro's body holds for findInMacro, read once per unit: a unit declares hundreds of
  // names through a few macros (pcre2's PRIV(name), a test file's TEST), and scanning the bodies
  // again for each declaration was a third of the worker's time.
  struct MacroWords {
    uint32_t file = 0;
    std::unordered_map<std::string_view, uint32_t> first;  // each whole word's first offset
    std::vector<std::string> named;  // the macros the body names, in order, each once
    int64_t tilde = -1;              // the first `~` followed by a name (a destructor's)
  };
  std::unordered_map<std::string, std::optional<MacroWords>> macroWords;  // by macro name

  const MacroWords* macroWordsOf(const std::string& macro) {
    auto [slot, added] = macroWords.try_emplace(macro);
    if (!added) return slot->second ? &*slot->second : nullptr;
    placeLeftOutDefinitions();
    auto it = macros.find(macro);
    if (it == macros.end()) return nullptr;
    const std::string& body = contentOf(it->second.file);
    if (it->second.end > body.size()) return nullptr;
    MacroWords w;
    w.file = it->second.file;
    std::set<std::string_view> named;
    for (size_t at = it->second.begin; at < it->second.end;) {
      if (!identifierChar(body[at])) {
        if (body[at] == '~' && w.tilde < 0) {
          size_t after = at + 1;
          while (after < it->second.end && (body[after] == ' ' || body[after] == '\t')) ++after;
          if (after < it->second.end && identifierChar(body[after])) w.tilde = static_cast<int64_t>(at);
        }
        ++at;
        continue;
      }
      size_t end = at;
      while (end < it->second.end && identifierChar(body[end])) ++end;
      std::string_view word(body.data() + at, end - at);
      if (at == 0 || !identifierChar(body[at - 1])) w.first.try_emplace(word, static_cast<uint32_t>(at));
      if (macros.count(std::string(word)) && named.insert(word).second) w.named.emplace_back(word);
      at = end;
    }
    slot->second = std::move(w);
    return &*slot->second;
  }

  // The macros findInMacro searches from `macro`, in its order: the macro, then the ones its
  // body names breadth-first (a few levels: real FIELDS macros nest two or three deep), at most
  // 64. Kept per macro: a name the bodies do not spell (pasted with ##) walks all of them.
  std::unordered_map<std::string, std::vector<const MacroWords*>> macroReach;
  const std::vector<const MacroWords*>& reachOf(const std::string& macro) {
    auto [slot, added] = macroReach.try_emplace(macro);
    if (!added) return slot->second;
    std::vector<const std::string*> queue{&macro};
    std::set<std::string_view> seen{macro};
    for (size_t i = 0; i < queue.size() && i < 64; ++i) {
      const MacroWords* w = macroWordsOf(*queue[i]);
      if (!w) continue;
      slot->second.push_back(w);
      for (const std::string& next : w->named)
        if (seen.insert(next).second) queue.push_back(&next);
    }
    return slot->second;
  }

  // The first whole-word `name` in the bodies reachOf(macro) lists, in that order. `name` "~"
  // finds a destructor's tilde: a `~` followed by a name.
  std::optional<std::pair<uint32_t, uint32_t>> findInMacro(const std::string& macro, const std::string& name) {
    for (const MacroWords* w : reachOf(macro)) {
      if (name == "~") {
        if (w->tilde >= 0) return std::make_pair(w->file, static_cast<uint32_t>(w->tilde));
      } else if (auto found = w->first.find(name); found != w->first.end()) {
        return std::make_pair(w->file, found->second);
      }
    }
    return std::nullopt;
  }
  // A declaration placed by resolveMacroDeclarations: in a macro's body, or at the expansion.
  void addAt(uint32_t file, uint32_t offset, uint32_t usr, ClangRole role, SymbolKind kind, bool expanded, bool macroBody) {
    const std::string& text = contentOf(file);
    // The line from the file's line starts, found once per file (a test file declares hundreds
    // of TEST classes this way).
    uint32_t line = 0, lineStart = 0;
    if (const std::vector<uint32_t>* starts = lineStartsOf(file)) {
      auto after = std::upper_bound(starts->begin(), starts->end(), offset);
      line = static_cast<uint32_t>(after - starts->begin() - 1);
      lineStart = (*starts)[line];
    } else {
      for (uint32_t i = 0; i < offset && i < text.size(); ++i)
        if (text[i] == '\n') ++line, lineStart = i + 1;
    }
    // The identifier there: the name in the macro's text, or the macro's name at an expansion
    // (what clangd underlines).
    auto length = static_cast<uint32_t>(identifierAt(text, offset).size());
    if (length == 0) length = offset < text.size() && text[offset] == '~' ? 1 : static_cast<uint32_t>(facts.names[usr].size());
    push({file, line, offset - lineStart, offset, length, usr, role, false, -1, static_cast<uint8_t>(kind), expanded, macroBody});
  }
  void push(const ClangOccurrence& o) { facts.occurrences.push_back(o); }
  // A name only the AST resolves (see AstOnlyNames), where the source spells it: the recorded
  // occurrence, or nullptr when it lies outside the repository or in a macro's text.
  ClangOccurrence* addAstOnly(CXSourceLocation location, uint32_t usr, SymbolKind kind, ClangRole role, bool guessed,
                              bool unlisted) {
    CXFile file;
    unsigned line = 0, column = 0, offset;
    clang_getFileLocation(location, &file, nullptr, nullptr, &offset);
    int64_t id = fileId(file);
    if (id >= 0) lineAndColumn(location, static_cast<uint32_t>(id), offset, &line, &column);
    if (id < 0 || line == 0 || facts.names[usr].empty() || !spelt(static_cast<uint32_t>(id), offset, facts.names[usr]))
      return nullptr;
    ClangOccurrence o{static_cast<uint32_t>(id), line - 1, column - 1, offset, spelledLength(static_cast<uint32_t>(id), offset, facts.names[usr]),
                      usr, role, false, -1, static_cast<uint8_t>(kind), false, false};
    o.guessed = guessed;
    o.unlisted = unlisted;
    push(o);
    return &facts.occurrences.back();
  }

  // By file id, found by path once: a unit asks for its files' text at most of its occurrences.
  const std::string& contentOf(uint32_t id) {
    if (id < contentById.size() && contentById[id]) return *contentById[id];
    const std::string& text = outsideText(facts.files[id]);
    if (id >= contentById.size()) contentById.resize(facts.files.size(), nullptr);
    contentById[id] = &text;  // the maps of texts keep their elements in place
    return text;
  }
  std::vector<const std::string*> contentById;
  // The bytes of a file by its canonical path, in the repository or not (a system header's, where
  // an outside target's name ends).
  const std::string& outsideText(const std::string& path) {
    auto& cache = session ? session->texts : texts;
    auto it = cache.find(path);
    if (it != cache.end()) return it->second;
    return cache.emplace(path, readText(path)).first->second;
  }
  // The file's bytes; empty when it cannot be read.
  static std::string readText(const std::string& path) {
    std::string text;
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
      char buf[65536];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
      std::fclose(f);
    }
    return text;
  }
  // Whether the name is spelt at `offset`. Entities a macro's body names are reported at the
  // macro's expansion point (`TEST(` names a whole class and its members there; `INIT(RENAME)`
  // names the function's `loop`): references stay there, flagged, as clangd reports them;
  // declarations move to where the macro spells them (resolveMacroDeclarations).
  bool spelt(uint32_t id, uint32_t offset, const std::string& name) {
    size_t n = 0;
    while (n < name.size() && name[n] != '<' && name[n] != '(' && name[n] != ' ') ++n;
    if (n == 0) return true;
    const std::string& text = contentOf(id);
    if (offset + n > text.size() || text.compare(offset, n, name, 0, n) != 0) return false;
    // The whole word: `save` is not spelt at the expansion of `save_and_next(ls)`, whose body
    // calls it (lua's llex.c), where the macro is the name under the cursor.
    auto identifier = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
    return !(n == name.size() && identifier(name[n - 1]) && offset + n < text.size() && identifier(text[offset + n]));
  }

  // How long the name spelt at `offset` is: the whole of it where the text spells it whole
  // (`operator<<`), else the part before a template's arguments — clang names a class template's
  // constructor `GenericReader<SourceEncoding, TargetEncoding, StackAllocator>`, which the source
  // spells `GenericReader(`; an occurrence that long would answer for the parameters after it.
  uint32_t spelledLength(uint32_t id, uint32_t offset, const std::string& name) {
    // An unnamed record or enum (`typedef struct { ... } T;`) lies at its keyword, the token
    // clangd's answer spans there.
    if (name.empty()) return static_cast<uint32_t>(identifierAt(contentOf(id), offset).size());
    size_t angle = name.find('<');
    if (angle == std::string::npos || angle == 0 || contentOf(id).compare(offset, name.size(), name) == 0)
      return static_cast<uint32_t>(name.size());
    return static_cast<uint32_t>(angle);
  }

  // Where a cursor lies in a file (outside the repository or not): the file, its canonical path
  // (libclang's real path of it, else its name) and the byte offset; nullopt in no file.
  struct Place {
    CXFile file = nullptr;
    std::string path;
    unsigned offset = 0;
  };
  std::optional<Place> placeOf(CXCursor cursor) {
    Place p;
    clang_getFileLocation(clang_getCursorLocation(cursor), &p.file, nullptr, nullptr, &p.offset);
    if (!p.file) return std::nullopt;
    std::string path = take(clang_File_tryGetRealPathName(p.file));
    if (path.empty()) path = take(clang_getFileName(p.file));
    p.path = canonicalOf(path);
    return p;
  }

  // `path` with its symbolic links resolved (as it is when that fails).
  std::string canonicalOf(const std::string& path) {
    if (session)
      if (auto it = session->canonical.find(path); it != session->canonical.end()) return it->second;
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    std::string resolved = ec ? path : canonical.string();
    if (session) session->canonical.emplace(path, resolved);
    return resolved;
  }

  // The file's id when it lies under the root, else -1.
  int64_t fileId(CXFile file) {
    if (!file) return -1;
    // Most lookups ask for the file the last one did (the indexer walks a file's declarations in
    // order).
    if (file == lastFile) return lastFileId;
    const Key128 key{reinterpret_cast<uintptr_t>(file), 0};
    if (const int64_t* known = fileCache.find(key)) {
      lastFile = file;
      return lastFileId = *known;
    }
    std::string path = take(clang_File_tryGetRealPathName(file));
    if (path.empty()) path = take(clang_getFileName(file));
    path = canonicalOf(path);
    int64_t id = -1;
    if (path.compare(0, root.size(), root) == 0) id = internFile(path);
    *fileCache.tryEmplace(key).first = id;
    return id;
  }
  uint32_t internFile(const std::string& path) {
    if (auto it = fileIds.find(path); it != fileIds.end()) return it->second;
    auto id = static_cast<uint32_t>(facts.files.size());
    fileIds.emplace(path, id);
    facts.files.push_back(path);
    return id;
  }
  // The id of the entity a reference the indexer reports names (usrOf: an implicit
  // instantiation's is its template's), by the declaration it names (a cursor's first datum):
  // what `make` answers the first time. A unit's hundred thousand references name a few
  // thousand declarations, and a USR was hashed and compared at each.
  static constexpr uint32_t kNoUsr = UINT32_MAX;
  template <typename Make>
  uint32_t usrOfReferenced(CXCursor declaration, Make make) {
    const Key128 key{reinterpret_cast<uintptr_t>(declaration.data[0]), 0};
    if (const uint32_t* known = referencedUsrs.find(key)) return *known;
    uint32_t id = make();  // which may look other declarations up here
    *referencedUsrs.tryEmplace(key).first = id;
    return id;
  }
  // A declaration cursor's own USR's id (clang_getCursorUSR: a type's declaration, a method a
  // method overrides, a reference's container), by its kind and declaration; kNoUsr where it
  // has none.
  uint32_t usrOfCursor(CXCursor declaration) {
    const Key128 key{reinterpret_cast<uintptr_t>(declaration.data[0]), static_cast<uint64_t>(clang_getCursorKind(declaration))};
    if (const uint32_t* known = cursorUsrs.find(key)) return *known;
    std::string usr = take(clang_getCursorUSR(declaration));
    uint32_t id = usr.empty() ? kNoUsr : usrId(usr, nullptr);
    *cursorUsrs.tryEmplace(key).first = id;
    return id;
  }
  FlatMap128<uint32_t> referencedUsrs, cursorUsrs;  // by (declaration, 0), by (declaration, kind)
  uint32_t usrId(std::string_view usr, const char* name) {
    const uint64_t hash = StringIndex::hashOf(usr);
    if (uint32_t known = usrIds.find(usr, hash, facts.usrs); known != StringIndex::kAbsent) {
      if (facts.names[known].empty() && name) facts.names[known] = name;
      return known;
    }
    auto id = static_cast<uint32_t>(facts.usrs.size());
    usrIds.add(hash, id);
    facts.usrs.emplace_back(usr);
    facts.names.push_back(name ? name : "");
    return id;
  }
  // Records an occurrence whose name starts at `location` (clang's spelling of it); the name's
  // length is the entity's spelling (a destructor's or an operator's name may be spelt apart).
  // `parent`: for a reference, the declaration it lies in (see settleRepeatedArguments).
  void add(CXSourceLocation location, uint32_t usr, ClangRole role, SymbolKind kind, bool call, int32_t container,
           CXCursor parent = clang_getNullCursor()) {
    CXFile file;
    unsigned line, column, offset;
    clang_getFileLocation(location, &file, nullptr, nullptr, &offset);
    int64_t id = fileId(file);
    if (id < 0) return;
    lineAndColumn(location, static_cast<uint32_t>(id), offset, &line, &column);
    if (line == 0) return;
    if (!spelt(static_cast<uint32_t>(id), offset, facts.names[usr])) {
      // A declaration written inside a macro's body (a struct's fields from a FIELDS macro)
      // belongs where the macro spells it, as clangd reports it; libclang only gives the
      // expansion, so it waits until the macro definitions are known (resolveMacroDeclarations).
      if (role != ClangRole::Reference)
        pending.push_back({static_cast<uint32_t>(id), offset, usr, role, kind, facts.occurrences.size()});
      // A reference stays where clang reports it, flagged: at a macro's expansion, at the start
      // of a qualified name (`detail::handler()` constructs one), at a variable a constructor
      // initializes, at a type alias naming a class — all places clangd lists among the
      // entity's references — but never as the name under a cursor there, nor as a call the
      // source writes (the call graph's call sites are the ones the source spells).
      else {
        auto length = static_cast<uint32_t>(identifierAt(contentOf(static_cast<uint32_t>(id)), offset).size());
        push({static_cast<uint32_t>(id), line - 1, column - 1, offset, length ? length : static_cast<uint32_t>(facts.names[usr].size()),
              usr, role, false, container, static_cast<uint8_t>(kind), true, false});
      }
      return;
    }
    if (!argumentsSettled) spelled.push_back({facts.occurrences.size(), location, parent});
    push({static_cast<uint32_t>(id), line - 1, column - 1, offset, spelledLength(static_cast<uint32_t>(id), offset, facts.names[usr]),
          usr, role, call, container, static_cast<uint8_t>(kind), false, false});
  }
  // The indexer's names written where the file spells them, with clang's own location of each
  // (one expansion of a macro argument differs from another there) and a reference's
  // declaration, until settleRepeatedArguments has read them.
  struct Spelled {
    size_t occurrence;
    CXSourceLocation location;
    CXCursor parent;
  };
  std::vector<Spelled> spelled;
  bool argumentsSettled = false;
};

// Where clangd's go-to-definition goes for the entity `referenced` (an entity's declaration, or a
// macro's definition) that a repository file names as `usr`, when that lies outside the
// repository (TuFacts::outsideTargets); once per entity and unit (ClangOutsideTargets.cpp).
void noteOutsideTarget(Collector& c, uint32_t usr, CXCursor referenced);
// The same for a declaration whose own place answers (a using-declaration of a system header:
// ClangQualifiedNames), a definition or not as `definition` says.
void noteOutsideDeclaration(Collector& c, uint32_t usr, CXCursor declaration, bool definition);
// Notes the words of the replacement list of a repository macro the unit reports, its definition
// at [begin, end) of file `id` (ClangMacroWords.cpp). During the macros' pass.
void noteMacroWords(Collector& c, uint32_t id, uint32_t begin, uint32_t end);
// Records where each word noted names a system header's macro or a declaration outside the
// repository (TuFacts::outsideTargets, `macroWord`). After the macros' pass.
void resolveMacroWords(Collector& c);
// The words of the code the preprocessor left out in the repository's files (TuFacts::skipped),
// as candidates for resolveMacroWords (ClangMacroWords.cpp).
void noteSkippedWords(Collector& c);
// Adds the names the AST resolves where libclang's indexer reports nothing, then the uses of
// each using-declaration's name (ClangAstNames.cpp). After the indexer and the macros.
void addAstOnlyNames(Collector& c, CXTranslationUnit tu);
// The words of a function declaration clang rejected whole, keeping no parameter (a prototype
// whose name a macro the file's own parse does not define spells), answer that declaration, as
// clangd's do (ClangInvalidDeclarations.cpp). From addAstOnlyNames' pass; `indexed`: the (file,
// offset) of every name the indexer reported.
void addInvalidDeclarationWords(Collector& c, CXTranslationUnit tu, CXCursor function,
                                const Places& indexed);
// A parameter of a function pointer's type (a field's, a variable's, a typedef's, a parameter's)
// gets a declaration of its own place, unlisted; returns its symbol, which invalidTypeNames aims
// the words of a type clang did not know at (ClangInvalidDeclarations.cpp).
std::optional<uint32_t> addFunctionTypeParameter(Collector& c, CXCursor parameter, CXCursor parent);
// Where a macro's argument is a declaration's name and a later expansion of it a reference (a
// constructor's name, then its class as a parameter's type), the declaration is no name under a
// cursor (ClangRepeatedArguments.cpp). After the macros' pass, before resolveMacroDeclarations.
void settleRepeatedArguments(Collector& c);
// Where a macro argument's last expansion is pasted (`##`), clangd selects nothing: the names
// reported there are flagged expanded (ClangPastedArguments.cpp). After the macros' pass.
void settlePastedArguments(Collector& c, CXTranslationUnit tu);
// In a main file parsed with errors, the words of blocks the parser skipped inside a namespace
// or a named struct, union or class, as unlisted references to it (ClangSkippedBlocks.cpp). After
// the skipped ranges are known.
void addSkippedBlockWords(Collector& c, CXTranslationUnit tu);
// The words of the attributes written on a declaration (`__attribute__((nonnull(1)))`,
// `[[nodiscard]]`, the keyword too) answer the declaration, as clangd 14's selection, which
// visits no attribute, finds the declaration around them: unlisted references to the declared
// entity where no name was recorded (ClangAttributeWords.cpp). After every other name.
void addAttributeWords(Collector& c);

}  // namespace nib::clangindex
