// Whole-file reads and crash-safe writes. A write goes to a temporary file in the same folder,
// is flushed to disk, and replaces the target by rename(2), so readers see the old or the new
// content and never a torn one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "support/Status.h"

namespace nib {

Expected<std::string> readFile(const std::filesystem::path& path);
// A repository file's bytes: regular files inside `root` only, never through a symbolic link
// (a file replaced by a link, or under a folder that became one, could point anywhere the user
// can read). The one way answers read worktree files (ARCHITECTURE.md, invariant 9).
Expected<std::string> readWorktreeFile(const std::filesystem::path& root, const std::string& path);
Status writeFileAtomic(const std::filesystem::path& path, std::string_view content);
// Writes all of `bytes` to the descriptor (a worker's stdout), retrying short writes; false when
// the descriptor refuses (the reader went away).
bool writeAllTo(int fd, std::string_view bytes);
// Makes a folder's entries (files created or renamed in it) durable.
Status syncDirectory(const std::filesystem::path& dir);

// PATH with its relative entries ("", ".", "bin") left out: a program nib starts in a
// repository (a live backend, its working directory the worktree) must never be found in the
// repository because the user's PATH names the current folder.
std::string absoluteSearchPath();
// The executable `name` names: itself made absolute (from this process's working directory)
// when it holds a '/', else the first regular executable file of that name in an absolute
// PATH entry; nullopt when there is none.
std::optional<std::filesystem::path> findExecutable(const std::string& name);

}  // namespace nib
