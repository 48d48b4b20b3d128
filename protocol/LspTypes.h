// Wire-level types shared by every JSON-speaking front end. Positions here are already in the
// negotiated encoding (UTF-16 code units by default); the conversion from nib's byte columns
// happens before these are filled, in one place (PositionEncoder).
#pragma once

#include <cstdint>
#include <map>
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
  std::string confidence;  // "exact" | "import" | "name"
  std::string note;
  std::vector<Location> locations;
  std::map<std::string, std::string> freshness;  // indexCommit, headCommit, fresh, ...
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

struct StatusAnswer {
  std::string root;
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

// JSON text for the CLI's --json outputs (one object, pretty-printed with 2 spaces).
std::string toJson(const NavigationAnswer& answer);
std::string toJson(const std::vector<Location>& symbols);
std::string toJson(const StatusAnswer& status);
std::string toJson(const SearchAnswer& search);
std::string toJson(const StructuralAnswer& answer);
std::string toJson(const ContextAnswerWire& answer);

}  // namespace nib::lsp
