#include "server/WorktreeWatcher.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <set>

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
  int wd = ::inotify_add_watch(fd_, root_.c_str(), kMask);
  bool ok = wd >= 0;
  if (ok) folderOfWatch_[wd] = "";
  for (const std::string& f : folders_) {
    if (!ok) break;
    if (f.empty()) continue;
    // A folder that is missing now gets its watch when it comes back (see drain()).
    wd = ::inotify_add_watch(fd_, (root_ / f).c_str(), kMask);
    if (wd >= 0) folderOfWatch_[wd] = f;
    ok = wd >= 0 || errno == ENOENT || errno == ENOTDIR;
  }
  return ok;
}

WorktreeWatcher::~WorktreeWatcher() {
  if (fd_ >= 0) ::close(fd_);
}

WorktreeWatcher::Events WorktreeWatcher::drain() {
  Events out;
  if (fd_ < 0) {
    out.any = out.all = true;
    return out;
  }
  bool rewatch = false;
  std::set<std::string> folders;
  alignas(struct inotify_event) char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n > 0) {
      out.any = true;
      // A watched folder that went away (its watch with it), a folder that appeared (perhaps a
      // watched one restored by `git checkout`), or lost events: renew every watch and look at
      // everything, or later edits inside such folders would go unseen.
      for (ssize_t off = 0; off + static_cast<ssize_t>(sizeof(inotify_event)) <= n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + off);
        if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW | IN_ISDIR)) rewatch = true;
        else if (auto it = folderOfWatch_.find(e->wd); it != folderOfWatch_.end()) folders.insert(it->second);
        else rewatch = true;
        off += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EAGAIN: drained
  }
  if (rewatch) {
    out.all = true;
    if (!watchAll()) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  out.folders.assign(folders.begin(), folders.end());
  return out;
}

}  // namespace nib
