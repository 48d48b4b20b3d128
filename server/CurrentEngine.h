// An Engine that follows the repository's current index version: long-running front ends (the
// daemon, the MCP server) reopen it when `nib index` publishes a newer version, and keep the
// worktree watched so that the per-request freshness check runs only after a change.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "views/IndexLayout.h"
#include "server/Engine.h"

namespace nib {

class CurrentEngine {
 public:
  // `root`: the repository's worktree root.
  explicit CurrentEngine(std::filesystem::path root) : root_(std::move(root)), indexDir_(IndexLayout::forRepository(root_).dir()) {}
  // Called on every engine this opens, before its first use (the front end's worktree tools).
  void setPrepare(std::function<void(Engine&)> prepare) { prepare_ = std::move(prepare); }

  // The engine on the version CURRENT names now; an error says why there is none.
  Expected<Engine*> get();
  Engine* loaded() const { return engine_.get(); }
  const std::filesystem::path& root() const { return root_; }
  const std::filesystem::path& indexDir() const { return indexDir_; }

 private:
  std::filesystem::path root_, indexDir_;
  std::unique_ptr<Engine> engine_;
  std::function<void(Engine&)> prepare_;
};

}  // namespace nib
