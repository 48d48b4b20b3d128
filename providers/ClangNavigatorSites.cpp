// The clang view's answers' shared helpers (ClangNavigatorSites.h).
#include "providers/ClangNavigatorSites.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

namespace nib::clangnav {

// A site of a symbol as an answer's location.
SymbolLocation siteLocation(const ClangSymbol& symbol, const ClangSite& site) {
  SymbolLocation l;
  l.path = site.path;
  l.range = l.fullRange = site.range;
  l.name = symbol.name;
  l.kind = static_cast<SymbolKind>(symbol.kind);
  l.role = site.role == ClangRole::Definition    ? OccurrenceRole::Definition
           : site.role == ClangRole::Declaration ? OccurrenceRole::Declaration
                                                 : OccurrenceRole::Reference;
  l.ascii = false;  // unknown here: the server converts columns from the text
  return l;
}

namespace {

// The place as a location (ClangOutsideSite), whatever its file's state.
SymbolLocation outsidePlace(const ClangOutsideSite& site, const ClangSymbol& symbol) {
  SymbolLocation l;
  l.path = site.path;
  l.range = l.fullRange = site.range;
  l.name = symbol.name;
  l.kind = static_cast<SymbolKind>(symbol.kind);
  l.role = site.definition ? OccurrenceRole::Definition : OccurrenceRole::Declaration;
  l.ascii = true;  // no repository text to convert columns by: a system header's are ASCII
  return l;
}

// A system header changes with a package upgrade, which no build of the repository notices.
bool unchanged(const ClangOutsideSite& site) { return fileStatSignature(site.path) == site.signature; }

}  // namespace

std::optional<SymbolLocation> outsideLocation(ClangView& view, const ClangSymbol& symbol) {
  std::optional<ClangOutsideSite> site = symbol.id ? view.outsideSite(*symbol.id) : std::nullopt;
  if (!site || !unchanged(*site)) return std::nullopt;
  return outsidePlace(*site, symbol);
}

void outsideAnswer(ClangView& view, const ClangSymbol& symbol, const char* kind, NavigationResult& out) {
  out.facet = kOutsideFacet;
  out.note = "'" + symbol.name + "' is " + kind + " outside the repository";
  std::optional<ClangOutsideSite> site = symbol.id ? view.outsideSite(*symbol.id) : std::nullopt;
  if (!site) return;
  if (unchanged(*site)) out.locations.push_back(outsidePlace(*site, symbol));
  else out.note += " (in a file changed since the index was built)";
}

// The declaration clangd's index keeps for a symbol: the canonical one (the first the build
// saw), else the first declaring site; nullptr when the repository only references it.
const ClangSite* declarationSite(const ClangSymbol& symbol) {
  const ClangSite* first = nullptr;
  for (const ClangSite& s : symbol.sites) {
    if (s.role == ClangRole::Reference) continue;
    if (s.canonical) return &s;
    if (!first) first = &s;
  }
  return first;
}

bool friendSpeltBefore(std::string_view text, uint32_t offset) {
  size_t end = std::min<size_t>(offset, text.size());
  size_t start = text.find_last_of(";{}", end == 0 ? 0 : end - 1);
  start = start == std::string_view::npos || end == 0 ? 0 : start + 1;
  std::string_view declaration = text.substr(start, end - start);
  for (size_t at = declaration.find("friend"); at != std::string_view::npos; at = declaration.find("friend", at + 1)) {
    auto part = [&](size_t i) {
      return i < declaration.size() && (std::isalnum(static_cast<unsigned char>(declaration[i])) || declaration[i] == '_');
    };
    if (!(at > 0 && part(at - 1)) && !part(at + 6)) return true;
  }
  return false;
}

namespace {

// The sections of each file that few of its units compile, read from the view once per file.
class MinoritySections {
 public:
  explicit MinoritySections(ClangView& view) : view_(view) {}
  bool contain(const std::string& path, uint32_t offset) {
    auto it = few_.find(path);
    if (it == few_.end()) it = few_.emplace(path, view_.minorityIn(path)).first;
    return std::any_of(it->second.begin(), it->second.end(),
                       [&](const std::pair<uint32_t, uint32_t>& r) { return offset >= r.first && offset < r.second; });
  }

 private:
  ClangView& view_;
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>, std::less<>> few_;
};

}  // namespace

size_t leaveOutMinorityReferences(ClangView& view, const std::string& path,
                                  const std::function<bool(const std::string&)>& shown,
                                  std::vector<SymbolLocation>& locations) {
  MinoritySections few(view);
  return std::erase_if(locations, [&](const SymbolLocation& l) {
    return l.path != path && !(shown && shown(l.path)) && few.contain(l.path, l.range.startByte);
  });
}

std::function<bool(const ClangSite&)> minorityDefinitions(ClangView& view, const std::string& path,
                                                          const std::function<bool(const std::string&)>& shown) {
  struct State {
    MinoritySections few;
    std::optional<std::vector<std::string_view>> read;  // the files the asked file's parse read
    bool readKnown = false;
  };
  auto state = std::make_shared<State>(State{MinoritySections(view), std::nullopt, false});
  return [&view, path, shown, state](const ClangSite& s) {
    if (s.role != ClangRole::Definition || s.path == path || (shown && shown(s.path)) ||
        !state->few.contain(s.path, s.range.startByte))
      return false;
    if (!state->readKnown) {
      state->readKnown = true;
      if (auto read = view.filesReadBy(path); read && *read) state->read = std::move(**read);
    }
    return !state->read || !std::binary_search(state->read->begin(), state->read->end(), std::string_view(s.path));
  };
}

size_t leaveOutFewerLanguageReferences(ClangView& view, uint32_t symbol, const std::string& path,
                                       const std::function<bool(const std::string&)>& shown,
                                       std::vector<SymbolLocation>& locations) {
  std::vector<std::string> headers = view.minorityLanguageOf(symbol);
  if (headers.empty()) return 0;
  return std::erase_if(locations, [&](const SymbolLocation& l) {
    return l.path != path && !(shown && shown(l.path)) && std::find(headers.begin(), headers.end(), l.path) != headers.end();
  });
}

// References in code the build's units see differently (ClangViewContents::varying: a section
// only some units' preprocessor kept, an X-macro table each includer expands its own way):
// clangd's index lists there what one unit saw, the first its shuffled queue indexed, so the
// answer is labelled and its agreement measured apart. The asked file's own sites are its own
// parse's, as clangd's of an open file are; a facet about the asked place itself stands. Those in
// a section fewer than half of its file's units compile were left out (`leftOut`), and the
// minority language's twin's in a header (`twins`): the first unit clangd's index met there most
// likely did not see them, and the note says how many.
void labelIncluderDependent(ClangView& view, const std::string& path, NavigationResult& out, size_t leftOut, size_t twins) {
  if (leftOut > 0)
    out.note += (out.note.empty() ? "" : "; ") + std::to_string(leftOut) +
                " reference(s) in sections that fewer than half of the build's units reading their file compile are "
                "left out (a live server's index most likely holds another unit's view there)";
  if (twins > 0)
    out.note += (out.note.empty() ? "" : "; ") + std::to_string(twins) +
                " reference(s) in headers that more of the build's units read in the other language (C, C++) are left "
                "out: that language names the function otherwise, and a live server's index most likely holds its view";
  if (out.facet == kUncompiledFacet || out.facet == kParseErrorsFacet || out.facet == kEnclosedFacet) return;
  size_t n = 0;
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> varying;  // read once per file
  for (const SymbolLocation& l : out.locations) {
    if (l.path == path) continue;
    auto it = varying.find(l.path);
    if (it == varying.end()) it = varying.emplace(l.path, view.varyingIn(l.path)).first;
    for (const auto& [start, end] : it->second) n += l.range.startByte >= start && l.range.startByte < end;
  }
  if (n == 0 && leftOut == 0 && twins == 0) return;
  out.facet = kIncluderDependentFacet;
  if (n > 0)
    out.note += (out.note.empty() ? "" : "; ") + std::to_string(n) +
                " reference(s) lie in code the build's units see differently (a section only some keep, a file "
                "#included under several macro definitions, a source file another unit #includes whole): a live "
                "server's index lists what one unit saw there";
}

std::optional<ClangSite> implicitTagDeclaration(ClangView& view, const ClangSymbol& symbol, const std::string& path) {
  auto kind = static_cast<SymbolKind>(symbol.kind);
  if (kind != SymbolKind::Struct && kind != SymbolKind::Union && kind != SymbolKind::Enum) return std::nullopt;
  if (!symbol.id || declarationSite(symbol) || view.outsideSite(*symbol.id)) return std::nullopt;
  // A definition's lookup decodes the references at the asked place only: all of them here.
  auto whole = view.symbol(*symbol.id);
  if (!whole) return std::nullopt;
  std::optional<ClangSite> first;
  for (const ClangSite& s : whole->sites)
    if (s.path == path && (!first || s.range.startByte < first->range.startByte)) first = s;
  return first;
}

const ClangSite* firstMet(ClangView& view, const std::string& path, uint32_t limit, const SitesByFile& sites) {
  std::set<std::string, std::less<>> entered;
  // Depth-first over the #includes, bounded: a header graph is shallow, a cycle is cut by
  // `entered`, and a damaged view must not recurse without end.
  std::function<const ClangSite*(const std::string&, uint32_t, int)> meet = [&](const std::string& file, uint32_t before,
                                                                                int depth) -> const ClangSite* {
    if (depth > 64 || !entered.insert(file).second) return nullptr;
    auto own = sites.find(file);
    const ClangSite* first = own == sites.end() || own->second.front()->range.startByte >= before ? nullptr : own->second.front();
    auto included = view.inclusionsIn(file);
    if (included)
      for (const auto& [offset, next] : *included) {
        if (offset >= before || (first && first->range.startByte < offset)) break;
        if (const ClangSite* met = meet(std::string(next), UINT32_MAX, depth + 1)) return met;
      }
    return first;
  };
  return meet(path, limit, 0);
}

// The first site of `symbol` with a role `accept` takes that `path`'s own parse meets, passing over
// files `changed`.
static const ClangSite* firstSiteMet(ClangView& view, const ClangSymbol& symbol, const std::string& path,
                                     const std::function<bool(const std::string&)>& changed,
                                     bool (*accept)(ClangRole)) {
  SitesByFile sites;
  for (const ClangSite& s : symbol.sites)
    if (accept(s.role) && !changed(s.path)) sites[s.path].push_back(&s);
  return firstMet(view, path, UINT32_MAX, sites);
}

const ClangSite* firstNamespaceBlock(ClangView& view, const ClangSymbol& ns, const std::string& path,
                                     const std::function<bool(const std::string&)>& changed) {
  return firstSiteMet(view, ns, path, changed, [](ClangRole r) { return r == ClangRole::Definition; });
}

const ClangSite* firstDeclarationMet(ClangView& view, const ClangSymbol& symbol, const std::string& path,
                                     const std::function<bool(const std::string&)>& changed) {
  return firstSiteMet(view, symbol, path, changed, [](ClangRole r) { return r != ClangRole::Reference; });
}

// The clang view has no say at a position (a file changed since the build, no name clang saw,
// nothing declared in the repository): tree-sitter's facts answer.
Status declined() { return Status(ErrorCode::NotFound, Reason::Declined, "libclang's facts do not answer here"); }

bool onlyForeignAt(const std::vector<ClangFileOccurrence>& occurrences, uint32_t start) {
  auto it = std::lower_bound(occurrences.begin(), occurrences.end(), start,
                             [](const ClangFileOccurrence& o, uint32_t at) { return o.start < at; });
  bool foreign = false;
  for (; it != occurrences.end() && it->start == start; ++it) {
    if (it->foreign) foreign = true;
    else if (!it->unlisted) return false;
  }
  return foreign;
}

// Locations in (path, offset) order, one per site: answers merged from several symbols.
void uniqueSites(std::vector<SymbolLocation>& locations) {
  std::sort(locations.begin(), locations.end(), [](const SymbolLocation& a, const SymbolLocation& b) {
    return std::tie(a.path, a.range.startByte) < std::tie(b.path, b.range.startByte);
  });
  locations.erase(std::unique(locations.begin(), locations.end(),
                              [](const SymbolLocation& a, const SymbolLocation& b) {
                                return a.path == b.path && a.range.startByte == b.range.startByte;
                              }),
                  locations.end());
}

}  // namespace nib::clangnav
