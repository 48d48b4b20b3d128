// `nib mcp`: a Model Context Protocol server (revision 2025-06-18) over stdio for agents. Read
// only; the same Engine as the LSP server, following newly published index versions and
// watching the worktree. Tools: search, context, definition, references, callers, callees,
// impact, status. Each answers with text for the model and the same answer as structured
// content; a tool's failure (unknown symbol, bad arguments, no index) is a tool result with
// isError, so the model can read it and correct itself. JSON stays in protocol/McpCodec.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "protocol/McpCodec.h"
#include "server/CurrentEngine.h"
#include "server/LiveSetup.h"

namespace nib {

class McpServer {
 public:
  // `prepare` is called on each engine the server opens: the front end's worktree tools, so that
  // every tool answers for the worktree as it is (server/Engine.h, syncWorktreeOverlays).
  McpServer(std::filesystem::path root, std::string version, std::function<void(Engine&)> prepare = nullptr);
  // The live backends the definition and references tools may ask (server/LiveSetup); the
  // default policy is .nib.conf's `provider`, else static. Started on the first request that
  // needs them.
  void setLiveOptions(LiveSetupOptions options) { liveOptions_ = std::move(options); }
  // Serves until end of input. Returns the process exit status.
  int run(int inFd, int outFd);

 private:
  std::string handle(const mcp::Incoming& message);
  std::string callTool(const std::string& id, const std::string& tool, const mcp::ToolArgs& args);
  std::string navigationTool(const std::string& id, Engine& engine, bool references, const mcp::ToolArgs& args);

  // The provider policy and live backends, set up on first use.
  PolicyNavigator& navigator(ProviderPolicy* defaultPolicy);

  std::filesystem::path root_;
  std::string version_;
  CurrentEngine engine_;
  LiveSetupOptions liveOptions_;
  std::optional<LiveSetup> liveSetup_;
  std::unique_ptr<LiveProvider> live_;
  std::optional<PolicyNavigator> navigator_;
};

}  // namespace nib
