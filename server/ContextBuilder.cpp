#include "server/ContextBuilder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "support/SearchText.h"
#include "support/Text.h"

namespace nib {
namespace {

constexpr int kFlowDepth = 6;        // calls between two named symbols, at most
constexpr int kBlastDepth = 3;       // hops of transitive callers and type users
constexpr size_t kBlastWalk = 200;   // definitions visited per blast radius
constexpr size_t kBlastEntries = 10; // ... of which the nearest are listed
constexpr size_t kNodesPerSymbol = 5;
constexpr size_t kNeighbors = 8;     // callers and callees of each named definition
// An intent's bundle: the lexical route's first kIntentHits units, at most kIntentPerFile of
// each file first (in rank order), then the call-graph neighbours of the kIntentSeeds best, then
// the rest of each file's units. A bundle that covers more of the likely files holds the one a
// change goes to more often than one that shows a favoured file whole: an agent reads on from a
// file it was shown. Chosen on the tuning code bases of bench/localization_bench.py (sed, gawk,
// parted, libgcrypt, gpgme; 8k-token bundles holding a target file, of 500, without / with their
// history), 2026-12-04: the limit over the first 20 of 60 hits only (as before), 3 a file: 368 /
// 378; over all hits, 3 a file: 378 / 386 (60 hits), 384 / 391 (100), 389 / 396 (200), 384 / 398
// (400); 2 a file: 383 / 387 (60), 391 / 395 (100), 396 / 397 (200), 392 / 401 (400); 1 a file:
// 386 / 392 (100). (Earlier, over the first 20 only: no limit 362 / 370, 1: 367 / 379, 2 and 3:
// 368 / 378, 6: 364 / 376.) 400 hits took twice the time of 200 (0.17 against 0.09 s).
constexpr size_t kIntentHits = 200;
constexpr size_t kIntentSeeds = 3;
constexpr size_t kIntentPerFile = 2;
constexpr size_t kOmittedListed = 20;
constexpr uint32_t kExcerptLines = 60;  // of a file without smaller units, shown for an intent
constexpr size_t kLargeShare = 6;    // a unit over budget / 6 waits for the second packing pass ...
constexpr size_t kNeverDeferred = 1; // ... except the first candidate, which may take a third
constexpr size_t kMinBudget = 200;
constexpr size_t kMaxSymbols = 20;       // distinct names used, at most
constexpr size_t kMaxPaths = 20;         // distinct paths used, at most
constexpr size_t kMaxInputBytes = 256;   // of one name or path
constexpr size_t kFlowSymbols = 5;       // names whose pairwise flows are traced
constexpr size_t kBlastDefinitions = 5;  // definitions whose blast radius is listed
constexpr size_t kUnknownListed = 10;    // unknown names echoed in the text
constexpr size_t kTrailerTokens = 60;    // kept for the closing lines when the outline is cut
constexpr size_t kMaxBudget = 200000;

std::string lineRef(const std::string& path, const ByteRange& r) {
  return path + ":" + std::to_string(toDisplayLine(r.start.line));
}

std::string kindWord(SymbolKind kind) { return kind == SymbolKind::Module ? "file" : symbolKindName(kind); }

struct Candidate {
  ContextUnit unit;
  int tier = 0;
};

// Whether a file is its own only unit in the lexical view: no grammar cut it into functions and
// types (a yacc grammar, a skeleton, a script), or it defines none.
bool wholeFileOnly(Engine& engine, const std::string& path) {
  auto facts = engine.facts(path);
  if (!facts) return true;
  return std::none_of(facts->units.begin(), facts->units.end(),
                      [](const auto& u) { return u.granularity != Granularity::File; });
}

// The lines [first, last] of such a file that a bundle shows for an intent: the window of at most
// kExcerptLines lines holding the most of the intent's words, each word weighted by how few of
// the file's lines hold it (a word on every line says nothing about where to look). Nothing when
// no line holds a word of the intent.
std::optional<std::pair<uint32_t, uint32_t>> intentWindow(const LineTable& lines, const std::string& intent) {
  std::vector<std::string> words;
  forEachToken(intent, [&](std::string_view t) {
    if (t.size() >= 3 && std::find(words.begin(), words.end(), t) == words.end()) words.emplace_back(t);
  });
  const uint32_t n = lines.lineCount();
  if (words.empty() || n == 0) return std::nullopt;
  // For each line, the words it holds (a bit each; an intent's first 64 words).
  if (words.size() > 64) words.resize(64);
  std::vector<uint64_t> holds(n, 0);
  std::vector<uint32_t> df(words.size(), 0);
  for (uint32_t l = 0; l < n; ++l) {
    forEachToken(lines.lineText(l), [&](std::string_view t) {
      for (size_t w = 0; w < words.size(); ++w)
        if (t == words[w]) holds[l] |= uint64_t{1} << w;
    });
    for (size_t w = 0; w < words.size(); ++w) df[w] += (holds[l] >> w) & 1;
  }
  std::vector<double> weight(words.size(), 0.0);
  for (size_t w = 0; w < words.size(); ++w) weight[w] = df[w] ? std::log(1.0 + double(n) / df[w]) : 0.0;
  // Slide the window, counting each word's lines inside it; a window scores the words it holds.
  const uint32_t width = std::min(n, kExcerptLines);
  std::vector<uint32_t> inside(words.size(), 0);
  double score = 0, best = 0;
  uint32_t bestFirst = 0;
  auto add = [&](uint32_t l, int delta) {
    for (size_t w = 0; w < words.size(); ++w) {
      if (!((holds[l] >> w) & 1)) continue;
      if (delta > 0 && inside[w]++ == 0) score += weight[w];
      if (delta < 0 && --inside[w] == 0) score -= weight[w];
    }
  };
  for (uint32_t l = 0; l < n; ++l) {
    add(l, +1);
    if (l >= width) add(l - width, -1);
    uint32_t first = l + 1 >= width ? l + 1 - width : 0;
    if (score > best + 1e-9) best = score, bestFirst = first;
  }
  if (best <= 0) return std::nullopt;
  // Centre the lines holding the words: the first window to reach the best score ends at its
  // last such line, with none of what follows.
  uint32_t lo = bestFirst, hi = bestFirst + width - 1;
  while (lo < hi && !holds[lo]) ++lo;
  while (hi > lo && !holds[hi]) --hi;
  uint32_t slack = width - (hi - lo + 1);
  uint32_t first = std::min(lo > slack / 2 ? lo - slack / 2 : 0, n - width);
  return std::make_pair(first, first + width - 1);
}

// The text of each file a bundle reads, read once: the excerpt of a file and its rendering share it.
using BundleTexts = std::map<std::string, LinedText>;
const LinedText& bundleText(Engine& engine, BundleTexts& texts, const std::string& path) {
  auto it = texts.find(path);
  if (it == texts.end()) {
    auto text = engine.currentText(path);
    it = texts.try_emplace(path, text ? std::move(*text) : std::string()).first;
  }
  return it->second;
}

// The range a bundle shows of a whole-file hit for an intent: its intentWindow when the file
// is its own only unit; nothing for a file cut into smaller units, or one no line of which
// holds a word of the intent (an unreadable file holds none).
std::optional<ByteRange> intentExcerpt(Engine& engine, BundleTexts& texts, const std::string& path,
                                       const std::string& intent) {
  if (!wholeFileOnly(engine, path)) return std::nullopt;
  const LinedText& text = bundleText(engine, texts, path);
  const LineTable& lines = text.lines();
  auto window = intentWindow(lines, intent);
  if (!window) return std::nullopt;
  ByteRange r;
  r.start.line = window->first;
  r.end.line = window->second;
  r.end.column = static_cast<uint32_t>(lines.lineText(window->second).size());
  lines.offsetOf(Position{window->first, 0}, &r.startByte);
  uint32_t after = window->second + 1;
  if (after >= lines.lineCount() || !lines.offsetOf(Position{after, 0}, &r.endByte))
    r.endByte = static_cast<uint32_t>(text.text().size());
  return r;
}

}  // namespace

size_t estimateTokens(std::string_view text) { return (text.size() + 3) / 4; }

std::string followUpCommand(const ContextRequest& r) {
  auto quote = [](const std::string& s) {
    if (!s.empty() && s.find_first_of(" \t\n'\"\\$`*?[]()<>|&;#~") == std::string::npos) return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  std::string cmd = "nib context";
  for (const std::string& s : r.symbols) cmd += " --symbol " + quote(s);
  for (const std::string& p : r.paths) cmd += " --path " + quote(p);
  if (!r.intent.empty()) cmd += " --intent " + quote(r.intent);
  cmd += " --budget " + std::to_string(r.budgetTokens);
  return cmd;
}

Expected<ContextAnswer> buildContext(Engine& engine, const ContextRequest& request) {
  if (request.symbols.empty() && request.paths.empty() && request.intent.empty())
    return Status(ErrorCode::InvalidArgument, "say what the context is about: symbols, paths or an intent");
  if (request.budgetTokens < kMinBudget || request.budgetTokens > kMaxBudget)
    return Status(ErrorCode::InvalidArgument, "budgetTokens must be between " + std::to_string(kMinBudget) + " and " +
                                                  std::to_string(kMaxBudget));
  ContextAnswer a;
  a.budgetTokens = request.budgetTokens;
  // Each name and path once, and a bounded number of them: flows are pairwise and blast radii
  // per definition, so the outline must not grow without bound with the input.
  auto distinct = [&](const std::vector<std::string>& in, size_t cap, const char* what) {
    std::vector<std::string> out;
    for (const std::string& x : in) {
      if (std::find(out.begin(), out.end(), x) != out.end()) continue;
      if (out.size() == cap) {
        a.notes.push_back(std::string("only the first ") + std::to_string(cap) + " " + what + " are used");
        break;
      }
      out.push_back(x.size() > kMaxInputBytes ? x.substr(0, kMaxInputBytes) : x);
    }
    return out;
  };
  const std::vector<std::string> symbols = distinct(request.symbols, kMaxSymbols, "symbols");
  const std::vector<std::string> paths = distinct(request.paths, kMaxPaths, "paths");
  auto graph = engine.callGraph();
  if (!graph) return graph.status();
  const CallGraph& g = **graph;

  std::vector<Candidate> candidates;
  BundleTexts texts;  // every file the bundle reads, read once
  auto addNode = [&](const CallNode& n, const std::string& reason, int tier, double score) {
    if (n.definition < 0) return;
    ContextUnit u;
    u.path = n.path;
    u.name = n.name;
    u.kind = n.kind;
    u.range = n.range;
    u.reason = reason;
    u.score = score;
    u.ascii = n.ascii;
    candidates.push_back({std::move(u), tier});
  };

  // Named symbols: their definitions first.
  std::vector<std::string> named;               // the symbols that resolved, as asked
  std::vector<CallNode> namedNodes;
  std::vector<std::vector<CallNode>> namedAll;  // every definition of each named symbol
  for (const std::string& s : symbols) {
    std::vector<CallNode> nodes = engine.definitionsNamed(s);
    if (nodes.empty()) {
      a.unresolved.push_back(s);
      continue;
    }
    if (nodes.size() > kNodesPerSymbol) {
      a.notes.push_back(s + " names " + std::to_string(nodes.size()) + " definitions; the first " +
                        std::to_string(kNodesPerSymbol) + " (in path order) are used");
      nodes.resize(kNodesPerSymbol);
    }
    named.push_back(s);
    namedAll.push_back(nodes);
    for (const CallNode& n : nodes) {
      addNode(n, "symbol", 0, 1.0);
      namedNodes.push_back(n);
    }
  }

  // The flow between each pair of named symbols (the first few), in either direction, through
  // whichever of their definitions are nearest.
  size_t flowSymbols = std::min(named.size(), kFlowSymbols);
  for (size_t i = 0; i < flowSymbols; ++i)
    for (size_t j = i + 1; j < flowSymbols; ++j) {
      ContextFlow f{named[i], named[j], {}};
      for (int dir = 0; dir < 2; ++dir) {
        const auto& from = dir == 0 ? namedAll[i] : namedAll[j];
        const auto& to = dir == 0 ? namedAll[j] : namedAll[i];
        for (const CallNode& x : from)
          for (const CallNode& y : to) {
            auto hops = g.trace(x.path, x.definition, y.path, y.definition, kFlowDepth);
            if (!hops.empty() && (f.hops.empty() || hops.size() < f.hops.size())) {
              f = ContextFlow{dir == 0 ? named[i] : named[j], dir == 0 ? named[j] : named[i], std::move(hops)};
            }
          }
        if (!f.hops.empty()) break;  // a path forwards beats one backwards
      }
      for (size_t h = 0; h + 1 < f.hops.size(); ++h) addNode(f.hops[h].to, "flow", 1, 0.9);
      a.flows.push_back(std::move(f));
    }

  // The intent: the lexical route's units in rank order, then the call-graph neighbours of
  // the best few (tier 4, below the named symbols' own neighbours). Reciprocal-rank fusion (the
  // structural search route) lets a strong neighbour push out mid-ranked text matches; a
  // bundle has room for both, so it keeps the text ranking whole and appends the neighbours.
  if (!request.intent.empty()) {
    SearchRequest sr;
    sr.query = request.intent;
    sr.route = SearchRoute::Lexical;
    sr.k = kIntentHits;
    auto found = engine.search(sr);
    if (!found) {
      a.notes.push_back("the intent was not searched: " + found.status().message());
    } else {
      size_t rank = 0;
      std::map<std::string, size_t> firstOfFile;  // intent units of each file in the first tier
      for (const SearchHit& h : found->hits) {
        ++rank;
        ContextUnit u;
        u.range = h.range;
        if (h.kind == SymbolKind::Module) {
          // A whole file's functions and types compete on their own; a file that is its own only
          // unit shows the part of it that the intent's words point to.
          auto excerpt = intentExcerpt(engine, texts, h.path, request.intent);
          if (!excerpt) continue;
          u.range = *excerpt;
        }
        u.path = h.path;
        u.name = h.name;
        u.kind = h.kind;
        u.reason = "intent";
        u.score = h.score;
        u.ascii = h.ascii;
        bool first = firstOfFile[h.path]++ < kIntentPerFile;
        candidates.push_back({std::move(u), first ? 2 : 4});
        if (rank <= kIntentSeeds && !h.name.empty()) {
          for (const CallNode& n : engine.definitionsNamed(h.name)) {
            if (n.path != h.path || n.range.startByte != h.range.startByte) continue;
            for (const GraphHop& hop : g.callees(n.path, n.definition, 1, kNeighbors)) addNode(hop.to, "neighbor", 3, 0.2);
            for (const GraphHop& hop : g.callers(n.path, n.definition, 1, kNeighbors)) addNode(hop.from, "neighbor", 3, 0.2);
          }
        }
      }
      for (const std::string& n : found->notes) a.notes.push_back(n);
    }
  }

  // Paths: the file's top-level definitions, or the whole file when it has none.
  for (std::string p : paths) {
    while (p.rfind("./", 0) == 0) p.erase(0, 2);
    auto facts = engine.facts(p);
    if (!facts) {
      a.unresolved.push_back(p);
      continue;
    }
    bool any = false;
    for (size_t d = 0; d < facts->definitions.size(); ++d) {
      const Definition& def = facts->definitions[d];
      if (def.parent != -1 || def.isDeclaration || !(isCallableKind(def.kind) || isTypeKind(def.kind))) continue;
      auto node = engine.node(p, static_cast<int32_t>(d));
      if (node) addNode(*node, "path", 5, 0.5), any = true;
    }
    if (!any) {
      auto text = engine.currentText(p);
      if (!text) {
        a.unresolved.push_back(p);
        continue;
      }
      LineTable lines(*text);
      ContextUnit u;
      u.path = p;
      u.kind = SymbolKind::Module;
      u.range.endByte = static_cast<uint32_t>(text->size());
      u.range.end.line = lines.lineCount() ? lines.lineCount() - 1 : 0;
      u.reason = "path";
      u.score = 0.5;
      u.ascii = isAscii(*text);
      candidates.push_back({std::move(u), 5});
    }
  }

  // What the named definitions call and what calls them, and their blast radius (the first
  // few definitions).
  size_t blasts = 0;
  for (const CallNode& n : namedNodes) {
    if (blasts++ == kBlastDefinitions) break;
    for (const GraphHop& h : g.callees(n.path, n.definition, 1, kNeighbors)) addNode(h.to, "neighbor", 6, 0.3);
    for (const GraphHop& h : g.callers(n.path, n.definition, 1, kNeighbors)) addNode(h.from, "neighbor", 6, 0.3);
    ContextBlast b;
    b.node = n;
    b.entries = g.impact(n.path, n.definition, kBlastDepth, kBlastWalk);
    b.total = b.entries.size();
    for (const ImpactEntry& e : b.entries)
      if (e.distance == 1) (e.via == EdgeKind::Call ? b.callers : b.typeUses)++;
    if (b.entries.size() > kBlastEntries) b.entries.resize(kBlastEntries);
    a.blast.push_back(std::move(b));
  }

  // Render every candidate once, in tier order (stable: each tier keeps its own ranking).
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& x, const Candidate& y) { return x.tier < y.tier; });
  std::set<std::pair<std::string, uint32_t>> seen;
  std::vector<ContextUnit> ranked;
  std::vector<int> tiers;
  for (Candidate& c : candidates) {
    ContextUnit& u = c.unit;
    if (!seen.insert({u.path, u.range.startByte}).second) continue;
    const LineTable& lines = bundleText(engine, texts, u.path).lines();
    uint32_t first = u.range.start.line;
    uint32_t last = std::min<uint32_t>(u.range.end.line, lines.lineCount() ? lines.lineCount() - 1 : 0);
    std::string body = "## " + u.path + ":" + std::to_string(toDisplayLine(first)) + "-" +
                       std::to_string(toDisplayLine(last)) + "  " + kindWord(u.kind) +
                       (u.name.empty() ? "" : " " + u.name) + "  [" + u.reason + "]\n";
    // Compact gutters ("1234| "), as wide as the unit's last line number: every byte of a
    // bundle is charged to the budget.
    char gutter[24];
    int width = std::snprintf(gutter, sizeof gutter, "%u", toDisplayLine(last));
    for (uint32_t l = first; l <= last && l < lines.lineCount(); ++l) {
      std::snprintf(gutter, sizeof gutter, "%*u| ", width, toDisplayLine(l));
      body.append(gutter).append(lines.lineText(l)).append("\n");
    }
    u.text = std::move(body);
    u.tokens = estimateTokens(u.text);
    ranked.push_back(std::move(u));
    tiers.push_back(c.tier);
  }

  // The outline: freshness, flows and blast radii come before any source.
  std::string head = "# nib context";
  if (auto f = engine.freshness(true)) {
    head += ": index " + f->indexVersion + " of commit " + f->indexCommit.substr(0, 12);
    if (f->fresh) head += " (fresh)";
    else if (f->overlaid) head += " + the worktree's changes (overlaid)";
    else if (!f->headMatches) head += " (NOT fresh: HEAD moved to " + f->headCommit.substr(0, 12) + ")";
    else if (f->worktreeMethod == "unknown") head += " (the worktree has new files; their effect is unknown)";
    else head += " (NOT fresh: the worktree changed since the index was built)";
  }
  head += "\n";
  if (!a.unresolved.empty()) {
    // One line, names shortened: the outline is charged to the budget like the source is.
    head += "unknown (no definition or indexed file of that name):";
    for (size_t i = 0; i < a.unresolved.size() && i < kUnknownListed; ++i) {
      const std::string& u = a.unresolved[i];
      head += " " + (u.size() > 40 ? u.substr(0, 40) + "..." : u);
    }
    if (a.unresolved.size() > kUnknownListed) head += " and " + std::to_string(a.unresolved.size() - kUnknownListed) + " more";
    head += "\n";
  }
  for (const std::string& n : a.notes) head += "note: " + n + "\n";
  // The flows, the first `k` of them.
  auto flowSection = [&](size_t k) {
    std::string out;
    if (a.flows.empty()) return out;
    out += "## Flow\n";
    for (size_t i = 0; i < a.flows.size() && i < k; ++i) {
      const ContextFlow& f = a.flows[i];
      out += f.from + " -> " + f.to + ": ";
      if (f.hops.empty()) {
        out += "no call path within " + std::to_string(kFlowDepth) + " calls\n";
        continue;
      }
      out += f.hops.front().from.name + " (" + lineRef(f.hops.front().from.path, f.hops.front().from.range) + ")";
      for (const GraphHop& h : f.hops)
        out += " -> " + h.to.name + " (" + lineRef(h.to.path, h.to.range) + ", called at line " +
               std::to_string(toDisplayLine(h.sites.front().start.line)) + ")";
      out += "\n";
    }
    if (k < a.flows.size()) out += "(" + std::to_string(a.flows.size() - k) + " more in the structured answer)\n";
    return out;
  };
  // The blast radii, listing `per` entries each (-1: not even the counts).
  auto blastSection = [&](int per) {
    std::string out;
    if (a.blast.empty() || per < 0) return out;
    out += "## Blast radius\n";
    for (const ContextBlast& b : a.blast) {
      out += b.node.name + " (" + lineRef(b.node.path, b.node.range) + "): " + std::to_string(b.callers) +
             " caller(s), " + std::to_string(b.typeUses) + " type use(s); " + std::to_string(b.total) +
             (b.total >= kBlastWalk ? "+" : "") + " definition(s) within " + std::to_string(kBlastDepth) + " hops\n";
      for (size_t i = 0; i < b.entries.size() && static_cast<int>(i) < per; ++i) {
        const ImpactEntry& e = b.entries[i];
        out += "  " + std::to_string(e.distance) + " " + edgeKindName(e.via) + "  " + e.node.name + "  " +
               lineRef(e.node.path, e.site) + "\n";
      }
    }
    return out;
  };
  // A small budget gets a shorter outline (the structured answer keeps all of it): fewer
  // blast-radius entries first, then fewer flows, so that the closing lines still fit.
  int per = static_cast<int>(kBlastEntries);
  size_t flowsShown = a.flows.size();
  auto outlineFits = [&] {
    return estimateTokens(head + flowSection(flowsShown) + blastSection(per)) + kTrailerTokens <= request.budgetTokens;
  };
  while (!outlineFits() && per >= 0) per = per > 1 ? per / 2 : per - 1;
  while (!outlineFits() && flowsShown > 0) flowsShown /= 2;
  head += flowSection(flowsShown) + blastSection(per);

  // Pack whole units in rank order; a unit that does not fit is listed, and smaller ones after
  // it may still fit. The trailer (omitted units, follow-up, the count) is charged as it grows.
  std::vector<bool> included(ranked.size(), false);
  size_t omittedListed = kOmittedListed;
  auto render = [&](std::string* out) -> size_t {
    a.units.clear();
    a.omitted.clear();
    std::string body;
    for (size_t i = 0; i < ranked.size(); ++i) {
      if (included[i]) {
        body += ranked[i].text;
        a.units.push_back(ranked[i]);
      } else {
        ContextUnit o = ranked[i];
        o.text.clear();
        a.omitted.push_back(std::move(o));
      }
    }
    std::string tail;
    a.hasFollowUp = !a.omitted.empty();
    a.followUp = ContextRequest{};
    if (a.hasFollowUp) {
      tail += "## Not included (over the budget)\n";
      size_t need = 0;
      for (size_t i = 0; i < a.omitted.size(); ++i) {
        const ContextUnit& o = a.omitted[i];
        need += o.tokens;
        if (i < omittedListed)
          tail += o.path + ":" + std::to_string(toDisplayLine(o.range.start.line)) + "-" +
                  std::to_string(toDisplayLine(o.range.end.line)) + "  " + kindWord(o.kind) +
                  (o.name.empty() ? "" : " " + o.name) + "  (" + std::to_string(o.tokens) + " tokens)\n";
        if (o.name.empty()) a.followUp.paths.push_back(o.path);
        else if (std::find(a.followUp.symbols.begin(), a.followUp.symbols.end(), o.name) == a.followUp.symbols.end())
          a.followUp.symbols.push_back(o.name);
      }
      if (a.omitted.size() > omittedListed)
        tail += "... and " + std::to_string(a.omitted.size() - omittedListed) + " more\n";
      a.followUp.budgetTokens = std::clamp<size_t>(need + 500, request.budgetTokens, kMaxBudget);
      tail += "follow-up: " + followUpCommand(a.followUp) + "\n";
    }
    std::string text = head + body + tail;
    // The last line states the count, itself included: settle the number it prints.
    auto countLine = [&](size_t n) {
      return "tokens: " + std::to_string(n) + " of " + std::to_string(request.budgetTokens) +
             " (estimated as ceil(UTF-8 bytes / 4))\n";
    };
    size_t n = estimateTokens(text);
    for (int round = 0; round < 4; ++round) {
      size_t m = estimateTokens(text + countLine(n));
      if (m == n) break;
      n = m;
    }
    *out = text + countLine(n);
    return estimateTokens(*out);
  };
  std::string text;
  size_t used = render(&text);
  // Two passes: first every unit asked for by name (and the flow between them), the first
  // candidate up to a third of the budget, and every other unit up to a sixth, in rank order;
  // then the larger ones that still fit. One long function found by the intent would otherwise
  // crowd out a dozen likely ones.
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < ranked.size(); ++i) {
      if (included[i]) continue;
      // The first candidate may take up to a third of the budget in the first pass.
      size_t share = i < kNeverDeferred ? 3 : kLargeShare;
      bool large = tiers[i] >= 2 && ranked[i].tokens * share > request.budgetTokens;
      if (large != (pass == 1)) continue;
      included[i] = true;
      std::string attempt;
      if (render(&attempt) <= request.budgetTokens) text = std::move(attempt);
      else included[i] = false;
    }
  used = render(&text);
  // Still over (a tiny budget): list fewer of the units left out; the follow-up names them all.
  while (used > request.budgetTokens && omittedListed > 0) {
    omittedListed /= 2;
    used = render(&text);
  }
  a.text = std::move(text);
  a.tokensUsed = used;
  return a;
}

}  // namespace nib
