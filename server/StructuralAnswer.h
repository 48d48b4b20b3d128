// Structural queries (callers, callees, impact, trace) and context bundles in their wire shape:
// paths or URIs, ranges in the negotiated encoding, freshness attached. Shared by the LSP
// server's nib/* extensions, the CLI's --json and `nib mcp`, so that all three give one answer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "protocol/LspTypes.h"
#include "server/ContextBuilder.h"
#include "server/Engine.h"

namespace nib {

// What a structural query is about: a symbol name ("name", "Type.name", "ns::name"), or the
// identifier at a byte offset of a file.
struct StructuralTarget {
  std::string symbol;
  std::string path;
  uint32_t offset = 0;
  bool atPosition = false;
};

enum class StructuralQuery { Callers, Callees, Impact, Trace };
bool parseStructuralQuery(std::string_view name, StructuralQuery* query);

struct StructuralOptions {
  int depth = 0;        // 0: the query's default (callers/callees 1 edge, impact 3 hops, trace 8 calls)
  size_t limit = 100;   // hops or impact entries
  Encoding encoding = Encoding::Utf16;
  bool withUris = false;
};

// The definitions a target names; an error says why there are none.
Expected<std::vector<CallNode>> resolveTarget(Engine& engine, const StructuralTarget& target);

// Runs the query from every definition the target names (trace: from the first of `target` to
// the first of `to`).
Expected<lsp::StructuralAnswer> structuralAnswer(Engine& engine, StructuralQuery query, const StructuralTarget& target,
                                                 const StructuralTarget* to, const StructuralOptions& options);

// One line per hop or entry (1-based lines): distance, edge kind, the definition at the other
// end and where; for a trace, the path in order.
std::string structuralText(StructuralQuery query, const lsp::StructuralAnswer& answer);

lsp::ContextAnswerWire toContextAnswer(Engine& engine, const ContextAnswer& answer, Encoding encoding, bool withUris);

// Definition and reference answers: LSP-shaped locations with repository paths, and the lines
// people read (`path:line:col: detail`, 1-based; the detail is the definition's kind and name,
// or for references the referencing line's text).
std::vector<lsp::Location> toWireLocations(Engine& engine, const std::vector<SymbolLocation>& locations, Encoding encoding);
std::string navigationText(Engine& engine, const NavigationResult& result, bool references);
// The JSON shape of a definition or references answer (`nib def --json`, the MCP tools), with
// the freshness the caller took after the answer (Engine::freshness(false)).
lsp::NavigationAnswer toNavigationAnswer(Engine& engine, const NavigationResult& result, const Expected<Freshness>& fresh);
// The same with the provider policy's provenance: who answered, by which policy and why.
lsp::NavigationAnswer toNavigationAnswer(Engine& engine, const PolicyOutcome& outcome, const NavigationResult& result,
                                         const Expected<Freshness>& fresh);

// Freshness as every JSON answer carries it; `withWorktree` when the worktree was compared.
std::map<std::string, std::string> freshnessFields(const Freshness& f, bool withWorktree);
// `nib status --json` and the MCP status tool: the manifest, its views and the freshness.
lsp::StatusAnswer toStatusAnswer(Engine& engine, const Freshness& freshness);
// What `nib status` says of a view beside its status: the reason it failed, or for a Pending
// dense view whether its follow-up is running now.
std::string viewNote(const Engine& engine, const ViewRecord& view);

}  // namespace nib
