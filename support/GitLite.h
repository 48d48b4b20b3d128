// Just enough git to answer "which commit is checked out" and "what is this file's blob id"
// without libgit2. Query commands run many times a second and must start in milliseconds;
// loading and initializing libgit2 alone costs ~5 ms, so the query path reads HEAD and hashes
// blobs itself. Everything heavier (trees, the index, ignore rules) stays with libgit2 in the
// indexer worker.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "support/Status.h"

namespace nib::gitlite {

struct Repository {
  std::filesystem::path worktree;   // the folder holding `.git`
  std::filesystem::path gitDir;     // `.git`, or where a `.git` file points (linked worktrees)
  std::filesystem::path commonDir;  // where refs and objects live (== gitDir unless linked)
};

// Finds the repository whose worktree contains `start`, searching upwards.
Expected<Repository> discover(const std::filesystem::path& start);

// HEAD's commit id (40 hex digits), or "" on an unborn branch. Follows symbolic refs through
// loose ref files and packed-refs.
Expected<std::string> headCommit(const Repository& repo);

// The id git gives a blob with this content: SHA-1 of "blob <size>\0<content>".
std::string blobId(std::string_view content);
// The same for a file's content, streamed: a huge file is hashed without being held in memory.
// A symbolic link hashes its target, as git stores it.
Expected<std::string> blobIdOfFile(const std::filesystem::path& path);

struct TreeItem {
  std::string path;  // repository-relative, '/'-separated
  uint32_t mode;     // 0100644, 0100755, 0120000 or 0160000
  std::string oid;   // 40 hex digits
};
// The id of the tree holding exactly `items`, as `git write-tree` would compute it.
Expected<std::string> treeId(const std::vector<TreeItem>& items);

// The tree id of a fixed list of paths whose modes and blob ids change over time: a folder's
// tree object is hashed again only when something in it or below it changed (git's
// cache-tree idea), so a long-running process pays for the folders an edit touched, not for
// the whole worktree. Equal to treeId() over the paths present.
class TreeHasher {
 public:
  explicit TreeHasher(const std::vector<std::string_view>& paths);
  // Path `i` now has this mode and blob id; mode 0: absent (deleted).
  void set(size_t i, uint32_t mode, std::string_view oid);
  Expected<std::string> id();

 private:
  struct Node {
    std::string name;  // within its parent
    int parent = -1;
    std::vector<int> children;
    std::vector<uint32_t> files;  // path indexes directly in this folder
    std::string id;               // "" when the folder holds nothing (git omits it)
    bool dirty = true;
  };
  struct File {
    std::string name;
    int node = 0;
    uint32_t mode = 0;
    std::string oid;
  };
  Expected<std::string> hashNode(int n);
  std::vector<Node> nodes_;
  std::vector<File> files_;
};

}  // namespace nib::gitlite
