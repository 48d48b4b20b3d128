// The typed core every front end talks to (CLI today, the LSP and MCP servers next). Speaks
// repository paths and byte offsets; never URIs or JSON. Owns the repository handle and the
// static provider over the current index version, and says how fresh each answer is.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "providers/StaticProvider.h"
#include "support/Status.h"
#include "support/Text.h"
#include "views/Manifest.h"

namespace nib {

class GitRepository;

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
};

// The state of one file relative to the index, for labelling an answer about it.
struct FileState {
  bool indexed = false;
  bool changedOnDisk = false;  // its content differs from the indexed blob
};

class Engine {
 public:
  // Opens the repository containing `path` and its current index (<repo>/.nib, or `indexDir`).
  static Expected<std::unique_ptr<Engine>> open(const std::filesystem::path& path,
                                                const std::filesystem::path& indexDir = {});
  ~Engine();

  const std::filesystem::path& root() const { return root_; }
  const Manifest& manifest() const { return provider_->manifest(); }
  StaticProvider& provider() { return *provider_; }

  // Maps a filesystem path (absolute or relative to the working directory) to a repository path.
  Expected<std::string> repoPath(const std::filesystem::path& path) const;
  // Byte offset of a 0-based (line, UTF-8 byte column) position in the file as it is on disk.
  Expected<uint32_t> offsetOf(const std::string& path, Position pos);
  FileState fileState(const std::string& path);
  // The content the index was built from when it can still be had (disk, or the git object).
  Expected<std::string> indexedContent(const std::string& path);

  // Cheap: compares HEAD with the indexed commit. `withWorktree` also hashes the worktree into
  // a tree id (costs a scan of the worktree; used by `nib status`).
  Expected<Freshness> freshness(bool withWorktree);

  Expected<NavigationResult> definition(const std::string& path, uint32_t offset);
  Expected<NavigationResult> references(const std::string& path, uint32_t offset, bool includeDeclaration);
  std::vector<SymbolMatch> symbols(std::string_view query, size_t limit);

 private:
  Engine() = default;
  std::filesystem::path root_;
  std::unique_ptr<GitRepository> repo_;
  std::unique_ptr<StaticProvider> provider_;
};

}  // namespace nib
