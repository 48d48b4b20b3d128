// The git side of indexing, over libgit2: find the repository, read HEAD, enumerate a commit's
// tree or the worktree (tracked plus untracked files git does not ignore), hash blobs and
// compute a worktree's tree id the way `git write-tree` over a temporary index would.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/Status.h"

struct git_repository;

namespace nib {

enum class EntryMode : uint32_t {
  File = 0100644,
  Executable = 0100755,
  Symlink = 0120000,
  Submodule = 0160000,
};

struct TreeEntry {
  std::string path;     // repository-relative
  EntryMode mode = EntryMode::File;
  std::string oid;      // 40 hex digits; "" when it must be computed from the worktree content
  uint64_t size = 0;    // bytes, when known
  bool tracked = true;  // false for untracked worktree files
  int64_t mtimeNs = 0;  // worktree entries: stat data recorded for later freshness checks
  uint64_t inode = 0;
};

// One commit of the history a build mines (HistoryMiner): its message and the paths its change
// from its only parent added or modified.
struct HistoryCommit {
  std::string message;
  std::vector<std::string> paths;
};
// A path a commit moved without changing it (git's exact rename): the history of `from` before
// it is `to`'s.
struct HistoryRename {
  std::string from, to;
  bool operator==(const HistoryRename&) const = default;
};

struct HistoryWalk {
  std::vector<HistoryCommit> commits;  // newest first, each with 1..maxPaths paths
  size_t visited = 0;                  // commits walked (at most the cap)
  size_t merges = 0;                   // left out: a merge's change is its branches' commits
  size_t sweeping = 0;                 // left out: more paths than maxPaths
  bool shallow = false;                // a shallow clone: nothing is walked
};

// What a walk keeps of a commit between builds (a commit never changes): whether it was mined
// or left out, and a mined one's message and paths. A build's walk asks its memo before diffing
// a commit's trees, so a full build diffs only the commits the last one did not walk.
struct CommitSummary {
  enum class Kind : uint8_t { Mined = 0, Merge = 1, Sweeping = 2, Empty = 3 };
  Kind kind = Kind::Mined;
  HistoryCommit commit;                // Mined only, its paths as the commit named them
  std::vector<HistoryRename> renames;  // Mined and Sweeping (a moved folder sweeps)
};
class CommitMemo {
 public:
  virtual ~CommitMemo() = default;
  virtual std::optional<CommitSummary> recall(const std::string& oid) = 0;
  virtual void remember(const std::string& oid, const CommitSummary& summary) = 0;
};

class GitRepository {
 public:
  // Opens the repository whose worktree contains `start` (searching upwards).
  static Expected<std::unique_ptr<GitRepository>> discover(const std::filesystem::path& start);
  ~GitRepository();
  GitRepository(const GitRepository&) = delete;
  GitRepository& operator=(const GitRepository&) = delete;

  const std::filesystem::path& root() const { return root_; }

  // HEAD's commit id, or "" on an unborn branch.
  Expected<std::string> headCommit();
  // The tree id of `commit` ("" for the empty tree of an unborn branch).
  Expected<std::string> commitTree(const std::string& commit);
  // Resolves a revision ("HEAD", "main~2", an id) to a commit id.
  Expected<std::string> resolveCommit(const std::string& rev);

  // Every blob, symlink and submodule of a commit's tree, sorted by path.
  Expected<std::vector<TreeEntry>> listCommit(const std::string& commit);
  // The worktree: index entries still on disk plus untracked, non-ignored files, sorted by
  // path. A tracked file whose stat data match the index keeps the index's blob id (git's own
  // shortcut); the others get oid "" and must be hashed from their content.
  Expected<std::vector<TreeEntry>> listWorktree();

  // The history behind `commit`, newest first (git's own order: every commit before its
  // parents, branches interleaved by commit time), at most `maxCommits` commits
  // walked: the single-parent commits that added or modified between 1 and `maxPaths` paths,
  // each path under the name a later exact rename gave it (a file keeps its history over a
  // `git mv`; an edited move is an addition, as git's exact-only detection sees it).
  // `memo` (optional) answers for commits an earlier walk summarized and learns the others; once
  // `stop` (optional) is set, the walk ends with Cancelled before its next commit.
  Expected<HistoryWalk> history(const std::string& commit, size_t maxCommits, size_t maxPaths,
                                CommitMemo* memo = nullptr, const std::atomic<bool>* stop = nullptr);

  Expected<std::string> readBlob(const std::string& oid);
  // Whether git's ignore rules (.gitignore files, info/exclude, core.excludesFile) ignore a
  // repository path.
  bool isIgnored(const std::string& path);
  // A blob's size from its object header, without reading its content.
  Expected<uint64_t> blobSize(const std::string& oid);
  static Expected<std::string> hashBlob(std::string_view content);
  // The id of the tree holding exactly `entries` (all with oids), as git would compute it.
  static Expected<std::string> treeIdOf(const std::vector<TreeEntry>& entries);

 private:
  GitRepository(git_repository* repo, std::filesystem::path root) : repo_(repo), root_(std::move(root)) {}
  git_repository* repo_;
  std::filesystem::path root_;
};

}  // namespace nib
