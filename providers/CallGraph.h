// The repository's call and type-use graph, resolved once per index version (and overlay
// generation) from the static provider, then walked in memory: callers and callees to a depth,
// the blast radius of a definition (transitive callers and type users, nearest first), and the
// shortest call path between two definitions. Nodes are definitions (or a file's top level);
// speaks repository paths and byte ranges like the provider it comes from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "providers/StaticProvider.h"

namespace nib {

enum class EdgeKind : uint8_t { Call, TypeUse };
const char* edgeKindName(EdgeKind kind);

// One edge reached by a walk: `from` calls `to` (or uses the type `to`), at `sites` in from's
// file, `distance` edges away from where the walk started.
struct GraphHop {
  CallNode from, to;
  EdgeKind kind = EdgeKind::Call;
  Confidence confidence = Confidence::Exact;
  std::vector<ByteRange> sites;
  int distance = 1;
};

// A definition in a blast radius.
struct ImpactEntry {
  CallNode node;
  int distance = 1;
  EdgeKind via = EdgeKind::Call;  // how it reaches the root on its first hop
  Confidence confidence = Confidence::Exact;
  ByteRange site;  // where, in node's file, that first hop happens
};

class CallGraph {
 public:
  static Expected<CallGraph> build(StaticProvider& provider);
  // The graph as bytes, and back: an index version is immutable, so its graph is resolved once
  // and kept beside it (Engine::callGraph). Corrupt when the bytes are not a graph of this format.
  std::string serialize() const;
  static Expected<CallGraph> deserialize(std::string_view bytes);

  size_t nodeCount() const { return nodes_.size(); }
  size_t edgeCount() const { return edges_.size(); }

  // Callers (incoming calls) or callees (outgoing), breadth first to `depth` edges; each edge
  // once, in a deterministic order (distance, then path and position).
  std::vector<GraphHop> callers(const std::string& path, int32_t definition, int depth, size_t limit) const;
  std::vector<GraphHop> callees(const std::string& path, int32_t definition, int depth, size_t limit) const;
  // Everything that reaches the definition through calls or type uses, nearest first.
  std::vector<ImpactEntry> impact(const std::string& path, int32_t definition, int depth, size_t limit) const;
  // The shortest call path from one definition to another (empty when none within `depth`).
  std::vector<GraphHop> trace(const std::string& fromPath, int32_t fromDefinition, const std::string& toPath,
                              int32_t toDefinition, int depth) const;

 private:
  struct Edge {
    uint32_t from, to;
    EdgeKind kind;
    Confidence confidence;
    std::vector<ByteRange> sites;
  };
  std::optional<uint32_t> find(const std::string& path, int32_t definition) const;
  uint32_t intern(const CallNode& node);
  std::vector<GraphHop> walk(uint32_t start, bool incoming, int depth, size_t limit) const;
  GraphHop hopOf(const Edge& e, int distance) const;
  void index();  // fills out_ and in_ from edges_, in deterministic neighbour order

  std::vector<CallNode> nodes_;
  std::map<std::pair<std::string, int32_t>, uint32_t> byKey_;
  std::vector<Edge> edges_;
  std::vector<std::vector<uint32_t>> out_, in_;  // edge indices per node, sorted
};

}  // namespace nib
