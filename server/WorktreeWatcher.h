// Tells a long-running server whether anything in the worktree may have changed since it last
// looked, so that the per-request freshness check (a stat of every file) runs only after a
// change. Linux inotify on every folder the index knows; where watches cannot be had (limits,
// other systems) it answers "maybe changed" every time and the caller re-checks.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace nib {

class WorktreeWatcher {
 public:
  // Watches `root` and each of `folders` (repository paths).
  WorktreeWatcher(const std::filesystem::path& root, const std::vector<std::string>& folders);
  ~WorktreeWatcher();
  WorktreeWatcher(const WorktreeWatcher&) = delete;
  WorktreeWatcher& operator=(const WorktreeWatcher&) = delete;

  // True when events arrived since the last call (or watching is not possible). Never blocks.
  bool changed();
  bool active() const { return fd_ >= 0; }

 private:
  // Adds (or renews) a watch on every folder; false when the system has no watches left.
  bool watchAll();

  std::filesystem::path root_;
  std::vector<std::string> folders_;
  int fd_ = -1;
};

}  // namespace nib
