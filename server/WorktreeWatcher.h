// Tells a long-running server whether anything in the worktree may have changed since it last
// looked, so that the per-request freshness check (a stat of every file) runs only after a
// change. Linux inotify on every folder the index knows; where watches cannot be had (limits,
// other systems) it answers "maybe changed" every time and the caller re-checks.
#pragma once

#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace nib {

class WorktreeWatcher {
 public:
  // Watches `root` and each of `folders` (repository paths).
  WorktreeWatcher(const std::filesystem::path& root, const std::vector<std::string>& folders);
  ~WorktreeWatcher();
  WorktreeWatcher(const WorktreeWatcher&) = delete;
  WorktreeWatcher& operator=(const WorktreeWatcher&) = delete;

  // What happened since the last call. Never blocks.
  struct Events {
    bool any = false;  // something may have changed
    bool all = false;  // anywhere: look at everything (no watches, lost events, folders came or went)
    std::vector<std::string> folders;  // else: the folders (repository paths, "" for the root) with events
  };
  Events drain();
  // True when events arrived since the last call (or watching is not possible).
  bool changed() { return drain().any; }
  bool active() const { return fd_ >= 0; }

 private:
  // Adds (or renews) a watch on every folder; false when the system has no watches left.
  bool watchAll();

  std::filesystem::path root_;
  std::vector<std::string> folders_;
  std::unordered_map<int, std::string> folderOfWatch_;  // watch descriptor -> folder
  int fd_ = -1;
};

}  // namespace nib
