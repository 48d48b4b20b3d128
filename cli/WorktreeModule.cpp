#include "cli/WorktreeModule.h"

#include "support/Module.h"

namespace nib::cli {

Expected<WorktreeTools> loadWorktreeTools(const std::filesystem::path& root) {
  auto fn = moduleFunction<WorktreeToolsFn>("worktree", "nib_worktree_tools");
  if (!fn) return fn.status();
  return (*fn)(root);
}

Expected<std::string> moduleWorktreeTree(const std::filesystem::path& root) {
  auto fn = moduleFunction<WorktreeTreeFn>("worktree", "nib_worktree_tree");
  if (!fn) return fn.status();
  return (*fn)(root);
}

void useWorktreeModule(Engine& engine) { engine.setWorktreeToolsLoader(loadWorktreeTools); }

Expected<std::unique_ptr<Engine>> openForWorktree(const std::filesystem::path& start) {
  auto engine = Engine::open(start);
  if (!engine) return engine.status();
  (*engine)->compareWorktreeOnce();
  useWorktreeModule(**engine);
  (*engine)->syncWorktreeOverlays();
  return engine;
}

}  // namespace nib::cli
