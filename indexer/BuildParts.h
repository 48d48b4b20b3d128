// The pieces a full build (IndexBuilder.cpp) and an update's delta version (IndexDelta.cpp)
// share: the work item of one file, reading and extracting it, the dense view's state in a
// manifest, and publication. Internal to indexer/.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "indexer/Extractor.h"
#include "indexer/GitRepository.h"
#include "indexer/IndexBuilder.h"
#include "views/FactStore.h"
#include "views/FileFacts.h"
#include "views/IndexLayout.h"
#include "views/Manifest.h"
#include "views/SearchFacts.h"
#include "views/VersionDelta.h"
#include "views/WorktreeSnapshot.h"

namespace nib::build {
namespace fs = std::filesystem;

struct WorkItem {
  TreeEntry entry;         // entry.oid is git's id (what the tree id is made of)
  std::string contentOid;  // the id of the bytes actually parsed: the facts' key
  Language language = Language::Unknown;
  bool searchable = false;  // a text file: part of the search views (with or without a grammar)
  SearchFacts search;
  // Filled by workers:
  std::string skipReason;
  FileSummary summary;
  bool extracted = false;
  bool failed = false;
  std::string error;
};

// The bytes a folder holds on disk (allocated blocks).
uint64_t directorySize(const fs::path& dir);

// What processItem needs besides the item: one per worker thread.
struct ItemContext {
  const fs::path& root;
  bool fromWorktree;
  GitRepository* repo;  // the worker's own handle, for commit builds
  const IndexOptions& options;
  Extractor& extractor;
  FactStore::Reader* reader;  // nullptr before the store has anything
  const std::string& profile;
  std::vector<std::pair<std::string, std::string>>& local;  // records for the fact store
  bool searchFacts = true;  // the delta path needs no search facts
};

void processItem(WorkItem& w, ItemContext& ctx);

// The worktree's own tree id: every entry (skipped ones too) with its blob id; "" when an
// untracked nested repository makes it unknowable.
Expected<std::string> worktreeTreeId(const std::vector<WorkItem>& items);

// Writes the pending manifest, checks it and the artifacts named in `verify` (all of them when
// empty), and publishes the version.
Status publishVersion(const IndexLayout& layout, const Manifest& m, const IndexOptions& options,
                      const std::vector<std::string>& syncDirs, const std::set<std::string>& verify = {});

// The state a path has in a version, for a delta entry.
DeltaEntry deltaEntryOf(const WorkItem& w);

struct SnapshotIndex {
  std::unordered_map<std::string_view, const WorktreeSnapshot::File*> byPath;
  explicit SnapshotIndex(const WorktreeSnapshot& s) {
    byPath.reserve(s.files.size());
    for (const auto& f : s.files) byPath.emplace(f.path, &f);
  }
  const WorktreeSnapshot::File* find(std::string_view path) const {
    auto it = byPath.find(path);
    return it == byPath.end() ? nullptr : it->second;
  }
};

// Whether this build would make the same dense view as the manifest's (see IndexBuilder.cpp).
bool denseViewCurrent(const Manifest& m, const IndexOptions& options);
// Whether the manifest's dense view waits for its follow-up version.
bool denseViewPending(const Manifest& m);

// The update path of a worktree build (IndexDelta.cpp): a delta version over the current
// version's base when few files differ from it; nullopt when a full build is needed.
Expected<std::optional<IndexReport>> buildDelta(GitRepository& repo, const IndexLayout& layout,
                                                const IndexOptions& options, const std::string& commit,
                                                const std::string& config, std::vector<WorkItem>& items,
                                                WorktreeSnapshot& snapshot, int64_t scanStartedNs, FactStore& facts,
                                                const std::string& profile,
                                                std::chrono::steady_clock::time_point started, IndexReport report);

}  // namespace nib::build
