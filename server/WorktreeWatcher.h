// Tells a long-running server whether anything in the worktree may have changed since it last
// looked, so that the per-request freshness check (a stat of every file) runs only after a
// change. Linux inotify on every folder the index knows; where watches cannot be had (limits,
// other systems) it answers "maybe changed" every time and the caller re-checks.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace nib {

class WorktreeWatcher {
 public:
  // Watches `root` and each of `folders` (repository paths) with inotify.
  WorktreeWatcher(const std::filesystem::path& root, const std::vector<std::string>& folders);
  // Watches nothing itself: the editor does (LSP workspace/didChangeWatchedFiles) and reports
  // each changed path through notify(). Editors watch more cheaply than a process of its own
  // with one inotify watch per folder, and the user's watch limit is not spent twice.
  struct FromClient {};
  WorktreeWatcher(const std::filesystem::path& root, const std::vector<std::string>& folders, FromClient);
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
  bool active() const { return fromClient_ || fd_ >= 0; }
  // A path (repository-relative) the client reports changed, created or deleted (any thread).
  // The index's own files and git's are no change of the worktree.
  void notify(const std::string& path);
  // A change the client reported somewhere this side cannot place: look at everything.
  void notifyAll() {
    std::lock_guard<std::mutex> g(pendingMutex_);
    pending_.any = pending_.all = true;
  }
  // Who tells of changes: "client", "inotify", or "none" (every request compares everything).
  const char* source() const { return fromClient_ ? "client" : fd_ >= 0 ? "inotify" : "none"; }

 private:
  // Adds (or renews) a watch on every folder; false when the system has no watches left.
  bool watchAll();

  Events drainClient();

  std::filesystem::path root_;
  std::vector<std::string> folders_;
  bool fromClient_ = false;
  std::mutex pendingMutex_;  // guards pending_: notify() comes from the reader thread
  Events pending_;
  std::unordered_map<int, std::string> folderOfWatch_;  // watch descriptor -> folder
  int fd_ = -1;
};

}  // namespace nib
