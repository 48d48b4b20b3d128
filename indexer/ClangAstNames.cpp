#include <clang-c/Index.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "indexer/ClangCollector.h"
#include "indexer/ClangQualifiedNames.h"

namespace nib::clangindex {
namespace {

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
//  - The unknown type name of a declaration clang recovered from (see invalidTypeNames).
struct AstOnlyNames {
  Collector* c;
  CXTranslationUnit tu;
  Places indexed;  // (file, offset) of every name the indexer reported
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> builtinUses;  // (file, offset, symbol) recorded by unindexed
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> expansionUses;  // the same, by expansionReference

  QualifiedNames qualified;  // names after a namespace's `::` (ClangQualifiedNames.h)

  AstOnlyNames(Collector* collector, CXTranslationUnit unit) : c(collector), tu(unit), qualified(*collector, unit) {
    indexed.reserve(c->facts.occurrences.size());
    for (const ClangOccurrence& o : c->facts.occurrences) indexed.insert(placeKey(o.file, o.offset));
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
    auto name = memberName(cursor);
    if (!name) return;
    CXCursor base = firstChild(cursor);
    std::vector<CXCursor> members;
    // An implicit `this->` clangd does not guess.
    if (!clang_Cursor_isNull(base)) lookup(recordOf(clang_getCursorType(base)), name->first, members, 0);
    // Nothing found: a dependent name clangd answers by the bare word (kDependentNameUsrPrefix).
    if (members.empty()) {
      uint32_t id = c->usrId(std::string(kDependentNameUsrPrefix) + name->first, name->first.c_str());
      c->addAstOnly(name->second, id, SymbolKind::Unknown, ClangRole::Reference, false, /*unlisted=*/true);
    }
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
  // clangd's index checks the declaration the expression names and lists every call. An
  // expression may name a later declaration (glibc's stdio.h declares sscanf, then redirects it
  // to __isoc99_sscanf; with _FORTIFY_SOURCE, string_fortified.h defines memcpy again): the
  // implicit one is still the first, at the header's first declaration, its extent the name
  // alone where a declaration written in a header starts with its type.
  static bool redeclaresBuiltin(CXCursor referenced) {
    if (clang_getCursorKind(referenced) != CXCursor_FunctionDecl) return false;
    CXCursor first = clang_getCanonicalCursor(referenced);
    if (clang_equalCursors(first, referenced)) return false;
    CXSourceLocation at = clang_getCursorLocation(first);
    if (clang_equalLocations(at, clang_getCursorLocation(referenced))) return true;
    if (!clang_Location_isInSystemHeader(at)) return false;
    CXSourceRange extent = clang_getCursorExtent(first);
    unsigned start = 0, end = 0;
    clang_getFileLocation(clang_getRangeStart(extent), nullptr, nullptr, nullptr, &start);
    clang_getFileLocation(clang_getRangeEnd(extent), nullptr, nullptr, nullptr, &end);
    return clang_equalLocations(clang_getRangeStart(extent), at) &&
           end - start == take(clang_getCursorSpelling(first)).size();
  }

  // Whether a class cursor is an explicit instantiation, `[extern] template class X<...>;`, as
  // the source spells it (not a specialization, `template <> class X<...>`).
  bool explicitInstantiation(CXCursor cursor) {
    if (clang_Cursor_isNull(clang_getSpecializedCursorTemplate(cursor))) return false;
    CXFile file;
    unsigned offset;
    clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(cursor)), &file, nullptr, nullptr, &offset);
    int64_t id = c->fileId(file);
    if (id < 0) return false;
    std::string_view text = c->contentOf(static_cast<uint32_t>(id));
    size_t at = offset;
    auto word = [&](std::string_view w) {
      while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
      if (text.compare(at, w.size(), w) != 0) return false;
      at += w.size();
      return true;
    };
    word("extern");
    if (!word("template")) return false;
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    return at < text.size() && text[at] != '<';
  }

  // A reference a macro's body spells, at the macro's expansion in `file` (a header read as a
  // system header): recorded there as the indexer records one; false when the name is spelt at
  // the place (an ordinary reference, unindexed's to record).
  bool expansionReference(CXCursor referenced, CXSourceLocation location, uint32_t file, uint32_t offset) {
    std::string name = take(clang_getCursorSpelling(referenced));
    if (name.empty() || c->spelt(file, offset, name)) return false;
    CXCursor tmpl = clang_getSpecializedCursorTemplate(referenced);
    if (!clang_Cursor_isNull(tmpl) && clang_equalLocations(clang_getCursorLocation(tmpl), clang_getCursorLocation(referenced)))
      referenced = tmpl;
    std::string usr = take(clang_getCursorUSR(referenced));
    if (usr.empty()) return true;
    uint32_t symbol = c->usrId(usr, name.c_str());
    if (expansionUses.insert({file, offset, symbol}).second)
      c->add(location, symbol, ClangRole::Reference, kindOf(entityKindOf(clang_getCursorKind(referenced))), false, -1);
    noteOutsideTarget(*c, symbol, referenced);
    return true;
  }

  // A reference the indexer left out: recorded where the cursor API resolves it exactly. A call
  // whose callee lookup a template's parameters leave open (`get_number(fmt, number)` in a member
  // of a class template, nlohmann's json.hpp) names the overload set the lookup found at the
  // template's definition: clangd goes to every function in it, and its references list the
  // declarations only, so each is an unlisted reference there.
  void unindexed(CXCursor cursor, CXCursor referenced) {
    CXCursorKind kind = clang_getCursorKind(referenced);
    if (kind == CXCursor_OverloadedDeclRef) {
      for (unsigned i = 0; i < clang_getNumOverloadedDecls(referenced); ++i) {
        CXCursor candidate = clang_getOverloadedDecl(referenced, i);
        CXCursorKind k = clang_getCursorKind(candidate);
        if (k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate || k == CXCursor_CXXMethod)
          unindexed(cursor, candidate);
      }
      return;
    }
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
    // libclang's indexer reports no reference inside a header the unit reads as a system header
    // (googletest's own headers, reached through -isystem in its tests), where clangd's index
    // does: there the name is an ordinary reference, unless it lies where clang's indexing
    // library never looks (a non-type template parameter's type).
    bool listed = clang_Location_isInSystemHeader(location) && inParameterType == 0;
    // There a macro's expansion, which the preprocessing record put among what stands at the
    // place, hides nothing: the names its body spells are references at it, as the indexer
    // reports them elsewhere (Exiv2's XMPSDK.hpp, under -isystem, names std::string through its
    // includer's TXMP_STRING_TYPE).
    if (listed && !builtin && expansionReference(referenced, location, static_cast<uint32_t>(id), offset)) return;
    if (!builtin && indexed.count(placeKey(static_cast<uint32_t>(id), offset))) return;
    // An implicit instantiation answers as its template, as the indexer reports it.
    CXCursor tmpl = clang_getSpecializedCursorTemplate(referenced);
    if (!clang_Cursor_isNull(tmpl) && clang_equalLocations(clang_getCursorLocation(tmpl), clang_getCursorLocation(referenced)))
      referenced = tmpl;
    std::string usr = take(clang_getCursorUSR(referenced));
    if (usr.empty()) return;
    std::string name = take(clang_getCursorSpelling(referenced));
    CXIdxEntityKind entity = entityKindOf(clang_getCursorKind(referenced));
    uint32_t symbol = c->usrId(usr, name.c_str());
    if (builtin) {
      // Recorded as the indexer records a reference: where the source spells it, or at the
      // expansion of the macro whose body calls it (a test's CHECK macro calling memcmp).
      if (builtinUses.insert({static_cast<uint32_t>(id), offset, symbol}).second)
        c->add(location, symbol, ClangRole::Reference, kindOf(entity), false, -1);
      noteOutsideTarget(*c, symbol, referenced);
      return;
    }
    // A C function no header declares is declared implicitly at its first call (C89's rule, which
    // clang keeps with a warning; the indexer reports neither): the function lies where it is
    // named, and clangd goes there from each call of the unit's. A declaration definitions answer.
    if (entity == CXIdxEntity_Function && clang_getCursorLanguage(referenced) == CXLanguage_C &&
        clang_equalLocations(clang_getCursorLocation(referenced), location))
      c->addAstOnly(location, symbol, SymbolKind::Function, ClangRole::Declaration, false, /*unlisted=*/true);
    if (c->addAstOnly(location, symbol, kindOf(entity), ClangRole::Reference, false, /*unlisted=*/!listed))
      noteOutsideTarget(*c, symbol, referenced);
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
    uint32_t symbol = c->usrId(usr, name.c_str());
    c->addAstOnly(clang_getCursorLocation(cursor), symbol, SymbolKind::TypeParameter, ClangRole::Reference, false,
                  inParameterType > 0);
    if (clang_getCursorKind(parameter) == CXCursor_TemplateTypeParameter) dependentTypeName(cursor, name, symbol);
  }
  // `typename T::ValueType` where T is a template parameter: clang 14 resolves nothing at
  // ValueType, and clangd 14's go-to-definition there answers T, its references T's (checked
  // against it: its selection takes the dependent type, whose qualifier is what it can name). An
  // unlisted reference to T at the name answers so. Only one level after `typename`: an
  // expression's `T::value` is a dependent name clangd answers by the word.
  void dependentTypeName(CXCursor cursor, const std::string& parameter, uint32_t symbol) {
    CXFile file;
    unsigned offset;
    clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, &offset);
    int64_t id = c->fileId(file);
    if (id < 0) return;
    const std::string& text = c->contentOf(static_cast<uint32_t>(id));
    auto blank = [&](size_t i) { return i < text.size() && std::isspace(static_cast<unsigned char>(text[i])); };
    size_t before = offset;
    while (before > 0 && blank(before - 1)) --before;
    constexpr std::string_view kTypename = "typename";
    if (before < kTypename.size() || text.compare(before - kTypename.size(), kTypename.size(), kTypename) != 0 ||
        (before > kTypename.size() && Collector::identifierChar(text[before - kTypename.size() - 1])))
      return;
    if (text.compare(offset, parameter.size(), parameter) != 0) return;  // a macro wrote it
    size_t at = offset + parameter.size();
    while (blank(at)) ++at;
    if (text.compare(at, 2, "::") != 0) return;
    at += 2;
    while (blank(at)) ++at;
    std::string name = Collector::identifierAt(text, static_cast<uint32_t>(at));
    size_t after = at + name.size();
    while (blank(after)) ++after;
    if (name.empty() || name == "template" || text.compare(after, 2, "::") == 0 || (after < text.size() && text[after] == '<'))
      return;
    unsigned line = 0, column = 0;
    clang_getFileLocation(clang_getLocationForOffset(tu, file, static_cast<unsigned>(at)), nullptr, &line, &column, nullptr);
    if (line == 0) return;
    ClangOccurrence o{static_cast<uint32_t>(id), line - 1, column - 1, static_cast<uint32_t>(at), static_cast<uint32_t>(name.size()),
                      symbol, ClangRole::Reference, false, -1, static_cast<uint8_t>(SymbolKind::TypeParameter), false, false};
    o.unlisted = true;
    c->push(o);
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
    std::string scope;  // the USR of the namespace it is declared in ("" elsewhere)
    std::string targetScope;  // the USR of the namespace declaring what it names ("" elsewhere)
  };
  // The namespace blocks of the repository's files: (file id, start, end byte, the namespace's USR).
  struct NamespaceBlock {
    uint32_t file = 0, start = 0, end = 0;
    std::string usr;
  };
  std::vector<NamespaceBlock> namespaceBlocks;

  void namespaceBlock(CXCursor cursor) {
    if (std::optional<Collector::Extent> e = c->extentOf(cursor))
      namespaceBlocks.push_back({e->file, e->start, e->end, take(clang_getCursorUSR(cursor))});
  }
  // Whether unqualified lookup at `offset` finds the entity `u` names in its own namespace before
  // it reaches `u`: the use lies in a block of that namespace (RE2's files, inside `namespace re2
  // {`, naming `RE2`, which re2.h's top-level `using re2::RE2;` also brings in). clangd answers
  // the entity alone there, as the AST holds no trace of the using-declaration.
  bool foundFirstInItsNamespace(const UsingDeclaration& u, uint32_t file, uint32_t offset) const {
    if (u.targetScope.empty() || u.targetScope == u.scope) return false;
    return std::any_of(namespaceBlocks.begin(), namespaceBlocks.end(), [&](const NamespaceBlock& b) {
      return b.file == file && b.start < offset && offset < b.end && b.usr == u.targetScope;
    });
  }
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
    if (clang_getCursorKind(parent) == CXCursor_Namespace) u.scope = take(clang_getCursorUSR(parent));
    CXCursor named = clang_getCursorReferenced(cursor);
    if (clang_getCursorKind(named) == CXCursor_OverloadedDeclRef)
      named = clang_getNumOverloadedDecls(named) > 0 ? clang_getOverloadedDecl(named, 0) : clang_getNullCursor();
    if (CXCursor home = clang_getCursorSemanticParent(named); clang_getCursorKind(home) == CXCursor_Namespace)
      u.targetScope = take(clang_getCursorUSR(home));
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

  // A using-declaration in effect over [from, to) of a file: its own file's stretch after it, in
  // its scope; or the main file's after the #include that entered it (one at the translation
  // unit's scope: googletest.h's `using std::string;` names every later `string` of a test).
  struct InScope {
    const UsingDeclaration* declaration = nullptr;
    uint32_t from = 0, to = UINT32_MAX;
  };

  // Where the main file entered `file` through the #includes (clang_getInclusions' edges,
  // collected before this walk): the main file's id and the offset of the #include there that
  // led to it; nullopt for the main file itself.
  using IncludedBy = std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>>;  // file -> (includer, offset)
  static std::optional<std::pair<uint32_t, uint32_t>> enteredFromMain(const IncludedBy& includedBy, uint32_t file) {
    std::optional<std::pair<uint32_t, uint32_t>> top;
    for (int step = 0; step < 64; ++step) {
      auto up = includedBy.find(file);
      if (up == includedBy.end()) return top;
      top = up->second;
      file = up->second.first;
    }
    return std::nullopt;
  }

  // Whether a place (file, offset) comes before another in the unit, as the preprocessor read
  // them: compared in the first file both lie in, following each up the #includes that entered
  // its file first (an include-guarded file's text is read there).
  static bool readBefore(const IncludedBy& includedBy, std::pair<uint32_t, uint32_t> a, std::pair<uint32_t, uint32_t> b) {
    std::vector<std::pair<uint32_t, uint32_t>> up;  // a, then the #includes that led to it
    for (int step = 0; step < 64; ++step) {
      up.push_back(a);
      auto it = includedBy.find(a.first);
      if (it == includedBy.end()) break;
      a = it->second;
    }
    for (int step = 0; step < 64; ++step) {
      for (const auto& [file, offset] : up)
        if (file == b.first) return offset < b.second;
      auto it = includedBy.find(b.first);
      if (it == includedBy.end()) return false;
      b = it->second;
    }
    return false;
  }

  // A using-declaration in a namespace (`namespace rapidjson { using std::size_t; }`) is in
  // effect in every block of the namespace read after it, in its own file or another.
  void laterBlocks(const UsingDeclaration& u, const IncludedBy& includedBy, std::map<uint32_t, std::vector<InScope>>& inScope,
                   std::map<uint32_t, CXFile>& files) {
    for (const NamespaceBlock& b : namespaceBlocks) {
      if (b.usr != u.scope || (b.file == u.file && b.start <= u.offset && u.offset < b.end)) continue;
      if (!readBefore(includedBy, {u.file, u.offset}, {b.file, b.start})) continue;
      if (!files.count(b.file))
        if (CXFile file = clang_getFile(tu, c->facts.files[b.file].c_str())) files.emplace(b.file, file);
      if (files.count(b.file)) inScope[b.file].push_back({&u, b.start, b.end});
    }
  }

  // After the walk: the uses of each using-declaration's name (see usingDeclaration), one
  // tokenization per file that has any in effect.
  void usingUses() {
    if (usings.empty()) return;
    std::map<uint32_t, std::vector<InScope>> inScope;  // file id -> the declarations in effect there
    std::map<uint32_t, CXFile> files = {usingFiles.begin(), usingFiles.end()};
    IncludedBy includedBy;
    for (const ClangInclusion& n : c->facts.inclusions) includedBy.emplace(n.included, std::make_pair(n.includer, n.offset));
    for (const auto& [name, list] : usings)
      for (const UsingDeclaration& u : list) {
        inScope[u.file].push_back({&u, u.offset, u.scopeEnd});
        if (!u.scope.empty()) laterBlocks(u, includedBy, inScope, files);
        if (u.scopeEnd != UINT32_MAX) continue;
        auto entered = enteredFromMain(includedBy, u.file);
        if (!entered) continue;
        auto [main, offset] = *entered;
        if (!files.count(main))
          if (CXFile mainFile = clang_getFile(tu, c->facts.files[main].c_str())) files.emplace(main, mainFile);
        if (files.count(main)) inScope[main].push_back({&u, offset, UINT32_MAX});
      }
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> indexedAt;  // (file, offset) -> occurrences
    for (uint32_t i = 0; i < c->facts.occurrences.size(); ++i) {
      const ClangOccurrence& o = c->facts.occurrences[i];
      if (files.count(o.file)) indexedAt[{o.file, o.offset}].push_back(i);
    }
    for (const auto& [fileId, file] : files) usesIn(fileId, file, inScope[fileId], indexedAt);
  }

  void usesIn(uint32_t fileId, CXFile file, const std::vector<InScope>& effective,
              const std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>>& indexedAt) {
    uint32_t first = UINT32_MAX;
    for (const InScope& e : effective) first = std::min(first, e.from);
    const std::string& text = c->contentOf(fileId);
    auto size = static_cast<unsigned>(text.size());
    if (first >= size) return;
    CXSourceRange range = clang_getRange(clang_getLocationForOffset(tu, file, first), clang_getLocationForOffset(tu, file, size));
    CXToken* tokens = nullptr;
    unsigned n = 0;
    clang_tokenize(tu, range, &tokens, &n);
    // The tokens of code the preprocessor left out are no uses (and a name recorded there would
    // make the range count as compiled: keepSkippedEverywhere).
    std::vector<std::pair<uint32_t, uint32_t>> leftOut;
    for (const ClangSkipped& k : c->facts.skipped)
      if (k.file == fileId) leftOut.emplace_back(k.start, k.end);
    auto skipped = [&](unsigned offset) {
      return std::any_of(leftOut.begin(), leftOut.end(), [&](const auto& r) { return r.first <= offset && offset < r.second; });
    };
    std::string previous;
    for (unsigned i = 0; i < n; ++i) {
      std::string spelling = take(clang_getTokenSpelling(tu, tokens[i]));
      bool qualified = previous == "::" || previous == "." || previous == "->";
      previous = spelling;
      if (clang_getTokenKind(tokens[i]) != CXToken_Identifier || qualified || !usings.count(spelling)) continue;
      CXSourceLocation location = clang_getTokenLocation(tu, tokens[i]);
      unsigned offset;
      clang_getFileLocation(location, nullptr, nullptr, nullptr, &offset);
      if (skipped(offset)) continue;
      // The latest using-declaration of the name before it whose scope holds it.
      const InScope* found = nullptr;
      for (const InScope& e : effective)
        if (e.from < offset && offset < e.to && (!found || e.from > found->from) &&
            c->facts.names[e.declaration->symbol] == spelling)
          found = &e;
      if (!found || foundFirstInItsNamespace(*found->declaration, fileId, offset)) continue;
      // Not where the name is declared anew, nor where it names a local the scope declares, nor
      // where clang reports another entity of that name than the declaration's (a member of the
      // class whose method this is, found first) — an entity of another name is what the use
      // reaches through it (`fp(1, 2)`: the constructor of the class `fp` is an alias of).
      std::vector<uint32_t> targets;
      if (auto own = indexedAt.find({found->declaration->file, found->declaration->offset}); own != indexedAt.end())
        for (uint32_t k : own->second)
          if (c->facts.occurrences[k].role == ClangRole::Reference) targets.push_back(c->facts.occurrences[k].usr);
      // Nor where the name is a type template's with its arguments (`Element<int>`): clang 14
      // keeps no trace of the using-declaration in a template specialization's type, so clangd
      // answers the template alone there (a function template's call keeps it).
      bool withArguments = i + 1 < n && take(clang_getTokenSpelling(tu, tokens[i + 1])) == "<";
      bool other = false;
      if (auto at = indexedAt.find({fileId, offset}); at != indexedAt.end())
        for (uint32_t k : at->second) {
          const ClangOccurrence& o = c->facts.occurrences[k];
          bool named = targets.empty() || c->facts.names[o.usr] != spelling ||
                       std::find(targets.begin(), targets.end(), o.usr) != targets.end();
          other |= o.role != ClangRole::Reference || isFunctionLocalUsr(c->facts.usrs[o.usr]) || !named ||
                   (withArguments && isTypeKind(static_cast<SymbolKind>(o.kind)));
        }
      if (!other) c->addAstOnly(location, found->declaration->symbol, SymbolKind::Import, ClangRole::Reference, false, /*unlisted=*/true);
    }
    if (tokens) clang_disposeTokens(tu, tokens, n);
  }

  // Whether a function libclang calls no definition has a body after all, one this unit skipped
  // because an earlier unit of its session parsed it: its extent then ends before the body, and
  // what follows is the body's brace (or a constructor's initializers). Its parameters are the
  // definition's, as the unit that parsed the body reports them; naming them as a prototype's
  // would make the facts depend on which unit a session gave the header first.
  bool bodySkipped(CXCursor function) {
    CXFile file;
    unsigned offset;
    clang_getFileLocation(clang_getRangeEnd(clang_getCursorExtent(function)), &file, nullptr, nullptr, &offset);
    int64_t id = c->fileId(file);
    if (id < 0) return false;
    const std::string& text = c->contentOf(static_cast<uint32_t>(id));
    size_t next = offset;
    while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
    return next < text.size() && (text[next] == '{' || text[next] == ':');
  }

  // The last function prototypeParameter met, and whether it is a definition (or one whose body
  // the unit skipped).
  std::pair<CXCursor, bool> definedParent{clang_getNullCursor(), false};

  // A parameter of a function declaration that is no definition (a prototype): clang's indexer
  // reports none, clangd answers it with itself. One symbol per place, named by its file and
  // offset (every unit reading the header names it alike); function-local, as any parameter.
  // Returns the parameter's symbol, if recorded.
  std::optional<uint32_t> prototypeParameter(CXCursor cursor, CXCursor parent) {
    CXCursorKind owner = clang_getCursorKind(parent);
    if (owner != CXCursor_FunctionDecl && owner != CXCursor_CXXMethod && owner != CXCursor_Constructor &&
        owner != CXCursor_ConversionFunction && owner != CXCursor_FunctionTemplate)
      return std::nullopt;
    // Asked once per function, not at each of its parameters (the extent costs).
    if (!clang_equalCursors(parent, definedParent.first))
      definedParent = {parent, clang_isCursorDefinition(parent) || bodySkipped(parent)};
    if (definedParent.second) return std::nullopt;
    CXSourceLocation location = clang_getCursorLocation(cursor);
    CXFile file;
    unsigned offset;
    clang_getFileLocation(location, &file, nullptr, nullptr, &offset);
    int64_t id = c->fileId(file);
    if (id < 0) return std::nullopt;
    // A header's prototype, read alike by each unit that includes it, has its parameters
    // reported once a session (Collector::leavesOut): not one a macro writes (its place is the
    // macro's), nor one with errors (the words of its type name it, invalidTypeNames).
    auto at = static_cast<uint32_t>(id);
    bool once = !c->inExpansion(at, offset) && !clang_isInvalidDeclaration(cursor);
    if (once && c->leavesOut(at, offset, cursor)) return std::nullopt;
    std::string name = take(clang_getCursorSpelling(cursor));
    if (name.empty()) return std::nullopt;
    std::string usr = std::string(kParameterUsr) + c->facts.files[static_cast<size_t>(id)] + "@" + std::to_string(offset);
    uint32_t symbol = c->usrId(usr, name.c_str());
    size_t before = c->facts.occurrences.size();
    c->add(location, symbol, ClangRole::Declaration, SymbolKind::Parameter, false, -1);
    if (once && c->facts.occurrences.size() > before && c->facts.occurrences.back().offset == offset) c->reports(at, offset, cursor);
    return symbol;
  }

  // A declaration whose type names nothing clang knows (`local const ct_data tab[2]` in a header
  // parsed without the includer that defines `local`): clang recovers by declaring the name
  // after the unknown one, and marks the declaration invalid. clangd's selection at the unknown
  // name finds no node but the declaration's, so its go-to-definition answers the declaration
  // itself; its references are the declaration's, without that place. Each identifier before
  // the declared name that the indexer reported nothing at is such a place: `unlisted`.
  // A prototype's parameter is `recorded`'s symbol (prototypeParameter), any other declaration
  // its USR's.
  void invalidTypeNames(CXCursor cursor, std::optional<uint32_t> recorded) {
    CXSourceLocation name = clang_getCursorLocation(cursor);
    CXFile file;
    unsigned nameOffset;
    clang_getFileLocation(name, &file, nullptr, nullptr, &nameOffset);
    int64_t id = c->fileId(file);
    std::string usr = recorded ? std::string() : take(clang_getCursorUSR(cursor));
    if (id < 0 || (!recorded && usr.empty())) return;
    CXToken* tokens = nullptr;
    unsigned n = 0;
    clang_tokenize(tu, clang_getRange(clang_getRangeStart(clang_getCursorExtent(cursor)), name), &tokens, &n);
    uint32_t symbol = recorded ? *recorded : c->usrId(usr, take(clang_getCursorSpelling(cursor)).c_str());
    CXCursorKind declared = clang_getCursorKind(cursor);
    SymbolKind kind = declared == CXCursor_ParmDecl ? SymbolKind::Parameter
                      : kindOf(declared == CXCursor_FieldDecl      ? CXIdxEntity_Field
                               : declared == CXCursor_FunctionDecl ? CXIdxEntity_Function
                                                                   : CXIdxEntity_Variable);
    for (unsigned i = 0; i < n; ++i) {
      if (clang_getTokenKind(tokens[i]) != CXToken_Identifier) continue;
      CXSourceLocation at = clang_getTokenLocation(tu, tokens[i]);
      CXFile tokenFile;
      unsigned offset;
      clang_getFileLocation(at, &tokenFile, nullptr, nullptr, &offset);
      if (!clang_File_isEqual(tokenFile, file) || offset >= nameOffset || indexed.count(placeKey(static_cast<uint32_t>(id), offset)))
        continue;
      size_t before = c->facts.occurrences.size();
      c->add(at, symbol, ClangRole::Reference, kind, false, -1);
      if (c->facts.occurrences.size() > before) c->facts.occurrences.back().unlisted = true;
    }
    if (tokens) clang_disposeTokens(tu, tokens, n);
  }

  // Labels (`cleanup:` and each `goto cleanup`), which libclang's indexer never reports: clangd's
  // go-to-definition goes to the label statement from either, its references list none (its
  // indexing library skips labels). A label has no USR; nib names it by its file and place, so
  // that units reading one header agree. Both roles are unlisted: definitions only.
  void label(CXCursor cursor, CXCursorKind kind) {
    CXCursor statement = kind == CXCursor_LabelStmt ? cursor : clang_getCursorReferenced(cursor);
    if (clang_Cursor_isNull(statement)) return;
    CXFile file;
    unsigned offset;
    clang_getFileLocation(clang_getCursorLocation(statement), &file, nullptr, nullptr, &offset);
    int64_t id = c->fileId(file);
    std::string name = take(clang_getCursorSpelling(statement));
    if (id < 0 || name.empty()) return;
    std::string_view path = c->facts.files[id];
    if (path.rfind(c->root, 0) == 0) path.remove_prefix(c->root.size());
    uint32_t symbol = c->usrId(std::string(kLabelUsrPrefix) + std::string(path) + "@" + std::to_string(offset), name.c_str());
    c->addAstOnly(clang_getCursorLocation(cursor), symbol, SymbolKind::Unknown,
                  kind == CXCursor_LabelStmt ? ClangRole::Definition : ClangRole::Reference, false, /*unlisted=*/true);
  }

  static bool isTemplateParameter(CXCursorKind kind) {
    return kind == CXCursor_TemplateTypeParameter || kind == CXCursor_NonTypeTemplateParameter ||
           kind == CXCursor_TemplateTemplateParameter;
  }

  // A member named in `offsetof(T, a.b)`: libclang exposes no offsetof expression, whose
  // children are the type's reference and then the designator's members (a designated
  // initializer's begin with its member, a compound literal is a kind of its own).
  static bool offsetofDesignator(CXCursor parent) {
    if (clang_getCursorKind(parent) != CXCursor_UnexposedExpr) return false;
    CXCursorKind first = CXCursor_InvalidFile;
    clang_visitChildren(
        parent,
        [](CXCursor child, CXCursor, CXClientData data) {
          *static_cast<CXCursorKind*>(data) = clang_getCursorKind(child);
          return CXChildVisit_Break;
        },
        &first);
    return first == CXCursor_TypeRef;
  }
  void designator(CXCursor cursor) {
    CXFile file = nullptr;
    unsigned offset = 0;
    clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, &offset);
    int64_t id = c->fileId(file);
    if (id < 0) return;
    auto length = static_cast<uint32_t>(Collector::identifierAt(c->contentOf(static_cast<uint32_t>(id)), offset).size());
    if (length > 0) c->facts.designators.push_back({static_cast<uint32_t>(id), offset, length});
  }

  static CXChildVisitResult visit(CXCursor cursor, CXCursor parent, CXClientData data) {
    auto* self = static_cast<AstOnlyNames*>(data);
    // The preprocessing record's entities (most of a unit's top level: every macro definition
    // and expansion of every header) hold no name this walk looks for.
    if (clang_isPreprocessing(clang_getCursorKind(cursor))) return CXChildVisit_Continue;
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
    // An explicit instantiation's template arguments (`template class TXMPMeta<std::string>;`)
    // are where clang's indexing library does not look either: clangd lists no reference there.
    if ((kind == CXCursor_ClassDecl || kind == CXCursor_StructDecl || kind == CXCursor_UnionDecl) &&
        self->explicitInstantiation(cursor)) {
      ++self->inParameterType;
      clang_visitChildren(cursor, visit, self);
      --self->inParameterType;
      return CXChildVisit_Continue;
    }
    if (kind == CXCursor_Namespace) self->namespaceBlock(cursor);
    std::optional<uint32_t> parameter;
    if (kind == CXCursor_ParmDecl) parameter = self->prototypeParameter(cursor, parent);
    if (kind == CXCursor_ParmDecl && !parameter) parameter = addFunctionTypeParameter(*self->c, cursor, parent);
    if ((kind == CXCursor_VarDecl || kind == CXCursor_FieldDecl || kind == CXCursor_FunctionDecl ||
         kind == CXCursor_ParmDecl) &&
        clang_isInvalidDeclaration(cursor)) {
      self->invalidTypeNames(cursor, parameter);
      if (kind == CXCursor_FunctionDecl) addInvalidDeclarationWords(*self->c, self->tu, cursor, self->indexed);
    }
    if (kind == CXCursor_LabelStmt || kind == CXCursor_LabelRef) self->label(cursor, kind);
    if (kind == CXCursor_MemberRef && offsetofDesignator(parent)) self->designator(cursor);
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
        if (kind == CXCursor_NamespaceRef && !clang_Cursor_isNull(referenced)) self->qualified.afterNamespace(cursor, referenced);
        break;
      }
      default: break;
    }
    return CXChildVisit_Recurse;
  }
};

}  // namespace

void addAstOnlyNames(Collector& c, CXTranslationUnit tu) {
  AstOnlyNames astOnly(&c, tu);
  clang_visitChildren(clang_getTranslationUnitCursor(tu), AstOnlyNames::visit, &astOnly);
  astOnly.usingUses();
  // A qualified name lookup found through the repository's using-declaration of it in that
  // namespace answers for it.
  astOnly.qualified.resolve([&](const std::string& scope, const std::string& name) -> std::optional<uint32_t> {
    auto it = astOnly.usings.find(name);
    if (it != astOnly.usings.end())
      for (const AstOnlyNames::UsingDeclaration& u : it->second)
        if (u.scope == scope) return u.symbol;
    return std::nullopt;
  });
  astOnly.qualified.globalUsings();
}

}  // namespace nib::clangindex
