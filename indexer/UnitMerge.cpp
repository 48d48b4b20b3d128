#include "indexer/UnitMerge.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>
#include <tuple>
#include <unordered_map>

#include "indexer/UnitViews.h"
#include "support/FlatSet.h"
#include "support/Language.h"
#include "support/RepoPath.h"
#include "views/FileFacts.h"

namespace nib {
namespace fs = std::filesystem;

namespace {

// The part of a USR two aliases of one entity share: without the file a main file's anonymous
// namespace is prefixed with (`c:file.cc@aN@S@X` and `c:@aN@S@X`). A file before anything else
// is a static entity's (`c:p.h@F@prng`), another entity than the extern one of its name:
// LuaJIT's amalgamation makes its functions static by a macro, their files' own parses extern,
// and clangd keeps the two apart (fixture clang_amalgamation_linkage_macro_definition). So are a
// function C units and C++ units both read in a header, which C++ names with its signature
// (`c:@F@f#I#` against C's `c:@F@f`, a static inline function even inside `extern "C"`):
// clangd's index holds two symbols, and answers the asked file's language's (msgpack-c's
// msgpack_pack_uint64, called from C examples and C++ tests).
std::string aliasForm(std::string_view usr) {
  if (usr.rfind("c:", 0) == 0) {
    size_t at = usr.find('@', 2);
    std::string_view segment = at == std::string_view::npos ? std::string_view() : usr.substr(2, at - 2);
    if (segment.find('.') != std::string_view::npos && usr.compare(at, 3, "@aN") == 0) usr = usr.substr(at);  // "@aN@S@X"
    else usr.remove_prefix(2);
  }
  return std::string(usr);
}

// One entity can reach the view under two USRs: a class in an anonymous namespace of a test
// file is `c:file.cc@aN@S@X` when the file is the TU's main file and `c:@aN@S@X` when another
// TU includes the file (googlemock's gmock_all_test.cc includes every test). Symbols of one name
// defined at the very same place are one entity: merged into the first, so that its references
// do not depend on which of the USRs the cursor's occurrence carries. The merged-away ids stay,
// empty, so that ids remain stable. Only USRs that name one entity alike count (aliasForm): not
// the types one text declares under names a macro gives it per unit (LZO's `typedef struct {…}
// LZO_COMPRESS_T;`, a type of its own in each compressor, as clangd keeps them).
void mergeAliasedSymbols(ClangViewContents& contents, std::map<std::string, std::vector<ClangFileOccurrence>>& byFile) {
  std::vector<uint32_t> root(contents.symbols.size());
  for (uint32_t i = 0; i < root.size(); ++i) root[i] = i;
  auto find = [&](uint32_t x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
  };
  std::map<std::tuple<std::string, uint32_t, std::string, std::string>, uint32_t> definedAt;
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
      auto [it, added] = definedAt.emplace(
          std::make_tuple(s.path, s.range.startByte, contents.symbols[id].name, aliasForm(contents.symbols[id].usr)), id);
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
    auto fromEdges = from.edges(), toEdges = to.edges();
    for (size_t k = 0; k < fromEdges.size(); ++k) {
      toEdges[k]->insert(toEdges[k]->end(), fromEdges[k]->begin(), fromEdges[k]->end());
      fromEdges[k]->clear();
    }
  }
  // Edges point at the merged symbols; one merged into its own neighbour loses that edge.
  for (uint32_t id = 0; id < contents.symbols.size(); ++id) {
    ClangSymbol& s = contents.symbols[id];
    for (std::vector<uint32_t>* ids : s.edges()) {
      for (uint32_t& x : *ids) x = find(x);
      ids->erase(std::remove(ids->begin(), ids->end(), id), ids->end());
    }
  }
  for (auto& [path, occurrences] : byFile)
    for (ClangFileOccurrence& o : occurrences) o.symbol = find(o.symbol);
}

// The merge's state across units: what mergeUnitFacts builds, one unit at a time.
class UnitMerger {
 public:
  UnitMerger(const std::string& root, const std::map<std::string, std::string>& blobIds,
             const std::vector<std::optional<TuFacts>>& results, size_t realUnits, MergeOptions options)
      : root_(root), blobIds_(blobIds), results_(results), realUnits_(realUnits), options_(options),
        numbers_(options_.numbers ? options_.numbers : &ownNumbers_), mainFileOf_(results.size()) {}

  ClangViewContents run() {
    findMainFiles();
    for (size_t i = 0; i < results_.size(); ++i)
      if (results_[i]) mergeUnit(i);
    mergeAliasedSymbols(contents_, byFile_);
    relistHeaderMacros();
    return finish();
  }

 private:
  // By symbol id: where its canonical declaration came from (see mergeOccurrence).
  enum class CanonicalFrom : uint8_t { None, Declaring, Defining };
  // What one unit's occurrences share: its symbols' ids, which entities it defines and which of
  // their declarations it has met, its own main file.
  struct Unit {
    size_t index = 0;
    const TuFacts* facts = nullptr;
    std::vector<uint32_t> ownNumbers;         // where the builder numbered none
    const std::vector<uint32_t>* numbers = nullptr;  // per USR of the unit (UsrNumbers)
    std::vector<bool> definedHere, declaredHere;
    std::string own;
    uint8_t language = 0;  // 1: C, 2: C++, 0: not known (or a unit nib made up)
  };
  // What the occurrences in one file of a unit share, found once per file rather than by its
  // path at every occurrence (a unit has a hundred thousand).
  struct FileSlot {
    const std::string* path = nullptr;  // nullptr: a file the view does not list
    uint32_t number = 0;                // the path's number in this merge
    bool foreign = false;               // another unit's main file, #included here
    bool listed = false;                // a site of it was kept (compiled_ / interpolatedOnly_ updated)
    bool own = false;                   // the unit's own main file
    std::vector<ClangFileOccurrence>* occurrences = nullptr;  // in byFile_, made with the first
  };
  std::vector<ClangFileOccurrence>& occurrencesOf(FileSlot& file) {
    if (!file.occurrences) file.occurrences = &byFile_[*file.path];
    return *file.occurrences;
  }

  // Files that are some unit's main file: another unit that #includes one sees it in its own
  // configuration (`foreign` occurrences).
  void findMainFiles() {
    std::error_code ec;
    for (size_t i = 0; i < results_.size(); ++i) {
      if (!results_[i]) continue;
      std::string main = fs::weakly_canonical(results_[i]->mainFile, ec).string();
      if (ec || main.compare(0, root_.size(), root_) != 0) continue;
      mainFiles_.insert(mainFileOf_[i] = main.substr(root_.size()));
      if (i < realUnits_) compiledMainFiles_.insert(mainFileOf_[i]);
    }
    // The compiled main files another unit of the database #includes whole (the view's
    // `shared`), found before any unit is merged: only their views are compared site by site
    // (UnitViews), which would cost every unit a copy of its own main file's sites otherwise.
    for (size_t i = 0; i < realUnits_ && i < results_.size(); ++i) {
      if (!results_[i]) continue;
      for (const std::string& file : results_[i]->files)
        if (std::string path = repositoryPath(file); !path.empty() && path != mainFileOf_[i] && compiledMainFiles_.count(path))
          shared_.insert(std::move(path));
    }
    views_.compareMainFiles(shared_);
  }

  // A unit's file as a repository path, "" for a file nib does not index.
  std::string repositoryPath(const std::string& file) {
    if (file.compare(0, root_.size(), root_) != 0) return "";
    auto rel = RepoPath::parse(file.substr(root_.size()));
    return rel && (blobIds_.count(rel->str()) || unindexed(rel->str())) ? rel->str() : "";
  }

  // The unit's files as repository paths ("" for files nib does not index); records the main
  // files it #includes and intersects what it left out of each file with the other units'.
  std::vector<std::string> unitPaths(size_t i) {
    const TuFacts& f = *results_[i];
    std::vector<std::string> paths(f.files.size());
    for (size_t k = 0; k < f.files.size(); ++k) paths[k] = repositoryPath(f.files[k]);
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> leftOut(f.files.size());
    for (const ClangSkipped& k : f.skipped) leftOut[k.file].emplace_back(k.start, k.end);
    for (const ClangInclusion& n : f.inclusions)
      if (!paths[n.includer].empty() && !paths[n.included].empty()) {
        inclusions_[paths[n.includer]].emplace(n.offset, paths[n.included]);
        auto [it, first] = enclosed_.emplace(paths[n.included], n.enclosed);
        if (!first) it->second = it->second && n.enclosed;
        auto [c, firstC] = externC_.emplace(paths[n.included], n.externC);
        if (!firstC) c->second = c->second && n.externC;
      }
    std::set<std::string>* read = mainFileOf_[i].empty() ? nullptr : &reads_[mainFileOf_[i]];
    if (!mainFileOf_[i].empty() && !f.errors.empty()) withErrors_.insert(mainFileOf_[i]);
    for (size_t k = 0; k < f.files.size(); ++k) {
      // The files outside the repository it entered too (absolute paths): which system headers
      // the main file's own parse read, so which of their macros are in effect there.
      if (paths[k].empty() && read && f.files[k].compare(0, root_.size(), root_) != 0) read->insert(f.files[k]);
      if (paths[k].empty()) continue;
      if (read && paths[k] != mainFileOf_[i]) read->insert(paths[k]);
      // A unit's main file is what clangd parses when it is opened, alone: what that parse left
      // out, not what a unit #including the file whole (in another configuration) did.
      if (paths[k] != mainFileOf_[i] && mainFiles_.count(paths[k])) continue;
      std::sort(leftOut[k].begin(), leftOut[k].end());
      auto [it, first] = skipped_.emplace(paths[k], leftOut[k]);
      if (!first) it->second = intersectRanges(it->second, leftOut[k]);
    }
    return paths;
  }

  // Whether `path` (not indexed) is a file whose sites the view lists: a regular file under the
  // root outside nib's own folders and git's, as a build's generated header is. Its signature
  // is taken the first time a unit names it.
  bool unindexed(const std::string& path) {
    if (!options_.listUnindexed || path.rfind(".git/", 0) == 0 || path.rfind(".nib/", 0) == 0) return false;
    auto it = unindexed_.find(path);
    if (it == unindexed_.end()) it = unindexed_.emplace(path, fileStatSignature(root_ + path)).first;
    return it->second != "-";
  }

  void mergeUnit(size_t i) {
    const TuFacts& f = *results_[i];
    std::vector<std::string> paths = unitPaths(i);
    Unit u;
    u.index = i;
    u.facts = &f;
    numberUsrs(u);
    u.definedHere.assign(f.usrs.size(), false);
    u.declaredHere.assign(f.usrs.size(), false);
    u.own = mainFileOf_[i];
    if (options_.findVarying && i < realUnits_) {
      std::vector<uint64_t> hashes(f.usrs.size());
      for (size_t k = 0; k < hashes.size(); ++k) hashes[k] = numbers_->textHash((*u.numbers)[k]);
      views_.add(f, paths, compiledMainFiles_, hashes, mainFileOf_[i]);
    }
    if (i < realUnits_ && i < options_.cplusplus.size()) {
      u.language = options_.cplusplus[i] ? 2 : 1;
      for (const std::string& path : paths)
        if (!path.empty() && !mainFiles_.count(path)) ++readersByLanguage_[path][u.language - 1];
    }
    for (const ClangOccurrence& o : f.occurrences)
      if (o.role == ClangRole::Definition && !o.expanded && !o.guessed && !o.unlisted) u.definedHere[o.usr] = true;
    std::vector<FileSlot> slots(paths.size());
    for (size_t k = 0; k < paths.size(); ++k) {
      if (paths[k].empty()) continue;
      auto [number, added] = fileNumbers_.try_emplace(paths[k], static_cast<uint32_t>(fileNumbers_.size()));
      slots[k] = {&number->first, number->second, paths[k] != u.own && mainFiles_.count(paths[k]) > 0, false, paths[k] == u.own,
                  nullptr};
    }
    for (const ClangOccurrence& o : f.occurrences)
      if (slots[o.file].path) mergeOccurrence(u, o, slots[o.file]);
    for (const auto& [file, offset, length] : f.designators)
      if (file < slots.size() && slots[file].path) designators_[*slots[file].path].emplace_back(offset, offset + length);
    // Override and base-class edges between entities the repository declares.
    auto link = [&](const std::vector<std::pair<uint32_t, uint32_t>>& edges, std::vector<uint32_t> ClangSymbol::*up,
                    std::vector<uint32_t> ClangSymbol::*down) {
      for (const auto& [from, to] : edges) {
        int64_t a = symbolOf(u, from), b = symbolOf(u, to);
        if (a < 0 || b < 0 || a == b) continue;
        (contents_.symbols[a].*up).push_back(static_cast<uint32_t>(b));
        if (down) (contents_.symbols[b].*down).push_back(static_cast<uint32_t>(a));
      }
    };
    link(f.overrides, &ClangSymbol::overrides, &ClangSymbol::overriddenBy);
    link(f.bases, &ClangSymbol::bases, &ClangSymbol::derived);
    link(f.types, &ClangSymbol::types, nullptr);
    // A specialization's template declared outside the repository (`std::hash`) is named nowhere
    // in it: a symbol without sites carries the edge, and its place outside (noteOutside).
    for (const auto& [specialization, primary] : f.specializations)
      if (int64_t id = symbolOf(u, specialization); id >= 0) symbolWithoutSites(u, primary, contents_.symbols[id].kind);
    link(f.specializations, &ClangSymbol::specialized, nullptr);
    for (uint32_t k : f.openedOutside)
      if (int64_t id = symbolOf(u, k); id >= 0) openedOutside_.insert(static_cast<uint32_t>(id));
    // An entity a word of a macro's replacement list names, and no occurrence: the lookup by
    // name offers it (a system header's `stderr`, `fprintf`), as clangd's index does.
    for (const ClangOutsideTarget& t : f.outsideTargets)
      if (t.macroWord) symbolWithoutSites(u, t.usr, t.kind, /*named=*/true);
    for (const ClangOutsideTarget& t : f.outsideTargets)
      if (int64_t id = symbolOf(u, t.usr); id >= 0) noteOutside(static_cast<uint32_t>(id), t, i >= realUnits_);
  }

  // The symbol of the unit's USR `usr` (an index into its usrs), -1 where there is none yet.
  int64_t& symbolOf(const Unit& u, uint32_t usr) { return symbolOfNumber_[(*u.numbers)[usr]]; }

  // The unit's USR numbers: the builder's, taken as the unit's facts came in, else taken now.
  void numberUsrs(Unit& u) {
    const std::vector<std::vector<uint32_t>>* given = options_.numbers ? options_.unitNumbers : nullptr;
    if (given && u.index < given->size() && (*given)[u.index].size() == u.facts->usrs.size()) {
      u.numbers = &(*given)[u.index];
    } else {
      u.ownNumbers = numbers_->number(u.facts->usrs);
      u.numbers = &u.ownNumbers;
    }
    if (symbolOfNumber_.size() < numbers_->size()) symbolOfNumber_.resize(numbers_->size(), -1);
  }

  // A symbol for an entity the unit names at no site of its own, unless one exists: unless
  // `named`, no lookup by its name offers it (ClangViewContents::unnamed). `kind`: a class
  // template's is its specialization's (struct, class or union).
  void symbolWithoutSites(Unit& u, uint32_t usr, uint8_t kind, bool named = false) {
    const TuFacts& f = *u.facts;
    int64_t& symbolId = symbolOf(u, usr);
    if (symbolId >= 0) return;
    symbolId = static_cast<int64_t>(contents_.symbols.size());
    ClangSymbol symbol;
    symbol.usr = f.usrs[usr];
    symbol.name = f.names[usr];
    symbol.kind = kind;
    contents_.symbols.push_back(std::move(symbol));
    canonicalFrom_.push_back(CanonicalFrom::None);
    if (!named) siteless_.push_back(static_cast<uint32_t>(symbolId));
  }

  // Where a symbol declared outside the repository answers: a definition before a declaration (as
  // clangd's index fills in a definition another unit saw), a real unit's before a made-up one's,
  // else the first unit's, whose first declaration is clangd's canonical one.
  void noteOutside(uint32_t id, const ClangOutsideTarget& t, bool made) {
    int rank = (made ? 0 : 2) + (t.definition ? 1 : 0);
    auto [it, added] = outside_.try_emplace(id, rank, t);
    if (!added && rank > it->second.first) it->second = {rank, t};
  }

  void writeOutsideSites() {
    std::map<std::string, std::string> signatures;
    for (const auto& [id, ranked] : outside_) {
      const ClangOutsideTarget& t = ranked.second;
      auto [signature, added] = signatures.try_emplace(t.path);
      if (added) signature->second = fileStatSignature(t.path);
      if (signature->second == "-") continue;
      ClangOutsideSite site;
      site.path = t.path;
      site.range.startByte = t.offset;
      site.range.endByte = t.offset + t.length;
      site.range.start = {t.line, t.column};
      site.range.end = {t.line, t.column + t.length};
      site.definition = t.definition;
      site.signature = signature->second;
      contents_.outsideSites.emplace_back(id, std::move(site));
    }
  }

  void mergeOccurrence(Unit& u, const ClangOccurrence& o, FileSlot& file) {
    const TuFacts& f = *u.facts;
    const std::string& path = *file.path;
    const bool made = u.index >= realUnits_;  // a unit nib made up for a file no command reaches
    int64_t& symbolId = symbolOf(u, o.usr);
    if (symbolId < 0) {
      symbolId = static_cast<int64_t>(contents_.symbols.size());
      ClangSymbol symbol;
      symbol.usr = f.usrs[o.usr];
      symbol.name = f.names[o.usr];
      symbol.kind = o.kind;
      contents_.symbols.push_back(std::move(symbol));
      canonicalFrom_.push_back(CanonicalFrom::None);
      if (made) madeUpSymbols_.push_back(static_cast<uint32_t>(symbolId));
    }
    const auto id = static_cast<uint32_t>(symbolId);
    if (u.language) {
      if (languagesOf_.size() <= id) languagesOf_.resize(contents_.symbols.size(), 0);
      languagesOf_[id] |= u.language;
    }
    const bool foreign = file.foreign;
    // A name only the AST resolves (a dependent member guessed by lookup, a name in a
    // template parameter's type) answers at its own place only: it is no site of the
    // entity's, as clangd's index has none there. (An unlisted macro is a site: see below.)
    const bool macro = static_cast<SymbolKind>(o.kind) == SymbolKind::Macro;
    // The file's own unit lists its occurrences there even where a unit that #included the file
    // whole, merged before it, met the same site: those are `foreign`, and only the file's own
    // parse answers at a place in it (a made-up unit's comes after the real units').
    const bool ownFile = file.own;
    // No name under a cursor: not written here, or an argument clangd's selection finds no node
    // at (ClangOccurrence::unselected), which stays a site as written.
    const bool cursorless = o.expanded || o.unselected;
    // What only the AST of a unit made up for a source file no command builds resolves is no
    // answer in a header the real units read: their parses name what is there, and the borrowed
    // command may lack what the file needs (glslang's Web/glslang.js.cpp borrows one without the
    // include path SPIRV/GlslangToSpv.h's #include needs, and the type names of its prototypes
    // answered their parameters). A header parsed alone meets what the headers it reads meet
    // alone, as clangd's parse of them does (jemalloc's bin.h and bin_stats.h, which names
    // uint64_t and #includes nothing that declares it), and keeps its say.
    if (made && !ownFile && o.unlisted && !macro && compiled_.count(path) && isCFamilySourceFile(u.own)) return;
    if (o.guessed || (o.unlisted && o.role == ClangRole::Reference && !macro)) {
      if (astOnlySites_.insert({uint64_t{file.number} << 32 | o.offset, id}) || ownFile)
        occurrencesOf(file).push_back({o.offset, o.offset + o.length, id, o.role, false, o.guessed, o.unlisted, foreign});
      return;
    }
    // The canonical declaration, as clangd's index merges it: the first declaration of the
    // first unit that saw the entity's definition (a function defined in a file that does not
    // include its header is its own canonical declaration there), else of the first unit.
    ClangSymbol& symbol = contents_.symbols[id];
    bool canonical = false;
    if (o.role != ClangRole::Reference && !o.expanded && !u.declaredHere[o.usr]) {
      u.declaredHere[o.usr] = true;
      if (canonicalFrom_[id] == CanonicalFrom::None ||
          (canonicalFrom_[id] == CanonicalFrom::Declaring && u.definedHere[o.usr] && !made)) {
        for (ClangSite& other : symbol.sites) other.canonical = false;
        canonical = true;
        canonicalFrom_[id] = u.definedHere[o.usr] && !made ? CanonicalFrom::Defining : CanonicalFrom::Declaring;
      }
    }
    if (!sites_.insert({uint64_t{file.number} << 32 | o.offset, uint64_t{id} << 8 | static_cast<uint8_t>(o.role)})) {
      if (canonical)
        for (ClangSite& other : symbol.sites)
          if (other.path == path && other.range.startByte == o.offset && other.role == o.role) other.canonical = true;
      if (ownFile)
        occurrencesOf(file).push_back({o.offset, o.offset + o.length, id, o.role, cursorless, false, o.unlisted, false});
      return;
    }
    ByteRange r;
    r.startByte = o.offset;
    r.endByte = o.offset + o.length;
    r.start = {o.line, o.column};
    r.end = {o.line, o.column + o.length};
    // Real units come first: a site seen by one of them is never marked interpolated.
    symbol.sites.push_back({path, r, o.role, o.call, made, canonical, o.expanded, o.macroBody, o.unlisted});
    occurrencesOf(file).push_back({o.offset, o.offset + o.length, id, o.role, cursorless, false, o.unlisted, foreign});
    if (!file.listed) (made ? interpolatedOnly_ : compiled_).insert(path);
    file.listed = true;
  }

  // A header's own macro is unlisted under the name a unit reading the header as a system header
  // gives it, because the header's own parse names it with its place (see the worker). Where no
  // unit of the compilation database read the header as a user header, nothing in clangd's index
  // lists its #define and uses there under that other name, so they stay among the place-less
  // macro's sites. A header nib parses alone (a made-up unit) is such a user header only while
  // clangd has it open: a header that makes itself a system header (`#pragma GCC
  // system_header`, Catch's) is named with places by its own parse alone. (The place-less name's
  // own occurrences in the header are all unlisted, so a listed one there is the other name's.)
  // Only place-less macros: another macro's unlisted occurrences (a name in a file's preamble
  // answering the preamble's last definition, views/ClangPreambleMacros.h) are no sites of it.
  void relistHeaderMacros() {
    auto isMacro = [&](uint32_t id) { return static_cast<SymbolKind>(contents_.symbols[id].kind) == SymbolKind::Macro; };
    auto placeless = [&](uint32_t id) { return contents_.symbols[id].usr.rfind("c:@macro@", 0) == 0; };
    std::set<std::tuple<std::string, uint32_t, ClangRole>> locatedMacros;
    for (uint32_t id = 0; id < contents_.symbols.size(); ++id)
      if (isMacro(id) && !placeless(id))
        for (const ClangSite& site : contents_.symbols[id].sites)
          if (!site.unlisted && !site.interpolated) locatedMacros.emplace(site.path, site.range.startByte, site.role);
    for (uint32_t id = 0; id < contents_.symbols.size(); ++id) {
      if (!isMacro(id) || !placeless(id)) continue;
      for (ClangSite& site : contents_.symbols[id].sites)
        if (site.unlisted && !locatedMacros.count({site.path, site.range.startByte, site.role})) site.unlisted = false;
    }
  }

  // Per header read by units of both languages, fewer of one than of the other: the symbols
  // only the fewer language's units name that have sites there (ClangViewContents::
  // minorityLanguage).
  std::map<std::string, std::set<uint32_t>> minorityLanguageSymbols() const {
    std::map<std::string, std::set<uint32_t>> out;
    for (const auto& [path, readers] : readersByLanguage_) {
      const uint32_t all = readers[0] + readers[1];
      if (!readers[0] || !readers[1] || 2 * readers[0] == all) continue;
      const uint8_t fewer = 2 * readers[0] < all ? 1 : 2;
      auto occurrences = byFile_.find(path);
      if (occurrences == byFile_.end()) continue;
      for (const ClangFileOccurrence& o : occurrences->second)
        if (o.symbol < languagesOf_.size() && languagesOf_[o.symbol] == fewer) out[path].insert(o.symbol);
    }
    return out;
  }

  // Everything sorted and deduplicated, in the view's shape.
  ClangViewContents finish() {
    // A unit's main file, or a file it read, whose every line the preprocessor left out has no
    // occurrence (c-ares's ares_platform.c, all of it Windows CE's), but the units compiled it:
    // the view covers it, so that its words answer as code left out does, not by tree-sitter.
    for (const std::string& main : mainFiles_)
      if (blobIds_.count(main)) byFile_[main];
    for (const auto& [path, ranges] : skipped_)
      if (!ranges.empty() && blobIds_.count(path)) byFile_[path];
    for (ClangSymbol& s : contents_.symbols) {
      for (std::vector<uint32_t>* ids : s.edges()) {
        std::sort(ids->begin(), ids->end());
        ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
      }
      std::sort(s.sites.begin(), s.sites.end(), [](const ClangSite& a, const ClangSite& b) {
        return a.path != b.path                           ? a.path < b.path
               : a.range.startByte != b.range.startByte ? a.range.startByte < b.range.startByte
                                                         : a.role < b.role;
      });
    }
    const std::map<std::string, std::set<uint32_t>> fewer = minorityLanguageSymbols();
    std::vector<bool> using_(contents_.symbols.size());
    for (uint32_t id = 0; id < contents_.symbols.size(); ++id)
      using_[id] = contents_.symbols[id].usr.rfind(kUsingDeclarationUsr, 0) == 0;
    for (auto& [path, occurrences] : byFile_) {
      const auto few = fewer.find(path);
      std::sort(occurrences.begin(), occurrences.end(), [&](const ClangFileOccurrence& a, const ClangFileOccurrence& b) {
        // At one offset: the file's own unit's first; an unlisted reference (where clang's
        // indexer reports nothing, or a name a using-declaration brought in) ahead of what the
        // indexer reports, an unlisted declaration and a header's own macro as a unit reading the
        // header as a system header names it after (the header's own parse names it otherwise);
        // a guessed one last.
        auto key = [&](const ClangFileOccurrence& o) {
          bool macro = static_cast<SymbolKind>(contents_.symbols[o.symbol].kind) == SymbolKind::Macro;
          bool unlistedFirst = o.unlisted && o.role == ClangRole::Reference && !macro;
          bool unlistedAfter = o.unlisted && !unlistedFirst;
          // What only the language fewer of a header's units read it in names there after the
          // rest (minorityLanguageSymbols: the majority's twin first; libstdc++'s `using
          // std::free;`, which C++ units alone see, after C's `free` in a C header); a
          // using-declaration before the type it brings in, both unlisted (`std::uint64_t`:
          // ClangQualifiedNames), so that the cursor there answers for the declaration.
          bool fewerTwin = few != fewer.end() && few->second.count(o.symbol);
          return std::make_tuple(o.start, o.foreign, fewerTwin, o.guessed, !unlistedFirst, unlistedAfter, o.expanded, o.role,
                                 !using_[o.symbol], o.symbol, o.end);
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
      if (std::any_of(occurrences.begin(), occurrences.end(), [](const ClangFileOccurrence& o) { return o.foreign; }))
        contents_.foreignFiles.push_back(path);
      contents_.files.emplace_back(path, std::move(occurrences));
    }
    for (const std::string& path : interpolatedOnly_)
      if (!compiled_.count(path)) contents_.interpolatedFiles.push_back(path);
    contents_.sharedMainFiles.assign(shared_.begin(), shared_.end());
    for (const std::string& path : compiledMainFiles_)
      if (blobIds_.count(path)) contents_.compiledMainFiles.push_back(path);
    std::set<std::string> everyRead;
    for (const auto& [main, read] : reads_) everyRead.insert(read.begin(), read.end());
    contents_.readFiles.assign(everyRead.begin(), everyRead.end());
    for (const auto& [main, read] : reads_) {
      std::vector<uint32_t> numbers;
      for (const std::string& path : read)
        numbers.push_back(static_cast<uint32_t>(
            std::lower_bound(contents_.readFiles.begin(), contents_.readFiles.end(), path) - contents_.readFiles.begin()));
      contents_.reads.emplace_back(main, std::move(numbers));
    }
    for (auto& [path, ranges] : skipped_)
      if (!ranges.empty()) contents_.skipped.emplace_back(path, std::move(ranges));
    for (auto& [path, entered] : inclusions_) contents_.inclusions.emplace_back(path, std::vector(entered.begin(), entered.end()));
    contents_.openedOutside.assign(openedOutside_.begin(), openedOutside_.end());
    writeOutsideSites();
    for (const auto& [path, always] : enclosed_)
      if (always) contents_.enclosedFiles.push_back(path);
    for (const auto& [path, always] : externC_)
      if (always) contents_.externCFiles.push_back(path);
    // What only a made-up unit named, at no site (a member name its own configuration spells
    // otherwise: pcre2's `named_group` where the database's units see `named_group_8`), is in no
    // index clangd has: the lookup by name does not offer it.
    for (uint32_t id : madeUpSymbols_)
      if (contents_.symbols[id].sites.empty()) contents_.unnamed.push_back(id);
    for (uint32_t id : siteless_)
      if (contents_.symbols[id].sites.empty()) contents_.unnamed.push_back(id);
    // Nor does it offer labels (`cleanup:`), each its own function's: the word `cleanup`
    // elsewhere names none of them; nor the stand-ins for dependent names nothing resolved.
    for (uint32_t id = 0; id < contents_.symbols.size(); ++id)
      if (contents_.symbols[id].usr.rfind(kLabelUsrPrefix, 0) == 0 || contents_.symbols[id].usr.rfind(kDependentNameUsrPrefix, 0) == 0)
        contents_.unnamed.push_back(id);
    std::sort(contents_.unnamed.begin(), contents_.unnamed.end());
    contents_.unnamed.erase(std::unique(contents_.unnamed.begin(), contents_.unnamed.end()), contents_.unnamed.end());
    contents_.parsedWithErrors.assign(withErrors_.begin(), withErrors_.end());
    for (const auto& [path, signature] : unindexed_)
      if (signature != "-" && byFile_.count(path)) contents_.unindexed.emplace_back(path, signature);
    for (auto& [path, ranges] : designators_) contents_.designators.emplace_back(path, uniteRanges(ranges, {}));
    if (options_.findVarying) {
      contents_.varying = views_.finish(root_);
      contents_.minority = views_.minority();
    }
    std::map<uint32_t, std::vector<std::string>> bySymbol;
    for (const auto& [path, ids] : fewer)
      for (uint32_t id : ids) bySymbol[id].push_back(path);
    contents_.minorityLanguage.assign(bySymbol.begin(), bySymbol.end());
    contents_.root = root_;
    return std::move(contents_);
  }

  const std::string& root_;
  const std::map<std::string, std::string>& blobIds_;
  const std::vector<std::optional<TuFacts>>& results_;
  const size_t realUnits_;
  const MergeOptions options_;
  UnitViews views_;  // what the database's units see differently (options_.findVarying)
  std::map<std::string, std::string> unindexed_;  // path -> stat signature ("-": not listed)
  ClangViewContents contents_;
  UsrNumbers ownNumbers_;     // where the builder gave none (MergeOptions::numbers)
  UsrNumbers* numbers_;       // the USRs' numbers
  std::vector<int64_t> symbolOfNumber_;  // by a USR's number: its symbol, -1 none yet
  std::map<std::string, std::vector<ClangFileOccurrence>> byFile_;
  std::unordered_map<std::string, uint32_t> fileNumbers_;  // FileSlot::number
  // Sites met so far: (file number << 32 | offset, symbol << 8 | role); AST-only sites without
  // the role.
  FlatSet128 sites_, astOnlySites_;
  std::vector<CanonicalFrom> canonicalFrom_;
  std::vector<uint32_t> madeUpSymbols_;  // symbols a made-up unit named first, ascending
  std::vector<uint32_t> siteless_;       // symbols made for an edge alone (symbolWithoutSites)
  std::set<std::string> withErrors_;      // main files one of whose units reported an error
  std::map<std::string, std::array<uint32_t, 2>> readersByLanguage_;  // header -> its real C and C++ units
  std::vector<uint8_t> languagesOf_;  // symbol -> the languages of the real units naming it (Unit::language bits)
  std::set<std::string> compiled_, interpolatedOnly_;  // files real units saw; files only made-up ones saw
  std::set<std::string> shared_;                      // main files another unit #includes
  std::map<std::string, std::set<std::string>> reads_;  // main file -> the other files its units read
  // File -> the #includes any unit entered there: (offset of the directive, the file entered).
  std::map<std::string, std::set<std::pair<uint32_t, std::string>>> inclusions_;
  // File -> whether every #include that entered it lay inside a scope (ClangInclusion::enclosed).
  std::map<std::string, bool> enclosed_, externC_;
  std::set<uint32_t> openedOutside_;  // namespaces some unit opened first outside the repository
  std::map<uint32_t, std::pair<int, ClangOutsideTarget>> outside_;  // symbol -> (rank, place): noteOutside
  // Per file, what every unit that read it left out (intersected unit by unit).
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> skipped_;
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> designators_;  // per file, as units named them
  std::vector<std::string> mainFileOf_;
  std::set<std::string> mainFiles_, compiledMainFiles_;  // of every unit; of the database's units
};

}  // namespace

std::vector<uint32_t> UsrNumbers::number(const std::vector<std::string>& usrs) {
  std::vector<uint32_t> out(usrs.size());
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t k = 0; k < usrs.size(); ++k) {
    const uint64_t hash = StringIndex::hashOf(usrs[k]);
    uint32_t n = index_.find(usrs[k], hash, texts_);
    if (n == StringIndex::kAbsent) {
      n = static_cast<uint32_t>(texts_.size());
      index_.add(hash, n);
      texts_.push_back(usrs[k]);
      hashes_.push_back(hash);
    }
    out[k] = n;
  }
  return out;
}

ClangViewContents mergeUnitFacts(const std::string& root, const std::map<std::string, std::string>& blobIds,
                                 const std::vector<std::optional<TuFacts>>& results, size_t realUnits, MergeOptions options) {
  return UnitMerger(root, blobIds, results, realUnits, options).run();
}

}  // namespace nib
