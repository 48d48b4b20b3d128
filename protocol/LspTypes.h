// Wire-level types shared by every JSON-speaking front end. Positions here are already in the
// negotiated encoding (UTF-16 code units by default); the conversion from nib's byte columns
// happens before these are filled, in one place (PositionEncoder).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nib::lsp {

struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
};

struct Range {
  Position start;
  Position end;
};

// A location with a repository-relative path (the CLI) or a URI (the LSP server).
struct Location {
  std::string path;
  Range range;
  std::string role;  // "definition" | "declaration" | "reference"; empty when not applicable
  std::string kind;  // symbol kind of a definition, when known
  std::string name;
  std::string container;
};

struct NavigationAnswer {
  std::string symbol;
  std::string facts;       // "clang" | "tree-sitter"
  std::string confidence;  // "exact" | "import" | "name"
  std::string note;
  std::vector<Location> locations;
  std::map<std::string, std::string> freshness;  // indexCommit, headCommit, fresh, ...
  // Provenance under the provider policy: who answered ("static" | "live"), by which policy and
  // why; the backend asked, its time, why it did not answer; compare's verdict.
  std::string provider = "static", policy, reason, backend, liveError;
  double liveMilliseconds = -1;
  std::optional<bool> agree;
  // The index answer's category and, when it decided, its measured agreement (providers/Agreement).
  std::string category, agreement;
};

// A search hit as the CLI's --json and nib/search print it.
struct SearchHitAnswer {
  std::string path, uri;  // uri only on the LSP wire
  Range range;
  double score = 0;
  std::string route, name, kind, snippet;
  uint32_t snippetLine = 0;  // 0-based
};

struct SearchAnswer {
  std::string route;
  std::vector<SearchHitAnswer> hits;
  bool truncated = false;
  std::vector<std::string> notes;
  std::map<std::string, std::string> freshness;
};

struct ViewSummary {
  std::string name, status, profile, error;
  std::vector<std::string> capabilities;
};

// One category's measured agreement with a live server (providers/Agreement), for status.
struct AgreementSummary {
  std::string language, request, category, backend, text;  // text: describeAgreement
  uint64_t sampled = 0, agreed = 0;
  double low = 0, high = 1;  // the 95 % interval
};

struct StatusAnswer {
  std::string root;
  std::vector<AgreementSummary> agreement;
  std::map<std::string, std::string> manifest;  // scalar manifest fields
  std::vector<ViewSummary> views;
  std::map<std::string, std::string> stats;
  std::map<std::string, std::string> freshness;
  std::vector<std::string> changedFiles;  // worktree files whose content differs from the index
  std::vector<std::string> deletedFiles;
};

// A definition in a structural answer (call graph walks, context bundles).
struct GraphItem {
  std::string name, kind, container, path, uri;  // uri only on the LSP wire
  Range range, selectionRange;
};

struct GraphHopAnswer {
  GraphItem from, to;
  std::string kind;        // "call" | "type-use"
  std::string confidence;  // "exact" | "import" | "name"
  int distance = 1;
  std::vector<Range> sites;  // in from's file
};

struct ImpactAnswer {
  GraphItem item;
  int distance = 1;
  std::string via, confidence;
  Range site;
};

// nib/callers, nib/callees, nib/impact and nib/trace.
struct StructuralAnswer {
  std::vector<GraphItem> roots;         // the definitions asked about
  std::vector<GraphHopAnswer> hops;     // callers, callees, trace
  std::vector<ImpactAnswer> impact;     // impact
  bool found = true;                    // trace: a path exists
  std::string confidence;               // the least certain hop's
  std::vector<std::string> notes;
  std::map<std::string, std::string> freshness;
};

struct ContextUnitAnswer {
  std::string path, uri, name, kind, reason, text;
  Range range;
  double score = 0;
  size_t tokens = 0;
};

struct ContextFlowAnswer {
  std::string from, to;
  std::vector<GraphHopAnswer> hops;
};

struct ContextBlastAnswer {
  GraphItem item;
  size_t callers = 0, typeUses = 0, total = 0;
  std::vector<ImpactAnswer> entries;
};

struct ContextParamsWire {
  std::vector<std::string> symbols, paths;
  std::string intent;
  uint32_t budgetTokens = 4000;
};

struct ContextAnswerWire {
  size_t budgetTokens = 0, tokensUsed = 0;
  std::string estimator;
  std::vector<ContextFlowAnswer> flows;
  std::vector<ContextUnitAnswer> units, omitted;
  std::vector<ContextBlastAnswer> blast;
  std::vector<std::string> unresolved, notes;
  bool hasFollowUp = false;
  ContextParamsWire followUp;
  std::string followUpCommand;
  std::string text;
  std::map<std::string, std::string> freshness;
};

// `nib bench live-vs-static`: one row per language and method.
// One language and method of `nib bench live-vs-static`: every request counted. Both sides are
// asked over stdio by the same client (the static side is `nib serve --provider static`); the
// in-engine time (the Engine called in the bench's own process) is reported apart and named so.
struct LiveBenchRow {
  std::string language, method;
  size_t requests = 0;      // sent to both sides: every one is in matchRate
  size_t matched = 0;       // equal (path, line, column) sets, both empty included
  size_t bothEmpty = 0;     // neither side answered anything inside the repository (matched)
  size_t liveEmpty = 0;     // the backend answered nothing inside the repository
  size_t liveFailed = 0, staticFailed = 0;  // errors and time-outs: mismatches
  double matchRate = 0, low = 0, high = 1;  // matched / requests, Wilson 95 % interval
  double precision = 0, recall = 0;         // static's locations against live's, where both answered
  double staticP50 = 0, staticP95 = 0, liveP50 = 0, liveP95 = 0;  // milliseconds, over stdio
  double engineP50 = 0, engineP95 = 0;  // in-engine (the bench's own process), not what a client sees
  double ratioWarm = 0, ratioCold = 0;  // median live/static over matched requests
  size_t warmMatched = 0, coldMatched = 0;
  std::vector<double> staticMs, liveMs;  // every request, in order (for charts)
};

// Agreement by the index answer's category (providers/Agreement), as the sampler counts it.
struct LiveBenchCategory {
  std::string language, method, category;
  size_t requests = 0, matched = 0;
  double low = 0, high = 1;
};

struct LiveBenchLanguage {
  std::string language, backend;
  size_t files = 0, samples = 0;
  double staticStartMs = 0;        // `nib serve --provider static` start and initialize
  double liveStartMs = 0;          // backend start and initialize
  double liveFirstAnswerMs = 0;    // from starting the backend to its first answer
  double backgroundIndexMs = -1;   // clangd's background index, when waited for
  uint64_t livePeakRssKiB = 0;     // the backend's process tree
};

// One request as both sides answered it. The digests (of the sorted (path, line, column) sets)
// let a script that runs the benchmark several times tell which of the backend's answers
// changed between runs: clangd's background index indexes translation units in a random order,
// and which unit's view of a shared file it keeps depends on it.
struct LiveBenchRequest {
  std::string language, method, path, category;
  uint32_t line = 0, column = 0;  // 1-based, column in bytes
  bool staticFirst = false;       // which side was asked first (they alternate)
  bool liveAnswered = false;      // the backend answered something inside the repository
  bool matched = false;
  std::string staticDigest, liveDigest;
  // A mismatch's locations only one side gave ("path:line:column", 1-based; at most 8 each).
  std::vector<std::string> staticOnly, liveOnly;
};

struct LiveBenchAnswer {
  std::string root, indexVersion, machine, staticCommand;
  uint64_t seed = 0;
  size_t samplesPerLanguage = 0;
  double staticFirstAnswerMs = 0;  // from starting `nib serve` to its first answer
  uint64_t staticPeakRssKiB = 0;   // the `nib serve` process
  std::vector<LiveBenchLanguage> languages;
  std::vector<LiveBenchRow> rows;
  std::vector<LiveBenchCategory> categories;
  std::vector<LiveBenchRequest> requests;  // every request, in sample order
  std::vector<std::string> mismatches;  // examples: request, category, static-only and live-only locations
  std::vector<std::string> notes;
};

// JSON text for the CLI's --json outputs (one object, pretty-printed with 2 spaces).
std::string toJson(const NavigationAnswer& answer);
std::string toJson(const std::vector<Location>& symbols);
std::string toJson(const StatusAnswer& status);
std::string toJson(const SearchAnswer& search);
std::string toJson(const StructuralAnswer& answer);
std::string toJson(const ContextAnswerWire& answer);
std::string toJson(const LiveBenchAnswer& answer);

}  // namespace nib::lsp
