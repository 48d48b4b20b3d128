// What only git can say about a worktree, for the front ends that lay the worktree over an
// index: its tree id now (as `git write-tree` over a temporary index would compute it) and
// git's ignore rules for paths the index does not know. Both need libgit2, so the light `nib`
// executable reaches them through the worktree module (cli/worktree_module.cpp); nib-server
// links them.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "support/Status.h"

namespace nib {

struct TreeEntry;

// The worktree's tree id, the index folder and the left-out files (leftOutOfWorktree) left out;
// "" when an untracked nested repository makes it unknowable.
Expected<std::string> worktreeTreeId(const std::filesystem::path& root);

// Whether a worktree entry under `root` is no part of the worktree an index reflects: an
// untracked file (one git does not ignore) whose first bytes hold a NUL, as git judges a file
// binary — nib indexes nothing of it (WorktreeSnapshot::leftOut).
bool leftOutOfWorktree(const std::filesystem::path& root, const TreeEntry& entry);

// A predicate saying whether git ignores a repository path of the worktree at `root`. Outside
// a repository every path counts as ignored (nothing unknown is added to answers).
std::function<bool(const std::string& path)> gitIgnoreRules(const std::filesystem::path& root);

}  // namespace nib
