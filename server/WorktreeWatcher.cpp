#include "server/WorktreeWatcher.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
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

WorktreeWatcher::WorktreeWatcher(const std::filesystem::path& root, const std::vector<std::string>& folders,
                                 FromClient)
    : root_(root), folders_(folders), fromClient_(true) {
  std::sort(folders_.begin(), folders_.end());
}

void WorktreeWatcher::notify(const std::string& path) {
  if (path == ".git" || path == ".nib" || path.rfind(".git/", 0) == 0 || path.rfind(".nib/", 0) == 0) return;
  size_t slash = path.rfind('/');
  std::string folder = slash == std::string::npos ? std::string() : path.substr(0, slash);
  std::lock_guard<std::mutex> g(pendingMutex_);
  pending_.any = true;
  // A path in a folder the snapshot does not know (a new folder, or the path is one): look at
  // everything, as inotify's watcher does when folders come or go.
  if (!folder.empty() && !std::binary_search(folders_.begin(), folders_.end(), folder)) pending_.all = true;
  else if (std::find(pending_.folders.begin(), pending_.folders.end(), folder) == pending_.folders.end())
    pending_.folders.push_back(folder);
  if (std::binary_search(folders_.begin(), folders_.end(), path)) pending_.all = true;  // a folder itself
}

WorktreeWatcher::Events WorktreeWatcher::drainClient() {
  std::lock_guard<std::mutex> g(pendingMutex_);
  Events out = std::move(pending_);
  pending_ = Events();
  return out;
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
  if (fromClient_) return drainClient();
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
