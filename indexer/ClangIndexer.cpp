#include "indexer/ClangIndexer.h"

#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "views/FileFacts.h"

namespace nib {
namespace fs = std::filesystem;
namespace {

std::string take(CXString s) {
  const char* c = clang_getCString(s);
  std::string out = c ? c : "";
  clang_disposeString(s);
  return out;
}

SymbolKind kindOf(CXIdxEntityKind k) {
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

struct Collector {
  std::string root;  // canonical, with a trailing '/'
  TuFacts facts;
  std::unordered_map<std::string, uint32_t> fileIds, usrIds;
  std::unordered_map<CXFile, int64_t> fileCache;  // -1: outside the root
  std::unordered_map<uint32_t, std::string> contents;  // by file id, read on first use
  struct Pending {
    uint32_t file, offset, usr;
    ClangRole role;
    SymbolKind kind;
    size_t order;  // how many occurrences came before it: where its sites go in the TU's order
  };
  std::vector<Pending> pending;  // declarations spelt in a macro body
  std::unordered_map<uint32_t, std::vector<uint32_t>> lineStarts;  // by file, for addAt
  // Macro invocations (name through closing parenthesis) by file: what a macro's body names is
  // reported at the start of the outermost one.
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> expansions;
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
  struct MacroBody {
    uint32_t file, begin, end;
  };
  std::unordered_map<std::string, MacroBody> macros;  // by name: where each definition's text is

  static bool identifierChar(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }

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
  // The first whole-word `name` in the body of `macro`, searching the macros its body names
  // breadth-first (a few levels: real FIELDS macros nest two or three deep). `name` "~" finds a
  // destructor's tilde: a `~` followed by a name.
  std::optional<std::pair<uint32_t, uint32_t>> findInMacro(const std::string& macro, const std::string& name) {
    std::vector<std::string> queue{macro};
    std::set<std::string> seen{macro};
    for (size_t i = 0; i < queue.size() && i < 64; ++i) {
      auto it = macros.find(queue[i]);
      if (it == macros.end()) continue;
      const std::string& body = contentOf(it->second.file);
      if (it->second.end > body.size()) continue;
      for (size_t at = it->second.begin; at < it->second.end;) {
        if (!identifierChar(body[at])) {
          if (name == "~" && body[at] == '~') {
            size_t after = at + 1;
            while (after < it->second.end && (body[after] == ' ' || body[after] == '\t')) ++after;
            if (after < it->second.end && identifierChar(body[after])) return std::make_pair(it->second.file, static_cast<uint32_t>(at));
          }
          ++at;
          continue;
        }
        size_t end = at;
        while (end < it->second.end && identifierChar(body[end])) ++end;
        std::string word = body.substr(at, end - at);
        if (word == name && (at == 0 || !identifierChar(body[at - 1]))) return std::make_pair(it->second.file, static_cast<uint32_t>(at));
        if (macros.count(word) && seen.insert(word).second) queue.push_back(word);
        at = end;
      }
    }
    return std::nullopt;
  }
  // A declaration placed by resolveMacroDeclarations: in a macro's body, or at the expansion.
  void addAt(uint32_t file, uint32_t offset, uint32_t usr, ClangRole role, SymbolKind kind, bool expanded, bool macroBody) {
    const std::string& text = contentOf(file);
    // The line from the file's line starts, found once per file (a test file declares hundreds
    // of TEST classes this way).
    auto [starts, added] = lineStarts.try_emplace(file);
    if (added) {
      starts->second.push_back(0);
      for (uint32_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n') starts->second.push_back(i + 1);
    }
    auto after = std::upper_bound(starts->second.begin(), starts->second.end(), offset);
    auto line = static_cast<uint32_t>(after - starts->second.begin() - 1);
    uint32_t lineStart = starts->second[line];
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
    unsigned line, column, offset;
    clang_getFileLocation(location, &file, &line, &column, &offset);
    int64_t id = fileId(file);
    if (id < 0 || line == 0 || facts.names[usr].empty() || !spelt(static_cast<uint32_t>(id), offset, facts.names[usr]))
      return nullptr;
    ClangOccurrence o{static_cast<uint32_t>(id), line - 1, column - 1, offset, static_cast<uint32_t>(facts.names[usr].size()),
                      usr, role, false, -1, static_cast<uint8_t>(kind), false, false};
    o.guessed = guessed;
    o.unlisted = unlisted;
    push(o);
    return &facts.occurrences.back();
  }

  const std::string& contentOf(uint32_t id) {
    auto it = contents.find(id);
    if (it != contents.end()) return it->second;
    std::string text;
    if (FILE* f = std::fopen(facts.files[id].c_str(), "rb")) {
      char buf[65536];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
      std::fclose(f);
    }
    return contents.emplace(id, std::move(text)).first->second;
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
    return offset + n <= text.size() && text.compare(offset, n, name, 0, n) == 0;
  }

  // The file's id when it lies under the root, else -1.
  int64_t fileId(CXFile file) {
    if (!file) return -1;
    if (auto it = fileCache.find(file); it != fileCache.end()) return it->second;
    std::string path = take(clang_File_tryGetRealPathName(file));
    if (path.empty()) path = take(clang_getFileName(file));
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    if (!ec) path = canonical.string();
    int64_t id = -1;
    if (path.compare(0, root.size(), root) == 0) id = internFile(path);
    fileCache[file] = id;
    return id;
  }
  uint32_t internFile(const std::string& path) {
    auto [it, added] = fileIds.emplace(path, static_cast<uint32_t>(facts.files.size()));
    if (added) facts.files.push_back(path);
    return it->second;
  }
  uint32_t usrId(const std::string& usr, const char* name) {
    auto [it, added] = usrIds.emplace(usr, static_cast<uint32_t>(facts.usrs.size()));
    if (added) {
      facts.usrs.push_back(usr);
      facts.names.push_back(name ? name : "");
    } else if (facts.names[it->second].empty() && name) {
      facts.names[it->second] = name;
    }
    return it->second;
  }
  // Records an occurrence whose name starts at `location` (clang's spelling of it); the name's
  // length is the entity's spelling (a destructor's or an operator's name may be spelt apart).
  void add(CXSourceLocation location, uint32_t usr, ClangRole role, SymbolKind kind, bool call, int32_t container) {
    CXFile file;
    unsigned line, column, offset;
    clang_getFileLocation(location, &file, &line, &column, &offset);
    int64_t id = fileId(file);
    if (id < 0 || line == 0) return;
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
    push({static_cast<uint32_t>(id), line - 1, column - 1, offset, static_cast<uint32_t>(facts.names[usr].size()), usr, role,
          call, container, static_cast<uint8_t>(kind), false, false});
  }
};

// An implicit instantiation shares its template's location: references to it count as
// references to the template (as clangd reports them).
std::string usrOf(const CXIdxEntityInfo* entity) {
  CXCursor tmpl = clang_getSpecializedCursorTemplate(entity->cursor);
  if (!clang_Cursor_isNull(tmpl) && clang_equalLocations(clang_getCursorLocation(tmpl), clang_getCursorLocation(entity->cursor)))
    return take(clang_getCursorUSR(tmpl));
  return entity->USR ? entity->USR : "";
}

int abortQuery(CXClientData, void*) { return 0; }

void diagnostic(CXClientData data, CXDiagnosticSet set, void*) {
  auto* c = static_cast<Collector*>(data);
  for (unsigned i = 0; i < clang_getNumDiagnosticsInSet(set); ++i) {
    CXDiagnostic d = clang_getDiagnosticInSet(set, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && c->facts.errors.size() < 5)
      c->facts.errors.push_back(take(clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation)));
    clang_disposeDiagnostic(d);
  }
}

void declaration(CXClientData data, const CXIdxDeclInfo* info) {
  auto* c = static_cast<Collector*>(data);
  if (info->isImplicit || !info->entityInfo || !info->entityInfo->USR || !*info->entityInfo->USR) return;
  uint32_t usr = c->usrId(info->entityInfo->USR, info->entityInfo->name);
  c->add(clang_indexLoc_getCXSourceLocation(info->loc), usr,
         info->isDefinition ? ClangRole::Definition : ClangRole::Declaration, kindOf(info->entityInfo->kind), false, -1);
  if (const CXIdxCXXClassDeclInfo* cls = clang_index_getCXXClassDeclInfo(info))
    for (unsigned i = 0; i < cls->numBases; ++i) {
      const CXIdxBaseClassInfo* base = cls->bases[i];
      if (base && base->base && base->base->USR && *base->base->USR)
        c->facts.bases.emplace_back(usr, c->usrId(usrOf(base->base), base->base->name));
    }
  // A virtual method's (or destructor's) overridden ones: clangd's references of a method include theirs.
  if (info->entityInfo->kind == CXIdxEntity_CXXInstanceMethod || info->entityInfo->kind == CXIdxEntity_CXXDestructor) {
    CXCursor* overridden = nullptr;
    unsigned n = 0;
    clang_getOverriddenCursors(info->cursor, &overridden, &n);
    for (unsigned i = 0; i < n; ++i) {
      std::string o = take(clang_getCursorUSR(overridden[i]));
      if (!o.empty()) c->facts.overrides.emplace_back(usr, c->usrId(o, nullptr));
    }
    if (overridden) clang_disposeOverriddenCursors(overridden);
  }
}

void reference(CXClientData data, const CXIdxEntityRefInfo* info) {
  auto* c = static_cast<Collector*>(data);
  if (info->kind == CXIdxEntityRef_Implicit || !info->referencedEntity) return;
  std::string usrText = usrOf(info->referencedEntity);
  if (usrText.empty()) return;
  uint32_t usr = c->usrId(usrText, info->referencedEntity->name);
  int32_t container = -1;
  if (info->container) {
    std::string cu = take(clang_getCursorUSR(info->container->cursor));
    if (!cu.empty()) container = static_cast<int32_t>(c->usrId(cu, nullptr));
  }
  c->add(clang_indexLoc_getCXSourceLocation(info->loc), usr, ClangRole::Reference,
         kindOf(info->referencedEntity->kind), (info->role & CXSymbolRole_Call) != 0, container);
}

// Macros are not indexer entities: they come from the preprocessing record.
CXChildVisitResult macroVisitor(CXCursor cursor, CXCursor, CXClientData data) {
  auto* c = static_cast<Collector*>(data);
  CXCursorKind kind = clang_getCursorKind(cursor);
  if (kind != CXCursor_MacroDefinition && kind != CXCursor_MacroExpansion) return CXChildVisit_Continue;
  CXFile file;
  clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, nullptr);
  if (c->fileId(file) < 0) return CXChildVisit_Continue;
  CXCursor def = kind == CXCursor_MacroDefinition ? cursor : clang_getCursorReferenced(cursor);
  if (clang_Cursor_isNull(def)) return CXChildVisit_Continue;
  std::string usr = take(clang_getCursorUSR(def));
  if (usr.empty()) return CXChildVisit_Continue;
  std::string name = take(clang_getCursorSpelling(cursor));
  unsigned begin, end;
  CXSourceRange extent = clang_getCursorExtent(cursor);
  clang_getFileLocation(clang_getRangeStart(extent), nullptr, nullptr, nullptr, &begin);
  clang_getFileLocation(clang_getRangeEnd(extent), nullptr, nullptr, nullptr, &end);
  if (kind == CXCursor_MacroDefinition) c->macros[name] = {static_cast<uint32_t>(c->fileId(file)), begin, end};
  else c->expansions[static_cast<uint32_t>(c->fileId(file))].emplace_back(begin, end);
  uint32_t id = c->usrId(usr, name.c_str());
  size_t before = c->facts.occurrences.size();
  c->add(clang_getCursorLocation(cursor), id,
         kind == CXCursor_MacroDefinition ? ClangRole::Definition : ClangRole::Reference, SymbolKind::Macro, false, -1);
  // A repository header this unit reads as a system header (googletest's, through -isystem in
  // its tests) names its own macros without a place (`c:@macro@TEST`); parsed on its own, as
  // clangd parses a header that is open, the header is no system header and they have one
  // (`c:gtest.h@84867@macro@TEST`), and clangd then lists what the header's text holds of them
  // (the #define, uses of them in the header) under that name only. So these are the place-less
  // macro's sites for go-to-definition, not among its references; the units that read the header
  // as a user header list them under the other name. A macro another header defines keeps its
  // name in this header's own parse, and its uses here stay references.
  if (c->facts.occurrences.size() > before && clang_Location_isInSystemHeader(clang_getCursorLocation(cursor))) {
    CXFile defined = nullptr;
    clang_getFileLocation(clang_getCursorLocation(def), &defined, nullptr, nullptr, nullptr);
    if (defined && clang_File_isEqual(defined, file)) c->facts.occurrences.back().unlisted = true;
  }
  return CXChildVisit_Continue;
}

// Names the AST resolves where libclang's indexer reports nothing, found by walking the
// repository's cursors after indexing. clangd's go-to-definition works from the AST, so it
// answers at these places; its index (built by the same indexing library) lists the first two
// kinds below nowhere among references, and neither does nib (see ClangOccurrence::guessed,
// ::unlisted).
//  - Dependent member names: `ctx.advance_to(it)` in a template, where `ctx`'s type depends on a
//    template parameter, stays unresolved until instantiation. clangd guesses it by looking the
//    name up in the primary template of the object's type (HeuristicResolver), among instance
//    members, then in the bases; nib records the same answer, flagged `guessed`. nib also looks
//    through alias templates (the canonical type), where clangd 14 gives up and lists every
//    symbol of the name.
//  - Names the indexer skips although the AST resolves them, such as those in the type of a
//    non-type template parameter (every `FMT_ENABLE_IF(...)`): flagged `unlisted`.
//  - Template parameters, which libclang's indexer leaves out entirely while clangd's
//    references include them (see templateParameter).
//  - Using-declarations and the names they bring into scope (see usingDeclaration).
struct AstOnlyNames {
  Collector* c;
  CXTranslationUnit tu;
  std::set<std::pair<uint32_t, uint32_t>> indexed;  // (file, offset) of every name the indexer reported
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> builtinUses;  // (file, offset, symbol) recorded by unindexed

  AstOnlyNames(Collector* collector, CXTranslationUnit unit) : c(collector), tu(unit) {
    for (const ClangOccurrence& o : c->facts.occurrences) indexed.emplace(o.file, o.offset);
  }

  static CXCursor firstChild(CXCursor cursor) {
    CXCursor first = clang_getNullCursor();
    clang_visitChildren(
        cursor,
        [](CXCursor child, CXCursor, CXClientData data) {
          *static_cast<CXCursor*>(data) = child;
          return CXChildVisit_Break;
        },
        &first);
    return first;
  }

  // The class whose members a base of this type has: the definition of the record, or of the
  // primary template of a dependent specialization (through aliases: the canonical type).
  static CXCursor recordOf(CXType type) {
    type = clang_getCanonicalType(type);
    if (type.kind == CXType_Pointer) type = clang_getCanonicalType(clang_getPointeeType(type));
    CXCursor decl = clang_getTypeDeclaration(type);
    if (clang_Cursor_isNull(decl)) return decl;
    CXCursorKind kind = clang_getCursorKind(decl);
    if (kind != CXCursor_ClassTemplate && kind != CXCursor_ClassDecl && kind != CXCursor_StructDecl &&
        kind != CXCursor_UnionDecl && kind != CXCursor_ClassTemplatePartialSpecialization)
      return clang_getNullCursor();
    CXCursor definition = clang_getCursorDefinition(decl);
    return clang_Cursor_isNull(definition) ? decl : definition;
  }

  // The instance members named `name` in `record`, else in its bases (the first base that has
  // any, depth first, as lookupDependentName searches them).
  static void lookup(CXCursor record, const std::string& name, std::vector<CXCursor>& out, int depth) {
    if (clang_Cursor_isNull(record) || depth > 8) return;
    struct Scan {
      const std::string* name;
      std::vector<CXCursor> members, bases;
    } scan{&name, {}, {}};
    clang_visitChildren(
        record,
        [](CXCursor child, CXCursor, CXClientData data) {
          auto* s = static_cast<Scan*>(data);
          CXCursorKind kind = clang_getCursorKind(child);
          if (kind == CXCursor_CXXBaseSpecifier) {
            s->bases.push_back(child);
          } else if (kind == CXCursor_FieldDecl || kind == CXCursor_CXXMethod || kind == CXCursor_FunctionTemplate ||
                     kind == CXCursor_ConversionFunction) {
            if (kind != CXCursor_FieldDecl && clang_CXXMethod_isStatic(child)) return CXChildVisit_Continue;
            if (take(clang_getCursorSpelling(child)) == *s->name) s->members.push_back(child);
          }
          return CXChildVisit_Continue;
        },
        &scan);
    if (!scan.members.empty()) {
      out = std::move(scan.members);
      return;
    }
    for (CXCursor base : scan.bases) {
      lookup(recordOf(clang_getCursorType(base)), name, out, depth + 1);
      if (!out.empty()) return;
    }
  }

  // The member's name in `base.name`, `base->name`, `base.template name<...>`: the last
  // identifier after a `.` or `->` outside brackets, and its location.
  std::optional<std::pair<std::string, CXSourceLocation>> memberName(CXCursor cursor) const {
    CXToken* tokens = nullptr;
    unsigned n = 0;
    clang_tokenize(tu, clang_getCursorExtent(cursor), &tokens, &n);
    std::optional<std::pair<std::string, CXSourceLocation>> out;
    int depth = 0;
    bool afterAccess = false;
    for (unsigned i = 0; i < n; ++i) {
      CXTokenKind kind = clang_getTokenKind(tokens[i]);
      std::string text = take(clang_getTokenSpelling(tu, tokens[i]));
      if (kind == CXToken_Punctuation) {
        if (text == "(" || text == "[" || text == "{") ++depth;
        if (text == ")" || text == "]" || text == "}") --depth;
        afterAccess = depth == 0 && (text == "." || text == "->");
        continue;
      }
      if (kind == CXToken_Keyword && text == "template" && afterAccess) continue;
      if (kind == CXToken_Identifier && afterAccess) out = std::make_pair(text, clang_getTokenLocation(tu, tokens[i]));
      afterAccess = false;
    }
    if (tokens) clang_disposeTokens(tu, tokens, n);
    return out;
  }

  void resolve(CXCursor cursor) {
    CXCursor base = firstChild(cursor);
    if (clang_Cursor_isNull(base)) return;  // implicit `this->`: clangd does not guess these
    auto name = memberName(cursor);
    if (!name) return;
    std::vector<CXCursor> members;
    lookup(recordOf(clang_getCursorType(base)), name->first, members, 0);
    for (CXCursor member : members) {
      std::string usr = take(clang_getCursorUSR(member));
      if (usr.empty()) continue;
      uint32_t id = c->usrId(usr, name->first.c_str());
      SymbolKind kind = clang_getCursorKind(member) == CXCursor_FieldDecl ? SymbolKind::Field : SymbolKind::Method;
      c->addAstOnly(name->second, id, kind, ClangRole::Reference, /*guessed=*/true, false);
    }
  }

  // A library function clang declares implicitly when its header declares it (memcmp, free,
  // printf): the header's declaration redeclares an implicit one made at the same place. The
  // indexer looks at that implicit first declaration and reports no use of the function, while
  // clangd's index checks the declaration the expression names and lists every call.
  static bool redeclaresBuiltin(CXCursor referenced) {
    if (clang_getCursorKind(referenced) != CXCursor_FunctionDecl) return false;
    CXCursor first = clang_getCanonicalCursor(referenced);
    return !clang_equalCursors(first, referenced) &&
           clang_equalLocations(clang_getCursorLocation(first), clang_getCursorLocation(referenced));
  }

  // A reference the indexer left out: recorded where the cursor API resolves it exactly.
  void unindexed(CXCursor cursor, CXCursor referenced) {
    CXCursorKind kind = clang_getCursorKind(referenced);
    // Template parameters and locals are the indexer's to leave out (clangd's index has none).
    if (kind == CXCursor_TemplateTypeParameter || kind == CXCursor_NonTypeTemplateParameter ||
        kind == CXCursor_TemplateTemplateParameter || kind == CXCursor_ParmDecl || !clang_isDeclaration(kind))
      return;
    CXFile file;
    unsigned offset;
    CXSourceLocation location = clang_getCursorLocation(cursor);
    clang_getFileLocation(location, &file, nullptr, nullptr, &offset);
    int64_t id = c->fileId(file);
    if (id < 0) return;
    // A library function's uses are all left out (a macro's expansion point, where the indexer
    // reports what else the body names, holds them too); anything else the indexer reported at
    // this place is what stands there.
    bool builtin = redeclaresBuiltin(referenced) && inParameterType == 0;
    if (!builtin && indexed.count({static_cast<uint32_t>(id), offset})) return;
    // An implicit instantiation answers as its template, as the indexer reports it.
    CXCursor tmpl = clang_getSpecializedCursorTemplate(referenced);
    if (!clang_Cursor_isNull(tmpl) && clang_equalLocations(clang_getCursorLocation(tmpl), clang_getCursorLocation(referenced)))
      referenced = tmpl;
    std::string usr = take(clang_getCursorUSR(referenced));
    if (usr.empty()) return;
    std::string name = take(clang_getCursorSpelling(referenced));
    CXIdxEntityKind entity = CXIdxEntity_Unexposed;
    switch (clang_getCursorKind(referenced)) {
      case CXCursor_Namespace: entity = CXIdxEntity_CXXNamespace; break;
      case CXCursor_ClassDecl: case CXCursor_ClassTemplate: entity = CXIdxEntity_CXXClass; break;
      case CXCursor_StructDecl: entity = CXIdxEntity_Struct; break;
      case CXCursor_UnionDecl: entity = CXIdxEntity_Union; break;
      case CXCursor_EnumDecl: entity = CXIdxEntity_Enum; break;
      case CXCursor_EnumConstantDecl: entity = CXIdxEntity_EnumConstant; break;
      case CXCursor_TypedefDecl: entity = CXIdxEntity_Typedef; break;
      case CXCursor_TypeAliasDecl: case CXCursor_TypeAliasTemplateDecl: entity = CXIdxEntity_CXXTypeAlias; break;
      case CXCursor_FunctionDecl: case CXCursor_FunctionTemplate: entity = CXIdxEntity_Function; break;
      case CXCursor_CXXMethod: entity = CXIdxEntity_CXXInstanceMethod; break;
      case CXCursor_VarDecl: entity = CXIdxEntity_Variable; break;
      case CXCursor_FieldDecl: entity = CXIdxEntity_Field; break;
      default: break;
    }
    uint32_t symbol = c->usrId(usr, name.c_str());
    if (builtin) {
      // Recorded as the indexer records a reference: where the source spells it, or at the
      // expansion of the macro whose body calls it (a test's CHECK macro calling memcmp).
      if (builtinUses.insert({static_cast<uint32_t>(id), offset, symbol}).second)
        c->add(location, symbol, ClangRole::Reference, kindOf(entity), false, -1);
      return;
    }
    // libclang's indexer reports no reference inside a header the unit reads as a system header
    // (googletest's own headers, reached through -isystem in its tests), where clangd's index
    // does: there the name is an ordinary reference, unless it lies where clang's indexing
    // library never looks (a non-type template parameter's type).
    bool listed = clang_Location_isInSystemHeader(location) && inParameterType == 0;
    c->addAstOnly(location, symbol, kindOf(entity), ClangRole::Reference, false, /*unlisted=*/!listed);
  }

  // Template parameters, which libclang's indexer never reports: clangd's references list them
  // as clang's indexing library does with template parameters on, so nib keeps what it keeps.
  // A declaration is listed where the library visits it (the parameters of a template's first
  // declaration), else it answers definitions only (a partial specialization's, an out-of-line
  // member's); a use is listed unless it lies in the type of a non-type template parameter,
  // which the library never visits.
  int inParameterType = 0;
  void templateParameter(CXCursor cursor, CXCursor parent) {
    std::string name = take(clang_getCursorSpelling(cursor));
    std::string usr = take(clang_getCursorUSR(cursor));
    if (name.empty() || usr.empty()) return;
    CXCursorKind owner = clang_getCursorKind(parent);
    bool listed = (owner == CXCursor_ClassTemplate || owner == CXCursor_FunctionTemplate || owner == CXCursor_TypeAliasTemplateDecl) &&
                  clang_equalCursors(clang_getCanonicalCursor(parent), parent);
    c->addAstOnly(clang_getCursorLocation(cursor), c->usrId(usr, name.c_str()), SymbolKind::TypeParameter, ClangRole::Definition,
                  false, !listed);
  }
  void templateParameterUse(CXCursor cursor, CXCursor parameter) {
    std::string name = take(clang_getCursorSpelling(parameter));
    std::string usr = take(clang_getCursorUSR(parameter));
    if (name.empty() || usr.empty()) return;
    c->addAstOnly(clang_getCursorLocation(cursor), c->usrId(usr, name.c_str()), SymbolKind::TypeParameter, ClangRole::Reference,
                  false, inParameterType > 0);
  }
  // Using-declarations (`using fmt::detail::fp;`). clangd 14 answers a name its scope found
  // through one with the using-declaration besides the entity (see the static provider's
  // clangUsingAnswer). nib gives each using-declaration a symbol of its own (kind import): its
  // site is the declaration (marked expanded, so that the cursor there keeps the entity it
  // names, as clangd answers), and the unqualified uses of its name after it, in its scope,
  // answer for it (unlisted, ahead of the entity clang reports).
  struct UsingDeclaration {
    uint32_t file = 0, offset = 0, scopeEnd = 0;
    uint32_t symbol = 0;
  };
  std::unordered_map<std::string, std::vector<UsingDeclaration>> usings;  // by the name it brings in
  std::unordered_map<uint32_t, CXFile> usingFiles;                        // file id -> its CXFile

  void usingDeclaration(CXCursor cursor, CXCursor parent) {
    std::string name = take(clang_getCursorSpelling(cursor));
    CXFile file;
    unsigned offset;
    CXSourceLocation location = clang_getCursorLocation(cursor);
    clang_getFileLocation(location, &file, nullptr, nullptr, &offset);
    int64_t id = c->fileId(file);
    if (name.empty() || id < 0) return;
    UsingDeclaration u;
    u.file = static_cast<uint32_t>(id);
    u.offset = offset;
    u.scopeEnd = UINT32_MAX;
    if (clang_getCursorKind(parent) != CXCursor_TranslationUnit) {
      CXFile endFile;
      unsigned end;
      clang_getFileLocation(clang_getRangeEnd(clang_getCursorExtent(parent)), &endFile, nullptr, nullptr, &end);
      if (endFile == file) u.scopeEnd = end;
    }
    // One symbol per declaration, however many units read it: named by its file and offset.
    std::string usr = std::string(kUsingDeclarationUsr) + c->facts.files[u.file] + "@" + std::to_string(offset);
    u.symbol = c->usrId(usr, name.c_str());
    if (ClangOccurrence* site = c->addAstOnly(location, u.symbol, SymbolKind::Import, ClangRole::Definition, false, false))
      site->expanded = true;
    usings[name].push_back(u);
    usingFiles[u.file] = file;
  }

  // After the walk: the uses of each using-declaration's name (see usingDeclaration), one
  // tokenization per file that has any.
  void usingUses() {
    if (usings.empty()) return;
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> indexedAt;  // (file, offset) -> occurrences
    for (uint32_t i = 0; i < c->facts.occurrences.size(); ++i) {
      const ClangOccurrence& o = c->facts.occurrences[i];
      if (usingFiles.count(o.file)) indexedAt[{o.file, o.offset}].push_back(i);
    }
    for (const auto& [fileId, file] : usingFiles) {
      uint32_t first = UINT32_MAX;
      for (const auto& [name, list] : usings)
        for (const UsingDeclaration& u : list)
          if (u.file == fileId) first = std::min(first, u.offset);
      auto size = static_cast<unsigned>(c->contentOf(fileId).size());
      CXSourceRange range = clang_getRange(clang_getLocationForOffset(tu, file, first), clang_getLocationForOffset(tu, file, size));
      CXToken* tokens = nullptr;
      unsigned n = 0;
      clang_tokenize(tu, range, &tokens, &n);
      std::string previous;
      for (unsigned i = 0; i < n; ++i) {
        std::string text = take(clang_getTokenSpelling(tu, tokens[i]));
        bool qualified = previous == "::" || previous == "." || previous == "->";
        previous = text;
        if (clang_getTokenKind(tokens[i]) != CXToken_Identifier || qualified) continue;
        auto named = usings.find(text);
        if (named == usings.end()) continue;
        CXSourceLocation location = clang_getTokenLocation(tu, tokens[i]);
        unsigned offset;
        clang_getFileLocation(location, nullptr, nullptr, nullptr, &offset);
        // The latest using-declaration of the name before it whose scope holds it.
        const UsingDeclaration* found = nullptr;
        for (const UsingDeclaration& u : named->second)
          if (u.file == fileId && u.offset < offset && offset < u.scopeEnd && (!found || u.offset > found->offset)) found = &u;
        if (!found) continue;
        // Not where the name is declared anew, nor where it names a local the scope declares.
        bool other = false;
        if (auto at = indexedAt.find({fileId, offset}); at != indexedAt.end())
          for (uint32_t k : at->second) {
            const ClangOccurrence& o = c->facts.occurrences[k];
            other |= o.role != ClangRole::Reference || isFunctionLocalUsr(c->facts.usrs[o.usr]);
          }
        if (!other) c->addAstOnly(location, found->symbol, SymbolKind::Import, ClangRole::Reference, false, /*unlisted=*/true);
      }
      if (tokens) clang_disposeTokens(tu, tokens, n);
    }
  }

  static bool isTemplateParameter(CXCursorKind kind) {
    return kind == CXCursor_TemplateTypeParameter || kind == CXCursor_NonTypeTemplateParameter ||
           kind == CXCursor_TemplateTemplateParameter;
  }

  static CXChildVisitResult visit(CXCursor cursor, CXCursor parent, CXClientData data) {
    auto* self = static_cast<AstOnlyNames*>(data);
    // Only the repository's code: a declaration from a system or third-party header is skipped
    // whole.
    if (clang_getCursorKind(parent) == CXCursor_TranslationUnit) {
      CXFile file;
      clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, nullptr);
      if (self->c->fileId(file) < 0) return CXChildVisit_Continue;
    }
    CXCursorKind kind = clang_getCursorKind(cursor);
    if (isTemplateParameter(kind)) {
      self->templateParameter(cursor, parent);
      if (kind != CXCursor_NonTypeTemplateParameter) return CXChildVisit_Recurse;
      ++self->inParameterType;
      clang_visitChildren(cursor, visit, self);
      --self->inParameterType;
      return CXChildVisit_Continue;
    }
    if (kind == CXCursor_UsingDeclaration) {
      self->usingDeclaration(cursor, parent);
      return CXChildVisit_Continue;
    }
    switch (kind) {
      case CXCursor_MemberRefExpr:
      case CXCursor_DeclRefExpr:
      case CXCursor_TypeRef:
      case CXCursor_TemplateRef:
      case CXCursor_NamespaceRef:
      case CXCursor_MemberRef: {
        CXCursor referenced = clang_getCursorReferenced(cursor);
        if (!clang_Cursor_isNull(referenced) && isTemplateParameter(clang_getCursorKind(referenced)))
          self->templateParameterUse(cursor, referenced);
        else if (!clang_Cursor_isNull(referenced)) self->unindexed(cursor, referenced);
        else if (clang_getCursorKind(cursor) == CXCursor_MemberRefExpr) self->resolve(cursor);
        break;
      }
      default: break;
    }
    return CXChildVisit_Recurse;
  }
};

void inclusion(CXFile file, CXSourceLocation*, unsigned, CXClientData data) {
  auto* c = static_cast<Collector*>(data);
  std::string path = take(clang_File_tryGetRealPathName(file));
  if (path.empty()) path = take(clang_getFileName(file));
  if (!path.empty() && !c->fileIds.count(path)) c->internFile(path);
}

}  // namespace

Expected<std::vector<CompileCommand>> readCompileCommands(const fs::path& directory) {
  CXCompilationDatabase_Error error;
  CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(directory.c_str(), &error);
  if (error != CXCompilationDatabase_NoError || !db)
    return Status(ErrorCode::InvalidArgument, "cannot read " + (directory / "compile_commands.json").string() +
                                                  " (missing or malformed)");
  std::vector<CompileCommand> out;
  CXCompileCommands all = clang_CompilationDatabase_getAllCompileCommands(db);
  for (unsigned i = 0; i < clang_CompileCommands_getSize(all); ++i) {
    CXCompileCommand cmd = clang_CompileCommands_getCommand(all, i);
    CompileCommand c;
    c.directory = take(clang_CompileCommand_getDirectory(cmd));
    std::string file = take(clang_CompileCommand_getFilename(cmd));
    c.file = fs::path(file).is_absolute() ? file : (fs::path(c.directory) / file).lexically_normal().string();
    for (unsigned a = 0; a < clang_CompileCommand_getNumArgs(cmd); ++a) c.arguments.push_back(take(clang_CompileCommand_getArg(cmd, a)));
    if (!c.arguments.empty()) out.push_back(std::move(c));
  }
  clang_CompileCommands_dispose(all);
  clang_CompilationDatabase_dispose(db);
  return out;
}

Expected<TuFacts> indexTranslationUnit(const CompileCommand& command, const fs::path& root) {
  if (command.arguments.empty()) return Status(ErrorCode::InvalidArgument, "an empty compile command for " + command.file);
  Collector c;
  std::error_code ec;
  c.root = fs::weakly_canonical(root, ec).string() + "/";
  c.facts.mainFile = command.file;
  // libclang 14 has no per-TU working directory: the driver takes it as an argument (a
  // worker never changes its own directory).
  // Options that make the compiler write files (dependency lists, diagnostics) are dropped: the
  // index must never touch the user's build tree.
  std::vector<std::string> args;
  for (size_t i = 0; i < command.arguments.size(); ++i) {
    const std::string& a = command.arguments[i];
    if (a == "-M" || a == "-MM" || a == "-MD" || a == "-MMD" || a == "-MG" || a == "-MP") continue;
    if (a == "-MF" || a == "-MT" || a == "-MQ" || a == "-MJ" || a == "--serialize-diagnostics") {
      ++i;  // and its value
      continue;
    }
    if ((a.rfind("-MF", 0) == 0 || a.rfind("-MT", 0) == 0 || a.rfind("-MQ", 0) == 0 || a.rfind("-MJ", 0) == 0) && a.size() > 3)
      continue;
    args.push_back(a);
  }
  args.insert(args.begin() + 1, "-working-directory=" + command.directory);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  CXIndex index = clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0);
  CXIndexAction action = clang_IndexAction_create(index);
  IndexerCallbacks callbacks{};
  callbacks.abortQuery = abortQuery;
  callbacks.diagnostic = diagnostic;
  callbacks.indexDeclaration = declaration;
  callbacks.indexEntityReference = reference;
  CXTranslationUnit tu = nullptr;
  int rc = clang_indexSourceFileFullArgv(
      action, &c, &callbacks, sizeof callbacks,
      CXIndexOpt_IndexFunctionLocalSymbols | CXIndexOpt_SuppressWarnings, nullptr, argv.data(),
      static_cast<int>(argv.size()), nullptr, 0, &tu,
      CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing);
  Status status;
  if (rc != 0 || !tu) {
    status = Status(ErrorCode::Unsupported, "libclang could not parse " + command.file + " (error " + std::to_string(rc) + ")");
  } else {
    clang_visitChildren(clang_getTranslationUnitCursor(tu), macroVisitor, &c);
    c.sortExpansions();
    c.resolveMacroDeclarations();
    AstOnlyNames astOnly(&c, tu);
    clang_visitChildren(clang_getTranslationUnitCursor(tu), AstOnlyNames::visit, &astOnly);
    astOnly.usingUses();
    clang_getInclusions(tu, inclusion, &c);
    // What the preprocessor left out: names there were never compiled, and go-to-definition
    // answers them by the bare word, as clangd does.
    if (CXSourceRangeList* skipped = clang_getAllSkippedRanges(tu)) {
      for (unsigned i = 0; i < skipped->count; ++i) {
        CXFile file, endFile;
        unsigned line, column, start, end;
        clang_getFileLocation(clang_getRangeStart(skipped->ranges[i]), &file, &line, &column, &start);
        clang_getFileLocation(clang_getRangeEnd(skipped->ranges[i]), &endFile, &line, &column, &end);
        int64_t id = c.fileId(file);
        if (id >= 0 && file == endFile && end >= start) c.facts.skipped.push_back({static_cast<uint32_t>(id), start, end});
      }
      clang_disposeSourceRangeList(skipped);
    }
    clang_disposeTranslationUnit(tu);
  }
  clang_IndexAction_dispose(action);
  clang_disposeIndex(index);
  if (!status.isOk()) return status;
  return std::move(c.facts);
}

}  // namespace nib
