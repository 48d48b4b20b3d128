#include "server/McpServer.h"

#include <unistd.h>

#include <malloc.h>

#include <cerrno>

#include "server/ContextBuilder.h"
#include "server/SearchAnswer.h"
#include "server/StructuralAnswer.h"
#include "support/FileIo.h"
#include "support/Log.h"
#include "support/RepoPath.h"

namespace nib {
namespace {

constexpr size_t kMaxLine = 64u << 20;  // a longer message is refused, not buffered

const char* kInstructions =
    "nib answers from a persisted index of this git repository, and says which commit it reflects. Start with "
    "`context` (symbols, paths and/or an intent in words, plus budgetTokens) to get the relevant source in one call; "
    "use `search` for exact text (trigram) or ranked units (lexical); `definition`, `references`, `callers`, "
    "`callees` and `impact` navigate from a symbol name or a path with 1-based line and column.";

}  // namespace

McpServer::McpServer(std::filesystem::path root, std::string version, std::function<void(Engine&)> prepare)
    : root_(std::move(root)), version_(std::move(version)), engine_(root_) {
  engine_.setPrepare(std::move(prepare));
}

PolicyNavigator& McpServer::navigator(ProviderPolicy* defaultPolicy) {
  if (!navigator_) {
    LiveSetupOptions options = liveOptions_;
    options.fallbackPolicy = ProviderPolicy::Static;
    // Refused settings go to stderr (the client's stream is stdout).
    auto warn = [](const std::string& message) { logWarn(message); };
    liveSetup_ = liveSetup(root_, options, warn);
    live_ = startLiveProvider(root_, liveSetup_->settings, warn);
    navigator_.emplace(live_.get());
  }
  *defaultPolicy = liveSetup_->policy;
  return *navigator_;
}

int McpServer::run(int inFd, int outFd) {
  std::string buf;
  char chunk[65536];
  bool eof = false;
  bool skipping = false;  // the rest of a refused over-long line, up to its newline
  while (!eof) {
    ssize_t n = ::read(inFd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) eof = true;
    else buf.append(chunk, static_cast<size_t>(n));
    if (skipping) {
      size_t nl = buf.find('\n');
      if (nl == std::string::npos) {
        buf.clear();
        continue;
      }
      buf.erase(0, nl + 1);
      skipping = false;
    }
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(buf.data() + start, nl - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      std::string reply = handle(mcp::decode(line));
      if (!reply.empty() && !writeAllTo(outFd, reply + "\n")) return 1;
    }
    buf.erase(0, start);
    // The last message may end at the end of input without a newline.
    if (eof && buf.find_first_not_of(" \t\r") != std::string::npos) {
      std::string reply = handle(mcp::decode(buf));
      if (!reply.empty() && !writeAllTo(outFd, reply + "\n")) return 1;
      buf.clear();
    }
    if (buf.size() > kMaxLine) {
      // Refused whole: its remainder is skipped, not read as messages, and the memory it held
      // goes back.
      writeAllTo(outFd, mcp::encodeError("", -32600, "message too large") + "\n");
      std::string().swap(buf);
      skipping = true;
      malloc_trim(0);
    }
  }
  return 0;
}

std::string McpServer::handle(const mcp::Incoming& m) {
  using Kind = mcp::Incoming::Kind;
  if (m.kind == Kind::Response || m.kind == Kind::Notification) return {};  // nothing to answer
  if (m.errorCode != 0) return mcp::encodeError(m.id, m.errorCode, m.error);
  if (m.kind != Kind::Request) return mcp::encodeError(m.id, -32600, "invalid request");
  if (m.method == "initialize") return mcp::encodeInitializeResult(m.id, version_, kInstructions);
  if (m.method == "ping") return mcp::encodeEmptyResult(m.id);
  if (m.method == "tools/list") return mcp::encodeToolsList(m.id);
  if (m.method == "tools/call") {
    const auto& names = mcp::toolNames();
    if (std::find(names.begin(), names.end(), m.tool) == names.end())
      return mcp::encodeError(m.id, -32602, "unknown tool '" + m.tool + "'");
    if (!m.error.empty()) return mcp::encodeToolResult(m.id, "invalid arguments: " + m.error, "", true);
    return callTool(m.id, m.tool, m.args);
  }
  return mcp::encodeError(m.id, -32601, "method not found: " + m.method);
}

namespace {

std::string failedTool(const std::string& id, const std::string& message) {
  return mcp::encodeToolResult(id, message, "", true);
}

// A position (repository path, 1-based line and column) or a symbol name.
Status targetOf(Engine& engine, const mcp::ToolArgs& args, StructuralTarget* target) {
  if (!args.path.empty()) {
    if (args.line == 0 || args.column == 0) return Status(ErrorCode::InvalidArgument, "give line and column with path");
    auto path = RepoPath::parse(args.path);
    if (!path) return Status(ErrorCode::InvalidArgument, "'" + args.path + "' is not a repository-relative path");
    auto offset = engine.offsetOf(path->str(), Position{fromDisplayLine(args.line), args.column - 1});
    if (!offset) return offset.status();
    *target = StructuralTarget{"", path->str(), *offset, true};
    return Status::ok();
  }
  if (args.symbol.empty()) return Status(ErrorCode::InvalidArgument, "give a symbol, or a path with line and column");
  *target = StructuralTarget{args.symbol, "", 0, false};
  return Status::ok();
}

std::string searchTool(const std::string& id, Engine& engine, const mcp::ToolArgs& args) {
  auto request = searchRequestOf(args.query, args.route, args.regex, args.ignoreCase, args.k, args.paths,
                                 args.languages, args.kinds);
  if (!request) return failedTool(id, request.status().message());
  auto result = engine.search(*request);
  if (!result) return failedTool(id, result.status().message());
  std::string text = result->hits.empty() ? "no matches\n" : searchResultText(*result);
  for (const std::string& n : result->notes) text += "note: " + n + "\n";
  if (result->truncated) text += "note: more results exist; raise k\n";
  return mcp::encodeToolResult(id, text, lsp::toJson(toSearchAnswer(engine, *result, Encoding::Utf16, false)), false);
}

std::string contextTool(const std::string& id, Engine& engine, const mcp::ToolArgs& args) {
  auto answer = buildContext(engine, ContextRequest{args.symbols, args.paths, args.intent, args.budgetTokens});
  if (!answer) return failedTool(id, answer.status().message());
  return mcp::encodeToolResult(id, answer->text, lsp::toJson(toContextAnswer(engine, *answer, Encoding::Utf16, false)),
                               false);
}

std::string structuralTool(const std::string& id, Engine& engine, const std::string& tool, const mcp::ToolArgs& args) {
  StructuralQuery query;
  parseStructuralQuery(tool, &query);
  StructuralTarget target;
  if (Status s = targetOf(engine, args, &target); !s.isOk()) return failedTool(id, s.message());
  StructuralOptions options;
  options.depth = static_cast<int>(args.depth);
  options.limit = args.limit;
  auto answer = structuralAnswer(engine, query, target, nullptr, options);
  if (!answer) return failedTool(id, answer.status().message());
  std::string text = structuralText(query, *answer);
  if (text.empty()) text = tool == "callers" ? "no callers found in the repository\n"
                           : tool == "callees" ? "no calls to repository definitions\n"
                                               : "nothing in the repository reaches it\n";
  for (const std::string& n : answer->notes) text += "note: " + n + "\n";
  text += "confidence: " + answer->confidence + "\n";
  return mcp::encodeToolResult(id, text, lsp::toJson(*answer), false);
}

std::string statusTool(const std::string& id, Engine& engine) {
  auto fresh = engine.freshness(true);
  if (!fresh) return failedTool(id, fresh.status().message());
  const Manifest& m = engine.manifest();
  std::string text = "repository " + engine.root().string() + "\nindex version " + m.versionId + " built from commit " +
                     m.sourceCommit.substr(0, 12) + (m.dirty ? " + uncommitted changes" : "") + "\nHEAD " +
                     fresh->headCommit.substr(0, 12) + (fresh->headMatches ? " (matches)" : " (differs)") +
                     "\nfresh: " + (fresh->fresh ? "yes" : "no") + "\n";
  if (!fresh->changedFiles.empty()) text += std::to_string(fresh->changedFiles.size()) + " file(s) changed since\n";
  for (const ViewRecord& v : m.views) text += "view " + v.name + ": " + viewStatusName(v.status) + "\n";
  return mcp::encodeToolResult(id, text, lsp::toJson(toStatusAnswer(engine, *fresh)), false);
}

}  // namespace

std::string McpServer::navigationTool(const std::string& id, Engine& engine, bool references,
                                      const mcp::ToolArgs& args) {
  StructuralTarget target;
  if (Status s = targetOf(engine, args, &target); !s.isOk()) return failedTool(id, s.message());
  uint32_t line = args.line > 0 ? fromDisplayLine(args.line) : 0;
  if (!target.atPosition) {
    // A name: its definitions' own positions stand for it.
    auto nodes = resolveTarget(engine, target);
    if (!nodes) return failedTool(id, nodes.status().message());
    target = StructuralTarget{"", nodes->front().path, nodes->front().nameRange.startByte, true};
    line = nodes->front().nameRange.start.line;
  }
  ProviderPolicy policy = ProviderPolicy::Static;
  PolicyNavigator& nav = navigator(&policy);
  if (!args.provider.empty()) policy = *parseProviderPolicy(args.provider);  // checked by the codec
  auto request = engine.navigationRequest(references ? NavigationKind::References : NavigationKind::Definition,
                                          target.path, target.offset, line, args.includeDeclaration, policy);
  if (!request) return failedTool(id, request.status().message());
  engine.setCalibrationSettings(liveSetup_->calibration);
  PolicyOutcome outcome = engine.navigate(nav, *request);
  auto result = outcome.answer(request->kind);
  if (!result) return failedTool(id, result.status().message());
  lsp::NavigationAnswer a = toNavigationAnswer(engine, outcome, *result, engine.freshness(false));
  std::string text = result->locations.empty() ? "nothing found\n" : navigationText(engine, *result, references);
  text += "confidence: " + a.confidence + "\n";
  if (a.provider == "live") text += "answered by the live backend " + a.backend + "\n";
  if (!result->note.empty()) text += "note: " + result->note + "\n";
  return mcp::encodeToolResult(id, text, lsp::toJson(a), false);
}

std::string McpServer::callTool(const std::string& id, const std::string& tool, const mcp::ToolArgs& args) {
  auto engineOr = engine_.get();
  if (!engineOr) return failedTool(id, engineOr.status().message());
  Engine& engine = **engineOr;
  // Changed, deleted and new files laid over the index (cheap while the watcher saw nothing).
  engine.syncWorktreeOverlays();
  if (tool == "search") return searchTool(id, engine, args);
  if (tool == "context") return contextTool(id, engine, args);
  if (tool == "definition" || tool == "references") return navigationTool(id, engine, tool == "references", args);
  if (tool == "callers" || tool == "callees" || tool == "impact") return structuralTool(id, engine, tool, args);
  if (tool == "status") return statusTool(id, engine);
  return failedTool(id, "unknown tool '" + tool + "'");
}

}  // namespace nib
