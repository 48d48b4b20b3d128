#include "server/StructuralAnswer.h"

#include "views/IndexLayout.h"

#include <map>
#include <memory>

#include "protocol/PositionEncoder.h"
#include "protocol/Uri.h"

namespace nib {
namespace {

// Wire ranges for many definitions across files: each non-ASCII file's text is read and
// indexed once per answer.
class WireRanges {
 public:
  WireRanges(Engine& engine, Encoding encoding, bool withUris) : engine_(engine), encoding_(encoding), withUris_(withUris) {}

  lsp::Range range(const std::string& path, bool ascii, const ByteRange& r) {
    if (ascii || encoding_ == Encoding::Utf8)
      return {{r.start.line, r.start.column}, {r.end.line, r.end.column}};
    auto it = files_.find(path);
    if (it == files_.end()) {
      auto text = engine_.currentText(path);
      auto f = std::make_unique<File>();
      f->text = text ? std::move(*text) : std::string();
      f->encoder = std::make_unique<PositionEncoder>(f->text, f->text.empty(), encoding_);
      it = files_.emplace(path, std::move(f)).first;
    }
    return it->second->encoder->toWire(r);
  }

  lsp::GraphItem item(const CallNode& n) {
    lsp::GraphItem i;
    i.name = n.name;
    i.kind = n.kind == SymbolKind::Module ? "file" : symbolKindName(n.kind);
    i.container = n.container;
    i.path = n.path;
    if (withUris_) i.uri = pathToUri((engine_.root() / n.path).string());
    i.range = range(n.path, n.ascii, n.range);
    i.selectionRange = range(n.path, n.ascii, n.definition < 0 ? n.range : n.nameRange);
    return i;
  }

  lsp::GraphHopAnswer hop(const GraphHop& h) {
    lsp::GraphHopAnswer a;
    a.from = item(h.from);
    a.to = item(h.to);
    a.kind = edgeKindName(h.kind);
    a.confidence = confidenceName(h.confidence);
    a.distance = h.distance;
    for (const ByteRange& s : h.sites) a.sites.push_back(range(h.from.path, h.from.ascii, s));
    return a;
  }

  lsp::ImpactAnswer impact(const ImpactEntry& e) {
    lsp::ImpactAnswer a;
    a.item = item(e.node);
    a.distance = e.distance;
    a.via = edgeKindName(e.via);
    a.confidence = confidenceName(e.confidence);
    a.site = range(e.node.path, e.node.ascii, e.site);
    return a;
  }

  std::string uri(const std::string& path) const {
    return withUris_ ? pathToUri((engine_.root() / path).string()) : std::string();
  }

 private:
  struct File {
    std::string text;
    std::unique_ptr<PositionEncoder> encoder;
  };
  Engine& engine_;
  Encoding encoding_;
  bool withUris_;
  std::map<std::string, std::unique_ptr<File>> files_;
};

std::map<std::string, std::string> freshnessOf(Engine& engine) {
  auto f = engine.freshness(true);
  return f ? freshnessFields(*f, true) : std::map<std::string, std::string>{};
}

}  // namespace

bool parseStructuralQuery(std::string_view name, StructuralQuery* query) {
  if (name == "callers") *query = StructuralQuery::Callers;
  else if (name == "callees") *query = StructuralQuery::Callees;
  else if (name == "impact") *query = StructuralQuery::Impact;
  else if (name == "trace") *query = StructuralQuery::Trace;
  else return false;
  return true;
}

Expected<std::vector<CallNode>> resolveTarget(Engine& engine, const StructuralTarget& target) {
  if (target.atPosition) {
    auto nodes = engine.definitionsAt(target.path, target.offset);
    if (!nodes) return nodes.status();
    if (nodes->empty())
      return Status(ErrorCode::NotFound, Reason::NoSymbol, "the identifier at " + target.path + " byte " + std::to_string(target.offset) +
                                             " names no definition in the repository");
    return nodes;
  }
  if (target.symbol.empty()) return Status(ErrorCode::InvalidArgument, "name a symbol or a position");
  std::vector<CallNode> nodes = engine.definitionsNamed(target.symbol);
  if (nodes.empty())
    return Status(ErrorCode::NotFound, Reason::NoSymbol, "no definition named '" + target.symbol +
                                           "' in the index (try nib/search, or a qualified name such as Type.method)");
  return nodes;
}

Expected<lsp::StructuralAnswer> structuralAnswer(Engine& engine, StructuralQuery query, const StructuralTarget& target,
                                                 const StructuralTarget* to, const StructuralOptions& given) {
  StructuralOptions options = given;
  if (options.depth <= 0)
    options.depth = query == StructuralQuery::Impact ? 3 : query == StructuralQuery::Trace ? 8 : 1;
  auto roots = resolveTarget(engine, target);
  if (!roots) return roots.status();
  auto graph = engine.callGraph();
  if (!graph) return graph.status();
  WireRanges wire(engine, options.encoding, options.withUris);
  lsp::StructuralAnswer a;
  // The least certain resolution on the way.
  Confidence least = Confidence::Exact;
  auto worst = [&least](Confidence c) {
    if (certaintyRank(c) > certaintyRank(least)) least = c;
  };
  a.freshness = freshnessOf(engine);
  for (const CallNode& n : *roots) a.roots.push_back(wire.item(n));
  if (roots->size() > 1)
    a.notes.push_back(std::to_string(roots->size()) + " definitions match; the answer covers all of them");
  switch (query) {
    case StructuralQuery::Callers:
    case StructuralQuery::Callees:
      for (const CallNode& n : *roots) {
        auto hops = query == StructuralQuery::Callers ? (*graph)->callers(n.path, n.definition, options.depth, options.limit)
                                                      : (*graph)->callees(n.path, n.definition, options.depth, options.limit);
        for (const GraphHop& h : hops) {
          worst(h.confidence);
          a.hops.push_back(wire.hop(h));
        }
      }
      break;
    case StructuralQuery::Impact: {
      // Several roots (a struct and its typedef, overloads) share users: each definition once,
      // at its nearest distance from any root, nearest first.
      std::map<std::pair<std::string, int32_t>, ImpactEntry> merged;
      for (const CallNode& n : *roots)
        for (const ImpactEntry& e : (*graph)->impact(n.path, n.definition, options.depth, options.limit)) {
          bool isRoot = false;
          for (const CallNode& r : *roots) isRoot |= r.path == e.node.path && r.definition == e.node.definition;
          if (isRoot) continue;
          auto [it, fresh] = merged.emplace(std::make_pair(e.node.path, e.node.definition), e);
          if (!fresh && e.distance < it->second.distance) it->second = e;
        }
      std::vector<ImpactEntry> entries;
      for (auto& [_, e] : merged) entries.push_back(std::move(e));
      std::stable_sort(entries.begin(), entries.end(), [](const ImpactEntry& x, const ImpactEntry& y) {
        if (x.distance != y.distance) return x.distance < y.distance;
        if (x.node.path != y.node.path) return x.node.path < y.node.path;
        return x.node.range.startByte < y.node.range.startByte;
      });
      if (entries.size() > options.limit) entries.resize(options.limit);
      for (const ImpactEntry& e : entries) {
        worst(e.confidence);
        a.impact.push_back(wire.impact(e));
      }
      break;
    }
    case StructuralQuery::Trace: {
      if (!to) return Status(ErrorCode::InvalidArgument, "a trace needs a second symbol (`to`)");
      auto ends = resolveTarget(engine, *to);
      if (!ends) return ends.status();
      a.found = false;
      // Every pair of matching definitions, nearest path first.
      std::vector<GraphHop> best;
      for (const CallNode& from : *roots)
        for (const CallNode& end : *ends) {
          auto path = (*graph)->trace(from.path, from.definition, end.path, end.definition, options.depth);
          if (!path.empty() && (best.empty() || path.size() < best.size())) best = std::move(path);
        }
      a.found = !best.empty();
      for (const GraphHop& h : best) {
        worst(h.confidence);
        a.hops.push_back(wire.hop(h));
      }
      if (!a.found)
        a.notes.push_back("no call path from " + target.symbol + " to " + to->symbol + " within " +
                          std::to_string(options.depth) + " calls");
      break;
    }
  }
  a.confidence = confidenceName(least);
  return a;
}

std::string structuralText(StructuralQuery query, const lsp::StructuralAnswer& a) {
  auto where = [](const std::string& path, const lsp::Range& r) { return path + ":" + std::to_string(r.start.line + 1); };
  std::string out;
  for (const lsp::GraphHopAnswer& h : a.hops) {
    std::string sites;
    for (const lsp::Range& r : h.sites) sites += (sites.empty() ? "" : ",") + std::to_string(r.start.line + 1);
    std::string d = std::to_string(h.distance);
    if (query == StructuralQuery::Trace)
      out += d + "  " + h.from.name + " -> " + h.to.name + "  " + where(h.to.path, h.to.range) + "  (called at " +
             h.from.path + ":" + sites + ")\n";
    else if (query == StructuralQuery::Callers)
      out += d + "  " + h.kind + "  " + h.from.kind + " " + h.from.name + "  " + where(h.from.path, h.from.range) +
             "  (calls " + h.to.name + " at " + h.from.path + ":" + sites + ")\n";
    else
      out += d + "  " + h.kind + "  " + h.to.kind + " " + h.to.name + "  " + where(h.to.path, h.to.range) +
             "  (called by " + h.from.name + " at " + h.from.path + ":" + sites + ")\n";
  }
  for (const lsp::ImpactAnswer& e : a.impact)
    out += std::to_string(e.distance) + "  " + e.via + "  " + e.item.kind + " " + e.item.name + "  " +
           where(e.item.path, e.site) + "\n";
  return out;
}

lsp::ContextAnswerWire toContextAnswer(Engine& engine, const ContextAnswer& c, Encoding encoding, bool withUris) {
  WireRanges wire(engine, encoding, withUris);
  lsp::ContextAnswerWire a;
  a.budgetTokens = c.budgetTokens;
  a.tokensUsed = c.tokensUsed;
  a.estimator = "ceil(utf8Bytes / 4)";
  for (const ContextFlow& f : c.flows) {
    lsp::ContextFlowAnswer fa{f.from, f.to, {}};
    for (const GraphHop& h : f.hops) fa.hops.push_back(wire.hop(h));
    a.flows.push_back(std::move(fa));
  }
  auto unit = [&](const ContextUnit& u) {
    lsp::ContextUnitAnswer w;
    w.path = u.path;
    w.uri = wire.uri(u.path);
    w.name = u.name;
    w.kind = u.kind == SymbolKind::Module ? "file" : symbolKindName(u.kind);
    w.reason = u.reason;
    w.text = u.text;
    w.range = wire.range(u.path, u.ascii, u.range);
    w.score = u.score;
    w.tokens = u.tokens;
    return w;
  };
  for (const ContextUnit& u : c.units) a.units.push_back(unit(u));
  for (const ContextUnit& u : c.omitted) a.omitted.push_back(unit(u));
  for (const ContextBlast& b : c.blast) {
    lsp::ContextBlastAnswer ba;
    ba.item = wire.item(b.node);
    ba.callers = b.callers;
    ba.typeUses = b.typeUses;
    ba.total = b.total;
    for (const ImpactEntry& e : b.entries) ba.entries.push_back(wire.impact(e));
    a.blast.push_back(std::move(ba));
  }
  a.unresolved = c.unresolved;
  a.notes = c.notes;
  a.hasFollowUp = c.hasFollowUp;
  if (c.hasFollowUp) {
    a.followUp.symbols = c.followUp.symbols;
    a.followUp.paths = c.followUp.paths;
    a.followUp.intent = c.followUp.intent;
    a.followUp.budgetTokens = static_cast<uint32_t>(c.followUp.budgetTokens);
    a.followUpCommand = followUpCommand(c.followUp);
  }
  a.text = c.text;
  a.freshness = freshnessOf(engine);
  return a;
}

std::vector<lsp::Location> toWireLocations(Engine& engine, const std::vector<SymbolLocation>& locations,
                                           Encoding encoding) {
  WireRanges wire(engine, encoding, false);
  std::vector<lsp::Location> out;
  for (const SymbolLocation& l : locations) {
    lsp::Location w;
    w.path = l.path;
    w.range = wire.range(l.path, l.ascii, l.range);
    w.role = l.role == OccurrenceRole::Definition ? "definition"
             : l.role == OccurrenceRole::Declaration ? "declaration" : "reference";
    if (l.kind != SymbolKind::Unknown) w.kind = symbolKindName(l.kind);
    w.name = l.name;
    w.container = l.container;
    out.push_back(std::move(w));
  }
  return out;
}

lsp::NavigationAnswer toNavigationAnswer(Engine& engine, const NavigationResult& result, const Expected<Freshness>& fresh) {
  lsp::NavigationAnswer a;
  a.symbol = result.symbol;
  a.confidence = confidenceName(result.confidence);
  a.facts = result.source;
  a.note = result.note;
  a.locations = toWireLocations(engine, result.locations, Encoding::Utf16);
  if (fresh) a.freshness = freshnessFields(*fresh, false);
  return a;
}

lsp::NavigationAnswer toNavigationAnswer(Engine& engine, const PolicyOutcome& outcome, const NavigationResult& result,
                                         const Expected<Freshness>& fresh) {
  lsp::NavigationAnswer a = toNavigationAnswer(engine, result, fresh);
  a.provider = outcome.provider();
  a.policy = providerPolicyName(outcome.policy);
  a.reason = outcome.reason;
  a.category = outcome.category;
  a.agreement = outcome.agreement;
  if (outcome.live && outcome.live->hasValue()) {
    a.backend = (*outcome.live)->backend;
    a.liveMilliseconds = (*outcome.live)->milliseconds;
  }
  a.liveError = outcome.liveError;
  a.agree = outcome.agree;
  if (fresh) a.freshness["provider"] = a.provider;
  return a;
}

std::string navigationText(Engine& engine, const NavigationResult& result, bool references) {
  // Each file's line table once: a name's references are thousands of lines in a few hundred
  // files (a table per location was 45 % of a 7,262-reference `nib refs`).
  std::map<std::string, LinedText> files;
  std::string out;
  for (const SymbolLocation& l : result.locations) {
    std::string detail;
    if (!references && l.kind != SymbolKind::Unknown) {
      detail = std::string(symbolKindName(l.kind)) + " " + (l.container.empty() ? "" : l.container + ".") + l.name;
      if (l.kind == SymbolKind::Module) detail = "module";
    } else {
      auto it = files.find(l.path);
      if (it == files.end()) {
        auto c = engine.currentText(l.path);
        it = files.try_emplace(l.path, c ? std::move(*c) : std::string()).first;
      }
      const LineTable& t = it->second.lines();
      std::string_view line = l.range.start.line < t.lineCount() ? t.lineText(l.range.start.line) : std::string_view();
      size_t start = line.find_first_not_of(" \t");
      detail = start == std::string_view::npos ? std::string() : std::string(line.substr(start, 200));
    }
    out += l.path + ":" + std::to_string(toDisplayLine(l.range.start.line)) + ":" +
           std::to_string(l.range.start.column + 1) + ": " + detail + "\n";
  }
  return out;
}

std::map<std::string, std::string> freshnessFields(const Freshness& f, bool withWorktree) {
  std::map<std::string, std::string> m = {
      {"indexVersion", f.indexVersion}, {"indexCommit", f.indexCommit}, {"indexTree", f.indexTree},
      {"headCommit", f.headCommit},     {"fresh", f.fresh ? "true" : "false"},
      {"partial", f.partial ? "true" : "false"}, {"indexDirty", f.indexDirty ? "true" : "false"},
      {"overlaid", f.overlaid ? "true" : "false"}, {"provider", "static"},
      {"worktreeMethod", f.worktreeMethod}};
  if (withWorktree) m["worktreeTree"] = f.worktreeTree;
  // How the answer was made to reflect the worktree, and what it could not cover.
  if (f.overlaid) m["overlaidFiles"] = std::to_string(f.overlaidFiles);
  if (!f.partialReason.empty()) m["partialReason"] = f.partialReason;
  return m;
}

std::string viewNote(const Engine& engine, const ViewRecord& v) {
  // A complete clang or precise view may still have units or projects that failed: their files
  // answer from tree-sitter, which the user should see without reading the manifest.
  if (v.status == ViewStatus::Complete && (v.name == "clang" || v.name == "precise")) {
    const auto& stats = engine.manifest().stats;
    auto stat = [&](const std::string& key) {
      auto it = stats.find(v.name + "." + key);
      return it == stats.end() ? std::string() : it->second;
    };
    std::string deferred;
    if (v.has(ViewRecord::kUncompiledPending)) {
      const std::string until = IndexLayout(engine.indexDir()).denseFollowUpRunning()
                                    ? std::string("the follow-up version being built adds them")
                                    : std::string("a follow-up adds them (none is running: `nib index` starts one)");
      const std::string files = stat("deferred"), headers = stat("deferred-headers");
      if (!files.empty() && files != "0") deferred = files + " files no compile command builds answer from tree-sitter until " + until;
      if (!headers.empty() && headers != "0")
        deferred += (deferred.empty() ? "" : "; ") + headers +
                    " headers parsed alone (as clangd parses an open header) answer from their includers until " + until;
    }
    const std::string failed = stat("failed");
    if (failed.empty() || failed == "0") return deferred.empty() ? v.error : deferred;
    const std::string what = v.name == "clang" ? "translation units" : "projects";
    // A failed TypeScript project's files join the inferred project (PreciseBuilder).
    std::string note = failed + " of " + stat(v.name == "clang" ? "units" : "projects") + " " + what +
                       " failed, their files answer from " +
                       (v.name == "clang" ? "tree-sitter" : "the inferred TypeScript project or tree-sitter");
    if (std::string first = stat("failure.0"); !first.empty()) note += " (" + first.substr(0, 160) + ")";
    return deferred.empty() ? note : note + "; " + deferred;
  }
  if (v.status != ViewStatus::Pending) return v.error;
  return IndexLayout(engine.indexDir()).denseFollowUpRunning()
             ? "being built in the background; a follow-up version will carry it"
             : "no follow-up is building it (one was interrupted): `nib index` starts one";
}

lsp::StatusAnswer toStatusAnswer(Engine& engine, const Freshness& fresh) {
  const Manifest& m = engine.manifest();
  lsp::StatusAnswer a;
  a.root = engine.root().string();
  a.manifest = {{"version", m.versionId},          {"created", m.created},
                {"sourceCommit", m.sourceCommit},  {"sourceTree", m.sourceTree},
                {"dirty", m.dirty ? "true" : "false"}, {"nibVersion", m.nibVersion},
                {"extractorProfile", m.extractorProfile}, {"grammars", m.grammars},
                {"configDigest", m.configDigest},  {"previous", m.previous}};
  if (!m.base.empty()) a.manifest["base"] = m.base;  // a delta version's full build
  for (const ViewRecord& v : m.views) a.views.push_back({v.name, viewStatusName(v.status), v.profile, viewNote(engine, v), v.capabilities});
  a.stats = m.stats;
  a.freshness = freshnessFields(fresh, true);
  a.changedFiles = fresh.changedFiles;
  a.deletedFiles = fresh.deletedFiles;
  for (const auto& [key, count] : engine.calibration()->entries()) {
    auto [low, high] = count.interval();
    a.agreement.push_back({languageName(key.language), navigationKindName(key.kind),
                           key.category, key.backend, describeAgreement(key, count), count.sampled, count.agreed, low,
                           high});
  }
  return a;
}

}  // namespace nib
