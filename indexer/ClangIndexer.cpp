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

#include "indexer/ClangArguments.h"
#include "indexer/ClangBodyBlanking.h"
#include "indexer/ClangCollector.h"
#include "indexer/ClangFriends.h"
#include "views/ClangPreambleMacros.h"
#include "views/FileFacts.h"
#include "views/TuFactsMainFile.h"

namespace nib {
namespace fs = std::filesystem;
namespace {

using namespace clangindex;


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
    CXDiagnosticSeverity severity = clang_getDiagnosticSeverity(d);
    c->fatal = c->fatal || severity == CXDiagnostic_Fatal;
    if (severity >= CXDiagnostic_Error && clang_Location_isFromMainFile(clang_getDiagnosticLocation(d))) c->mainFileError = true;
    if (severity >= CXDiagnostic_Error) {
      CXFile file;
      clang_getFileLocation(clang_getDiagnosticLocation(d), &file, nullptr, nullptr, nullptr);
      if (file) c->errorFiles.push_back(file);
    }
    if (severity >= CXDiagnostic_Error && c->facts.errors.size() < 5)
      c->facts.errors.push_back(take(clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation)));
    clang_disposeDiagnostic(d);
  }
}

// The declaration a declared entity's type names, as clangd's go-to-type-definition finds it:
// through pointers, references and arrays to what they point at, a function to its return type,
// an elaborated name (`struct point p`) to the declaration it names, a typedef to the type it
// aliases. Null for built-in types.
CXCursor typeDeclarationOf(CXCursor entity) {
  CXCursorKind kind = clang_getCursorKind(entity);
  bool alias = kind == CXCursor_TypedefDecl || kind == CXCursor_TypeAliasDecl;
  CXType t = alias ? clang_getTypedefDeclUnderlyingType(entity) : clang_getCursorType(entity);
  if (t.kind == CXType_FunctionProto || t.kind == CXType_FunctionNoProto) t = clang_getResultType(t);
  for (int depth = 0; depth < 8; ++depth) {
    CXType next = t;
    if (t.kind == CXType_Pointer || t.kind == CXType_LValueReference || t.kind == CXType_RValueReference)
      next = clang_getPointeeType(t);
    else if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray ||
             t.kind == CXType_DependentSizedArray)
      next = clang_getArrayElementType(t);
    else if (t.kind == CXType_Elaborated)
      next = clang_Type_getNamedType(t);
    if (next.kind == t.kind && clang_equalTypes(next, t)) break;
    t = next;
  }
  return clang_getTypeDeclaration(t);
}

bool hasType(CXIdxEntityKind kind) {
  return kind == CXIdxEntity_Variable || kind == CXIdxEntity_Field || kind == CXIdxEntity_Function ||
         kind == CXIdxEntity_CXXInstanceMethod || kind == CXIdxEntity_CXXStaticMethod ||
         kind == CXIdxEntity_CXXStaticVariable || kind == CXIdxEntity_ObjCIvar || kind == CXIdxEntity_Typedef ||
         kind == CXIdxEntity_CXXTypeAlias;
}

// Entities whose definition is a scope that names what it holds: what an #include inside one
// declares belongs to it.
bool isScope(CXIdxEntityKind kind) {
  return kind == CXIdxEntity_CXXNamespace || kind == CXIdxEntity_Struct || kind == CXIdxEntity_CXXClass ||
         kind == CXIdxEntity_Union || kind == CXIdxEntity_Enum;
}

// An explicit or partial specialization of a class template (`template <> struct
// formatter<Point>`): its own name names the template too, and clangd's go-to-definition there
// goes to the template (TuFacts::specializations). A function template's explicit
// specialization is a definition of its own there, as clangd answers it.
void noteSpecializedTemplate(Collector& c, uint32_t usr, const CXIdxDeclInfo* info) {
  CXIdxEntityKind kind = info->entityInfo->kind;
  CXIdxEntityCXXTemplateKind templated = info->entityInfo->templateKind;
  if ((kind != CXIdxEntity_Struct && kind != CXIdxEntity_CXXClass && kind != CXIdxEntity_Union) ||
      (templated != CXIdxEntity_TemplateSpecialization && templated != CXIdxEntity_TemplatePartialSpecialization))
    return;
  CXCursor primary = clang_getSpecializedCursorTemplate(info->cursor);
  if (clang_Cursor_isNull(primary)) return;
  std::string t = take(clang_getCursorUSR(primary));
  if (t.empty()) return;
  std::pair<uint32_t, uint32_t> edge{usr, c.usrId(t, take(clang_getCursorSpelling(primary)).c_str())};
  if (std::find(c.facts.specializations.begin(), c.facts.specializations.end(), edge) == c.facts.specializations.end())
    c.facts.specializations.push_back(edge);
  // A template a system header declares (`std::hash`) answers at its place there.
  noteOutsideTarget(c, edge.second, primary);
}

// Whether an indexer location lies in a repository file: the declarations and references of
// system headers (thousands a unit) are left out before their USRs, types and edges are looked
// up, which would cost a unit more than its own names do.
bool inRepository(Collector& c, CXIdxLoc loc) {
  CXFile file = nullptr;
  clang_getFileLocation(clang_indexLoc_getCXSourceLocation(loc), &file, nullptr, nullptr, nullptr);
  return c.fileId(file) >= 0;
}

// A declaration's attributes, whose words answer the entity (addAttributeWords): each one's
// place, with the declaration's extent's start and its name where they lie in one file.
void noteAttributes(Collector& c, const CXIdxDeclInfo* info, uint32_t usr) {
  CXFile nameFile = nullptr, startFile = nullptr;
  unsigned name = 0, start = 0;
  clang_indexLoc_getFileLocation(info->loc, nullptr, &nameFile, nullptr, nullptr, &name);
  clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(info->cursor)), &startFile, nullptr, nullptr, &start);
  const bool together = nameFile && startFile && clang_File_isEqual(nameFile, startFile);
  for (unsigned i = 0; i < info->numAttributes; ++i) {
    CXFile file = nullptr;
    unsigned offset = 0;
    clang_indexLoc_getFileLocation(info->attributes[i]->loc, nullptr, &file, nullptr, nullptr, &offset);
    int64_t id = c.fileId(file);
    if (id < 0) continue;
    Collector::AttributeAt a{static_cast<uint32_t>(id), offset, usr, kindOf(info->entityInfo->kind)};
    if (int64_t declared = together ? c.fileId(nameFile) : -1; declared >= 0)
      a.declarationFile = static_cast<uint32_t>(declared), a.start = start, a.name = name;
    c.attributes.push_back(a);
  }
}

void declaration(CXClientData data, const CXIdxDeclInfo* info) {
  auto* c = static_cast<Collector*>(data);
  if (info->isImplicit || !info->entityInfo || !info->entityInfo->USR || !*info->entityInfo->USR) return;
  if (!inRepository(*c, info->loc)) return;
  uint32_t usr = c->usrId(info->entityInfo->USR, info->entityInfo->name);
  // The references inside a container (a function's body) find its USR's id here rather than
  // generate the USR again each (reference()).
  if (info->declAsContainer)
    clang_index_setClientContainer(info->declAsContainer, reinterpret_cast<CXIdxClientContainer>(static_cast<uintptr_t>(usr) + 1));
  size_t before = c->facts.occurrences.size();
  c->add(clang_indexLoc_getCXSourceLocation(info->loc), usr,
         info->isDefinition ? ClangRole::Definition : ClangRole::Declaration, kindOf(info->entityInfo->kind), false, -1);
  // A friend declaration clangd's index does not list (ClangFriends.h) answers go-to-definition only.
  if (c->cplusplus && !info->isDefinition && c->facts.occurrences.size() > before && unlistedFriendDeclaration(*c, info))
    c->facts.occurrences.back().unlisted = true;
  if (info->isDefinition && isScope(info->entityInfo->kind)) c->addScope(info->cursor);
  if (info->numAttributes > 0) noteAttributes(*c, info, usr);
  // A namespace a system header opened first in this unit (`std`): its canonical declaration,
  // where clangd goes from any block of it, lies outside the repository.
  if (info->entityInfo->kind == CXIdxEntity_CXXNamespace) {
    CXFile first = nullptr;
    clang_getFileLocation(clang_getCursorLocation(clang_getCanonicalCursor(info->cursor)), &first, nullptr, nullptr, nullptr);
    if (first && c->fileId(first) < 0 && std::find(c->facts.openedOutside.begin(), c->facts.openedOutside.end(), usr) == c->facts.openedOutside.end()) {
      c->facts.openedOutside.push_back(usr);
      noteOutsideTarget(*c, usr, info->cursor);  // that block, whether or not a `std::` names it
    }
  }
  noteSpecializedTemplate(*c, usr, info);
  if (const CXIdxCXXClassDeclInfo* cls = clang_index_getCXXClassDeclInfo(info))
    for (unsigned i = 0; i < cls->numBases; ++i) {
      const CXIdxBaseClassInfo* base = cls->bases[i];
      if (base && base->base && base->base->USR && *base->base->USR)
        c->facts.bases.emplace_back(usr, c->usrId(usrOf(base->base), base->base->name));
    }
  if (hasType(info->entityInfo->kind)) {
    CXCursor type = typeDeclarationOf(info->cursor);
    if (!clang_Cursor_isNull(type) && clang_getCursorKind(type) != CXCursor_NoDeclFound) {
      if (uint32_t t = c->usrOfCursor(type); t != Collector::kNoUsr) c->facts.types.emplace_back(usr, t);
    }
  }
  // A virtual method's (or destructor's) overridden ones: clangd's references of a method include theirs.
  if (info->entityInfo->kind == CXIdxEntity_CXXInstanceMethod || info->entityInfo->kind == CXIdxEntity_CXXDestructor) {
    CXCursor* overridden = nullptr;
    unsigned n = 0;
    clang_getOverriddenCursors(info->cursor, &overridden, &n);
    for (unsigned i = 0; i < n; ++i)
      if (uint32_t o = c->usrOfCursor(overridden[i]); o != Collector::kNoUsr) c->facts.overrides.emplace_back(usr, o);
    if (overridden) clang_disposeOverriddenCursors(overridden);
  }
}

// Whether an implicit reference is the class a base specifier names through a typedef or an
// alias: clang's indexer reports the alias at the name, then the class (IndexTypeSourceInfo's
// VisitTypedefTypeLoc), so the unit's last occurrence is the alias' at the same place.
bool baseThroughAlias(Collector& c, const CXIdxEntityRefInfo* info) {
  const CXIdxEntityKind kind = info->referencedEntity->kind;
  if ((kind != CXIdxEntity_CXXClass && kind != CXIdxEntity_Struct && kind != CXIdxEntity_Union) ||
      clang_getCursorKind(info->cursor) != CXCursor_TypeRef || c.facts.occurrences.empty())
    return false;
  CXFile file;
  unsigned offset;
  clang_indexLoc_getFileLocation(info->loc, nullptr, &file, nullptr, nullptr, &offset);
  const ClangOccurrence& last = c.facts.occurrences.back();
  return c.fileId(file) == last.file && last.offset == offset && static_cast<SymbolKind>(last.kind) == SymbolKind::TypeAlias;
}

// Whether a reference to a struct, union, enum or class is the elaborated name that declares it
// (`typedef struct prog_s prog_t;` before any other declaration of prog_s: glslang's C
// interface, the opaque handles of many C libraries): libclang's indexer calls it a reference,
// clangd's index its declaration, whose place go-to-definition at the definition answers.
// `named` is the declaration the name refers to, which then lies at the name itself.
template <typename Named>
bool declaresTag(const CXIdxEntityRefInfo* info, Named named) {
  const CXIdxEntityKind kind = info->referencedEntity->kind;
  if ((kind != CXIdxEntity_Struct && kind != CXIdxEntity_Union && kind != CXIdxEntity_Enum && kind != CXIdxEntity_CXXClass) ||
      clang_getCursorKind(info->cursor) != CXCursor_TypeRef || clang_isCursorDefinition(named()))
    return false;
  CXFile at = nullptr, declared = nullptr;
  unsigned offset = 0, declaredOffset = 0;
  clang_indexLoc_getFileLocation(info->loc, nullptr, &at, nullptr, nullptr, &offset);
  clang_getFileLocation(clang_getCursorLocation(named()), &declared, nullptr, nullptr, &declaredOffset);
  return at && declared && offset == declaredOffset && clang_File_isEqual(at, declared);
}

void reference(CXClientData data, const CXIdxEntityRefInfo* info) {
  auto* c = static_cast<Collector*>(data);
  if (!info->referencedEntity || !inRepository(*c, info->loc)) return;
  // Of the references clang's indexer calls implicit, only a base class named through a typedef
  // or an alias (CLI11's `class ConfigINI : public ConfigTOML`, `using ConfigTOML = ConfigBase`)
  // is one clangd's index lists: the class's, at the alias' name, which answers there itself.
  const bool implicit = info->kind == CXIdxEntityRef_Implicit;
  if (implicit && !baseThroughAlias(*c, info)) return;
  const uint32_t usr = c->usrOfReferenced(info->referencedEntity->cursor, [&] {
    std::string usrText = usrOf(info->referencedEntity);
    return usrText.empty() ? Collector::kNoUsr : c->usrId(usrText, info->referencedEntity->name);
  });
  if (usr == Collector::kNoUsr) return;
  int32_t container = -1;
  if (info->container) {
    if (CXIdxClientContainer known = clang_index_getClientContainer(info->container)) {
      container = static_cast<int32_t>(reinterpret_cast<uintptr_t>(known) - 1);
    } else if (uint32_t cu = c->usrOfCursor(info->container->cursor); cu != Collector::kNoUsr) {
      container = static_cast<int32_t>(cu);
    }
  }
  const CXIdxEntityKind parent = info->parentEntity ? info->parentEntity->kind : CXIdxEntity_Unexposed;
  const bool inClass = parent == CXIdxEntity_CXXClass || parent == CXIdxEntity_Struct || parent == CXIdxEntity_Union;
  // The declaration the reference names, as clangd's selection has it: a function template's
  // specialization, whose definition is the template's (std::sort's in stl_algo.h), where the
  // indexer's entity is the template's first declaration (algorithmfwd.h's). Asked for only
  // where it is looked at: a tag's name, an entity not looked at outside yet.
  std::optional<CXCursor> namedCursor;
  auto named = [&] {
    if (!namedCursor) namedCursor = clang_getCursorReferenced(info->cursor);
    return *namedCursor;
  };
  size_t before = c->facts.occurrences.size();
  c->add(clang_indexLoc_getCXSourceLocation(info->loc), usr,
         !implicit && !inClass && declaresTag(info, named) ? ClangRole::Declaration : ClangRole::Reference,
         kindOf(info->referencedEntity->kind), (info->role & CXSymbolRole_Call) != 0, container,
         info->parentEntity ? info->parentEntity->cursor : clang_getNullCursor());
  if (implicit) {
    if (c->facts.occurrences.size() > before) c->facts.occurrences.back().expanded = true;  // never the name there
    return;
  }
  // `friend class B;` that declares B first answers go-to-definition only (ClangFriends.h). Its
  // parent is the class that declares it, which most references' is not (their text stays unread).
  if (inClass && c->facts.occurrences.size() > before && unlistedFriendReference(*c, info, named()))
    c->facts.occurrences.back().unlisted = true;
  if (usr < c->outsideLooked.size() && c->outsideLooked[usr]) return;  // noteOutsideTarget looks once
  noteOutsideTarget(*c, usr, clang_isDeclaration(clang_getCursorKind(named())) ? named() : info->referencedEntity->cursor);
}

// Whether a macro's definition is the compiler's own (the predefines' `<built-in>` buffer), not
// the command line's (`<command line>`) nor a file's. Both buffers are no file, so a definition
// in a file is neither (the common case, answered without decoding a presumed location).
bool predefinedMacro(CXCursor definition) {
  CXFile in = nullptr;
  clang_getFileLocation(clang_getCursorLocation(definition), &in, nullptr, nullptr, nullptr);
  if (in) return false;
  CXString file;
  clang_getPresumedLocation(clang_getCursorLocation(definition), &file, nullptr, nullptr);
  std::string name = take(file);
  return name == "<built-in>";
}

// A use of a macro the preprocessor itself provides (`__LINE__`, `__FILE__`), which has no
// definition at all: clangd lists its uses in the asked file as references (and answers no
// definition), as for the compiler's predefined macros (kPredefinedMacroUsr).
void builtinMacroUse(Collector& c, CXCursor expansion) {
  static const std::set<std::string, std::less<>> builtins = {
      "__LINE__", "__FILE__", "__FILE_NAME__", "__BASE_FILE__", "__DATE__", "__TIME__", "__TIMESTAMP__",
      "__COUNTER__", "__INCLUDE_LEVEL__"};
  std::string name = take(clang_getCursorSpelling(expansion));
  if (!builtins.count(name)) return;
  c.add(clang_getCursorLocation(expansion), c.usrId(std::string(kPredefinedMacroUsr) + name, name.c_str()), ClangRole::Reference,
        SymbolKind::Macro, false, -1);
}

// Whether `text` spells `extern "C"` at `at`.
bool spellsExternC(const std::string& text, size_t at) {
  if (at >= text.size() || text.compare(at, 6, "extern") != 0) return false;  // a file that could not be read is empty
  size_t quote = text.find_first_not_of(" \t\r\n", at + 6);
  return quote != std::string::npos && text.compare(quote, 3, "\"C\"") == 0;
}

// The `extern "C"` blocks of the repository's files (at the top level, in namespaces and in
// other such blocks), before the #includes are read (see ClangInclusion::externC). libclang 14
// exposes a linkage specification as an unexposed declaration: one that spells `extern "C"` is
// one. One a macro writes (`__BEGIN_DECLS`) may be one too: its file counts as opening its own
// (no inclusion of it is then extern "C"), though no block of its is known.
CXChildVisitResult linkageVisitor(CXCursor cursor, CXCursor, CXClientData data) {
  auto* c = static_cast<Collector*>(data);
  CXCursorKind kind = clang_getCursorKind(cursor);
  if (kind == CXCursor_Namespace) return CXChildVisit_Recurse;
  if (kind != CXCursor_LinkageSpec && kind != CXCursor_UnexposedDecl) return CXChildVisit_Continue;
  std::optional<Collector::Extent> e = c->extentOf(cursor);
  if (!e) return CXChildVisit_Recurse;
  bool written = c->inExpansion(e->file, e->start);
  bool externC = !written && spellsExternC(c->contentOf(e->file), e->start);
  if (written || externC) c->ownLinkage.insert(e->file);
  if (externC) c->linkageBlocks[e->file].emplace_back(e->start, e->end);
  return CXChildVisit_Recurse;
}

// A macro definition left out (TuFacts::sitesLeftOut) that another file of the unit expands is
// reported after all, at its first such expansion: a unit's facts say where each macro a file
// names from elsewhere is defined (the builder's HeaderConditions read them; a file's own
// macros are its own, reported or not). A header's `#if defined(X)` on its own macros (hundreds
// in LibTomMath's tommath_class.h) reports nothing.
void reportExpandedDefinition(Collector& c, Collector::SeenMacro& seen, int64_t expandedIn) {
  if (seen.leftOutIn < 0 || seen.leftOutIn == expandedIn) return;
  seen.leftOutIn = -1;
  c.add(clang_getCursorLocation(seen.definition), seen.usr, ClangRole::Definition, SymbolKind::Macro, false, -1);
}

// Where `name` ends when file `id` spells it whole at `offset`, else 0.
unsigned spelledNameEnd(Collector& c, uint32_t id, unsigned offset, const std::string& name) {
  const std::string& text = c.contentOf(id);
  if (name.empty() || offset > text.size() || text.compare(offset, name.size(), name) != 0) return 0;
  const size_t end = offset + name.size();
  return end < text.size() && Collector::identifierChar(text[end]) ? 0 : static_cast<unsigned>(end);
}

// A macro definition's record in the unit: its USR is made once per definition, not again at
// each of its expansions (a unit expands its macros thousands of times). Null where it has none.
Collector::SeenMacro* seenMacroOf(Collector& c, CXCursor def) {
  if (Collector::SeenMacro* seen = c.seenMacro(def)) return seen;
  std::string usr = take(clang_getCursorUSR(def));
  if (usr.empty()) return nullptr;
  std::string defName = take(clang_getCursorSpelling(def));
  if (predefinedMacro(def)) usr = std::string(kPredefinedMacroUsr) + defName;
  return &c.rememberMacro(def, c.usrId(usr, defName.c_str()));
}

// Where a macro cursor's extent ends in file `id`. An object-like macro's expansion ends with its
// name where the file spells it there; any other extent is clang's to say (measuring its last
// token costs more than the rest).
unsigned macroCursorEnd(Collector& c, CXCursor cursor, CXCursorKind kind, Collector::SeenMacro& seen, uint32_t id,
                        unsigned begin) {
  if (kind == CXCursor_MacroExpansion && seen.functionLike < 0)
    seen.functionLike = clang_Cursor_isMacroFunctionLike(seen.definition) ? 1 : 0;
  unsigned end = kind == CXCursor_MacroExpansion && !seen.functionLike ? spelledNameEnd(c, id, begin, c.facts.names[seen.usr]) : 0;
  if (!end) clang_getFileLocation(clang_getRangeEnd(clang_getCursorExtent(cursor)), nullptr, nullptr, nullptr, &end);
  return end;
}

// Macros are not indexer entities: they come from the preprocessing record. The same pass over
// the unit's top level notes its `extern "C"` blocks before the #includes are read.
CXChildVisitResult macroVisitor(CXCursor cursor, CXCursor, CXClientData data) {
  auto* c = static_cast<Collector*>(data);
  CXCursorKind kind = clang_getCursorKind(cursor);
  // The top level's linkage blocks and namespaces, in this same pass over the unit (see
  // linkageVisitor); a system header's are no repository file's.
  if (kind == CXCursor_Namespace || kind == CXCursor_LinkageSpec || kind == CXCursor_UnexposedDecl) {
    CXFile file;
    clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, nullptr);
    if (c->fileId(file) >= 0 && linkageVisitor(cursor, cursor, data) == CXChildVisit_Recurse)
      clang_visitChildren(cursor, linkageVisitor, data);
    else if (c->fileId(file) < 0 && kind != CXCursor_Namespace)
      c->outsideCandidates.push_back(cursor);  // a system header's `extern "C"` block, in C++
    return CXChildVisit_Continue;
  }
  if (kind != CXCursor_MacroDefinition && kind != CXCursor_MacroExpansion) {
    if (clang_isDeclaration(kind)) c->outsideCandidates.push_back(cursor);  // its file is looked at by name
    return CXChildVisit_Continue;
  }
  // A macro cursor's place is where its extent begins (the macro's name).
  CXFile file;
  unsigned begin, end;
  clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, &begin);
  if (c->fileId(file) < 0) {
    if (kind == CXCursor_MacroDefinition) c->outsideCandidates.push_back(cursor);
    return CXChildVisit_Continue;
  }
  if (kind == CXCursor_MacroDefinition && c->leavesOut(static_cast<uint32_t>(c->fileId(file)), begin, cursor)) {
    // Its text is still where the unit's declarations made by the macro are placed.
    c->leftOutDefinitions.emplace_back(cursor, c->definitionsMet++);
    return CXChildVisit_Continue;
  }
  CXCursor def = kind == CXCursor_MacroDefinition ? cursor : clang_getCursorReferenced(cursor);
  if (clang_Cursor_isNull(def)) {
    if (kind == CXCursor_MacroExpansion) builtinMacroUse(*c, cursor);
    return CXChildVisit_Continue;
  }
  Collector::SeenMacro* seen = seenMacroOf(*c, def);
  if (!seen) return CXChildVisit_Continue;
  const uint32_t id = seen->usr;
  if (kind == CXCursor_MacroExpansion) reportExpandedDefinition(*c, *seen, c->fileId(file));
  end = macroCursorEnd(*c, cursor, kind, *seen, static_cast<uint32_t>(c->fileId(file)), begin);
  if (kind == CXCursor_MacroDefinition)
    c->macros[c->facts.names[id]] = {static_cast<uint32_t>(c->fileId(file)), begin, end, c->definitionsMet++};
  else {
    if (seen->functionLike) c->functionLikeInvocations.emplace_back(cursor, def);
    c->expansions[static_cast<uint32_t>(c->fileId(file))].emplace_back(begin, end);
    c->expansionStarts.insert(static_cast<uint64_t>(c->fileId(file)) << 32 | begin);
  }
  size_t before = c->facts.occurrences.size();
  c->add(clang_getCursorLocation(cursor), id,
         kind == CXCursor_MacroDefinition ? ClangRole::Definition : ClangRole::Reference, SymbolKind::Macro, false, -1);
  // The session learns only a definition the unit did report.
  if (kind == CXCursor_MacroDefinition && c->facts.occurrences.size() > before) {
    c->reports(static_cast<uint32_t>(c->fileId(file)), begin, cursor);
    noteMacroWords(*c, static_cast<uint32_t>(c->fileId(file)), begin, end);
  }
  if (kind == CXCursor_MacroExpansion) noteOutsideTarget(*c, id, def);
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


void inclusion(CXFile file, CXSourceLocation* stack, unsigned depth, CXClientData data) {
  auto* c = static_cast<Collector*>(data);
  std::string path = take(clang_File_tryGetRealPathName(file));
  if (path.empty()) path = take(clang_getFileName(file));
  if (!path.empty() && !c->fileIds.count(path)) c->internFile(path);
  // The directive that entered the file is the innermost place of its inclusion stack: which
  // file included it where, the order a file's own parse meets its headers' declarations in.
  if (depth == 0) return;
  CXFile includer = nullptr;
  unsigned offset = 0;
  clang_getFileLocation(stack[0], &includer, nullptr, nullptr, &offset);
  int64_t from = c->fileId(includer), to = c->fileId(file);
  if (from >= 0 && to >= 0) {
    ClangInclusion i{static_cast<uint32_t>(from), static_cast<uint32_t>(offset), static_cast<uint32_t>(to),
                     c->inScope(static_cast<uint32_t>(from), offset)};
    i.externC = c->inLinkageBlock(i.includer, offset) && !c->ownLinkage.count(i.included);
    c->facts.inclusions.push_back(i);
  }
}

// Whether `offset` lies on an `#elif` line, or on a line such a line continues.
bool onElifLine(const std::string& text, size_t offset) {
  auto lineStart = [&](size_t at) {
    size_t newline = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
    return newline == std::string::npos ? 0 : newline + 1;
  };
  size_t start = lineStart(std::min(offset, text.size()));
  auto continued = [&](size_t line) {  // the line before `line` ends with a backslash
    return (line >= 2 && text[line - 2] == '\\') || (line >= 3 && text[line - 2] == '\r' && text[line - 3] == '\\');
  };
  while (start > 0 && continued(start)) start = lineStart(start - 1);
  size_t at = text.find_first_not_of(" \t", start);
  if (at == std::string::npos || text[at] != '#') return false;
  at = text.find_first_not_of(" \t", at + 1);
  return at != std::string::npos && text.compare(at, 4, "elif") == 0 &&
         (at + 4 >= text.size() || !Collector::identifierChar(text[at + 4]));
}

// A file the unit entered twice (libev's ev_wrap.h: its #define section the first time, its
// #else of #undefs the second) has each entry's left-out code among the unit's skipped ranges,
// which together cover the whole file. A range the unit recorded a name inside was compiled by
// another entry: left out of one entry only, it is no code the preprocessor left out — the file's
// own parse, as clangd's of the open header, keeps the first entry's. Inside: past the range's
// first line (the directive that starts it: `#ifndef CLOCK_MONOTONIC` names a macro there) and
// before its last, and on no `#elif` line: libclang makes one range of a branch left out, the
// `#elif` after it and that `#elif`'s branch when it is left out too (LAME's version.c: `#if
// LAME_ALPHA_VERSION … #elif LAME_BETA_VERSION … #else`), and the `#elif`'s condition was read.
void keepSkippedEverywhere(Collector& c) {
  TuFacts& facts = c.facts;
  std::unordered_map<uint32_t, std::vector<uint32_t>> named;  // file -> offsets of its occurrences, sorted
  for (const ClangOccurrence& o : facts.occurrences) named[o.file].push_back(o.offset);
  for (const auto& [file, offset] : facts.sitesLeftOut) named[file].push_back(offset);
  for (auto& [file, offsets] : named) std::sort(offsets.begin(), offsets.end());
  std::erase_if(facts.skipped, [&](const ClangSkipped& k) {
    auto it = named.find(k.file);
    if (it == named.end()) return false;
    const std::string& text = c.contentOf(k.file);
    size_t from = k.start;
    do from = text.find('\n', from + 1);  // past continued lines
    while (from != std::string::npos && from > 0 && text[from - 1] == '\\');
    size_t to = k.end == 0 ? 0 : text.rfind('\n', std::min<size_t>(k.end, text.size()) - 1);
    if (from == std::string::npos || to == std::string::npos || to <= from) return false;
    for (auto name = std::upper_bound(it->second.begin(), it->second.end(), static_cast<uint32_t>(from));
         name != it->second.end() && *name < to; ++name)
      if (!onElifLine(text, *name)) return true;
    return false;
  });
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

ClangSession::ClangSession(bool skipParsedBodies)
    : skipParsedBodies_(skipParsedBodies),
      files_(std::make_unique<clangindex::SessionFiles>()),
      blanked_(std::make_unique<clangindex::BlankedHeaders>()) {
  open();
}

ClangSession::~ClangSession() { close(); }

void ClangSession::open() {
  index_ = clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0);
  action_ = clang_IndexAction_create(static_cast<CXIndex>(index_));
}

void ClangSession::close() {
  clang_IndexAction_dispose(static_cast<CXIndexAction>(action_));
  clang_disposeIndex(static_cast<CXIndex>(index_));
  readBefore_.clear();
  blanked_->clear();
}

// A unit that did not compile cleanly (a missing header makes a type unknown) parsed the
// bodies it read wrongly: later units must not skip them on its word, so the session starts
// afresh. libclang's record of parsed bodies belongs to the index action.
void ClangSession::restart() {
  close();
  open();
}

namespace {

IndexerCallbacks indexerCallbacks() {
  IndexerCallbacks callbacks{};
  callbacks.abortQuery = abortQuery;
  callbacks.diagnostic = diagnostic;
  callbacks.indexDeclaration = declaration;
  callbacks.indexEntityReference = reference;
  return callbacks;
}

void startCollector(Collector& c, const CompileCommand& command, const fs::path& root) {
  std::error_code ec;
  c.root = fs::weakly_canonical(root, ec).string() + "/";
  c.facts.mainFile = command.file;
  c.mainPath = fs::weakly_canonical(command.file, ec).string();
  c.cplusplus = unitLanguage(command) == UnitLanguage::Cpp;
}

// What a parsed unit's cursors add to what the indexer reported: macros, #includes, names only
// the AST holds, the ranges the preprocessor left out.
void collectFromCursors(Collector& c, CXTranslationUnit tu) {
  clang_visitChildren(clang_getTranslationUnitCursor(tu), macroVisitor, &c);
  // What the preprocessor left out: names there were never compiled, and go-to-definition
  // answers them by the bare word, as clangd does (its words name outside entities too).
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
  noteSkippedWords(c);
  resolveMacroWords(c);
  c.sortExpansions();
  settleRepeatedArguments(c);
  settlePastedArguments(c, tu);
  c.flagNamesOfMacroBodies();
  c.resolveMacroDeclarations();
  // The #includes first: the AST walk follows a header's using-declarations into the main file.
  clang_getInclusions(tu, inclusion, &c);
  addAstOnlyNames(c, tu);
  addAttributeWords(c);
  keepSkippedEverywhere(c);  // needs every name the unit recorded
  addSkippedBlockWords(c, tu);
}

}  // namespace

Expected<TuFacts> ClangSession::index(const CompileCommand& command, const fs::path& root) {
  if (command.arguments.empty()) return Status(ErrorCode::InvalidArgument, "an empty compile command for " + command.file);
  Collector c;
  startCollector(c, command, root);
  c.session = files_.get();
  c.leaveOutReportedSites = skipParsedBodies_;
  std::vector<std::string> args = clangindex::compilerArguments(command);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  IndexerCallbacks callbacks = indexerCallbacks();
  CXTranslationUnit tu = nullptr;
  unsigned options = CXIndexOpt_IndexFunctionLocalSymbols | CXIndexOpt_SuppressWarnings;
  if (skipParsedBodies_) options |= CXIndexOpt_SkipParsedBodiesInSession;
  const bool blank = skipParsedBodies_ && unitLanguage(command) == UnitLanguage::C;  // libclang never skips C bodies
  std::vector<CXUnsavedFile> unsaved;
  if (blank) unsaved = blanked_->unsaved(c.mainPath);
  const unsigned parse = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing;
  int rc;
  if (unsaved.empty()) {
    rc = clang_indexSourceFileFullArgv(static_cast<CXIndexAction>(action_), &c, &callbacks, sizeof callbacks, options, nullptr,
                                       argv.data(), static_cast<int>(argv.size()), nullptr, 0, &tu, parse);
  } else {
    // libclang 14's indexSourceFile frees the unsaved files' buffers while the unit it hands back
    // still reads them (disposing of it crashes): a unit reading blanked headers is parsed, then
    // indexed. -w does what the indexer's SuppressWarnings does (a body left empty warns, and
    // -Werror would make that an error).
    std::vector<const char*> quiet = argv;
    quiet.push_back("-w");
    CXErrorCode parsed = clang_parseTranslationUnit2FullArgv(static_cast<CXIndex>(index_), nullptr, quiet.data(), static_cast<int>(quiet.size()),
                                                            unsaved.data(), static_cast<unsigned>(unsaved.size()), parse, &tu);
    rc = parsed != CXError_Success || !tu ? static_cast<int>(parsed) + 100
                                           : clang_indexTranslationUnit(static_cast<CXIndexAction>(action_), &c, &callbacks,
                                                                        sizeof callbacks, options, tu);
  }
  if (rc != 0 || !tu) {
    if (tu) clang_disposeTranslationUnit(tu);
    if (skipParsedBodies_) restart();
    return Status(ErrorCode::Unsupported, "libclang could not parse " + command.file + " (error " + std::to_string(rc) + ")");
  }
  // An error in a blanked header may be the blanking's: the unit runs again with the header whole
  // (the session reads it whole from now on), so that no answer depends on it.
  if (!unsaved.empty() && blanked_->refuseWhereErrors(tu, c.errorFiles)) {
    clang_disposeTranslationUnit(tu);
    return index(command, root);
  }
  collectFromCursors(c, tu);
  recordParsedBodies(c.facts, tu);
  if (blank) learnBodies(c.facts, tu);
  clang_disposeTranslationUnit(tu);
  const std::string& mainPath = c.mainPath;
  if (c.fatal || c.mainFileError)
    if (std::optional<TuFacts> main = mainFileWithPreamble(command, root, argv)) layMainFile(c.facts, *main, mainPath);
  if (auto it = std::find(c.facts.files.begin(), c.facts.files.end(), mainPath); it != c.facts.files.end()) {
    auto main = static_cast<uint32_t>(it - c.facts.files.begin());
    answerPreambleMacrosAsClangd(c.facts, main, c.contentOf(main));
  }
  if (skipParsedBodies_ && !c.facts.errors.empty()) restart();
  c.leaveOutReportedExpansions();
  c.teachSession();
  return std::move(c.facts);
}

// The unit parsed again as clangd parses an open file, its preamble first and with typo
// correction (TuFactsMainFile.h); nullopt when libclang cannot. Only the main file's facts of
// this parse are used.
std::optional<TuFacts> ClangSession::mainFileWithPreamble(const CompileCommand& command, const fs::path& root,
                                                           std::vector<const char*> argv) {
  // libclang turns spell checking off unless told otherwise (its indexing parse always does).
  argv.push_back("-fspell-checking");
  CXTranslationUnit tu = nullptr;
  unsigned parse = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_PrecompiledPreamble |
                   CXTranslationUnit_CreatePreambleOnFirstParse;
  if (clang_parseTranslationUnit2FullArgv(static_cast<CXIndex>(index_), nullptr, argv.data(), static_cast<int>(argv.size()),
                                          nullptr, 0, parse, &tu) != CXError_Success || !tu)
    return std::nullopt;
  Collector c;
  startCollector(c, command, root);
  c.session = files_.get();
  IndexerCallbacks callbacks = indexerCallbacks();
  unsigned options = CXIndexOpt_IndexFunctionLocalSymbols | CXIndexOpt_SuppressWarnings;
  int rc = clang_indexTranslationUnit(static_cast<CXIndexAction>(action_), &c, &callbacks, sizeof callbacks, options, tu);
  if (rc == 0) collectFromCursors(c, tu);
  clang_disposeTranslationUnit(tu);
  if (rc != 0) return std::nullopt;
  return std::move(c.facts);
}

// libclang skips a function body when an earlier unit of the session parsed the same
// preprocessor region of the same file, never in the main file, always in a system header. So
// the files whose bodies this unit surely parsed are its main file and every user header no
// earlier unit of the session read; the builder makes sure each file is one unit's.
void ClangSession::recordParsedBodies(TuFacts& facts, void* opaque) {
  auto tu = static_cast<CXTranslationUnit>(opaque);
  std::error_code ec;
  std::string main = fs::weakly_canonical(facts.mainFile, ec).string();
  auto isMain = [&](const std::string& path) { return path == main || path == facts.mainFile; };
  for (uint32_t k = 0; k < facts.files.size(); ++k) {
    const std::string& path = facts.files[k];
    bool own = !skipParsedBodies_ || isMain(path);
    if (!own && !readBefore_.count(path)) {
      CXFile file = clang_getFile(tu, path.c_str());
      own = file && !clang_Location_isInSystemHeader(clang_getLocationForOffset(tu, file, 0));
    }
    if (own) facts.bodiesParsed.push_back(k);
  }
  for (const std::string& path : facts.files)
    if (!isMain(path)) readBefore_.insert(path);
}

// The headers whose bodies a C unit parsed (TuFacts::bodiesParsed, source files #included whole
// left out: another unit reads each as its main file) are blanked for the session's later units.
void ClangSession::learnBodies(const TuFacts& facts, void* tu) {
  std::vector<std::string> headers;
  for (uint32_t k : facts.bodiesParsed)
    if (!isCFamilySourceFile(facts.files[k])) headers.push_back(facts.files[k]);
  if (headers.empty()) return;
  std::map<std::string, std::vector<clangindex::ByteRange>> skipped;
  for (const ClangSkipped& s : facts.skipped) skipped[facts.files[s.file]].emplace_back(s.start, s.end);
  blanked_->learn(static_cast<CXTranslationUnit>(tu), headers, skipped);
}

Expected<TuFacts> indexTranslationUnit(const CompileCommand& command, const fs::path& root) {
  return ClangSession(/*skipParsedBodies=*/false).index(command, root);
}

}  // namespace nib
