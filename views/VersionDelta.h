// A delta version: the files that differ from a complete base version, and the worktree as it
// was when the delta was built. `nib index` writes one instead of rewriting every view when few
// files changed (IndexBuilder's update path): the base's view files are hard-linked into the
// new version's folder, and the query side lays the delta over them (changed and added files
// from their stored facts, deleted ones as tombstones) the way it lays a dirty worktree over a
// version. Stored as a small LMDB environment (`delta/`) so that the snapshot can be read in
// place like a commit view's.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/Language.h"
#include "support/Status.h"
#include "views/CommitView.h"
#include "views/Lmdb.h"
#include "views/Manifest.h"
#include "views/WorktreeSnapshot.h"

namespace nib {

struct DeltaEntry {
  enum class State : uint8_t {
    Indexed = 0,  // the file has facts now (changed or added)
    Skipped = 1,  // present but not indexed (skipReason); still searchable when `searchable`
    Deleted = 2,  // gone: a tombstone over the base's file
  };
  std::string path;
  State state = State::Deleted;
  std::string blobOid;  // the id of the bytes read (the facts' key); "" when not read
  Language language = Language::Unknown;
  uint64_t size = 0;
  bool searchable = false;  // part of the search routes (a text file, grammar or not)
  std::string skipReason;   // Skipped: why
  uint64_t definitions = 0, occurrences = 0;  // Indexed: the facts' counts (for statistics)
  friend bool operator==(const DeltaEntry&, const DeltaEntry&) = default;
};

class VersionDelta {
 public:
  static constexpr const char* kDirectory = "delta";  // the view's folder in a version
  // `entries` sorted by path. Synced before returning (the manifest records its digest next).
  static Status write(const std::filesystem::path& dir, const std::vector<DeltaEntry>& entries,
                      const WorktreeSnapshot& snapshot);
  static Expected<std::unique_ptr<VersionDelta>> open(const std::filesystem::path& dir);
  // One `entries` record (the key is the path); nullopt for bytes of another format or damaged.
  static std::optional<DeltaEntry> decodeEntry(std::string_view path, std::string_view bytes);

  // Sorted by path.
  const std::vector<DeltaEntry>& entries() const { return entries_; }
  const DeltaEntry* find(const std::string& path) const;
  // The worktree when the delta was built; valid while this object lives.
  Expected<WorktreeSnapshot> worktreeSnapshot() { return readWorktreeSnapshot(txn_); }

 private:
  VersionDelta(std::unique_ptr<LmdbEnv> env, LmdbTxn txn) : env_(std::move(env)), txn_(std::move(txn)) {}
  std::unique_ptr<LmdbEnv> env_;
  LmdbTxn txn_;
  std::vector<DeltaEntry> entries_;
};

// The worktree snapshot a version recorded (NotFound for a commit build): a delta version's own,
// else its commit view's. The snapshot views memory the other members hold.
struct RecordedWorktree {
  std::unique_ptr<CommitView> view;
  std::unique_ptr<VersionDelta> delta;
  WorktreeSnapshot snapshot;
};
Expected<RecordedWorktree> recordedWorktree(const std::filesystem::path& versionDir, const Manifest& manifest);

}  // namespace nib
