// The worktree module, libnib-worktree.so: tree-sitter's extractor and libgit2's ignore rules and
// tree ids, which the light `nib` executable needs only when the worktree differs from the
// index (to lay the changed, deleted and new files over it, as the language server does). Like
// the dense module (support/Module.h), it is loaded on demand, so that a query on a clean
// worktree never maps tree-sitter's grammars or libgit2.
#pragma once

#include <filesystem>
#include <string>

#include "server/Engine.h"
#include "support/Status.h"

namespace nib::cli {

// The module's entry points (cli/worktree_module.cpp defines them).
using WorktreeToolsFn = Expected<WorktreeTools>(const std::filesystem::path& root);
using WorktreeTreeFn = Expected<std::string>(const std::filesystem::path& root);

// The extractor and the ignore rules for the repository at `root`, from the module.
Expected<WorktreeTools> loadWorktreeTools(const std::filesystem::path& root);

// The worktree's tree id now ("" when an untracked nested repository makes it unknowable).
Expected<std::string> moduleWorktreeTree(const std::filesystem::path& root);

// Makes `engine` lay the worktree over its index like the language server: the tools loader,
// through the module. Query commands call syncWorktreeOverlays next. (The worktree probe, a full
// scan with git's rules, is `nib status`'s alone: it sets moduleWorktreeTree itself.)
void useWorktreeModule(Engine& engine);

// Opens the engine of the repository containing `start` for one command that answers for the
// worktree as it is: compared once, and what changed laid over the index through the module.
Expected<std::unique_ptr<Engine>> openForWorktree(const std::filesystem::path& start);

}  // namespace nib::cli
