#include "indexer/WorkerProcess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "support/FileIo.h"

extern char** environ;

namespace nib {
using Clock = std::chrono::steady_clock;

WorkerResult runWorker(const std::vector<std::string>& args, const std::string& input, std::chrono::seconds timeout,
                       const std::function<bool()>& cancelled, bool timeoutPerOutput) {
  WorkerResult r;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
    r.err = std::string("pipe: ") + std::strerror(errno);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
      if (fd >= 0) close(fd);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    r.err = "cannot start " + args[0] + ": " + std::strerror(rc);
    return r;
  }
  // Written whole before reading: every worker reads all of its input before it writes.
  (void)writeAllTo(in[1], input);
  close(in[1]);
  auto deadline = Clock::now() + timeout;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || (cancelled && cancelled())) {
      // Past its time, or the build was cancelled (a server shutting down must not wait).
      r.timedOut = left <= 0;
      if (!r.timedOut) r.err = "cancelled";
      ::kill(-pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000))) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
        if (i == 0 && timeoutPerOutput) deadline = Clock::now() + timeout;
      }
      else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (pollfd& f : fds)
    if (f.fd >= 0) close(f.fd);
  // What the worker started and left running (a daemonized child) goes with it: once the worker
  // has exited, and before it is reaped — until then its id cannot name another process group.
  siginfo_t exited{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &exited, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  ::kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!r.timedOut) r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (!r.timedOut && WIFSIGNALED(status)) r.err += "killed by signal " + std::to_string(WTERMSIG(status));
  return r;
}

}  // namespace nib
