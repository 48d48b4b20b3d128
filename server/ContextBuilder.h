// nib/context and `nib context`: one answer that an agent can act on instead of a grep → open →
// grep loop. From any mix of symbol names, paths and a free-text intent it assembles the call
// flow between the named symbols, the line-numbered source of the most relevant units cut to a
// token budget at unit boundaries, each named definition's blast radius, and a ready follow-up
// request for what did not fit. Deterministic for the same index, worktree and input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "providers/CallGraph.h"
#include "server/Engine.h"

namespace nib {

// The one token estimator of nib's budgets: ceil(UTF-8 bytes / 4). Code averages about four
// bytes per token in the tokenizers agents use (identifiers split, whitespace merged); a budget
// stated in these units is what the answer's text weighs, counted the same way every time.
size_t estimateTokens(std::string_view text);

struct ContextRequest {
  std::vector<std::string> symbols;  // "name", "Type.name", "ns::name"
  std::vector<std::string> paths;    // repository paths of files
  std::string intent;                // free text: what the agent is trying to do
  size_t budgetTokens = 4000;
};

struct ContextUnit {
  std::string path;
  std::string name;
  SymbolKind kind = SymbolKind::Unknown;
  ByteRange range;
  std::string reason;  // symbol | flow | intent | neighbor | path
  double score = 0;
  size_t tokens = 0;   // of `text`
  std::string text;    // heading line and the source with 1-based line gutters (empty when omitted)
  bool ascii = true;
};

struct ContextFlow {
  std::string from, to;       // the symbols as asked
  std::vector<GraphHop> hops;  // the shortest call path; empty when none was found
};

struct ContextBlast {
  CallNode node;                       // a named definition
  std::vector<ImpactEntry> entries;    // nearest first, at most kBlastEntries
  size_t callers = 0, typeUses = 0;    // among entries at distance 1
  size_t total = 0;                    // entries found within the walk's depth (before the cut)
};

struct ContextAnswer {
  size_t budgetTokens = 0;
  size_t tokensUsed = 0;  // estimateTokens(text)
  std::vector<ContextFlow> flows;
  std::vector<ContextUnit> units;    // included, in answer order
  std::vector<ContextUnit> omitted;  // relevant, but over the budget (no text)
  std::vector<ContextBlast> blast;
  std::vector<std::string> unresolved;  // symbols or paths nib does not know
  std::vector<std::string> notes;
  bool hasFollowUp = false;
  ContextRequest followUp;  // asks for the omitted units with a budget that fits them
  std::string text;         // the whole answer as an agent reads it (what tokensUsed counts)
};

Expected<ContextAnswer> buildContext(Engine& engine, const ContextRequest& request);

// The follow-up as a command line (`nib context --symbol a --budget N`).
std::string followUpCommand(const ContextRequest& request);

}  // namespace nib
