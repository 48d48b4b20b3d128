// The on-disk layout of one repository's index and its publication protocol.
//
//   <repo>/.nib/.gitignore      "*": the index never shows up in `git status`
//   <repo>/.nib/facts/          FactStore (LMDB), shared by all versions
//   <repo>/.nib/versions/<id>/  one built version: `manifest` + view artifacts
//   <repo>/.nib/CURRENT         the id of the version that serves
//   <repo>/.nib/lock            held (flock) by the one process that builds or publishes
//
// A version is built in its own folder and becomes current only when CURRENT is replaced by
// rename(2) after its manifest and artifacts are on disk; a build that dies half-way leaves an
// unreferenced folder that the next build removes, and the previous version keeps serving.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "support/Status.h"
#include "views/Manifest.h"

namespace nib {

class IndexLayout {
 public:
  explicit IndexLayout(std::filesystem::path indexDir) : dir_(std::move(indexDir)) {}
  // The index's folder in a repository's worktree (the default; `nib index --index-dir` aside).
  static constexpr const char* kDirName = ".nib";
  static IndexLayout forRepository(const std::filesystem::path& repoRoot) { return IndexLayout(repoRoot / kDirName); }

  const std::filesystem::path& dir() const { return dir_; }
  // The file naming the current version (replaced by rename(2) to publish one).
  std::filesystem::path currentFile() const { return dir_ / "CURRENT"; }
  std::filesystem::path factsDir() const { return dir_ / "facts"; }
  // The dense view's unit vectors by (model, unit text), shared like the facts (VectorCache).
  std::filesystem::path vectorsDir() const { return dir_ / "vectors"; }
  std::filesystem::path versionsDir() const { return dir_ / "versions"; }
  std::filesystem::path versionDir(const std::string& id) const { return versionsDir() / id; }
  // The call graph kept beside a version's structural view once resolved (providers/CallGraph).
  std::filesystem::path callGraphFile(const std::string& id) const;
  // The dense view's follow-up (indexer/DenseFollowUp): its lock, held while one runs, and the
  // folder it writes its version in before publishing it.
  std::filesystem::path denseLockFile() const { return dir_ / "dense.lock"; }
  std::filesystem::path denseWorkDir() const { return dir_ / "dense-build"; }
  // The measured agreement of a version's answers with the live servers (providers/Agreement),
  // written by `nib serve` beside the versions (a version's folder never changes once
  // published), and the newest such file ("" when there is none).
  std::filesystem::path agreementDir() const { return dir_ / "agreement"; }
  std::filesystem::path agreementFile(const std::string& id) const { return agreementDir() / id; }
  std::filesystem::path newestAgreementFile() const;
  // Where `nib serve`'s clangd keeps its background index (a link to the compilation database,
  // clangd's `.cache/` beside it): inside the index folder, never in the worktree.
  std::filesystem::path clangdDir() const { return dir_ / "clangd"; }
  // Whether a follow-up holds the dense lock now.
  bool denseFollowUpRunning() const;

  // Creates the folders and the .gitignore that keeps the index out of git status.
  Status ensure() const;
  bool exists() const;

  // The id named by CURRENT; NotFound when nothing was ever published.
  Expected<std::string> currentVersion() const;
  // Opens the current version's manifest and checks it may serve (digest of the manifest,
  // structural view complete, artifact sizes). Returns the manifest and its folder.
  Expected<Manifest> currentManifest() const;

  // A fresh, unique id: UTC timestamp plus a counter, sortable by creation.
  std::string newVersionId() const;
  // Atomically makes `id` current. The caller has verified the version's artifacts.
  Status publish(const std::string& id) const;
  // Versions on disk with a readable manifest, oldest first.
  std::vector<std::string> listVersions() const;
  // Removes unpublished leftovers and all but the newest `keep` complete versions, never the
  // current one or its predecessor (rollback target), nor the base of a delta version kept.
  void prune(size_t keep) const;

 private:
  std::filesystem::path dir_;
};

// An exclusive advisory lock on <index>/lock, released on destruction (or process death).
class IndexWriteLock {
 public:
  static Expected<IndexWriteLock> acquire(const IndexLayout& layout, bool wait);
  IndexWriteLock(IndexWriteLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  IndexWriteLock& operator=(IndexWriteLock&&) = delete;
  ~IndexWriteLock();

 private:
  explicit IndexWriteLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace nib
