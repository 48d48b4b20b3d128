// `nib daemon start|stop|status|run`, and asking a daemon on behalf of another command.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "views/IndexLayout.h"
#include "cli/DaemonCli.h"
#include "cli/WorktreeModule.h"
#include "support/GitLite.h"
#include "support/ProjectConfig.h"

namespace nib::cli {
namespace {

// A search on a large repository takes well under a second; a daemon silent for this long is
// broken, and the command then does the work itself.
constexpr int kAnswerTimeoutMs = 60 * 1000;

std::optional<std::filesystem::path> indexDirOf(const std::string& root) {
  auto repo = gitlite::discover(root);
  if (!repo) return std::nullopt;
  return IndexLayout::forRepository(repo->worktree).dir();
}

CommandOutput handle(Engine& engine, std::string_view payload) {
  auto refused = [](const Status& s) {
    CommandOutput o;
    o.err = "nib: error: " + s.message() + "\n";
    o.exitCode = kDaemonRefused;
    return o;
  };
  const uint8_t kind = payload.empty() ? 0 : static_cast<uint8_t>(payload[0]);
  if (kind == kStatusRequest) {
    auto args = decodeStatusArgs(payload);
    return args ? renderStatus(engine, *args) : refused(args.status());
  }
  // Navigation answers for the worktree as it is: what changed is laid over the index (the
  // watcher keeps this cheap while nothing changes).
  if (kind == kNavigationRequest) {
    auto request = decodeNavigation(payload);
    if (!request) return refused(request.status());
    engine.syncWorktreeOverlays();
    return renderNavigation(engine, *request);
  }
  if (kind == kSymbolsRequest) {
    auto args = decodeSymbolsArgs(payload);
    if (!args) return refused(args.status());
    engine.syncWorktreeOverlays();
    return renderSymbols(engine, *args);
  }
  auto args = decodeSearchArgs(payload);
  return args ? renderSearch(engine, *args) : refused(args.status());
}

DaemonOptions optionsFor(const DaemonArgs& args) {
  DaemonOptions options;
  options.root = args.root;
  options.idleTimeout = std::chrono::minutes(args.idleMinutes);
  options.handler = handle;
  options.prepare = [](Engine& engine) { useWorktreeModule(engine); };
  return options;
}

int start(const DaemonArgs& args, const std::filesystem::path& indexDir) {
  if (auto running = callDaemon(indexDir, DaemonCall::Status, {}, 5000)) {
    std::fprintf(stderr, "nib: a daemon already serves this repository\n");
    return printOutput(*running) == 0 ? 0 : 1;
  }
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return fail("cannot create a pipe");
  pid_t pid = ::fork();
  if (pid < 0) return fail("cannot fork");
  if (pid == 0) {
    // The daemon: its own session (no terminal to lose), stdin and stdout on /dev/null, and
    // stderr in .nib/daemon.log for whatever it has to say later.
    ::close(ready[0]);
    ::setsid();
    // Nothing the caller had open stays open for the daemon's life (a pipe a harness waits on
    // to close, a jobserver): every descriptor but the readiness pipe goes.
    if (ready[1] > 3) ::close_range(3, static_cast<unsigned>(ready[1]) - 1, 0);
    ::close_range(static_cast<unsigned>(ready[1]) + 1, ~0U, 0);
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    int log = ::open((indexDir / "daemon.log").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (null >= 0) {
      ::dup2(null, STDIN_FILENO);
      ::dup2(null, STDOUT_FILENO);
    }
    ::dup2(log >= 0 ? log : null, STDERR_FILENO);
    if (null > STDERR_FILENO) ::close(null);
    if (log > STDERR_FILENO) ::close(log);
    auto daemon = Daemon::start(optionsFor(args));
    std::string word = daemon ? "ok" : daemon.status().message();
    (void)!::write(ready[1], word.data(), word.size());
    ::close(ready[1]);
    if (!daemon) ::_exit(1);
    (*daemon)->serve();
    ::_exit(0);
  }
  ::close(ready[1]);
  std::string word;
  char buf[512];
  for (ssize_t n; (n = ::read(ready[0], buf, sizeof buf)) != 0;) {
    if (n < 0) break;
    word.append(buf, static_cast<size_t>(n));
  }
  ::close(ready[0]);
  if (word != "ok") {
    ::waitpid(pid, nullptr, 0);
    return fail(word.empty() ? "the daemon did not start" : word);
  }
  std::printf("nib: daemon started (pid %d); `nib search`, `status`, `def`, `refs` and `symbols` ask it until it has been idle for %u min "
              "(`nib daemon stop` ends it sooner)\n",
              static_cast<int>(pid), args.idleMinutes);
  return 0;
}

}  // namespace

bool startDaemonForLaterCommands(const Engine& engine, bool allowed) {
  if (!allowed) return false;
  if (const char* off = std::getenv("NIB_NO_AUTO_DAEMON"); off && *off && std::string_view(off) != "0") return false;
  uint64_t threshold = kAutoDaemonFiles;
  if (const char* v = std::getenv("NIB_DAEMON_AUTO_FILES"); v && *v) threshold = std::strtoull(v, nullptr, 10);
  auto files = engine.manifest().stats.find("files");
  if (files == engine.manifest().stats.end() || std::strtoull(files->second.c_str(), nullptr, 10) < threshold) return false;
  if (auto config = ProjectConfig::load(engine.root()); !config || config->get("daemon.auto") == std::optional<std::string>("false"))
    return false;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return false;
  const std::filesystem::path log = engine.indexDir() / "daemon.log";
  const std::string root = engine.root().string();
  // Everything the child needs is prepared before fork: between fork and exec only
  // async-signal-safe calls (this process may have had threads).
  const char* argv[] = {"nib", "daemon", "run", "--root", root.c_str(), nullptr};
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    // Its own session, stdin and stdout on /dev/null, stderr in the daemon's log, and nothing
    // else this command had open (a pipe a caller waits on to close).
    ::setsid();
    int null = ::open("/dev/null", O_RDWR);
    int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (null >= 0) {
      ::dup2(null, STDIN_FILENO);
      ::dup2(null, STDOUT_FILENO);
    }
    ::dup2(err >= 0 ? err : null, STDERR_FILENO);
    ::close_range(3, ~0U, 0);
    ::execv(self.c_str(), const_cast<char* const*>(argv));
    ::_exit(127);
  }
  std::fprintf(stderr,
               "nib: note: started a daemon that watches this worktree, so that the next commands answer in a few ms "
               "(`nib daemon stop` ends it; NIB_NO_AUTO_DAEMON=1 or .nib.conf's daemon.auto = false never starts one)\n");
  return true;
}

int printOutput(const CommandOutput& output) {
  std::fwrite(output.out.data(), 1, output.out.size(), stdout);
  std::fflush(stdout);
  std::fwrite(output.err.data(), 1, output.err.size(), stderr);
  return output.exitCode;
}

std::optional<CommandOutput> askDaemon(const std::string& root, std::string_view payload) {
  auto indexDir = indexDirOf(root);
  if (!indexDir) return std::nullopt;  // not a repository: the command says so itself
  auto answer = callDaemon(*indexDir, DaemonCall::Run, payload, kAnswerTimeoutMs);
  // A request this daemon cannot decode (it is older than the command): the work is done here.
  if (answer && answer->exitCode == kDaemonRefused) return std::nullopt;
  if (answer) return std::move(*answer);
  if (answer.status().code() != ErrorCode::NotFound)
    std::fprintf(stderr, "nib: note: %s; answering without the daemon\n", answer.status().message().c_str());
  return std::nullopt;
}

int runDaemon(const DaemonArgs& args) {
  // A client that leaves before its answer is written must not end the daemon (or this command).
  ::signal(SIGPIPE, SIG_IGN);
  auto indexDir = indexDirOf(args.root);
  if (!indexDir) return fail(args.root + " is not inside a git repository");
  if (args.action == "start") return start(args, *indexDir);
  if (args.action == "run") {
    auto daemon = Daemon::start(optionsFor(args));
    if (!daemon) return fail(daemon.status().message());
    std::fprintf(stderr, "nib: daemon serving %s (pid %d)\n", indexDir->parent_path().c_str(), static_cast<int>(::getpid()));
    (*daemon)->serve();
    return 0;
  }
  DaemonCall call = args.action == "stop" ? DaemonCall::Stop : DaemonCall::Status;
  auto answer = callDaemon(*indexDir, call, {}, 5000);
  if (!answer) {
    if (answer.status().code() == ErrorCode::NotFound) {
      std::fprintf(stderr, "nib: no daemon serves %s\n", indexDir->parent_path().c_str());
      return 1;
    }
    return fail(answer.status().message());
  }
  return printOutput(*answer);
}

}  // namespace nib::cli
