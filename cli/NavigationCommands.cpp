// `nib def`, `nib refs`, `nib symbols`: navigation from the command line, answering for the
// worktree as it is — files changed, deleted or added since `nib index` are laid over the index
// through the worktree module (cli/WorktreeModule.h), as the language server lays them. The
// output is rendered into a CommandOutput, so that a running daemon (which keeps the worktree
// watched and its comparison cached) and this process print the same bytes.
#include <cstdio>
#include <filesystem>

#include "cli/Commands.h"
#include "cli/DaemonCli.h"
#include "cli/WorktreeModule.h"
#include "protocol/LspTypes.h"
#include "protocol/PositionEncoder.h"
#include "server/Engine.h"
#include "server/LiveSetup.h"
#include "server/StructuralAnswer.h"
#include "support/Binary.h"

namespace nib::cli {
namespace fs = std::filesystem;
namespace {

std::string noIndexHint(const Status& s) { return s.is(Reason::NoIndex) ? "run `nib index` in the repository first" : ""; }

std::string shortOid(const std::string& oid) { return oid.empty() ? "(none)" : oid.substr(0, 12); }

// An answer that may miss changes says so on stderr; one made fresh by overlays needs no word
// (`--json` says how it was made).
void warnIfPartial(const Expected<Freshness>& fresh, CommandOutput* o) {
  if (!fresh || !fresh->partial) return;
  if (!fresh->partialReason.empty())
    appendf(&o->err, "nib: warning: the answer may miss changes: %s (run `nib index`)\n", fresh->partialReason.c_str());
  else if (!fresh->headMatches)
    appendf(&o->err, "nib: warning: HEAD moved since the index was built (%s -> %s); run `nib index`\n",
            shortOid(fresh->indexCommit).c_str(), shortOid(fresh->headCommit).c_str());
  else
    o->err += "nib: warning: the worktree changed since the index was built; run `nib index`\n";
}

// FILE:LINE:COL; FILE may itself contain ':', LINE and COL are the last two fields.
Status parseTarget(const std::string& text, NavigationRequest* out) {
  size_t c2 = text.rfind(':');
  size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : text.rfind(':', c2 - 1);
  if (c1 == std::string::npos || c1 == 0)
    return Status(ErrorCode::InvalidArgument, "expected FILE:LINE:COL, got '" + text + "'");
  auto number = [](const std::string& s, uint32_t* n) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *n = static_cast<uint32_t>(std::stoul(s));
    return *n > 0;
  };
  out->file = text.substr(0, c1);
  if (!number(text.substr(c1 + 1, c2 - c1 - 1), &out->line) || !number(text.substr(c2 + 1), &out->column))
    return Status(ErrorCode::InvalidArgument, "LINE and COL in '" + text + "' must be positive numbers (1-based)");
  std::error_code ec;
  if (!fs::exists(out->file, ec)) return Status(ErrorCode::NotFound, "no such file: " + out->file);
  if (fs::is_directory(out->file, ec)) return Status(ErrorCode::InvalidArgument, out->file + " is a directory");
  // The daemon runs elsewhere: the file travels as an absolute path.
  out->file = fs::absolute(out->file, ec).lexically_normal().string();
  return Status::ok();
}

}  // namespace

namespace {

// The live backends a request with a non-static policy may ask, set up as `nib serve` sets them
// up (server/LiveSetup); what the setup refuses is said on stderr.
std::unique_ptr<LiveProvider> liveProviderFor(Engine& engine, const NavigationRequest& request, CommandOutput* o) {
  LiveSetupOptions options;
  options.provider = "static";  // the policy is the request's; only the backends come from here
  options.backendsBin = NIB_BACKENDS_BIN;
  options.allowProjectCommands = request.allowProjectCommands;
  auto warn = [o](const std::string& message) { o->err += "nib: warning: " + message + "\n"; };
  LiveSetup setup = liveSetup(engine.root(), options, warn);
  engine.setCalibrationSettings(setup.calibration);
  return startLiveProvider(engine.root(), std::move(setup.settings), warn);
}

}  // namespace

CommandOutput renderNavigation(Engine& engine, const NavigationRequest& request) {
  auto path = engine.repoPath(request.file);
  if (!path) return errorOutput(path.status().message());
  auto offset = engine.offsetOf(*path, Position{fromDisplayLine(request.line), request.column - 1});
  if (!offset) return errorOutput(offset.status().message());
  ProviderPolicy policy = ProviderPolicy::Static;
  if (!request.provider.empty()) {
    auto p = parseProviderPolicy(request.provider);
    if (!p) return errorOutput(p.status().message());
    policy = *p;
  }
  CommandOutput o;
  std::unique_ptr<LiveProvider> live;
  if (policy != ProviderPolicy::Static) live = liveProviderFor(engine, request, &o);
  NavigationKind kind = request.references ? NavigationKind::References : NavigationKind::Definition;
  auto asked = engine.navigationRequest(kind, *path, *offset, fromDisplayLine(request.line), request.includeDeclaration,
                                        policy);
  if (!asked) return errorOutput(asked.status().message());
  PolicyNavigator navigator(live.get());
  PolicyOutcome outcome = engine.navigate(navigator, *asked);
  auto result = outcome.answer(kind);
  // A position on no identifier (a keyword, a comment) has no answer, as an editor's request
  // there gets an empty one: a note and exit status 1, not an error.
  if (!result && result.status().is(Reason::NoSymbol)) {
    NavigationResult none;
    none.note = result.status().message();
    result = std::move(none);
  }
  if (!result) {
    CommandOutput failed = errorOutput(result.status().message());
    failed.err = o.err + failed.err;
    return failed;
  }
  auto fresh = engine.freshness(false);
  if (request.json) {
    o.out = lsp::toJson(toNavigationAnswer(engine, outcome, *result, fresh)) + "\n";
  } else {
    o.out = navigationText(engine, *result, request.references);
    if (!result->note.empty()) o.err += "nib: note: " + result->note + "\n";
    // Who answered and why, when a live backend could have.
    if (policy != ProviderPolicy::Static) o.err += "nib: " + outcome.describe(*asked) + "\n";
  }
  if (!outcome.answeredLive()) warnIfPartial(fresh, &o);
  o.exitCode = result->locations.empty() && !request.json ? 1 : 0;
  return o;
}

std::string encodeNavigation(const NavigationRequest& r) {
  ByteWriter w;
  w.u8(kNavigationRequest);
  w.u8(r.references);
  w.str(r.file);
  w.varint(r.line);
  w.varint(r.column);
  w.u8(r.json);
  w.u8(r.includeDeclaration);
  return w.take();
}

Expected<NavigationRequest> decodeNavigation(std::string_view bytes) {
  ByteReader r(bytes);
  if (r.u8() != kNavigationRequest) return Status(ErrorCode::InvalidArgument, "a navigation request of another format");
  NavigationRequest n;
  n.references = r.u8() != 0;
  n.file = std::string(r.str());
  n.line = static_cast<uint32_t>(r.varint());
  n.column = static_cast<uint32_t>(r.varint());
  n.json = r.u8() != 0;
  n.includeDeclaration = r.u8() != 0;
  if (!r.ok() || !r.atEnd() || n.line == 0 || n.column == 0)
    return Status(ErrorCode::InvalidArgument, "a malformed navigation request");
  return n;
}

CommandOutput renderSymbols(Engine& engine, const SymbolsArgs& args) {
  if (args.query.empty()) return errorOutput("the query is empty");
  auto matches = engine.symbols(args.query, args.limit);
  CommandOutput o;
  if (args.json) {
    std::vector<SymbolLocation> locs;
    for (auto& m : matches) locs.push_back(m.location);
    o.out = lsp::toJson(toWireLocations(engine, locs, Encoding::Utf16)) + "\n";
  } else {
    for (const SymbolMatch& m : matches) {
      const SymbolLocation& l = m.location;
      appendf(&o.out, "%-12s %s%s  %s:%u:%u\n", symbolKindName(l.kind), l.container.empty() ? "" : (l.container + ".").c_str(),
              l.name.c_str(), l.path.c_str(), toDisplayLine(l.range.start.line), l.range.start.column + 1);
    }
    if (matches.empty()) o.err += "nib: no symbol matches '" + args.query + "'\n";
  }
  warnIfPartial(engine.freshness(false), &o);
  o.exitCode = matches.empty() && !args.json ? 1 : 0;
  return o;
}

std::string encodeSymbolsArgs(const SymbolsArgs& args) {
  ByteWriter w;
  w.u8(kSymbolsRequest);
  w.str(args.query);
  w.varint(args.limit);
  w.u8(args.json);
  return w.take();
}

Expected<SymbolsArgs> decodeSymbolsArgs(std::string_view bytes) {
  ByteReader r(bytes);
  if (r.u8() != kSymbolsRequest) return Status(ErrorCode::InvalidArgument, "a symbols request of another format");
  SymbolsArgs args;
  args.query = std::string(r.str());
  args.limit = r.varint();
  args.json = r.u8() != 0;
  if (!r.ok() || !r.atEnd()) return Status(ErrorCode::InvalidArgument, "a malformed symbols request");
  return args;
}

namespace {

int runNavigation(const LocateArgs& args, bool references) {
  NavigationRequest request;
  request.references = references;
  request.json = args.json;
  request.includeDeclaration = args.includeDeclaration;
  request.provider = args.provider;
  request.allowProjectCommands = args.allowProjectCommands;
  if (!args.provider.empty())
    if (auto p = parseProviderPolicy(args.provider); !p) return fail(p.status().message());
  if (Status s = parseTarget(args.target, &request); !s.isOk()) return fail(s.message());
  std::string root = args.root.empty() ? fs::path(request.file).parent_path().string() : args.root;
  // A daemon for this repository answers from its open index and watched worktree.
  // A daemon for this repository answers from its open index and watched worktree (the index's
  // answers only: live backends are started by the process that asks for them).
  bool staticOnly = args.provider.empty() || args.provider == "static";
  if (args.useDaemon && staticOnly)
    if (auto answered = askDaemon(root, encodeNavigation(request))) return printOutput(*answered);
  auto engine = openForWorktree(root);
  if (!engine) return fail(engine.status().message(), noIndexHint(engine.status()));
  int rc = printOutput(renderNavigation(**engine, request));
  startDaemonForLaterCommands(**engine, args.useDaemon && staticOnly);
  return rc;
}

}  // namespace

int runDefinition(const LocateArgs& args) { return runNavigation(args, false); }
int runReferences(const LocateArgs& args) { return runNavigation(args, true); }

int runSymbols(const SymbolsArgs& args) {
  if (args.query.empty()) return fail("the query is empty");
  if (args.useDaemon)
    if (auto answered = askDaemon(args.root, encodeSymbolsArgs(args))) return printOutput(*answered);
  auto engine = openForWorktree(args.root);
  if (!engine) return fail(engine.status().message(), noIndexHint(engine.status()));
  int rc = printOutput(renderSymbols(**engine, args));
  startDaemonForLaterCommands(**engine, args.useDaemon);
  return rc;
}

}  // namespace nib::cli
