#include "server/Engine.h"

#include <optional>

#include "support/FileIo.h"
#include "support/RepoPath.h"
#include "views/IndexLayout.h"

namespace nib {
namespace fs = std::filesystem;

Engine::~Engine() = default;

Expected<std::unique_ptr<Engine>> Engine::open(const fs::path& path, const fs::path& indexDir) {
  auto repo = gitlite::discover(path);
  if (!repo) return repo.status();
  std::unique_ptr<Engine> e(new Engine());
  e->root_ = repo->worktree;
  e->repo_ = std::move(*repo);
  auto provider = StaticProvider::open(indexDir.empty() ? e->root_ / ".nib" : indexDir);
  if (!provider) return provider.status();
  e->provider_ = std::move(*provider);
  return e;
}

Expected<std::string> Engine::repoPath(const fs::path& path) const {
  auto p = RepoPath::fromFilesystem(root_, path);
  if (!p) return p.status();
  return p->str();
}

Expected<uint32_t> Engine::offsetOf(const std::string& path, Position pos) {
  auto content = readFile(root_ / path);
  if (!content) return content.status();
  LineTable lines(*content);
  uint32_t offset;
  if (!lines.offsetOf(pos, &offset))
    return Status(ErrorCode::InvalidArgument, path + " has " + std::to_string(lines.lineCount()) + " lines; line " +
                                                  std::to_string(pos.line + 1) + " does not exist");
  if (pos.column > lines.lineText(pos.line).size())
    return Status(ErrorCode::InvalidArgument, "line " + std::to_string(pos.line + 1) + " of " + path + " has " +
                                                  std::to_string(lines.lineText(pos.line).size()) + " bytes; column " +
                                                  std::to_string(pos.column + 1) + " is past its end");
  return offset;
}

FileState Engine::fileState(const std::string& path) {
  FileState s;
  auto record = provider_->file(path);
  if (!record) return s;
  s.indexed = true;
  auto content = readFile(root_ / path);
  if (!content) {
    s.changedOnDisk = true;
    return s;
  }
  s.changedOnDisk = gitlite::blobId(*content) != record->blobOid;
  return s;
}

Expected<std::string> Engine::diskContent(const std::string& path) { return readFile(root_ / path); }

Expected<Freshness> Engine::freshness(bool withWorktree) {
  Freshness f;
  const Manifest& m = manifest();
  f.indexVersion = m.versionId;
  f.indexCommit = m.sourceCommit;
  f.indexTree = m.sourceTree;
  f.indexDirty = m.dirty;
  auto head = gitlite::headCommit(repo_);
  if (!head) return head.status();
  f.headCommit = *head;
  f.headMatches = f.headCommit == f.indexCommit;
  if (withWorktree) {
    // Stat-based first (no libgit2): conclusive unless folders gained entries that only git's
    // ignore rules can judge; then the probe (a full scan in the indexer worker) decides.
    std::optional<WorktreeComparison> cmp;
    if (auto snapshot = provider_->worktreeSnapshot()) cmp = compareWorktree(root_, *snapshot);
    if (cmp && cmp->conclusive) {
      f.worktreeTree = cmp->unchanged ? m.sourceTree : cmp->treeId;
      f.changedFiles = cmp->changed;
      f.deletedFiles = cmp->deleted;
      f.worktreeMethod = "stat";
    } else if (worktreeProbe_) {
      auto tree = worktreeProbe_(root_);
      if (!tree) return tree.status();
      f.worktreeTree = *tree;
      f.worktreeMethod = "scan";
    } else {
      f.worktreeMethod = "unknown";
    }
    f.worktreeMatches = !f.worktreeTree.empty() && f.worktreeTree == f.indexTree;
    f.fresh = f.headMatches && f.worktreeMatches;
  } else {
    // Without a worktree scan only HEAD can be compared; a dirty-built index is fresh only if
    // the worktree still matches, which is unknown here.
    f.fresh = f.headMatches && !f.indexDirty;
  }
  f.partial = !f.fresh;
  return f;
}

Expected<NavigationResult> Engine::definition(const std::string& path, uint32_t offset) {
  return provider_->definition(path, offset);
}

Expected<NavigationResult> Engine::references(const std::string& path, uint32_t offset, bool includeDeclaration) {
  return provider_->references(path, offset, includeDeclaration);
}

std::vector<SymbolMatch> Engine::symbols(std::string_view query, size_t limit) { return provider_->symbols(query, limit); }

}  // namespace nib
