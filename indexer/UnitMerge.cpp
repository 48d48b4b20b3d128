#include "indexer/UnitMerge.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>
#include <unordered_map>

#include "support/RepoPath.h"
#include "views/FileFacts.h"

namespace nib {
namespace fs = std::filesystem;

namespace {

// One entity can reach the view under two USRs: a class in an anonymous namespace of a test
// file is `c:file.cc@aN@S@X` when the file is the TU's main file and `c:@aN@S@X` when another
// TU includes the file (googlemock's gmock_all_test.cc includes every test). Symbols of one name
// defined at the very same place are one entity: merged into the first, so that its references
// do not depend on which of the USRs the cursor's occurrence carries. The merged-away ids stay,
// empty, so that ids remain stable.
void mergeAliasedSymbols(ClangViewContents& contents, std::map<std::string, std::vector<ClangFileOccurrence>>& byFile) {
  std::vector<uint32_t> root(contents.symbols.size());
  for (uint32_t i = 0; i < root.size(); ++i) root[i] = i;
  auto find = [&](uint32_t x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
  };
  std::map<std::tuple<std::string, uint32_t, std::string>, uint32_t> definedAt;
  bool any = false;
  for (uint32_t id = 0; id < contents.symbols.size(); ++id)
    for (const ClangSite& s : contents.symbols[id].sites) {
      // A macro's text is shared by every expansion (a FIELDS macro's field in each struct):
      // only places the source spells once count.
      // A macro's two names (from a header read through -isystem, `c:@macro@TEST`, and through
      // -I, `c:gtest.h@84867@macro@TEST`) are two symbols for clangd too: never merged.
      if (s.role != ClangRole::Definition || s.expanded || s.macroBody ||
          static_cast<SymbolKind>(contents.symbols[id].kind) == SymbolKind::Macro)
        continue;
      auto [it, added] = definedAt.emplace(std::make_tuple(s.path, s.range.startByte, contents.symbols[id].name), id);
      if (added) continue;
      uint32_t a = find(it->second), b = find(id);
      if (a == b) continue;
      root[std::max(a, b)] = std::min(a, b);
      any = true;
    }
  if (!any) return;
  for (uint32_t id = 0; id < contents.symbols.size(); ++id) {
    uint32_t r = find(id);
    if (r == id) continue;
    ClangSymbol& from = contents.symbols[id];
    ClangSymbol& to = contents.symbols[r];
    bool toCanonical = std::any_of(to.sites.begin(), to.sites.end(), [](const ClangSite& s) { return s.canonical; });
    for (ClangSite& s : from.sites) {
      bool duplicate = std::any_of(to.sites.begin(), to.sites.end(), [&](const ClangSite& t) {
        return t.path == s.path && t.range.startByte == s.range.startByte && t.role == s.role;
      });
      if (duplicate) continue;
      if (toCanonical) s.canonical = false;
      to.sites.push_back(std::move(s));
    }
    from.sites.clear();
    for (auto [fromIds, toIds] : {std::pair{&from.overrides, &to.overrides}, std::pair{&from.overriddenBy, &to.overriddenBy},
                                  std::pair{&from.bases, &to.bases}, std::pair{&from.derived, &to.derived},
                                  std::pair{&from.types, &to.types}}) {
      toIds->insert(toIds->end(), fromIds->begin(), fromIds->end());
      fromIds->clear();
    }
  }
  // Edges point at the merged symbols; one merged into its own neighbour loses that edge.
  for (uint32_t id = 0; id < contents.symbols.size(); ++id) {
    ClangSymbol& s = contents.symbols[id];
    for (std::vector<uint32_t>* ids : {&s.overrides, &s.overriddenBy, &s.bases, &s.derived, &s.types}) {
      for (uint32_t& x : *ids) x = find(x);
      ids->erase(std::remove(ids->begin(), ids->end(), id), ids->end());
    }
  }
  for (auto& [path, occurrences] : byFile)
    for (ClangFileOccurrence& o : occurrences) o.symbol = find(o.symbol);
}

// The stretches both sorted lists of [start, end) ranges cover.
std::vector<std::pair<uint32_t, uint32_t>> intersectRanges(const std::vector<std::pair<uint32_t, uint32_t>>& a,
                                                           const std::vector<std::pair<uint32_t, uint32_t>>& b) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint32_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo < hi) out.emplace_back(lo, hi);
    (a[i].second < b[j].second ? i : j)++;
  }
  return out;
}

}  // namespace

ClangViewContents mergeUnitFacts(const std::string& root, const std::map<std::string, std::string>& blobIds,
                                 const std::vector<std::optional<TuFacts>>& results, size_t realUnits) {
  std::error_code ec;
  ClangViewContents contents;
  std::unordered_map<std::string, uint32_t> symbolIds;
  std::map<std::string, std::vector<ClangFileOccurrence>> byFile;
  std::set<std::tuple<std::string, uint32_t, uint32_t, uint8_t>> sites;
  std::set<std::tuple<std::string, uint32_t, uint32_t>> astOnlySites;
  // By symbol id: where its canonical declaration came from (see the merge below).
  enum class CanonicalFrom : uint8_t { None, Declaring, Defining };
  std::vector<CanonicalFrom> canonicalFrom;
  std::set<std::string> compiled, interpolatedOnly;  // files real units saw; files only made-up ones saw
  std::set<std::string> shared;                     // main files another unit #includes
  // Per file, what every unit that read it left out (intersected unit by unit).
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> skipped;
  // Files that are some unit's main file: another unit that #includes one sees it in its own
  // configuration (`foreign` occurrences).
  std::vector<std::string> mainFileOf(results.size());
  std::set<std::string> mainFiles, compiledMainFiles;  // of every unit; of the database's units
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i]) continue;
    std::string main = fs::weakly_canonical(results[i]->mainFile, ec).string();
    if (ec || main.compare(0, root.size(), root) != 0) continue;
    mainFiles.insert(mainFileOf[i] = main.substr(root.size()));
    if (i < realUnits) compiledMainFiles.insert(mainFileOf[i]);
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i]) continue;
    const TuFacts& f = *results[i];
    std::vector<std::string> paths(f.files.size());
    for (size_t k = 0; k < f.files.size(); ++k)
      if (f.files[k].compare(0, root.size(), root) == 0) {
        auto rel = RepoPath::parse(f.files[k].substr(root.size()));
        if (rel && blobIds.count(rel->str())) paths[k] = rel->str();  // indexed files only
      }
    const std::string& own = mainFileOf[i];
    if (i < realUnits)
      for (const std::string& path : paths)
        if (!path.empty() && path != own && compiledMainFiles.count(path)) shared.insert(path);
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> leftOut(f.files.size());
    for (const ClangSkipped& k : f.skipped) leftOut[k.file].emplace_back(k.start, k.end);
    for (size_t k = 0; k < f.files.size(); ++k) {
      if (paths[k].empty()) continue;
      std::sort(leftOut[k].begin(), leftOut[k].end());
      auto [it, first] = skipped.emplace(paths[k], leftOut[k]);
      if (!first) it->second = intersectRanges(it->second, leftOut[k]);
    }
    std::vector<int64_t> ids(f.usrs.size(), -1);
    // Which entities this unit defines, and which of their declarations it has met.
    std::vector<bool> definedHere(f.usrs.size()), declaredHere(f.usrs.size());
    for (const ClangOccurrence& o : f.occurrences)
      if (o.role == ClangRole::Definition && !o.expanded && !o.guessed && !o.unlisted) definedHere[o.usr] = true;
    for (const ClangOccurrence& o : f.occurrences) {
      const std::string& path = paths[o.file];
      if (path.empty()) continue;
      if (ids[o.usr] < 0) {
        auto [it, added] = symbolIds.emplace(f.usrs[o.usr], static_cast<uint32_t>(contents.symbols.size()));
        if (added) {
          contents.symbols.push_back({f.usrs[o.usr], f.names[o.usr], o.kind, {}, {}, {}, {}, {}, {}});
          canonicalFrom.push_back(CanonicalFrom::None);
        }
        ids[o.usr] = it->second;
      }
      uint32_t id = static_cast<uint32_t>(ids[o.usr]);
      const bool foreign = path != own && mainFiles.count(path) > 0;
      // A name only the AST resolves (a dependent member guessed by lookup, a name in a
      // template parameter's type) answers at its own place only: it is no site of the
      // entity's, as clangd's index has none there. (An unlisted macro is a site: see below.)
      const bool macro = static_cast<SymbolKind>(o.kind) == SymbolKind::Macro;
      if (o.guessed || (o.unlisted && o.role == ClangRole::Reference && !macro)) {
        if (astOnlySites.insert({path, o.offset, id}).second)
          byFile[path].push_back({o.offset, o.offset + o.length, id, o.role, false, o.guessed, o.unlisted, foreign});
        continue;
      }
      // The canonical declaration, as clangd's index merges it: the first declaration of the
      // first unit that saw the entity's definition (a function defined in a file that does not
      // include its header is its own canonical declaration there), else of the first unit.
      ClangSymbol& symbol = contents.symbols[id];
      bool canonical = false;
      if (o.role != ClangRole::Reference && !o.expanded && !declaredHere[o.usr]) {
        declaredHere[o.usr] = true;
        if (canonicalFrom[id] == CanonicalFrom::None ||
            (canonicalFrom[id] == CanonicalFrom::Declaring && definedHere[o.usr] && i < realUnits)) {
          for (ClangSite& other : symbol.sites) other.canonical = false;
          canonical = true;
          canonicalFrom[id] = definedHere[o.usr] && i < realUnits ? CanonicalFrom::Defining : CanonicalFrom::Declaring;
        }
      }
      if (!sites.insert({path, o.offset, id, static_cast<uint8_t>(o.role)}).second) {
        if (canonical)
          for (ClangSite& other : symbol.sites)
            if (other.path == path && other.range.startByte == o.offset && other.role == o.role) other.canonical = true;
        continue;
      }
      ByteRange r;
      r.startByte = o.offset;
      r.endByte = o.offset + o.length;
      r.start = {o.line, o.column};
      r.end = {o.line, o.column + o.length};
      // Real units come first: a site seen by one of them is never marked interpolated.
      symbol.sites.push_back({path, r, o.role, o.call, i >= realUnits, canonical, o.expanded, o.macroBody, o.unlisted});
      byFile[path].push_back({o.offset, o.offset + o.length, id, o.role, o.expanded, false, o.unlisted, foreign});
      (i >= realUnits ? interpolatedOnly : compiled).insert(path);
    }
    // Override and base-class edges between entities the repository declares.
    auto link = [&](const std::vector<std::pair<uint32_t, uint32_t>>& edges, std::vector<uint32_t> ClangSymbol::*up,
                    std::vector<uint32_t> ClangSymbol::*down) {
      for (const auto& [from, to] : edges) {
        auto a = symbolIds.find(f.usrs[from]), b = symbolIds.find(f.usrs[to]);
        if (a == symbolIds.end() || b == symbolIds.end() || a->second == b->second) continue;
        (contents.symbols[a->second].*up).push_back(b->second);
        if (down) (contents.symbols[b->second].*down).push_back(a->second);
      }
    };
    link(f.overrides, &ClangSymbol::overrides, &ClangSymbol::overriddenBy);
    link(f.bases, &ClangSymbol::bases, &ClangSymbol::derived);
    link(f.types, &ClangSymbol::types, nullptr);
  }
  mergeAliasedSymbols(contents, byFile);
  // A header's own macro is unlisted under the name a unit reading the header as a system header
  // gives it, because the header's own parse names it with its place (see the worker). Where no
  // unit read the header as a user header, nothing lists its #define and uses there under that
  // other name, so they stay among the place-less macro's sites. (The place-less name's own
  // occurrences in the header are all unlisted, so a listed one there is the other name's.)
  auto isMacro = [&](uint32_t id) { return static_cast<SymbolKind>(contents.symbols[id].kind) == SymbolKind::Macro; };
  std::set<std::tuple<std::string, uint32_t, ClangRole>> locatedMacros;
  for (const auto& [path, occurrences] : byFile)
    for (const ClangFileOccurrence& o : occurrences)
      if (!o.unlisted && isMacro(o.symbol)) locatedMacros.emplace(path, o.start, o.role);
  for (uint32_t id = 0; id < contents.symbols.size(); ++id) {
    if (!isMacro(id)) continue;
    for (ClangSite& site : contents.symbols[id].sites)
      if (site.unlisted && !locatedMacros.count({site.path, site.range.startByte, site.role})) site.unlisted = false;
  }
  for (ClangSymbol& s : contents.symbols) {
    for (std::vector<uint32_t>* ids : {&s.overrides, &s.overriddenBy, &s.bases, &s.derived, &s.types}) {
      std::sort(ids->begin(), ids->end());
      ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
    }
    std::sort(s.sites.begin(), s.sites.end(), [](const ClangSite& a, const ClangSite& b) {
      return a.path != b.path ? a.path < b.path : a.range.startByte != b.range.startByte ? a.range.startByte < b.range.startByte
                                                                                        : a.role < b.role;
    });
  }
  for (auto& [path, occurrences] : byFile) {
    std::sort(occurrences.begin(), occurrences.end(), [&](const ClangFileOccurrence& a, const ClangFileOccurrence& b) {
      // At one offset: the file's own unit's first; an unlisted reference (where clang's
      // indexer reports nothing, or a name a using-declaration brought in) ahead of what the
      // indexer reports, an unlisted declaration and a header's own macro as a unit reading the
      // header as a system header names it after (the header's own parse names it otherwise);
      // a guessed one last.
      auto key = [&](const ClangFileOccurrence& o) {
        bool macro = static_cast<SymbolKind>(contents.symbols[o.symbol].kind) == SymbolKind::Macro;
        bool unlistedFirst = o.unlisted && o.role == ClangRole::Reference && !macro;
        bool unlistedAfter = o.unlisted && !unlistedFirst;
        return std::make_tuple(o.start, o.foreign, o.guessed, !unlistedFirst, unlistedAfter, o.expanded, o.role, o.symbol, o.end);
      };
      return key(a) < key(b);
    });
    occurrences.erase(std::unique(occurrences.begin(), occurrences.end(),
                                  [](const ClangFileOccurrence& a, const ClangFileOccurrence& b) {
                                    return a.start == b.start && a.symbol == b.symbol && a.role == b.role &&
                                           a.expanded == b.expanded && a.guessed == b.guessed && a.unlisted == b.unlisted &&
                                           a.foreign == b.foreign;
                                  }),
                      occurrences.end());
    contents.files.emplace_back(path, std::move(occurrences));
  }
  for (const std::string& path : interpolatedOnly)
    if (!compiled.count(path)) contents.interpolatedFiles.push_back(path);
  contents.sharedMainFiles.assign(shared.begin(), shared.end());
  for (auto& [path, ranges] : skipped)
    if (!ranges.empty()) contents.skipped.emplace_back(path, std::move(ranges));
  return contents;
}

}  // namespace nib
