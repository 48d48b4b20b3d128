// The client side of one live language server (clangd, pylsp, typescript-language-server):
// nib starts the process, speaks LSP to it over its stdin/stdout, and asks it navigation
// requests. JSON stays here (protocol/); callers see wire positions and URIs, exactly as the
// backend sent them, so that a proxied answer can equal the backend's own.
//
// One reader thread per backend matches responses to requests by id and answers the backend's
// own requests (workspace/configuration, registerCapability, progress tokens), so a request
// never waits on a backend that is itself waiting for us. Every wait has a deadline; a backend
// that dies is noticed at once (end of its stdout) and every pending request fails.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "protocol/LspTypes.h"
#include "support/Status.h"

namespace nib {

struct BackendOptions {
  std::vector<std::string> argv;      // argv[0] is looked up on PATH
  std::filesystem::path root;         // the workspace folder, and the process's working directory
  std::filesystem::path stderrPath;   // where the backend's stderr goes ("" = /dev/null)
  std::chrono::milliseconds startTimeout{20000};  // for the initialize handshake
  std::vector<std::pair<std::string, std::string>> environment;  // added to the inherited one
  std::string initializationOptions;  // JSON text for initialize's initializationOptions ("" = none)
};

// typescript-language-server's initializationOptions as nib starts it: the full server only
// (never the syntax-only one, whose answers change as the project loads), this tsserver, and no
// automatic type acquisition (npm against the registry).
std::string typescriptInitializationOptions(const std::string& tsserverPath);

// A location as the backend sent it: a URI and a range in UTF-16 code units (the encoding nib
// asks every backend for).
struct BackendLocation {
  std::string uri;
  lsp::Range range;
};

class LspBackend {
 public:
  // Starts the process and completes initialize/initialized. Unavailable when the command
  // cannot be started or exits; TimedOut when it does not answer initialize in time.
  static Expected<std::unique_ptr<LspBackend>> start(const BackendOptions& options);
  // Asks for shutdown and exit, and kills the process group after a short grace.
  ~LspBackend();
  LspBackend(const LspBackend&) = delete;
  LspBackend& operator=(const LspBackend&) = delete;

  bool alive() const { return alive_; }
  pid_t pid() const { return pid_; }
  const std::string& serverName() const { return serverName_; }
  // Whether the server announced a provider for a navigation method at initialize
  // ("textDocument/implementation" needs implementationProvider). Definition and references
  // are assumed: every backend nib runs answers them.
  bool answers(const std::string& method) const;
  // Why the backend stopped ("" while alive).
  std::string deathReason() const;

  // Document synchronization (full text on every change).
  Status didOpen(const std::string& uri, const std::string& languageId, int version, const std::string& text);
  Status didChange(const std::string& uri, int version, const std::string& text);
  Status didClose(const std::string& uri);

  // textDocument/definition, references, typeDefinition or implementation at a UTF-16
  // position. Waits at most `timeout`; `cancelled` is polled while waiting, and a withdrawn or
  // late request is cancelled in the backend too ($/cancelRequest). A null result is an empty
  // list.
  Expected<std::vector<BackendLocation>> locations(const std::string& method, const std::string& uri,
                                                   lsp::Position position, bool includeDeclaration,
                                                   std::chrono::milliseconds timeout,
                                                   const std::function<bool()>& cancelled = {});
  // Work-done progress the backend reported and has not ended yet (clangd's background index).
  size_t activeProgress() const;
  // Work-done progress that has ended since the start (a background index that finished once).
  size_t endedProgress() const;
  // Waits until no progress is active and none began for `quiet`, or `timeout` passes.
  bool waitForQuiet(std::chrono::milliseconds quiet, std::chrono::milliseconds timeout);

  // Peak resident memory of the backend's process tree (VmHWM summed over it and its
  // descendants), in KiB; 0 when unknown.
  uint64_t peakRssKiB() const;

 private:
  LspBackend() = default;
  struct Pending {
    bool done = false;
    bool failed = false;
    std::string error;
    std::string result;  // the JSON text of "result"
  };
  void readLoop();
  void handleMessage(const std::string& body);
  Status notify(const std::string& method, const std::string& paramsJson);
  // Writes one frame; a backend that stops reading its input (a full pipe for kWriteTimeout) is
  // treated as dead rather than blocking nib.
  Status writeFrame(const std::string& body);
  Status writeFrameLocked(const std::string& body);  // with writeMutex_ held
  void flushRepliesLocked();                          // with writeMutex_ held
  static constexpr std::chrono::milliseconds kWriteTimeout{2000};
  // Sends a request and waits for its answer (the JSON text of its result).
  Expected<std::string> call(const std::string& method, const std::string& paramsJson, std::chrono::milliseconds timeout,
                             const std::function<bool()>& cancelled);
  void markDead(const std::string& why);

  pid_t pid_ = -1;
  int toBackend_ = -1, fromBackend_ = -1;
  std::mutex writeMutex_;  // one frame at a time
  std::thread reader_;
  std::atomic<bool> alive_{false};
  std::atomic<bool> reaped_{false};  // waited for (by the reader when it saw the end)
  std::string serverName_;
  std::set<std::string> providers_;  // the navigation methods initialize announced (set once)

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable changed_;
  std::map<int64_t, Pending> pending_;
  int64_t nextId_ = 1;
  std::string deathReason_;
  std::set<std::string> progress_;  // active work-done progress tokens
  size_t progressEnded_ = 0;
  std::deque<std::string> replies_;  // answers to the backend's requests, waiting for the pipe
  std::chrono::steady_clock::time_point lastProgress_{};
};

}  // namespace nib
