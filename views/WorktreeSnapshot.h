// What the worktree looked like when an index version was built from it: every entry's stat
// data and blob id, and every folder's entry names. Comparing it with the disk later answers
// "is the worktree still what the index reflects?" with stat calls alone (hashing only files
// whose stat data changed), without libgit2 — the cheap, per-request freshness check of
// DESIGN.md §2. New names in a folder are the one thing it cannot judge (they may be
// ignored), and it says so.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "support/Status.h"
#include "views/Lmdb.h"

namespace nib {

// The prefix git inspects for a NUL byte to call a file binary; nib indexes nothing of such a file.
constexpr size_t kBinaryProbeBytes = 8000;

//
//
// The text fields are views: into storage the snapshot owns (`intern`) when built, into the
// index's mapped memory when read. The CLI decodes a snapshot on every call, and at ~13k files
// an allocation per path, blob id and folder entry (and the page faults behind them) was a
// third of a whole `nib search` process.
struct WorktreeSnapshot {
  struct File {
    std::string_view path;
    uint32_t mode = 0100644;  // git mode
    std::string_view oid;     // "" when unknown (an untracked nested repository)
    uint64_t size = 0;
    int64_t mtimeNs = 0;
    uint64_t inode = 0;
  };
  struct Dir {
    std::string_view path;  // "" for the root
    int64_t mtimeNs = 0;
    std::vector<std::string_view> names;  // sorted entry names, ignored ones included
  };
  std::vector<File> files;
  std::vector<Dir> dirs;
  // Untracked files git does not ignore whose first kBinaryProbeBytes hold a NUL byte: nib
  // indexes nothing of them (clangd's `.cache/clangd/index` shards, build products a .gitignore
  // misses), so they are not part of the worktree an index reflects, and its tree id leaves them
  // out (leftOutOfWorktree). Their stat data is kept all the same: one that changed is probed
  // again, since it may have turned into text. Their oid is empty.
  std::vector<File> leftOut;

  WorktreeSnapshot() = default;
  WorktreeSnapshot(WorktreeSnapshot&&) = default;
  WorktreeSnapshot& operator=(WorktreeSnapshot&&) = default;

  // Copies `text` into storage this snapshot owns and returns a view of the copy, valid for
  // the snapshot's life (moves included: the storage stays where it is).
  std::string_view intern(std::string_view text);

  // Records `dirs` for the folders holding `files` or `leftOut` (and the root) from the disk as
  // it is now.
  Status recordDirectories(const std::filesystem::path& root);

 private:
  std::unique_ptr<std::deque<std::string>> storage_ = std::make_unique<std::deque<std::string>>();
};

// Persistence inside a version's LMDB environment (table "worktree").
Status writeWorktreeSnapshot(LmdbTxn& txn, const WorktreeSnapshot& snapshot);
// NotFound when the version was not built from a worktree. The snapshot's text views the
// transaction's mapped memory: it is valid while `txn` stays open.
Expected<WorktreeSnapshot> readWorktreeSnapshot(LmdbTxn& txn);
// The stored snapshot's bytes decoded; its text views `bytes`, which must outlive it.
Expected<WorktreeSnapshot> decodeWorktreeSnapshot(std::string_view bytes);

struct WorktreeComparison {
  bool conclusive = false;            // false: new folder entries that only git can judge
  std::string reason;                 // why not conclusive
  std::vector<std::string> changed;   // files whose content changed
  std::vector<std::string> deleted;   // files that are gone
  std::string treeId;                 // the worktree's tree id now, once computeTreeId computed it
  bool treeKnown = false;             // every blob id is known: computeTreeId can compute it
  bool unchanged = false;             // conclusive, and nothing changed: the recorded tree stands
  // New entries in recorded folders (files or folders; maybe ignored), and left-out files that
  // are text now. Binary files, and new folders holding nothing else, are not among them: they
  // are no part of the worktree an index reflects (WorktreeSnapshot::leftOut).
  std::vector<std::string> added;
  size_t rehashed = 0;                // files whose stat data changed but not their content (hashed each time)
  // What each file and folder looked like, for a later comparison that looks again only at the
  // folders that had events (compareWorktree's `previous`).
  std::shared_ptr<const struct WorktreeComparisonState> state;
};

// Blob ids of files an earlier comparison hashed, with the stat data they were hashed at: a
// long-running process compares again after every change, and a dirty file need not be hashed
// again while its stat data stays the same (the snapshot's own shortcut, for files it lacks).
struct WorktreeHashCache {
  struct Entry {
    uint64_t size = 0;
    int64_t mtimeNs = 0;
    uint64_t inode = 0;
    uint32_t mode = 0;
    std::string oid;
  };
  std::unordered_map<std::string, Entry> entries;
  size_t hits = 0;  // lookups that spared a hash (for tests and benchmarks)
};

// Compares the snapshot with the disk under `root`; `cache` (optional) is consulted before
// hashing a file whose stat data changed, and updated. With `previous` (an earlier comparison
// of the same snapshot) and `folders` (repository paths, "" for the root), only the files
// directly in those folders and those folders' entries are looked at again; everything else is
// taken from `previous` — for a watcher that knows where the events were.
WorktreeComparison compareWorktree(const std::filesystem::path& root, const WorktreeSnapshot& snapshot,
                                   WorktreeHashCache* cache = nullptr, const WorktreeComparison* previous = nullptr,
                                   const std::vector<std::string>* folders = nullptr);

// Fills `cmp->treeId` when the worktree changed and its tree is knowable (conclusive, every blob
// id known). Separate from the comparison because only `nib status` shows the tree id, and on a
// large worktree hashing its folders costs as much as the comparison's stat calls.
void computeTreeId(const WorktreeSnapshot& snapshot, WorktreeComparison* cmp);

// Stat data in the snapshot's terms; false when the path does not exist. `mode` is git's:
// 0100644, 0100755 or 0120000 (or 0 for anything else).
bool statEntry(const char* path, uint64_t* size, int64_t* mtimeNs, uint64_t* inode, uint32_t* mode);
// The same for `name` inside the open folder `dirFd` (AT_FDCWD for a path).
bool statEntryAt(int dirFd, const char* name, uint64_t* size, int64_t* mtimeNs, uint64_t* inode, uint32_t* mode);
// Whether the file `name` inside the open folder `dirFd` holds a NUL byte in its first
// kBinaryProbeBytes, as git judges a file binary; nullopt when it cannot be read.
std::optional<bool> binaryFileAt(int dirFd, const char* name);
inline bool statEntry(const std::filesystem::path& path, uint64_t* size, int64_t* mtimeNs, uint64_t* inode,
                      uint32_t* mode) {
  return statEntry(path.c_str(), size, mtimeNs, inode, mode);
}

}  // namespace nib
