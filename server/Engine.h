// The typed core every front end talks to (CLI today, the LSP and MCP servers next). Speaks
// repository paths and byte offsets; never URIs or JSON. Owns the repository handle and the
// static provider over the current index version, and says how fresh each answer is.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "providers/StaticProvider.h"
#include "support/GitLite.h"
#include "support/Status.h"
#include "support/Text.h"
#include "views/Manifest.h"

namespace nib {

struct Freshness {
  std::string indexVersion;
  std::string indexCommit;   // the commit the index was built from
  std::string indexTree;     // the tree it reflects (the worktree's when built dirty)
  bool indexDirty = false;   // built from a dirty worktree
  std::string headCommit;    // HEAD now
  std::string worktreeTree;  // the worktree's tree now ("" when not computed)
  bool headMatches = false;  // indexCommit == headCommit
  bool worktreeMatches = false;  // indexTree == worktreeTree (only when computed)
  bool fresh = false;        // everything the index reflects still holds
  bool partial = false;      // some answers may miss changes (stale files)
  std::string worktreeMethod;  // "stat" (snapshot comparison), "scan" (full), "unknown"
  std::vector<std::string> changedFiles;  // known from the stat comparison
  std::vector<std::string> deletedFiles;
};

// The state of one file relative to the index, for labelling an answer about it.
struct FileState {
  bool indexed = false;
  bool changedOnDisk = false;  // its content differs from the indexed blob
};

// Computes the worktree's tree id (the way `git write-tree` over a temporary index would).
// That needs the git index and ignore rules, so front ends supply it from the indexer side;
// the query path never loads libgit2.
using WorktreeProbe = std::function<Expected<std::string>(const std::filesystem::path& root)>;

class Engine {
 public:
  // Opens the repository containing `path` and its current index (<repo>/.nib, or `indexDir`).
  static Expected<std::unique_ptr<Engine>> open(const std::filesystem::path& path,
                                                const std::filesystem::path& indexDir = {});
  void setWorktreeProbe(WorktreeProbe probe) { worktreeProbe_ = std::move(probe); }
  ~Engine();

  const std::filesystem::path& root() const { return root_; }
  const Manifest& manifest() const { return provider_->manifest(); }
  StaticProvider& provider() { return *provider_; }

  // Maps a filesystem path (absolute or relative to the working directory) to a repository path.
  Expected<std::string> repoPath(const std::filesystem::path& path) const;
  // Byte offset of a 0-based (line, UTF-8 byte column) position in the file as it is on disk.
  Expected<uint32_t> offsetOf(const std::string& path, Position pos);
  FileState fileState(const std::string& path);
  // The file's content on disk, for rendering and column conversion. When the file changed
  // since it was indexed (fileState), positions from the index may not line up with it.
  Expected<std::string> diskContent(const std::string& path);

  // Cheap: compares HEAD with the indexed commit. `withWorktree` also asks the worktree probe
  // for the worktree's tree id (a scan of the worktree; used by `nib status`).
  Expected<Freshness> freshness(bool withWorktree);

  Expected<NavigationResult> definition(const std::string& path, uint32_t offset);
  Expected<NavigationResult> references(const std::string& path, uint32_t offset, bool includeDeclaration);
  std::vector<SymbolMatch> symbols(std::string_view query, size_t limit);

 private:
  Engine() = default;
  std::filesystem::path root_;
  gitlite::Repository repo_;
  std::unique_ptr<StaticProvider> provider_;
  WorktreeProbe worktreeProbe_;
};

}  // namespace nib
