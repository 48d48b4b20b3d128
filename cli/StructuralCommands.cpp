// `nib context`, `nib callers`, `nib callees`, `nib impact`, `nib trace`: the structural
// answers of the call and type-use graph, and context bundles for agents.
#include <cstdio>

#include "cli/Commands.h"
#include "cli/WorktreeModule.h"
#include <signal.h>
#include <unistd.h>

#include "server/ContextBuilder.h"
#include "server/McpServer.h"
#include "support/GitLite.h"
#include "server/Engine.h"
#include "server/StructuralAnswer.h"

namespace nib::cli {
namespace {

}  // namespace

int runContext(const ContextArgs& args) {
  auto engine = openForWorktree(args.root);
  if (!engine) return fail(engine.status().message());
  ContextRequest request{args.symbols, args.paths, args.intent, args.budget};
  auto answer = buildContext(**engine, request);
  if (!answer) return fail(answer.status().message());
  if (args.json) {
    std::printf("%s\n", lsp::toJson(toContextAnswer(**engine, *answer, Encoding::Utf16, false)).c_str());
  } else {
    std::fwrite(answer->text.data(), 1, answer->text.size(), stdout);
  }
  return answer->units.empty() ? 1 : 0;
}

int runStructural(const StructuralArgs& args) {
  StructuralQuery query;
  if (!parseStructuralQuery(args.query, &query)) return fail("unknown structural query '" + args.query + "'");
  auto engine = openForWorktree(args.root);
  if (!engine) return fail(engine.status().message());
  StructuralTarget target{args.symbol, "", 0, false};
  StructuralTarget to{args.to, "", 0, false};
  StructuralOptions options;
  options.depth = args.depth;
  options.limit = args.limit;
  auto answer = structuralAnswer(**engine, query, target, query == StructuralQuery::Trace ? &to : nullptr, options);
  if (!answer) return fail(answer.status().message());
  if (args.json) {
    std::printf("%s\n", lsp::toJson(*answer).c_str());
    return answer->hops.empty() && answer->impact.empty() ? 1 : 0;
  }
  for (const std::string& n : answer->notes) std::fprintf(stderr, "nib: note: %s\n", n.c_str());
  std::string text = structuralText(query, *answer);
  std::fwrite(text.data(), 1, text.size(), stdout);
  bool empty = answer->hops.empty() && answer->impact.empty();
  if (empty) std::fprintf(stderr, "nib: %s\n", query == StructuralQuery::Trace ? "no call path" : "nothing found");
  if (answer->freshness["fresh"] == "false" && answer->freshness["partial"] == "true")
    std::fprintf(stderr, "nib: note: the index is not fresh (%s); run `nib index`\n",
                 answer->freshness["indexCommit"] != answer->freshness["headCommit"] ? "HEAD moved since it was built"
                                                                                   : "the worktree changed since it was built");
  return empty ? 1 : 0;
}

int runMcp(const std::string& root, bool allowProjectCommands) {
  auto repo = gitlite::discover(root);
  if (!repo) return fail(repo.status().message());
  // A client that goes away mid-answer must not kill the server with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
#ifndef NIB_VERSION
#define NIB_VERSION "0.0.0"
#endif
  McpServer server(repo->worktree, NIB_VERSION, [](Engine& engine) { useWorktreeModule(engine); });
  LiveSetupOptions live;
  live.backendsBin = NIB_BACKENDS_BIN;
  live.allowProjectCommands = allowProjectCommands;
  server.setLiveOptions(std::move(live));
  return server.run(STDIN_FILENO, STDOUT_FILENO);
}

}  // namespace nib::cli
