// The structural route of nib/search: the lexical route's units, each expanded one hop along
// the call graph (its callers and callees), the two rankings fused by reciprocal rank.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "server/Engine.h"
#include "support/Text.h"

namespace nib {
namespace {

// Reciprocal-rank fusion with the hybrid route's constant (kRrfK, SearchProvider.h): score =
// sum over rankings of 1 / (k + rank), rank 1-based. Seeds: the lexical route's top 10 units,
// expanded; the lexical list itself is fetched 2k deep so that fusion can reorder past the
// first k.
constexpr size_t kSeeds = 10;
constexpr uint32_t kSnippetLines = 12;

}  // namespace

Expected<SearchResult> Engine::searchStructural(const SearchRequest& request, const SearchContext& context) {
  SearchRequest lexicalRequest = request;
  lexicalRequest.route = SearchRoute::Lexical;
  lexicalRequest.k = std::max<size_t>(request.k * 2, 20);
  auto lexical = search_->search(lexicalRequest, context);
  if (!lexical) return lexical.status();
  auto graph = callGraph();
  if (!graph) return graph.status();

  struct Fused {
    SearchHit hit;
    double score = 0;
  };
  std::map<std::pair<std::string, uint32_t>, Fused> fused;  // by (path, unit start)
  for (size_t i = 0; i < lexical->hits.size(); ++i) {
    SearchHit& h = lexical->hits[i];
    Fused& f = fused[{h.path, h.range.startByte}];
    f.hit = h;
    f.score += 1.0 / (kRrfK + static_cast<double>(i + 1));
  }
  // The expansion list: each seed's callers and callees, seed by seed, in the graph's order.
  std::vector<CallNode> expansion;
  for (size_t i = 0; i < lexical->hits.size() && i < kSeeds; ++i) {
    const SearchHit& h = lexical->hits[i];
    auto facts = provider_->facts(h.path);
    if (!facts) continue;
    int32_t def = -1;
    for (size_t d = 0; d < facts->definitions.size(); ++d)
      if (facts->definitions[d].range.startByte == h.range.startByte && facts->definitions[d].name == h.name) {
        def = static_cast<int32_t>(d);
        break;
      }
    if (def < 0) continue;
    for (GraphHop& hop : (*graph)->callers(h.path, def, 1, 50)) expansion.push_back(std::move(hop.from));
    for (GraphHop& hop : (*graph)->callees(h.path, def, 1, 50)) expansion.push_back(std::move(hop.to));
  }
  size_t rank = 0;
  std::set<std::pair<std::string, uint32_t>> ranked;
  for (const CallNode& n : expansion) {
    if (n.definition < 0) continue;  // a file's top level is not a unit to show
    if (!request.kinds.empty() && std::find(request.kinds.begin(), request.kinds.end(), n.kind) == request.kinds.end())
      continue;
    auto key = std::make_pair(n.path, n.range.startByte);
    if (!ranked.insert(key).second) continue;
    auto record = provider_->file(n.path);
    if (!SearchProvider::passesFilters(request, n.path, record ? record->language : Language::Unknown)) continue;
    Fused& f = fused[key];
    f.score += 1.0 / (kRrfK + static_cast<double>(++rank));
    if (f.hit.path.empty()) {
      f.hit.path = n.path;
      f.hit.range = n.range;
      f.hit.name = n.name;
      f.hit.kind = n.kind;
      f.hit.ascii = n.ascii;
    }
  }
  std::vector<Fused> order;
  for (auto& [_, f] : fused) order.push_back(std::move(f));
  std::stable_sort(order.begin(), order.end(), [](const Fused& a, const Fused& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.hit.path != b.hit.path) return a.hit.path < b.hit.path;
    return a.hit.range.startByte < b.hit.range.startByte;
  });
  SearchResult out;
  out.route = SearchRoute::Structural;
  out.notes = lexical->notes;
  out.partial = lexical->partial;
  out.candidates = lexical->candidates;
  if (order.size() > request.k) {
    out.truncated = true;
    order.resize(request.k);
  }
  std::map<std::string, LinedText> texts;
  for (Fused& f : order) {
    f.hit.route = SearchRoute::Structural;
    f.hit.score = std::round(f.score * 1e5) / 1e5;
    if (f.hit.snippet.empty()) {
      // A unit reached through the graph: its first lines, from the file as it is now.
      auto it = texts.find(f.hit.path);
      if (it == texts.end()) {
        auto text = context.readCurrent(f.hit.path);
        it = texts.try_emplace(f.hit.path, text ? std::move(*text) : std::string()).first;
      }
      const LineTable& lines = it->second.lines();
      uint32_t first = f.hit.range.start.line;
      uint32_t last = std::min<uint32_t>(f.hit.range.end.line, first + kSnippetLines - 1);
      f.hit.snippetLine = first;
      std::string snippet;
      for (uint32_t l = first; l <= last && l < lines.lineCount(); ++l) {
        if (l > first) snippet += '\n';
        snippet += lines.lineText(l);
      }
      f.hit.snippet = std::move(snippet);
    }
    out.hits.push_back(std::move(f.hit));
  }
  return out;
}

}  // namespace nib
