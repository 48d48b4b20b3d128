#include "providers/CallGraph.h"

#include <algorithm>
#include <deque>
#include <set>

namespace nib {

const char* edgeKindName(EdgeKind kind) { return kind == EdgeKind::Call ? "call" : "type-use"; }

Expected<CallGraph> CallGraph::build(StaticProvider& provider) {
  CallGraph g;
  std::map<std::tuple<uint32_t, uint32_t, EdgeKind>, uint32_t> edgeIndex;
  Status s = provider.forEachEdge([&](SymbolEdge&& e) {
    uint32_t from = g.intern(e.from), to = g.intern(e.to);
    EdgeKind kind = e.typeUse ? EdgeKind::TypeUse : EdgeKind::Call;
    auto key = std::make_tuple(from, to, kind);
    auto it = edgeIndex.find(key);
    if (it == edgeIndex.end()) {
      it = edgeIndex.emplace(key, static_cast<uint32_t>(g.edges_.size())).first;
      g.edges_.push_back(Edge{from, to, kind, e.confidence, {}});
    }
    Edge& edge = g.edges_[it->second];
    // The least certain resolution among the sites speaks for the edge.
    if (static_cast<int>(e.confidence) > static_cast<int>(edge.confidence)) edge.confidence = e.confidence;
    edge.sites.push_back(e.site);
  });
  if (!s.isOk()) return s;
  g.out_.resize(g.nodes_.size());
  g.in_.resize(g.nodes_.size());
  for (uint32_t i = 0; i < g.edges_.size(); ++i) {
    Edge& e = g.edges_[i];
    std::sort(e.sites.begin(), e.sites.end(),
              [](const ByteRange& a, const ByteRange& b) { return a.startByte < b.startByte; });
    g.out_[e.from].push_back(i);
    g.in_[e.to].push_back(i);
  }
  // Neighbors in path and position order, so that every walk is deterministic.
  auto byNode = [&g](uint32_t node) {
    return [&g, node](uint32_t a, uint32_t b) {
      const Edge& ea = g.edges_[a];
      const Edge& eb = g.edges_[b];
      const CallNode& na = g.nodes_[ea.from == node ? ea.to : ea.from];
      const CallNode& nb = g.nodes_[eb.from == node ? eb.to : eb.from];
      if (na.path != nb.path) return na.path < nb.path;
      if (na.range.startByte != nb.range.startByte) return na.range.startByte < nb.range.startByte;
      return ea.kind < eb.kind;
    };
  };
  for (uint32_t n = 0; n < g.nodes_.size(); ++n) {
    std::sort(g.out_[n].begin(), g.out_[n].end(), byNode(n));
    std::sort(g.in_[n].begin(), g.in_[n].end(), byNode(n));
  }
  return g;
}

uint32_t CallGraph::intern(const CallNode& node) {
  auto key = std::make_pair(node.path, node.definition);
  auto it = byKey_.find(key);
  if (it != byKey_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(node);
  byKey_.emplace(std::move(key), id);
  return id;
}

std::optional<uint32_t> CallGraph::find(const std::string& path, int32_t definition) const {
  auto it = byKey_.find(std::make_pair(path, definition));
  if (it == byKey_.end()) return std::nullopt;
  return it->second;
}

GraphHop CallGraph::hopOf(const Edge& e, int distance) const {
  return GraphHop{nodes_[e.from], nodes_[e.to], e.kind, e.confidence, e.sites, distance};
}

std::vector<GraphHop> CallGraph::walk(uint32_t start, bool incoming, int depth, size_t limit) const {
  std::vector<GraphHop> out;
  std::set<uint32_t> seen{start};
  std::vector<uint32_t> frontier{start};
  for (int level = 1; level <= depth && !frontier.empty(); ++level) {
    std::vector<uint32_t> next;
    for (uint32_t n : frontier) {
      for (uint32_t ei : incoming ? in_[n] : out_[n]) {
        const Edge& e = edges_[ei];
        if (e.kind != EdgeKind::Call) continue;
        if (out.size() >= limit) return out;
        out.push_back(hopOf(e, level));
        uint32_t other = incoming ? e.from : e.to;
        if (seen.insert(other).second) next.push_back(other);
      }
    }
    frontier = std::move(next);
  }
  return out;
}

std::vector<GraphHop> CallGraph::callers(const std::string& path, int32_t definition, int depth, size_t limit) const {
  auto n = find(path, definition);
  return n ? walk(*n, /*incoming=*/true, depth, limit) : std::vector<GraphHop>{};
}

std::vector<GraphHop> CallGraph::callees(const std::string& path, int32_t definition, int depth, size_t limit) const {
  auto n = find(path, definition);
  return n ? walk(*n, /*incoming=*/false, depth, limit) : std::vector<GraphHop>{};
}

std::vector<ImpactEntry> CallGraph::impact(const std::string& path, int32_t definition, int depth, size_t limit) const {
  std::vector<ImpactEntry> out;
  auto root = find(path, definition);
  if (!root) return out;
  std::set<uint32_t> seen{*root};
  std::vector<uint32_t> frontier{*root};
  for (int level = 1; level <= depth && !frontier.empty() && out.size() < limit; ++level) {
    std::vector<uint32_t> next;
    for (uint32_t n : frontier) {
      for (uint32_t ei : in_[n]) {
        const Edge& e = edges_[ei];
        if (!seen.insert(e.from).second) continue;
        next.push_back(e.from);
        out.push_back(ImpactEntry{nodes_[e.from], level, e.kind, e.confidence, e.sites.front()});
        if (out.size() >= limit) break;
      }
      if (out.size() >= limit) break;
    }
    frontier = std::move(next);
  }
  return out;
}

std::vector<GraphHop> CallGraph::trace(const std::string& fromPath, int32_t fromDefinition, const std::string& toPath,
                                       int32_t toDefinition, int depth) const {
  auto from = find(fromPath, fromDefinition);
  auto to = find(toPath, toDefinition);
  if (!from || !to || *from == *to) return {};
  // Breadth first along calls; the first time the target is reached is a shortest path, and
  // neighbors in sorted order make it the same path every time.
  std::map<uint32_t, uint32_t> via;  // node -> the edge that reached it
  std::deque<std::pair<uint32_t, int>> queue{{*from, 0}};
  std::set<uint32_t> seen{*from};
  while (!queue.empty()) {
    auto [n, d] = queue.front();
    queue.pop_front();
    if (n == *to) break;
    if (d >= depth) continue;
    for (uint32_t ei : out_[n]) {
      const Edge& e = edges_[ei];
      if (e.kind != EdgeKind::Call || !seen.insert(e.to).second) continue;
      via[e.to] = ei;
      queue.emplace_back(e.to, d + 1);
    }
  }
  if (!via.count(*to)) return {};
  std::vector<GraphHop> path;
  for (uint32_t n = *to; n != *from;) {
    const Edge& e = edges_[via.at(n)];
    path.push_back(hopOf(e, 0));
    n = e.from;
  }
  std::reverse(path.begin(), path.end());
  for (size_t i = 0; i < path.size(); ++i) path[i].distance = static_cast<int>(i + 1);
  return path;
}

}  // namespace nib
