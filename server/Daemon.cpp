#include "views/IndexLayout.h"
#include "server/Daemon.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "protocol/MessageFraming.h"
#include "support/Binary.h"
#include "support/FileIo.h"
#include "support/GitLite.h"
#include "support/Hash.h"

namespace nib {
namespace fs = std::filesystem;
namespace {

// A connected or listening socket's address for `name` in the abstract namespace.
socklen_t abstractAddress(const std::string& name, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  size_t n = std::min(name.size(), sizeof addr->sun_path - 1);
  std::memcpy(addr->sun_path + 1, name.data(), n);  // sun_path[0] == 0: abstract
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

// Whether the process at the other end of `fd` runs as this user.
bool sameUser(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == ::geteuid();
}

void setTimeouts(int fd, int timeoutMs) {
  timeval tv{timeoutMs / 1000, (timeoutMs % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

std::string encodeRequest(DaemonCall call, std::string_view payload) {
  ByteWriter w;
  w.u8(static_cast<uint8_t>(call));
  w.str(payload);
  return w.take();
}

std::string encodeReply(const CommandOutput& o) {
  ByteWriter w;
  w.svarint(o.exitCode);
  w.str(o.out);
  w.str(o.err);
  return w.take();
}

// One request frame, read within `deadlineMs` in all: a client that sends a byte now and then
// must not hold the (serial) daemon longer than that.
Expected<std::string> readFrame(int fd, int deadlineMs) {
  constexpr size_t kMaxRequest = 1u << 20;  // arguments of one command; a larger frame is refused
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(deadlineMs);
  std::string buf;
  size_t headerEnd = std::string::npos, bodyLength = 0;
  for (;;) {
    if (headerEnd == std::string::npos && (headerEnd = buf.find("\r\n\r\n")) != std::string::npos) {
      std::string_view headers(buf.data(), headerEnd);
      size_t at = headers.find("Content-Length:");
      if (at == std::string_view::npos) return Status(ErrorCode::InvalidArgument, "no Content-Length");
      char* stop = nullptr;
      unsigned long long n = std::strtoull(std::string(headers.substr(at + 15)).c_str(), &stop, 10);
      if (n > kMaxRequest) return Status(ErrorCode::InvalidArgument, "request too large");
      bodyLength = static_cast<size_t>(n);
      headerEnd += 4;
    }
    if (headerEnd != std::string::npos && buf.size() >= headerEnd + bodyLength) return buf.substr(headerEnd, bodyLength);
    if (buf.size() > kMaxRequest + 4096) return Status(ErrorCode::InvalidArgument, "malformed header");
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return Status(ErrorCode::IoError, "the request did not arrive in time");
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return Status(ErrorCode::IoError, "the request did not arrive in time");
    char chunk[4096];
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status(ErrorCode::NotFound, "the client left");
    buf.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace

std::string Daemon::socketName(const fs::path& indexDir) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(indexDir, ec);
  if (ec) canonical = fs::absolute(indexDir);
  return "nib-daemon/" + std::to_string(::geteuid()) + "/" + digestHex(canonical.string()).substr(0, 24);
}

CommandOutput errorOutput(const std::string& message, const std::string& hint) {
  CommandOutput o;
  o.err = "nib: error: " + message + "\n";
  if (!hint.empty()) o.err += "nib: hint: " + hint + "\n";
  o.exitCode = 1;
  return o;
}

Expected<std::unique_ptr<Daemon>> Daemon::start(DaemonOptions options) {
  auto repo = gitlite::discover(options.root);
  if (!repo) return repo.status();
  std::unique_ptr<Daemon> d(new Daemon());
  d->options_ = std::move(options);
  d->root_ = repo->worktree;
  d->indexDir_ = IndexLayout::forRepository(d->root_).dir();
  d->engine_ = std::make_unique<CurrentEngine>(d->root_);
  d->engine_->setPrepare(d->options_.prepare);
  if (auto e = d->engine_->get(); !e) return e.status();
  d->listenFd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (d->listenFd_ < 0) return Status(ErrorCode::IoError, std::string("cannot create a socket: ") + std::strerror(errno));
  sockaddr_un addr;
  socklen_t len = abstractAddress(socketName(d->indexDir_), &addr);
  if (::bind(d->listenFd_, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    if (errno == EADDRINUSE) {
      // A daemon of this user answers; anything else holding the name (another user's process,
      // a stuck daemon) is said as such.
      if (callDaemon(d->indexDir_, DaemonCall::Status, {}, 2000))
        return Status(ErrorCode::InvalidArgument, "a daemon already serves " + d->root_.string());
      return Status(ErrorCode::IoError, "the daemon's socket name for " + d->root_.string() +
                                            " is held by a process that does not answer (another user's, or a stuck "
                                            "daemon); `nib search` works without it");
    }
    return Status(ErrorCode::IoError, std::string("cannot bind the daemon's socket: ") + std::strerror(errno));
  }
  if (::listen(d->listenFd_, 64) != 0)
    return Status(ErrorCode::IoError, std::string("cannot listen: ") + std::strerror(errno));
  d->started_ = std::chrono::steady_clock::now();
  return d;
}

Daemon::~Daemon() {
  if (listenFd_ >= 0) ::close(listenFd_);
}

CommandOutput Daemon::answer(DaemonCall call, std::string_view payload, bool* stop) {
  CommandOutput o;
  switch (call) {
    case DaemonCall::Run: {
      // Follows a newer published version; an index that is gone or broken ends the daemon.
      auto engine = engine_->get();
      if (!engine) {
        o.err = "nib: error: " + engine.status().message() + "\n";
        o.exitCode = 1;
        *stop = true;
        return o;
      }
      ++served_;
      return options_.handler(**engine, payload);
    }
    case DaemonCall::Status: {
      auto up = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_);
      o.out = "daemon      pid " + std::to_string(::getpid()) + ", up " + std::to_string(up.count()) + " s, " +
              std::to_string(served_) + " request(s) served\nrepository  " + root_.string() + "\nversion     " +
              (engine_->loaded() ? engine_->loaded()->manifest().versionId : std::string("(none)")) + "\nidle exit   after " +
              std::to_string(options_.idleTimeout.count()) + " s without a request\n";
      return o;
    }
    case DaemonCall::Stop:
      o.out = "nib: daemon stopped (pid " + std::to_string(::getpid()) + ")\n";
      *stop = true;
      return o;
  }
  o.err = "nib: error: unknown daemon request\n";
  o.exitCode = 2;
  return o;
}

void Daemon::serve() {
  auto lastRequest = std::chrono::steady_clock::now();
  for (;;) {
    auto idleFor = std::chrono::steady_clock::now() - lastRequest;
    if (idleFor >= options_.idleTimeout) return;
    auto waitMs = std::chrono::duration_cast<std::chrono::milliseconds>(options_.idleTimeout - idleFor).count();
    pollfd p{listenFd_, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(waitMs, 60 * 1000)));
    if (ready < 0 && errno != EINTR) return;
    if (ready <= 0) {
      // Nobody asked: a daemon whose index was removed has nothing left to serve.
      if (!fs::exists(indexDir_ / "CURRENT")) return;
      continue;
    }
    int fd = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    lastRequest = std::chrono::steady_clock::now();
    if (!sameUser(fd)) {  // another user: no answer at all
      ::close(fd);
      continue;
    }
    // A client that connects and then says nothing, or dribbles, must not stall the daemon
    // for long: the whole request must arrive within 5 s, the answer leave within 5 s.
    setTimeouts(fd, 5000);
    auto frame = readFrame(fd, 5000);
    bool stop = false;
    CommandOutput reply;
    if (!frame) {
      reply.err = "nib: error: malformed daemon request: " + frame.status().message() + "\n";
      reply.exitCode = 2;
    } else {
      ByteReader r(*frame);
      auto call = static_cast<DaemonCall>(r.u8());
      std::string_view payload = r.str();
      if (!r.ok() || !r.atEnd()) {
        reply.err = "nib: error: malformed daemon request\n";
        reply.exitCode = 2;
      } else {
        reply = answer(call, payload, &stop);
      }
    }
    MessageWriter writer(fd);
    (void)writer.write(encodeReply(reply));  // a client that left does not matter
    ::close(fd);
    if (stop) return;
  }
}

Expected<CommandOutput> callDaemon(const fs::path& indexDir, DaemonCall call, std::string_view payload, int timeoutMs) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status(ErrorCode::IoError, std::string("cannot create a socket: ") + std::strerror(errno));
  sockaddr_un addr;
  socklen_t len = abstractAddress(Daemon::socketName(indexDir), &addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    ::close(fd);
    return Status(ErrorCode::NotFound, "no daemon serves this repository");
  }
  if (!sameUser(fd)) {
    ::close(fd);
    return Status(ErrorCode::InvalidArgument, "the daemon's socket belongs to another user; not used");
  }
  setTimeouts(fd, timeoutMs);
  MessageWriter writer(fd);
  Status sent = writer.write(encodeRequest(call, payload));
  if (!sent.isOk()) {
    ::close(fd);
    return Status(ErrorCode::IoError, "the daemon did not take the request: " + sent.message());
  }
  MessageReader reader(fd);
  auto frame = reader.next();
  ::close(fd);
  if (!frame) return Status(ErrorCode::IoError, "the daemon did not answer: " + frame.status().message());
  ByteReader r(*frame);
  CommandOutput o;
  o.exitCode = static_cast<int>(r.svarint());
  o.out = std::string(r.str());
  o.err = std::string(r.str());
  if (!r.ok() || !r.atEnd()) return Status(ErrorCode::Corrupt, "the daemon's answer is malformed");
  return o;
}

}  // namespace nib
