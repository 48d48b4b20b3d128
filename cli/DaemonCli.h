// `nib daemon` and the front end's side of it: commands that a daemon can answer ask it first
// and fall back to doing the work in this process. See server/Daemon.h for the daemon itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cli/Commands.h"
#include "server/Daemon.h"

namespace nib::cli {

struct DaemonArgs {
  std::string action;  // start, stop, status, run
  std::string root = ".";
  unsigned idleMinutes = 15;
};
int runDaemon(const DaemonArgs& args);

// The daemon's answer to `payload` for the repository containing `root`; nullopt when no
// daemon serves it or it failed (then a note says why, and the caller does the work itself).
std::optional<CommandOutput> askDaemon(const std::string& root, std::string_view payload);
// After a command answered in this process on a large repository (at least
// kAutoDaemonFiles indexed files, or $NIB_DAEMON_AUTO_FILES), starts a `nib daemon` for the next
// commands, detached and without waiting for it: the comparison of a large worktree (one stat
// per file) is most of such a command's time, and the daemon's watcher makes it unnecessary.
// Not when $NIB_NO_AUTO_DAEMON is set, `--no-daemon` was given (`allowed` false), or .nib.conf says
// `daemon.auto = false`. Returns whether one was started (a note on stderr says so).
bool startDaemonForLaterCommands(const Engine& engine, bool allowed);
inline constexpr uint64_t kAutoDaemonFiles = 5000;

// Writes the output to stdout and stderr; returns its exit status.
int printOutput(const CommandOutput& output);

// The exit status of a daemon's answer that refuses the request (a kind or format it does not
// know): the command then does the work itself. No command exits with it.
inline constexpr int kDaemonRefused = 125;

// A request's first byte says which command it is.
inline constexpr uint8_t kSearchRequest = 1;
inline constexpr uint8_t kStatusRequest = 2;
inline constexpr uint8_t kNavigationRequest = 3;
inline constexpr uint8_t kSymbolsRequest = 4;

// `nib search` as bytes: the same for this process and for a daemon.
CommandOutput renderSearch(Engine& engine, const SearchArgs& args);
std::string encodeSearchArgs(const SearchArgs& args);
Expected<SearchArgs> decodeSearchArgs(std::string_view bytes);

// `nib status` likewise.
CommandOutput renderStatus(Engine& engine, const StatusArgs& args);
std::string encodeStatusArgs(const StatusArgs& args);
Expected<StatusArgs> decodeStatusArgs(std::string_view bytes);

// `nib def` and `nib refs` likewise; the file is an absolute path (the daemon's working folder
// is not the command's).
struct NavigationRequest {
  bool references = false;
  std::string file;
  uint32_t line = 0, column = 0;  // 1-based; the column counts bytes
  bool json = false;
  bool includeDeclaration = true;
  // The provider policy ("" = static). Requests with another policy are answered in this
  // process, which starts the live backends it needs; they never go to the daemon.
  std::string provider;
  bool allowProjectCommands = false;  // run live.* commands from the repository's .nib.conf
};
CommandOutput renderNavigation(Engine& engine, const NavigationRequest& request);
std::string encodeNavigation(const NavigationRequest& request);
Expected<NavigationRequest> decodeNavigation(std::string_view bytes);

// `nib symbols` likewise.
CommandOutput renderSymbols(Engine& engine, const SymbolsArgs& args);
std::string encodeSymbolsArgs(const SymbolsArgs& args);
Expected<SymbolsArgs> decodeSymbolsArgs(std::string_view bytes);

}  // namespace nib::cli
