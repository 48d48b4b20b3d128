// A per-repository background process that keeps an Engine open and the worktree watched, so
// that a short-lived `nib` command asks it instead of opening the index and stat-ing every file
// itself (the freshness check is most of a command's time on large worktrees). It is git's
// fsmonitor idea applied to nib: the git state stays the source of truth, and the daemon only
// knows when to look again.
//
// Transport: a Unix socket in Linux's abstract namespace (no path-length limit, nothing left on
// disk when the process dies), named after the user and the index folder. Both ends check the
// other's user id (SO_PEERCRED), so another user can neither ask nor impersonate a daemon.
// One request per connection, served in arrival order: a request is one frame of bytes
// (MessageFraming) holding a kind and an opaque payload that the front end encodes; the reply
// is the exit status and the exact stdout and stderr bytes the command would have printed.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "server/CurrentEngine.h"
#include "server/Engine.h"
#include "support/Status.h"

namespace nib {

// What a command printed and how it ended: the daemon's answer, and what a command computes
// when it runs without one.
struct CommandOutput {
  std::string out;
  std::string err;
  int exitCode = 0;
};
// "nib: error: <message>" (and "nib: hint: <hint>" when given) on stderr, exit status 1.
CommandOutput errorOutput(const std::string& message, const std::string& hint = "");

enum class DaemonCall : uint8_t {
  Run = 1,     // the front end's handler answers the payload
  Status = 2,  // the daemon describes itself
  Stop = 3,    // the daemon answers, then exits
};

using DaemonHandler = std::function<CommandOutput(Engine& engine, std::string_view payload)>;

struct DaemonOptions {
  std::filesystem::path root;  // any path inside the repository
  std::chrono::seconds idleTimeout{15 * 60};
  DaemonHandler handler;
  std::function<void(Engine&)> prepare;  // called on every engine the daemon opens (CurrentEngine)
};

class Daemon {
 public:
  // The socket name (abstract namespace, without the leading NUL) for an index folder.
  static std::string socketName(const std::filesystem::path& indexDir);
  // Opens the index and starts listening. InvalidArgument when a daemon serves this index;
  // IoError when something else holds its socket name.
  static Expected<std::unique_ptr<Daemon>> start(DaemonOptions options);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Serves until a Stop call, `idleTimeout` without a request, or the index going away.
  void serve();

 private:
  Daemon() = default;
  CommandOutput answer(DaemonCall call, std::string_view payload, bool* stop);
  DaemonOptions options_;
  std::filesystem::path root_, indexDir_;
  std::unique_ptr<CurrentEngine> engine_;
  int listenFd_ = -1;
  std::chrono::steady_clock::time_point started_;
  uint64_t served_ = 0;
};

// Asks the daemon serving `indexDir`. NotFound when none listens (the caller then does the work
// itself); Unavailable when one is there but did not answer within `timeoutMs`.
Expected<CommandOutput> callDaemon(const std::filesystem::path& indexDir, DaemonCall call, std::string_view payload,
                                   int timeoutMs);

}  // namespace nib
