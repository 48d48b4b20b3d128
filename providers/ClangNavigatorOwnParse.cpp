// The clang view's answers where clangd answers from the open file's own parse rather than from
// what the build's units saw: a header's macros and namespaces in its own #include order, the
// entities a header included inside a scope declares, the names a using-declaration brings in
// (ClangNavigator.h).
#include <algorithm>

#include "providers/ClangNavigator.h"
#include "providers/ClangNavigatorSites.h"

namespace nib {

using namespace clangnav;

// A header's macros as its own parse has them, which clangd answers from when it is open: the
// unit that read it saw the definitions its main file met first, the header alone sees those its
// own #includes meet (json-c's JSON_EXPORT, which several headers define under `#ifndef
// JSON_EXPORT`; json_object_iterator.h includes json_types.h). At a macro's use in a file that is
// no unit's main file, the macro of that name whose definition the file's own parse meets first,
// where one is met; the name's occurrence at the place is that macro's where some unit saw it so.
uint32_t ClangNavigator::ownParseMacro(const ClangSymbol& named, const ClangFileOccurrence& at, const std::string& path) {
  if (at.role != ClangRole::Reference || at.expanded || static_cast<SymbolKind>(named.kind) != SymbolKind::Macro) return at.symbol;
  auto read = view_->filesReadBy(path);
  if (!read || *read) return at.symbol;  // a unit's main file: its unit's parse is its own
  auto ids = view_->symbolsNamed(named.name);
  if (!ids || ids->size() < 2) return at.symbol;
  std::vector<std::pair<uint32_t, ClangSymbol>> macros;
  macros.reserve(ids->size());
  for (uint32_t id : *ids)
    if (auto symbol = view_->symbolForDefinition(id, path, at.start); symbol && static_cast<SymbolKind>(symbol->kind) == SymbolKind::Macro)
      macros.emplace_back(id, std::move(*symbol));
  SitesByFile definitions;
  for (const auto& [id, m] : macros)
    for (const ClangSite& s : m.sites)
      if (s.role == ClangRole::Definition && !s.interpolated && !view_->skippedAt(s.path, s.range.startByte))
        definitions[s.path].push_back(&s);
  for (auto& [file, sites] : definitions)
    std::sort(sites.begin(), sites.end(), [](const ClangSite* a, const ClangSite* b) { return a->range.startByte < b->range.startByte; });
  const ClangSite* first = firstMet(*view_, path, at.start, definitions);
  for (const auto& [id, m] : macros)
    if (first && std::any_of(m.sites.begin(), m.sites.end(), [&](const ClangSite& s) { return &s == first; })) return id;
  return at.symbol;
}

// A namespace is "defined" by every block that opens it; like clangd, nib goes to the first one
// the asked file's own parse meets, in its #include order (from any block, its own included);
// one a system header opens first (`namespace std`) goes there, outside the repository. The
// precise view's namespaces have no such order: the first the build saw.
bool ClangNavigator::namespaceDefinition(const ClangSymbol& ns, uint32_t id, const std::string& path, NavigationResult& out) {
  if (!scip_ && view_->openedOutside(id)) {
    outsideAnswer(*view_, ns, "first opened", out);
    return true;
  }
  const ClangSite* first = scip_ ? nullptr : firstNamespaceBlock(*view_, ns, path, changed_);
  for (const ClangSite& s : ns.sites)
    if (!first && s.canonical && !changed_(s.path)) first = &s;
  if (!first) return false;
  out.locations.push_back(
      SymbolLocation{first->path, first->range, first->range, ns.name, "", SymbolKind::Namespace, OccurrenceRole::Definition, false});
  return true;
}

// Asked in a file every unit entered inside a scope (glog's log_severity.h, inside `namespace
// google {`), at an entity the file declares: clangd parses the file alone, at the top level,
// where the entity is another (`::GLOG_WARNING`, not `google::GLOG_WARNING`) that only that parse
// knows — its definition is the file's own, else its declaration there; its references the
// file's own. So too a function of a file every unit entered inside an `extern "C"` block
// (jsonnet's libjsonnet_fmt.h): parsed alone as C++ it has C++ linkage, another USR than the
// build's C function; its types and variables keep theirs.
bool ClangNavigator::enclosedDeclaration(const ClangSymbol& symbol, const std::string& path) {
  if (scip_ || !ownDeclaration(symbol, path)) return false;
  if (view_->enclosedFile(path)) return true;
  return static_cast<SymbolKind>(symbol.kind) == SymbolKind::Function && view_->externCFile(path);
}

const ClangSite* ClangNavigator::ownDeclaration(const ClangSymbol& symbol, const std::string& path) {
  const ClangSite* own = nullptr;
  for (const ClangSite& s : symbol.sites)
    if (s.path == path && s.role != ClangRole::Reference && (!own || (s.role == ClangRole::Definition && own->role != ClangRole::Definition)))
      own = &s;
  return own;
}

Expected<NavigationResult> ClangNavigator::usingAnswer(const std::string& path,
                                                       const std::vector<ClangFileOccurrence>& occurrences,
                                                       const ClangFileOccurrence& at, const ClangSymbol& declaration,
                                                       bool references, bool includeDeclaration) {
  // A name a using-declaration brought into scope (`using fmt::detail::fp;` ... `fp(1, 2)`),
  // answered as clangd 14 does: the using-declaration besides the entity it names, for
  // definitions and references alike — the entity clang reports at the use under the name (the
  // overload a call resolves to: `using testing::InitGoogleMock;` names every overload), else the
  // one it reports at the declaration's own site (a type; `fp(1, 2)` reports the constructor of
  // the class `fp` aliases, which is no entity of that name).
  auto out = answerFor(declaration, at, path, references, includeDeclaration, false);
  if (!out) return out;
  std::optional<ClangFileOccurrence> entity;
  for (const ClangFileOccurrence& o : occurrences) {
    if (o.start != at.start || o.symbol == at.symbol || o.role != ClangRole::Reference || o.expanded) continue;
    auto named = view_->symbol(o.symbol);
    if (named && named->name == declaration.name) entity = o;
  }
  for (const ClangSite& s : declaration.sites) {
    if (entity) break;
    if (s.role != ClangRole::Definition) continue;
    auto there = view_->occurrences(s.path);
    const ClangFileOccurrence* named = there ? occurrenceAt(*there, s.range.startByte) : nullptr;
    if (named && named->symbol != at.symbol) entity = *named;
    break;
  }
  if (!entity) return out;
  auto symbol = view_->symbol(entity->symbol);
  if (!symbol) return out;
  ClangFileOccurrence plain = *entity;
  plain.role = ClangRole::Reference;  // asked at a use, whatever the declaration's site says
  auto more = answerFor(*symbol, plain, path, references, includeDeclaration, false);
  if (!more) return out;
  for (SymbolLocation& l : more->locations) out->locations.push_back(std::move(l));
  uniqueSites(out->locations);
  return out;
}

// Whether `at` is what the file's own parse (a unit whose main file it is: a header parsed alone,
// HeaderConditions.h) names there, as clangd's parse of the file opened alone: LZO's config1a.h
// defines DDBITS unless its includer did, and every includer did.
bool ClangNavigator::ownParseAt(const ClangFileOccurrence& at, const std::string& path) {
  if (at.foreign) return false;
  auto read = view_->filesReadBy(path);
  return read && *read;
}

// Whether only made-up units (files no compile command builds) saw the symbol at that place.
bool ClangNavigator::madeUpOnlyAt(const ClangSymbol& symbol, const std::string& path, uint32_t start) {
  bool madeUp = false;
  for (const ClangSite& s : symbol.sites)
    if (s.path == path && s.range.startByte == start) {
      if (!s.interpolated) return false;
      madeUp = true;
    }
  return madeUp;
}

// Units that read a file with other macros in effect name other macros at one place (a made-up
// unit that reads a copy of a generated header, with the same text at another path): the macro
// the build itself saw there answers, as clangd's, whose index never saw the made-up units. Not
// in a file parsed alone, where the made-up unit is the file's own parse (ownParseAt).
std::optional<std::pair<const ClangFileOccurrence*, ClangSymbol>> ClangNavigator::builtMacroAt(
    const std::vector<ClangFileOccurrence>& occurrences, const ClangFileOccurrence& at, const std::string& path,
    bool allSites) {
  for (const ClangFileOccurrence& o : occurrences) {
    if (o.start != at.start || o.symbol == at.symbol || o.expanded || o.role != ClangRole::Reference) continue;
    auto other = allSites ? view_->symbol(o.symbol) : view_->symbolForDefinition(o.symbol, path, o.start);
    if (other && static_cast<SymbolKind>(other->kind) == SymbolKind::Macro && !madeUpOnlyAt(*other, path, o.start))
      return std::pair{&o, std::move(*other)};
  }
  return std::nullopt;
}

// A friend declaration that defines nothing is among no references in clangd's index (the
// worker lists it unlisted), but asked there, clangd's references of the open file come from its
// AST, which holds it: the asked place is the answer's own.
void ClangNavigator::addOwnFriendSite(const ClangSymbol& symbol, const ClangFileOccurrence& at, const std::string& path,
                                      NavigationResult& out) {
  auto text = text_ ? text_(path) : Expected<std::string>(Status(ErrorCode::NotFound, "no text"));
  if (!text || !friendSpeltBefore(*text, at.start)) return;
  LineTable lines(*text);
  ClangSite site{path, ByteRange{at.start, at.end, lines.positionOf(at.start), lines.positionOf(at.end)}, at.role};
  out.locations.push_back(siteLocation(symbol, site));
  uniqueSites(out.locations);
}

}  // namespace nib
