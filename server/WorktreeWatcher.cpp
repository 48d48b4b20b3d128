#include "server/WorktreeWatcher.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>

namespace nib {

WorktreeWatcher::WorktreeWatcher(const std::filesystem::path& root, const std::vector<std::string>& folders) {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) return;
  constexpr uint32_t kMask = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                             IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;
  bool ok = ::inotify_add_watch(fd_, root.c_str(), kMask) >= 0;
  for (const std::string& f : folders) {
    if (!ok) break;
    if (f.empty()) continue;
    ok = ::inotify_add_watch(fd_, (root / f).c_str(), kMask) >= 0 || errno == ENOENT;
  }
  if (!ok) {  // out of watches (fs.inotify.max_user_watches): fall back to checking every time
    ::close(fd_);
    fd_ = -1;
  }
}

WorktreeWatcher::~WorktreeWatcher() {
  if (fd_ >= 0) ::close(fd_);
}

bool WorktreeWatcher::changed() {
  if (fd_ < 0) return true;
  bool any = false;
  alignas(struct inotify_event) char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n > 0) {
      any = true;  // any event (overflow included) means: look again
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EAGAIN: drained
  }
  return any;
}

}  // namespace nib
