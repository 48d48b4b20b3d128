// Workspace symbols (`nib symbols`, workspace/symbol): every definition name scored against the
// query (providers/SymbolMatcher.h), the best names' definitions read, overlays included.
#include <algorithm>
#include <functional>
#include <queue>

#include "providers/StaticProvider.h"
#include "providers/SymbolMatcher.h"

namespace nib {
namespace {

// A definition key (kind byte, name) whose name scored.
struct ScoredName {
  std::string_view key;
  double score;
};

bool betterName(const ScoredName& a, const ScoredName& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.key.substr(1) != b.key.substr(1)) return a.key.substr(1) < b.key.substr(1);
  return a.key < b.key;
}

// Sorts the names that can be read, best first, and returns how many: a common word has tens of
// thousands (60k for `inode` on a Linux sample), most of them tied in score, and sorting them
// all by name was most of such a query. The best few hundred are picked by score alone
// (linear), with every name tied with the last of them; the caller sorts the rest
// (sortRestFrom) only if its reading gets there.
size_t sortReadableNames(std::vector<ScoredName>& names, size_t wanted) {
  size_t sorted = names.size();
  if (const size_t pick = std::max<size_t>(4 * wanted, 256); names.size() > 2 * pick) {
    std::nth_element(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(pick), names.end(),
                     [](const ScoredName& a, const ScoredName& b) { return a.score > b.score; });
    const double cut = names[pick].score;
    auto rest = std::partition(names.begin() + static_cast<std::ptrdiff_t>(pick), names.end(),
                               [cut](const ScoredName& n) { return n.score >= cut; });
    sorted = static_cast<size_t>(rest - names.begin());
  }
  std::sort(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(sorted), betterName);
  return sorted;
}

}  // namespace

std::vector<SymbolMatch> StaticProvider::symbols(std::string_view query, size_t limit) {
  beginQuery();
  // Names are views of the commit view's pages or key list (both live as long as the view) or
  // of the overlays' facts: a short query matches tens of thousands of names, and copying each
  // was most of the time such a query took.
  struct Hit { std::string_view name; DefinitionRef ref; double score; size_t seq; };
  std::vector<Hit> hits;
  SymbolMatcher matcher(query);
  const size_t wanted = limit * 2 + 16;  // a margin for hits whose location cannot be read
  auto addDefinitions = [&](std::string_view name, double score, const std::vector<DefinitionRef>& refs) {
    for (const DefinitionRef& r : refs)
      if (!overlayById_.count(r.fileId)) hits.push_back({name, r, score - (r.isDeclaration ? 1 : 0), hits.size()});
  };
  // With the key list, names are scored first and only the best names' definitions are read:
  // in score order, until `wanted` hits score above anything the next name can give (a hit
  // scores its name's score, or one less for a declaration). Without it, the table is walked.
  std::vector<ScoredName> names;
  size_t next = 0;
  auto keys = view_->definitionKeys();
  if (keys) {
    forEachKeyCandidate(*keys, matcher, [&](std::string_view key) {
      if (key.size() < 2) return;
      if (double score = matcher.score(key.substr(1)); score > 0) names.push_back({key, score});
    });
    size_t sortedNames = sortReadableNames(names, wanted);
    std::priority_queue<double, std::vector<double>, std::greater<double>> best;  // the `wanted` best scores
    for (; next < names.size(); ++next) {
      if (next == sortedNames) {
        std::sort(names.begin() + static_cast<std::ptrdiff_t>(next), names.end(), betterName);
        sortedNames = names.size();
      }
      if (best.size() == wanted && best.top() > names[next].score) break;
      size_t before = hits.size();
      addDefinitions(names[next].key.substr(1), names[next].score,
                     view_->definitions(std::string(names[next].key.substr(1)), names[next].key[0] == 'M'));
      for (size_t h = before; h < hits.size(); ++h) {
        best.push(hits[h].score);
        if (best.size() > wanted) best.pop();
      }
    }
  } else {
    view_->forEachDefinitionName([&](std::string_view name, bool, std::string_view raw) {
      if (double score = matcher.score(name); score > 0) addDefinitions(name, score, CommitView::decodeDefinitions(raw));
      return true;
    });
  }
  for (const auto& [path, file] : overlays_) {
    const auto& defs = file->facts.definitions;
    for (size_t i = 0; i < defs.size(); ++i) {
      const Definition& d = defs[i];
      if (d.scope != BindingScope::Global && d.scope != BindingScope::Member) continue;
      if (double score = matcher.score(d.name); score > 0)
        hits.push_back({d.name, {file->record.fileId, static_cast<uint32_t>(i), d.kind, d.isDeclaration},
                        score - (d.isDeclaration ? 1 : 0), hits.size()});
    }
  }
  // A total order (the scan order last), so that sorting only the best part is deterministic.
  auto better = [](const Hit& a, const Hit& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.name != b.name) return a.name < b.name;
    return a.ref.fileId != b.ref.fileId ? a.ref.fileId < b.ref.fileId : a.seq < b.seq;
  };
  // Only the best part is sorted; a hit whose location cannot be read is passed over, so when
  // the sorted part runs out first, the rest is sorted too, and the names not read yet are.
  std::vector<SymbolMatch> out;
  size_t sorted = std::min(hits.size(), wanted);
  std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(sorted), hits.end(), better);
  for (size_t i = 0; i < hits.size() && out.size() < limit; ++i) {
    if (i == sorted) {
      for (; next < names.size(); ++next)
        addDefinitions(names[next].key.substr(1), names[next].score,
                       view_->definitions(std::string(names[next].key.substr(1)), names[next].key[0] == 'M'));
      std::sort(hits.begin() + static_cast<std::ptrdiff_t>(i), hits.end(), better);
    }
    const Hit& h = hits[i];
    if (auto loc = locationOf({h.ref.fileId, static_cast<int32_t>(h.ref.index)})) out.push_back({std::move(*loc), h.score});
  }
  return out;
}

void StaticProvider::forEachKeyCandidate(std::string_view keys, const SymbolMatcher& matcher,
                                         const std::function<void(std::string_view)>& visit) {
  // A name that scores holds every byte class of the query, so both ways visit every name that
  // scores, in the list's order: the same names, whichever way.
  if (++symbolQueries_ >= 2 && keys.size() < UINT32_MAX) {
    if (keyLines_.empty()) indexKeyLines(keys);
    const uint64_t needed = matcher.queryClasses();
    for (const KeyLine& l : keyLines_)
      if ((l.classes & needed) == needed) visit(keys.substr(l.offset, l.length));
  } else {
    matcher.forEachCandidate(keys, visit);
  }
}

void StaticProvider::indexKeyLines(std::string_view keys) {
  keyLines_.clear();
  for (size_t at = 0; at < keys.size();) {
    size_t end = keys.find('\n', at);
    if (end == std::string_view::npos) end = keys.size();
    std::string_view line = keys.substr(at, end - at);
    // Classes of the name alone (after the kind byte), as SymbolMatcher::score tests them.
    keyLines_.push_back({static_cast<uint32_t>(at), static_cast<uint32_t>(line.size()),
                         line.size() < 2 ? 0 : SymbolMatcher::byteClasses(line.substr(1))});
    at = end + 1;
  }
}

}  // namespace nib
