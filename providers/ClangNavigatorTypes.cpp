// The clang view's answers about types: the type hierarchy (a class's bases and the classes
// deriving from it) and go-to-type-definition (ClangNavigator.h).
#include "providers/ClangNavigator.h"
#include "providers/ClangNavigatorSites.h"

namespace nib {

using namespace clangnav;

std::optional<TypeNode> ClangNavigator::typeNode(uint32_t id) {
  auto symbol = view_->symbol(id);
  if (!symbol || !isTypeKind(static_cast<SymbolKind>(symbol->kind))) return std::nullopt;
  // Where the class is defined, else its first declaration, in a file that did not change.
  const ClangSite* best = nullptr;
  for (const ClangSite& s : symbol->sites) {
    if (s.role == ClangRole::Reference || s.macroBody || changed_(s.path)) continue;
    if (!best || (s.role == ClangRole::Definition && best->role != ClangRole::Definition) ||
        (s.role == best->role && s.canonical && !best->canonical))
      best = &s;
  }
  if (!best) return std::nullopt;
  return TypeNode{id, symbol->name, best->path, static_cast<SymbolKind>(symbol->kind), best->range};
}

Expected<std::vector<TypeNode>> ClangNavigator::typesAt(const std::string& path, uint32_t offset) {
  std::vector<TypeNode> out;
  if (!covers(path)) return out;
  auto occurrences = view_->occurrences(path);
  if (!occurrences) return occurrences.status();
  // (What a unit #including the file whole saw is no name here: see namedAt.)
  if (const ClangFileOccurrence* at = occurrenceAt(*occurrences, offset); at && !at->foreign)
    if (auto node = typeNode(at->symbol)) out.push_back(std::move(*node));
  return out;
}

Expected<std::vector<TypeNode>> ClangNavigator::relatedTypes(uint32_t id, const std::string& name, bool bases) {
  auto symbol = view_->symbol(id);
  if (!symbol || symbol->name != name)
    return Status(ErrorCode::InvalidArgument, "the type hierarchy item is stale: prepare it again");
  std::vector<TypeNode> out;
  for (uint32_t other : bases ? symbol->bases : symbol->derived)
    if (auto node = typeNode(other)) out.push_back(std::move(*node));
  return out;
}

Expected<std::vector<TypeNode>> ClangNavigator::supertypes(uint32_t id, const std::string& name) {
  return relatedTypes(id, name, true);
}

Expected<std::vector<TypeNode>> ClangNavigator::subtypes(uint32_t id, const std::string& name) {
  return relatedTypes(id, name, false);
}

const ClangSite* ClangNavigator::shownSite(const ClangSymbol& s, size_t* stale) {
  const ClangSite* where = nullptr;
  for (const ClangSite& site : s.sites)
    if (site.role == ClangRole::Definition) {
      where = &site;
      break;
    }
  if (!where) where = declarationSite(s);
  if (where && changed_(where->path)) {
    ++*stale;
    return nullptr;
  }
  return where;
}

Expected<NavigationResult> ClangNavigator::typeDefinitions(const std::string& path, uint32_t offset) {
  auto named = namedAt(path, offset);
  if (!named) return named.status();
  const ClangSymbol& symbol = named->symbol;
  NavigationResult out;
  out.symbol = symbol.name;
  out.source = source_;
  out.confidence = Confidence::Exact;
  size_t stale = 0;
  SymbolKind kind = static_cast<SymbolKind>(symbol.kind);
  bool isType = isTypeKind(kind);
  // The SCIP indexers nib runs record no type of a variable (scip-typescript and scip-python
  // write no is_type_definition relationships): no answer rather than an empty "exact" one.
  if (!isType && symbol.types.empty() && scip_) return declined();
  // At a type, the type itself; at a typedef, the type it aliases (its type edge; nothing for a
  // built-in one), as clangd answers.
  bool alias = kind == SymbolKind::TypeAlias && !scip_;
  if (isType && !alias) {
    if (const ClangSite* where = shownSite(symbol, &stale)) out.locations.push_back(siteLocation(symbol, *where));
  }
  for (uint32_t id : symbol.types) {
    auto t = view_->symbol(id);
    if (!t) continue;
    if (const ClangSite* where = shownSite(*t, &stale)) out.locations.push_back(siteLocation(*t, *where));
  }
  if (stale) {
    out.confidence = Confidence::Name;
    out.note = "the type's declaration is in a file changed since the index was built";
  }
  return out;
}

// `template <> struct formatter<Point>` and `template <typename T> struct Box<T*>`: the name of a
// class template's specialization, where it is defined, names the template it specializes, and
// clangd's go-to-definition goes there — a use of the specialization goes to it, and its
// references are its own. The answer is the template's, as asked at a use of it.
std::optional<Expected<NavigationResult>> ClangNavigator::specializedTemplateAnswer(const ClangFileOccurrence& at,
                                                                                    const ClangSymbol& symbol,
                                                                                    const std::string& path) {
  if (at.role != ClangRole::Definition || symbol.specialized.empty()) return std::nullopt;
  uint32_t primary = symbol.specialized.front();
  auto specialized = view_->symbolForDefinition(primary, path, at.start);
  if (!specialized) return std::nullopt;
  ClangFileOccurrence use = at;
  use.symbol = primary;
  use.role = ClangRole::Reference;
  return answerFor(*specialized, use, path, /*references=*/false, /*includeDeclaration=*/false, /*declarations=*/false);
}

}  // namespace nib
