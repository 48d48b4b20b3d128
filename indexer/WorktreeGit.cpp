#include "indexer/WorktreeGit.h"

#include <fcntl.h>

#include <memory>
#include <mutex>
#include <vector>

#include "indexer/GitRepository.h"
#include "support/GitLite.h"
#include "views/WorktreeSnapshot.h"

namespace nib {

bool leftOutOfWorktree(const std::filesystem::path& root, const TreeEntry& entry) {
  if (entry.tracked || (entry.mode != EntryMode::File && entry.mode != EntryMode::Executable)) return false;
  std::optional<bool> binary = binaryFileAt(AT_FDCWD, (root / entry.path).c_str());
  return binary && *binary;
}

Expected<std::string> worktreeTreeId(const std::filesystem::path& root) {
  auto repo = GitRepository::discover(root);
  if (!repo) return repo.status();
  auto listing = (*repo)->listWorktree();
  if (!listing) return listing.status();
  std::vector<TreeEntry> entries;
  for (TreeEntry& e : *listing) {
    if (e.path.rfind(".nib/", 0) == 0 || leftOutOfWorktree((*repo)->root(), e)) continue;
    if (e.oid.empty()) {
      if (e.mode == EntryMode::Submodule) return std::string();
      auto oid = gitlite::blobIdOfFile((*repo)->root() / e.path);  // streamed; links hash their target
      if (!oid) return oid.status();
      e.oid = *oid;
    }
    entries.push_back(std::move(e));
  }
  return GitRepository::treeIdOf(entries);
}

std::function<bool(const std::string&)> gitIgnoreRules(const std::filesystem::path& root) {
  // The repository is opened by the first question: most worktrees that differ from their
  // index have no new entries to judge, and opening costs milliseconds. libgit2's repository
  // handle is not safe for concurrent use.
  struct Rules {
    std::mutex mutex;
    bool opened = false;
    std::unique_ptr<GitRepository> repo;
  };
  auto rules = std::make_shared<Rules>();
  return [rules, root](const std::string& path) {
    std::lock_guard<std::mutex> g(rules->mutex);
    if (!rules->opened) {
      rules->opened = true;
      if (auto r = GitRepository::discover(root)) rules->repo = std::move(*r);
    }
    return !rules->repo || rules->repo->isIgnored(path);
  };
}

}  // namespace nib
