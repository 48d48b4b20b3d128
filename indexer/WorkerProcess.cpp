#include "indexer/WorkerProcess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace nib {
using Clock = std::chrono::steady_clock;

namespace {
void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

constexpr size_t kErrKept = 64 * 1024;
constexpr int kOutPipeBytes = 1 << 20;  // Linux's default limit for an unprivileged process

long long millisLeft(Clock::time_point deadline) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
}
}  // namespace

std::unique_ptr<WorkerSession> WorkerSession::start(const std::vector<std::string>& args, std::string* error) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  // stdin is a socket so that writing to a worker that has gone fails (MSG_NOSIGNAL) instead of
  // raising SIGPIPE in whatever process runs the build.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
    *error = std::string("cannot make the worker's pipes: ") + std::strerror(errno);
    for (int* fd : {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1]}) closeFd(*fd);
    return nullptr;
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
  closeFd(in[0]);
  closeFd(out[1]);
  closeFd(err[1]);
  if (rc != 0) {
    for (int* fd : {&in[1], &out[0], &err[0]}) closeFd(*fd);
    *error = "cannot start " + args[0] + ": " + std::strerror(rc);
    return nullptr;
  }
  std::unique_ptr<WorkerSession> s(new WorkerSession());
  s->pid_ = pid;
  s->in_ = in[1];
  s->outFd_ = out[0];
  s->errFd_ = err[0];
  // Written a piece at a time between reads: a worker that writes much to stderr while its input
  // is still coming must not stall both sides.
  fcntl(s->in_, F_SETFL, fcntl(s->in_, F_GETFL) | O_NONBLOCK);
  // Read as much as is there each round (pump), never waiting on an empty pipe.
  for (int fd : {s->outFd_, s->errFd_}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  // A worker's answer runs to megabytes (a clang unit's facts): in a 64 KiB pipe it waited for
  // this process to read each piece, a context switch and a poll round per piece, as a worker
  // idle in write. A larger pipe (best effort: the system's limit may be lower) lets it write
  // most answers at once and go on. The read side's descriptor names the same pipe.
  (void)fcntl(s->outFd_, F_SETPIPE_SZ, kOutPipeBytes);
  return s;
}

WorkerSession::~WorkerSession() {
  if (!finished_) finish(/*kill=*/true, /*timedOut=*/false);
}

bool WorkerSession::pump(int timeoutMs, bool wantWrite) {
  pollfd fds[3] = {{outFd_, POLLIN, 0}, {errFd_, POLLIN, 0}, {wantWrite ? in_ : -1, POLLOUT, 0}};
  if (::poll(fds, 3, timeoutMs) < 0 && errno != EINTR) return false;
  char buf[65536];
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    // What the pipe holds now, read before polling again (up to a bound, so that a worker that
    // never stops writing cannot keep this loop from its other descriptors).
    for (size_t got = 0; got < static_cast<size_t>(kOutPipeBytes);) {
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) {
        closeFd(i == 0 ? outFd_ : errFd_);
        break;
      }
      (i == 0 ? out_ : err_).append(buf, static_cast<size_t>(n));
      got += static_cast<size_t>(n);
      if (static_cast<size_t>(n) < sizeof buf) break;  // drained
    }
    // A session lives for thousands of requests: of what the worker says on stderr, the last
    // 64 KiB are kept (its last words are what a failure is reported with).
    if (i == 1 && err_.size() > 2 * kErrKept) err_.erase(0, err_.size() - kErrKept);
  }
  return outFd_ >= 0 || errFd_ >= 0;
}

WorkerSession::Wait WorkerSession::send(std::string_view bytes, std::chrono::seconds timeout,
                                        const std::function<bool()>& cancelled) {
  auto deadline = Clock::now() + timeout;
  while (!bytes.empty()) {
    if (in_ < 0 || outFd_ < 0) return Wait::Exited;
    ssize_t n = ::send(in_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EPIPE) return Wait::Exited;
    if (n < 0 && errno != EAGAIN && errno != EINTR) return Wait::Exited;
    if (cancelled && cancelled()) return Wait::Cancelled;
    long long left = millisLeft(deadline);
    if (left <= 0) return Wait::TimedOut;
    if (!pump(static_cast<int>(std::min<long long>(left, 1000)), /*wantWrite=*/true)) return Wait::Exited;
  }
  return Wait::Ready;
}

WorkerSession::Wait WorkerSession::readUntil(const std::function<bool(const std::string&)>& whole,
                                             std::chrono::seconds timeout, const std::function<bool()>& cancelled,
                                             bool perOutput) {
  auto deadline = Clock::now() + timeout;
  while (!whole(out_)) {
    if (outFd_ < 0 && errFd_ < 0) return Wait::Exited;
    if (cancelled && cancelled()) return Wait::Cancelled;
    long long left = millisLeft(deadline);
    if (left <= 0) return Wait::TimedOut;
    size_t before = out_.size();
    pump(static_cast<int>(std::min<long long>(left, 1000)), /*wantWrite=*/false);
    if (perOutput && out_.size() > before) deadline = Clock::now() + timeout;
  }
  return Wait::Ready;
}

void WorkerSession::closeInput() { closeFd(in_); }

WorkerResult WorkerSession::finish(bool kill, bool timedOut) {
  WorkerResult r;
  finished_ = true;
  closeFd(in_);
  if (kill) ::kill(-pid_, SIGKILL);
  while (outFd_ >= 0 || errFd_ >= 0) pump(1000, /*wantWrite=*/false);
  // What the worker started and left running (a daemonized child) goes with it: once the worker
  // has exited, and before it is reaped — until then its id cannot name another process group.
  siginfo_t exited{};
  while (::waitid(P_PID, static_cast<id_t>(pid_), &exited, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  ::kill(-pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  r.out = std::move(out_);
  r.err = std::move(err_);
  r.timedOut = timedOut;
  if (!timedOut && !kill) r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (!timedOut && !kill && WIFSIGNALED(status)) r.err += "killed by signal " + std::to_string(WTERMSIG(status));
  return r;
}

WorkerResult runWorker(const std::vector<std::string>& args, const std::string& input, std::chrono::seconds timeout,
                       const std::function<bool()>& cancelled, bool timeoutPerOutput) {
  std::string error;
  auto session = WorkerSession::start(args, &error);
  if (!session) {
    WorkerResult r;
    r.err = error;
    return r;
  }
  WorkerSession::Wait wait = session->send(input, timeout, cancelled);
  // Every worker reads all of its input before it writes: the end of it is its signal to start.
  if (wait == WorkerSession::Wait::Ready || wait == WorkerSession::Wait::Exited) {
    session->closeInput();
    wait = session->readUntil([](const std::string&) { return false; }, timeout, cancelled, timeoutPerOutput);
  }
  bool ended = wait == WorkerSession::Wait::Exited;
  WorkerResult r = session->finish(/*kill=*/!ended, wait == WorkerSession::Wait::TimedOut);
  if (wait == WorkerSession::Wait::Cancelled) r.err = "cancelled";
  return r;
}

}  // namespace nib
