#include "indexer/ClangQualifiedNames.h"

#include <cctype>
#include <set>

namespace nib::clangindex {
namespace {

size_t skipBlanks(const std::string& text, size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
  return at;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// A namespace at the unit's top level: its USR is "c:@N@" and a name (`c:@N@std`).
bool topLevelNamespace(const std::string& usr) {
  return startsWith(usr, "c:@N@") && usr.find('@', 5) == std::string::npos;
}

std::optional<SymbolKind> typeKind(CXCursorKind kind) {
  switch (kind) {
    case CXCursor_TypedefDecl: case CXCursor_TypeAliasDecl: return SymbolKind::TypeAlias;
    case CXCursor_StructDecl: return SymbolKind::Struct;
    case CXCursor_UnionDecl: return SymbolKind::Union;
    case CXCursor_EnumDecl: return SymbolKind::Enum;
    case CXCursor_ClassDecl: return SymbolKind::Class;
    default: return std::nullopt;
  }
}

// Calls `visit` with each declaration at the unit's top level: `extern "C++" {` around
// <cstdlib>'s `namespace std`, `extern "C" {` around a C header's declarations are still the top
// level (libclang 14 calls some of them unexposed).
void visitTopLevel(CXTranslationUnit tu, const std::function<void(CXCursor, CXCursorKind)>& visit) {
  clang_visitChildren(
      clang_getTranslationUnitCursor(tu),
      [](CXCursor cursor, CXCursor, CXClientData data) {
        CXCursorKind kind = clang_getCursorKind(cursor);
        if (kind == CXCursor_LinkageSpec || kind == CXCursor_UnexposedDecl) return CXChildVisit_Recurse;
        (*static_cast<const std::function<void(CXCursor, CXCursorKind)>*>(data))(cursor, kind);
        return CXChildVisit_Continue;
      },
      const_cast<std::function<void(CXCursor, CXCursorKind)>*>(&visit));
}

}  // namespace

void QualifiedNames::afterNamespace(CXCursor cursor, CXCursor space) {
  CXFile file;
  unsigned start, end;
  CXSourceRange extent = clang_getCursorExtent(cursor);
  clang_getFileLocation(clang_getRangeStart(extent), &file, nullptr, nullptr, &start);
  clang_getFileLocation(clang_getRangeEnd(extent), nullptr, nullptr, nullptr, &end);
  int64_t id = c_.fileId(file);
  if (id < 0 || end <= start) return;
  const std::string& text = c_.contentOf(static_cast<uint32_t>(id));
  std::string spelling = take(clang_getCursorSpelling(cursor));
  if (end > text.size() || text.compare(start, end - start, spelling) != 0) return;  // a macro wrote it
  size_t at = skipBlanks(text, end);
  if (text.compare(at, 2, "::") != 0) return;
  at = skipBlanks(text, at + 2);
  std::string name = Collector::identifierAt(text, static_cast<uint32_t>(at));
  if (name.empty() || text.compare(skipBlanks(text, at + name.size()), 2, "::") == 0) return;
  names_.push_back({clang_getLocationForOffset(tu_, file, static_cast<unsigned>(at)), static_cast<uint32_t>(id),
                    static_cast<uint32_t>(at), take(clang_getCursorUSR(space)), std::move(name)});
}

// Whether the entity the indexer reported at a qualified name (occurrences `there`) is no member
// of the namespace written before it: lookup went through a using-declaration (or a
// using-directive, where no using-declaration of the name is found and nothing changes). A member
// of an inline namespace of it (`std::__cxx11::basic_string`) is one of its members.
bool QualifiedNames::throughUsing(const Name& q, const std::vector<uint32_t>& there) const {
  bool other = false;
  for (uint32_t k : there) {
    const ClangOccurrence& o = c_.facts.occurrences[k];
    if (o.role != ClangRole::Reference || c_.facts.names[o.usr] != q.name) continue;
    const std::string& usr = c_.facts.usrs[o.usr];
    if (usr.rfind(kUsingDeclarationUsr, 0) == 0 || startsWith(usr, q.scope + "@")) return false;
    other = true;
  }
  return other;
}

// One walk of the unit's top level, for the names `wanted` (written after a top-level namespace,
// answered by no repository using-declaration): the using-declarations outside the repository
// that bring them into those namespaces, and for those nothing named after `std::` the global
// types of those names.
QualifiedNames::Outside QualifiedNames::findOutside(const std::vector<const Name*>& wanted,
                                                    std::set<std::string> typeNames) const {
  struct Walk {
    std::set<std::string> spaces, typeNames;  // the namespaces' spellings; names after `std::` nothing named
    std::set<std::pair<std::string, std::string>> wanted;
    Outside found;
  } walk{{}, std::move(typeNames), {}, {}};
  for (const Name* q : wanted) {
    walk.spaces.insert(q->scope.substr(5));
    walk.wanted.emplace(q->scope, q->name);
  }
  if (walk.wanted.empty()) return {};
  visitTopLevel(tu_, [&](CXCursor cursor, CXCursorKind kind) {
    Walk* w = &walk;
    if (std::optional<SymbolKind> type = typeKind(kind); type && !w->typeNames.empty()) {
      std::string name = take(clang_getCursorSpelling(cursor));
      if (w->typeNames.count(name)) w->found.globalTypes.try_emplace(name, cursor, *type);
      return;
    }
    if (kind != CXCursor_Namespace || !w->spaces.count(take(clang_getCursorSpelling(cursor)))) return;
    // A repository's block of the namespace holds the repository's own using-declarations.
    CXFile file;
    clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, nullptr);
    if (c_.fileId(file) >= 0) return;
    std::pair<std::string, Walk*> inside{take(clang_getCursorUSR(cursor)), w};
    clang_visitChildren(
        cursor,
        [](CXCursor child, CXCursor, CXClientData data) {
          auto* in = static_cast<std::pair<std::string, Walk*>*>(data);
          if (clang_getCursorKind(child) != CXCursor_UsingDeclaration) return CXChildVisit_Continue;
          std::pair<std::string, std::string> key{in->first, take(clang_getCursorSpelling(child))};
          if (in->second->wanted.count(key)) in->second->found.usings.try_emplace(key, child);
          return CXChildVisit_Continue;
        },
        &inside);
  });
  return std::move(walk.found);
}

// A symbol for the using-declaration outside the repository that brings `q`'s name into its
// namespace, with its place (the name after its `::`, where clangd goes).
std::optional<uint32_t> QualifiedNames::outsideUsing(const Name& q, const Outside& outside) {
  auto it = outside.usings.find({q.scope, q.name});
  if (it == outside.usings.end()) return std::nullopt;
  return usingSymbol(it->second, q.name);
}

// A symbol for a using-declaration outside the repository, with its place (the name after its
// `::`, where clangd goes).
std::optional<uint32_t> QualifiedNames::usingSymbol(CXCursor declaration, const std::string& name) {
  std::optional<Collector::Place> place = c_.placeOf(declaration);
  if (!place) return std::nullopt;
  std::string usr = std::string(kUsingDeclarationUsr) + place->path + "@" + std::to_string(place->offset);
  uint32_t symbol = c_.usrId(usr, name.c_str());
  noteOutsideDeclaration(c_, symbol, declaration, /*definition=*/true);
  return symbol;
}

// libstdc++'s <stdlib.h> and <math.h> are <cstdlib> and <cmath> followed by `using std::malloc;`,
// `using std::sqrt;` ... at the global scope: where a C++ unit read one, unqualified lookup of
// such a name finds the using-declaration, and clangd 14 answers go-to-definition with it beside
// the function (`::malloc`, `std::malloc` and a unit that read <cstdlib> alone find the function
// itself). Only functions: a type named so is a UsingType, which libclang reports nothing at.
void QualifiedNames::globalUsings() {
  if (!c_.cplusplus) return;
  std::vector<uint32_t> candidates;  // unqualified references to global functions
  std::set<std::string> names;
  for (uint32_t k = 0; k < c_.facts.occurrences.size(); ++k) {
    const ClangOccurrence& o = c_.facts.occurrences[k];
    if (o.role != ClangRole::Reference || o.expanded || o.unlisted || o.guessed) continue;
    const std::string& usr = c_.facts.usrs[o.usr];
    if (!startsWith(usr, "c:@F@")) continue;
    // Qualified (`::malloc`, `std::malloc`) or a member (`.`, `->`): no unqualified lookup.
    const std::string& text = c_.contentOf(o.file);
    size_t before = o.offset;
    while (before > 0 && std::isspace(static_cast<unsigned char>(text[before - 1]))) --before;
    std::string_view prior(text.data(), before);
    if (prior.ends_with("::") || prior.ends_with("->") || prior.ends_with(".")) continue;
    candidates.push_back(k);
    names.insert(c_.facts.names[o.usr]);
  }
  if (candidates.empty()) return;
  std::map<std::string, std::pair<CXCursor, std::set<std::string>>> found;  // name -> the declaration, the USRs it names
  visitTopLevel(tu_, [&](CXCursor cursor, CXCursorKind kind) {
    if (kind != CXCursor_UsingDeclaration) return;
    std::string name = take(clang_getCursorSpelling(cursor));
    if (!names.count(name) || found.count(name)) return;
    CXFile file;
    clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, nullptr);
    if (c_.fileId(file) >= 0) return;
    std::set<std::string> targets;
    CXCursor named = clang_getCursorReferenced(cursor);
    if (clang_getCursorKind(named) == CXCursor_OverloadedDeclRef)
      for (unsigned i = 0; i < clang_getNumOverloadedDecls(named); ++i)
        targets.insert(take(clang_getCursorUSR(clang_getOverloadedDecl(named, i))));
    else if (!clang_Cursor_isNull(named))
      targets.insert(take(clang_getCursorUSR(named)));
    found.emplace(name, std::make_pair(cursor, std::move(targets)));
  });
  if (found.empty()) return;
  std::map<std::string, std::optional<uint32_t>> symbols;
  std::vector<ClangOccurrence> added;
  for (uint32_t k : candidates) {
    const ClangOccurrence& o = c_.facts.occurrences[k];
    const std::string& name = c_.facts.names[o.usr];
    auto declaration = found.find(name);
    // Only where the function called is one the using-declaration names (not the repository's own
    // overload of the name).
    if (declaration == found.end() || !declaration->second.second.count(c_.facts.usrs[o.usr])) continue;
    auto [symbol, first] = symbols.try_emplace(name);
    if (first) symbol->second = usingSymbol(declaration->second.first, name);
    if (!symbol->second) continue;
    ClangOccurrence u = o;
    u.usr = *symbol->second;
    u.kind = static_cast<uint8_t>(SymbolKind::Import);
    u.call = false;
    u.container = -1;
    u.unlisted = true;
    u.unselected = false;
    u.macroBody = false;
    added.push_back(u);
  }
  for (const ClangOccurrence& u : added) c_.push(u);
}

void QualifiedNames::resolve(const RepositoryUsing& repositoryUsing) {
  if (names_.empty()) return;
  std::set<std::pair<uint32_t, uint32_t>> places;
  for (const Name& q : names_) places.emplace(q.file, q.offset);
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> named;  // place -> the occurrences there
  for (uint32_t k = 0; k < c_.facts.occurrences.size(); ++k) {
    const ClangOccurrence& o = c_.facts.occurrences[k];
    if (places.count({o.file, o.offset})) named[{o.file, o.offset}].push_back(k);
  }
  // The names to answer: those nothing named, and those lookup found through a using-declaration.
  struct Wanted {
    const Name* q;
    bool unnamed;
    std::optional<uint32_t> own;  // the repository's using-declaration
  };
  std::vector<Wanted> wanted;
  std::set<std::pair<uint32_t, uint32_t>> done;
  for (const Name& q : names_) {
    if (!done.emplace(q.file, q.offset).second) continue;
    auto there = named.find({q.file, q.offset});
    if (there == named.end() || throughUsing(q, there->second)) wanted.push_back({&q, there == named.end(), repositoryUsing(q.scope, q.name)});
  }
  std::vector<const Name*> outsideWanted;
  std::set<std::string> typeNames;
  for (const Wanted& w : wanted) {
    if (w.own || !topLevelNamespace(w.q->scope)) continue;
    outsideWanted.push_back(w.q);
    if (w.unnamed && w.q->scope == "c:@N@std") typeNames.insert(w.q->name);
  }
  const Outside outside = findOutside(outsideWanted, std::move(typeNames));
  for (const Wanted& w : wanted) {
    const Name& q = *w.q;
    std::optional<uint32_t> declaration = w.own ? w.own : outsideUsing(q, outside);
    if (declaration) c_.addAstOnly(q.location, *declaration, SymbolKind::Import, ClangRole::Reference, false, /*unlisted=*/true);
    // A type nothing named, imported into `std` from the global scope: that type too.
    if (!w.unnamed || w.own || q.scope != "c:@N@std") continue;
    auto type = outside.globalTypes.find(q.name);
    if (type == outside.globalTypes.end()) continue;
    uint32_t symbol = c_.usrId(take(clang_getCursorUSR(type->second.first)), q.name.c_str());
    c_.addAstOnly(q.location, symbol, type->second.second, ClangRole::Reference, false, /*unlisted=*/true);
    noteOutsideTarget(c_, symbol, type->second.first);
  }
}

}  // namespace nib::clangindex
