#include "providers/CallGraph.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>

#include "support/Binary.h"

namespace nib {

const char* edgeKindName(EdgeKind kind) { return kind == EdgeKind::Call ? "call" : "type-use"; }

Expected<CallGraph> CallGraph::build(StaticProvider& provider) {
  CallGraph g;
  // Ends by (file id, definition): named once each, when first seen.
  std::unordered_map<uint64_t, uint32_t> ids;
  Status failed;
  auto nodeId = [&](uint32_t file, int32_t def) -> uint32_t {
    uint64_t key = (static_cast<uint64_t>(file) << 32) | static_cast<uint32_t>(def);
    auto it = ids.find(key);
    if (it != ids.end()) return it->second;
    auto node = provider.nodeById(file, def);
    if (!node) {
      failed = node.status();
      node = CallNode{};
    }
    uint32_t id = g.intern(*node);
    ids.emplace(key, id);
    return id;
  };
  std::unordered_map<uint64_t, uint32_t> edgeIndex;  // (from, to, kind) -> edge
  Status s = provider.forEachEdge([&](SymbolEdge&& e) {
    uint32_t from = nodeId(e.fromFile, e.fromDef), to = nodeId(e.toFile, e.toDef);
    EdgeKind kind = e.typeUse ? EdgeKind::TypeUse : EdgeKind::Call;
    uint64_t key = (static_cast<uint64_t>(from) << 33) | (static_cast<uint64_t>(to) << 1) | (kind == EdgeKind::TypeUse);
    auto it = edgeIndex.find(key);
    if (it == edgeIndex.end()) {
      it = edgeIndex.emplace(key, static_cast<uint32_t>(g.edges_.size())).first;
      g.edges_.push_back(Edge{from, to, kind, e.confidence, {}});
    }
    Edge& edge = g.edges_[it->second];
    // The least certain resolution among the sites speaks for the edge.
    if (certaintyRank(e.confidence) > certaintyRank(edge.confidence)) edge.confidence = e.confidence;
    edge.sites.push_back(e.site);
  });
  if (s.isOk() && !failed.isOk()) s = failed;
  if (!s.isOk()) return s;
  for (Edge& e : g.edges_)
    std::sort(e.sites.begin(), e.sites.end(),
              [](const ByteRange& a, const ByteRange& b) { return a.startByte < b.startByte; });
  g.index();
  return g;
}

void CallGraph::index() {
  out_.assign(nodes_.size(), {});
  in_.assign(nodes_.size(), {});
  for (uint32_t i = 0; i < edges_.size(); ++i) {
    out_[edges_[i].from].push_back(i);
    in_[edges_[i].to].push_back(i);
  }
  // Neighbors in path and position order, so that every walk is deterministic.
  auto byNode = [this](uint32_t node) {
    return [this, node](uint32_t a, uint32_t b) {
      const Edge& ea = edges_[a];
      const Edge& eb = edges_[b];
      const CallNode& na = nodes_[ea.from == node ? ea.to : ea.from];
      const CallNode& nb = nodes_[eb.from == node ? eb.to : eb.from];
      if (na.path != nb.path) return na.path < nb.path;
      if (na.range.startByte != nb.range.startByte) return na.range.startByte < nb.range.startByte;
      return ea.kind < eb.kind;
    };
  };
  for (uint32_t n = 0; n < nodes_.size(); ++n) {
    std::sort(out_[n].begin(), out_[n].end(), byNode(n));
    std::sort(in_[n].begin(), in_[n].end(), byNode(n));
  }
}

namespace {

// Bump when the format or the resolution behind the edges changes: an older file is rebuilt.
constexpr uint8_t kGraphFormat = 3;  // 2: C/C++ callees from libclang; 3: tree-sitter's edges say scope

}  // namespace

std::string CallGraph::serialize() const {
  ByteWriter w;
  w.raw("nibgraph");
  w.u8(kGraphFormat);
  w.varint(nodes_.size());
  for (const CallNode& n : nodes_) {
    w.str(n.path);
    w.svarint(n.definition);
    w.str(n.name);
    w.str(n.container);
    w.u8(static_cast<uint8_t>(n.kind));
    writeRange(w, n.range);
    writeRange(w, n.nameRange);
    w.u8(n.ascii);
  }
  w.varint(edges_.size());
  for (const Edge& e : edges_) {
    w.varint(e.from);
    w.varint(e.to);
    w.u8(static_cast<uint8_t>(e.kind));
    w.u8(static_cast<uint8_t>(e.confidence));
    w.varint(e.sites.size());
    for (const ByteRange& s : e.sites) writeRange(w, s);
  }
  return w.take();
}

Expected<CallGraph> CallGraph::deserialize(std::string_view bytes) {
  if (bytes.substr(0, 8) != "nibgraph") return Status(ErrorCode::Corrupt, "not a call graph");
  ByteReader r(bytes.substr(8));
  if (r.u8() != kGraphFormat) return Status(ErrorCode::Corrupt, "a call graph of another format");
  CallGraph g;
  uint64_t n = r.varint();
  if (n > bytes.size()) return Status(ErrorCode::Corrupt, "call graph is malformed");
  g.nodes_.resize(n);
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    CallNode& node = g.nodes_[i];
    node.path = std::string(r.str());
    node.definition = static_cast<int32_t>(r.svarint());
    node.name = std::string(r.str());
    node.container = std::string(r.str());
    node.kind = static_cast<SymbolKind>(r.u8());
    node.range = readRange(r);
    node.nameRange = readRange(r);
    node.ascii = r.u8() != 0;
    g.byKey_.emplace(std::make_pair(node.path, node.definition), i);
  }
  uint64_t m = r.varint();
  if (m > bytes.size()) return Status(ErrorCode::Corrupt, "call graph is malformed");
  g.edges_.resize(m);
  for (Edge& e : g.edges_) {
    e.from = r.u32();
    e.to = r.u32();
    e.kind = static_cast<EdgeKind>(r.u8());
    e.confidence = static_cast<Confidence>(r.u8());
    uint64_t k = r.varint();
    if (k > bytes.size() || e.from >= n || e.to >= n) return Status(ErrorCode::Corrupt, "call graph is malformed");
    e.sites.resize(k);
    for (ByteRange& s : e.sites) s = readRange(r);
  }
  if (!r.ok() || !r.atEnd()) return Status(ErrorCode::Corrupt, "call graph is truncated");
  g.index();
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
