#include "server/WorktreeWatcher.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>

namespace nib {

WorktreeWatcher::WorktreeWatcher(const std::filesystem::path& root, const std::vector<std::string>& folders)
    : root_(root), folders_(folders) {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ >= 0 && !watchAll()) {  // out of watches (fs.inotify.max_user_watches): check every time
    ::close(fd_);
    fd_ = -1;
  }
}

bool WorktreeWatcher::watchAll() {
  constexpr uint32_t kMask = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                             IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;
  bool ok = ::inotify_add_watch(fd_, root_.c_str(), kMask) >= 0;
  for (const std::string& f : folders_) {
    if (!ok) break;
    if (f.empty()) continue;
    // A folder that is missing now gets its watch when it comes back (see changed()).
    ok = ::inotify_add_watch(fd_, (root_ / f).c_str(), kMask) >= 0 || errno == ENOENT || errno == ENOTDIR;
  }
  return ok;
}

WorktreeWatcher::~WorktreeWatcher() {
  if (fd_ >= 0) ::close(fd_);
}

bool WorktreeWatcher::changed() {
  if (fd_ < 0) return true;
  bool any = false, rewatch = false;
  alignas(struct inotify_event) char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n > 0) {
      any = true;  // any event (overflow included) means: look again
      // A watched folder that went away (its watch with it), a folder that appeared (perhaps a
      // watched one restored by `git checkout`), or lost events: renew every watch, or later
      // edits inside such folders would go unseen.
      for (ssize_t off = 0; off + static_cast<ssize_t>(sizeof(inotify_event)) <= n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + off);
        if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW | IN_ISDIR)) rewatch = true;
        off += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EAGAIN: drained
  }
  if (rewatch && !watchAll()) {
    ::close(fd_);
    fd_ = -1;
  }
  return any;
}

}  // namespace nib
