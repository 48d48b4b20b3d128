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
// Writes the output to stdout and stderr; returns its exit status.
int printOutput(const CommandOutput& output);

// A request's first byte says which command it is.
inline constexpr uint8_t kSearchRequest = 1;
inline constexpr uint8_t kStatusRequest = 2;

// `nib search` as bytes: the same for this process and for a daemon.
CommandOutput renderSearch(Engine& engine, const SearchArgs& args);
std::string encodeSearchArgs(const SearchArgs& args);
Expected<SearchArgs> decodeSearchArgs(std::string_view bytes);

// `nib status` likewise.
CommandOutput renderStatus(Engine& engine, const StatusArgs& args);
std::string encodeStatusArgs(const StatusArgs& args);
Expected<StatusArgs> decodeStatusArgs(std::string_view bytes);

}  // namespace nib::cli
