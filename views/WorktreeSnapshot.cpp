#include "views/WorktreeSnapshot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>
#include <unordered_map>

#include "support/Binary.h"
#include "support/GitLite.h"

namespace nib {
namespace fs = std::filesystem;
namespace {

// Format 2 added the left-out files; a format-1 snapshot has none.
constexpr uint8_t kFormat = 2;
// How many entries of a new folder are looked through for one that counts (countsAsAddition).
constexpr size_t kAdditionBudget = 4096;
// The comparison's threads at most: the stat calls of a large worktree split across them.
constexpr unsigned kCheckThreads = 4;

std::vector<std::string> listNames(const fs::path& dir, bool* ok) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  *ok = d != nullptr;
  if (!d) return names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

int64_t mtimeOf(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Whether the new entry `name` of the folder `dir` (a path) counts as a change to the worktree:
// anything but a binary file or a folder holding nothing else. A folder is looked through up to
// kAdditionBudget entries; a larger one counts, as does anything unreadable or a link.
bool countsAsAddition(const std::string& dir, const std::string& name) {
  std::vector<std::string> pending{dir + "/" + name};
  size_t looked = 0;
  for (bool first = true; !pending.empty(); first = false) {
    std::string path = std::move(pending.back());
    pending.pop_back();
    struct stat st;
    if (first) {
      if (::lstat(path.c_str(), &st) != 0) return true;
      if (S_ISREG(st.st_mode)) {
        std::optional<bool> binary = binaryFileAt(AT_FDCWD, path.c_str());
        return !binary || !*binary;
      }
      if (!S_ISDIR(st.st_mode)) return true;
    }
    DIR* d = ::opendir(path.c_str());
    if (!d) return true;
    bool counts = false;
    while (dirent* e = ::readdir(d)) {
      std::string_view n = e->d_name;
      if (n == "." || n == "..") continue;
      if (++looked > kAdditionBudget) {
        counts = true;
        break;
      }
      if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        counts = true;
        break;
      }
      if (S_ISDIR(st.st_mode)) {
        pending.push_back(path + "/" + e->d_name);
        continue;
      }
      std::optional<bool> binary = S_ISREG(st.st_mode) ? binaryFileAt(::dirfd(d), e->d_name) : std::nullopt;
      if (!binary || !*binary) {
        counts = true;
        break;
      }
    }
    ::closedir(d);
    if (counts) return true;
  }
  return false;
}

// Marks in `text` the left-out files (WorktreeSnapshot::leftOut) that are no longer binary files
// — a file there now, or a link, whose stat data changed and whose first bytes hold no NUL — in
// the folders of `scope` (all when null); the others are unmarked. A deleted one is no change.
void checkLeftOut(const std::string& rootText, const WorktreeSnapshot& snapshot, const std::set<std::string_view>* scope,
                  std::vector<char>& text) {
  std::string dir, name;
  int dirFd = -1;
  bool dirOpen = false;
  for (size_t i = 0; i < snapshot.leftOut.size(); ++i) {
    const WorktreeSnapshot::File& f = snapshot.leftOut[i];
    size_t slash = f.path.rfind('/');
    std::string_view fileDir = slash == std::string_view::npos ? std::string_view() : f.path.substr(0, slash);
    if (scope && !scope->count(fileDir)) continue;
    text[i] = 0;
    if (!dirOpen || fileDir != dir) {
      if (dirFd >= 0) ::close(dirFd);
      dir.assign(fileDir);
      dirFd = ::open((dir.empty() ? rootText : rootText + "/" + dir).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      dirOpen = true;
    }
    name.assign(slash == std::string_view::npos ? f.path : f.path.substr(slash + 1));
    uint64_t size, inode;
    int64_t mtime;
    uint32_t mode;
    if (dirFd < 0 || !statEntryAt(dirFd, name.c_str(), &size, &mtime, &inode, &mode)) continue;
    if (size == f.size && mtime == f.mtimeNs && inode == f.inode && mode == f.mode) continue;
    std::optional<bool> binary = mode == 0120000 || mode == 0 ? std::nullopt : binaryFileAt(dirFd, name.c_str());
    text[i] = !binary || !*binary;
  }
  if (dirFd >= 0) ::close(dirFd);
}

// Folders: a new name anywhere makes the answer git's to give, unless it is a binary file or a
// folder of them (no part of the worktree an index reflects). Their mtimes mostly came with the
// file pass (`seen`: the folder was open there anyway); only folders without files of their own
// are looked up by path. Fills `addedPerDir` for `dirIndexes`.
void compareFolders(const std::string& rootText, const WorktreeSnapshot& snapshot, const std::vector<uint32_t>& dirIndexes,
                    const std::vector<std::vector<std::pair<std::string_view, int64_t>>>& seen,
                    std::vector<std::vector<std::string>>& addedPerDir) {
  std::unordered_map<std::string_view, int64_t> folderMtimes;
  for (const auto& folders : seen)
    for (const auto& [path, mtime] : folders) folderMtimes.emplace(path, mtime);
  for (uint32_t di : dirIndexes) {
    const auto& d = snapshot.dirs[di];
    addedPerDir[di].clear();
    std::string full = rootText;
    if (!d.path.empty()) full.append("/").append(d.path);
    int64_t mtime;
    if (auto it = folderMtimes.find(d.path); it != folderMtimes.end()) {
      mtime = it->second;
    } else {
      struct stat st;
      if (::stat(full.c_str(), &st) != 0) continue;  // the folder is gone: its files are missing
      mtime = mtimeOf(st);
    }
    if (mtime == d.mtimeNs) continue;
    bool ok;
    std::vector<std::string> now = listNames(full, &ok);
    std::vector<std::string> added;
    std::set_difference(now.begin(), now.end(), d.names.begin(), d.names.end(), std::back_inserter(added));
    std::erase_if(added, [&](const std::string& name) { return !countsAsAddition(full, name); });
    addedPerDir[di] = std::move(added);
  }
}

// The snapshot's files by folder (repository paths, "" for the root): what a comparison looking
// at some folders only looks at again.
std::shared_ptr<const std::unordered_map<std::string_view, std::vector<uint32_t>>> filesByFolderOf(const WorktreeSnapshot& snapshot) {
  auto byFolder = std::make_shared<std::unordered_map<std::string_view, std::vector<uint32_t>>>();
  for (uint32_t i = 0; i < snapshot.files.size(); ++i) {
    std::string_view p = snapshot.files[i].path;
    size_t slash = p.rfind('/');
    (*byFolder)[slash == std::string_view::npos ? std::string_view() : p.substr(0, slash)].push_back(i);
  }
  return byFolder;
}

}  // namespace

std::optional<bool> binaryFileAt(int dirFd, const char* name) {
  int fd = ::openat(dirFd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  char buffer[kBinaryProbeBytes];
  size_t have = 0;
  while (have < sizeof buffer) {
    ssize_t n = ::read(fd, buffer + have, sizeof buffer - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  ::close(fd);
  return std::string_view(buffer, have).find('\0') != std::string_view::npos;
}

bool statEntry(const char* path, uint64_t* size, int64_t* mtimeNs, uint64_t* inode, uint32_t* mode) {
  return statEntryAt(AT_FDCWD, path, size, mtimeNs, inode, mode);
}

bool statEntryAt(int dirFd, const char* name, uint64_t* size, int64_t* mtimeNs, uint64_t* inode, uint32_t* mode) {
  struct stat st;
  if (::fstatat(dirFd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
  *size = static_cast<uint64_t>(st.st_size);
  *mtimeNs = mtimeOf(st);
  *inode = static_cast<uint64_t>(st.st_ino);
  *mode = S_ISLNK(st.st_mode) ? 0120000 : S_ISREG(st.st_mode) ? ((st.st_mode & 0111) ? 0100755 : 0100644) : 0;
  return true;
}

std::string_view WorktreeSnapshot::intern(std::string_view text) { return storage_->emplace_back(text); }

Status WorktreeSnapshot::recordDirectories(const fs::path& root) {
  std::set<std::string> paths{""};
  auto addFoldersOf = [&](const File& f) {
    std::string p(f.path);
    for (size_t slash = p.rfind('/'); slash != std::string::npos; slash = p.rfind('/')) {
      p.resize(slash);
      if (!paths.insert(p).second) break;
    }
  };
  for (const File& f : files) addFoldersOf(f);
  for (const File& f : leftOut) addFoldersOf(f);
  dirs.clear();
  for (const std::string& p : paths) {
    struct stat st;
    fs::path full = p.empty() ? root : root / p;
    if (::stat(full.c_str(), &st) != 0) return Status(ErrorCode::IoError, "cannot stat " + full.string());
    Dir d;
    d.path = intern(p);
    d.mtimeNs = mtimeOf(st);
    bool ok;
    for (const std::string& name : listNames(full, &ok)) d.names.push_back(intern(name));
    if (!ok) return Status(ErrorCode::IoError, "cannot list " + full.string());
    dirs.push_back(std::move(d));
  }
  return Status::ok();
}

namespace {

// A file's record: a left-out file has no blob id.
void writeEntry(ByteWriter& w, const WorktreeSnapshot::File& f, bool withOid) {
  w.str(f.path);
  w.varint(f.mode);
  if (withOid) w.str(f.oid);
  w.varint(f.size);
  w.svarint(f.mtimeNs);
  w.varint(f.inode);
}

void readEntry(ByteReader& r, WorktreeSnapshot::File& f, bool withOid) {
  f.path = r.str();
  f.mode = r.u32();
  if (withOid) f.oid = r.str();
  f.size = r.varint();
  f.mtimeNs = r.svarint();
  f.inode = r.varint();
}

}  // namespace

Status writeWorktreeSnapshot(LmdbTxn& txn, const WorktreeSnapshot& s) {
  auto dbi = txn.openDb("worktree", true);
  if (!dbi) return dbi.status();
  ByteWriter w;
  w.u8(kFormat);
  w.varint(s.files.size());
  for (const auto& f : s.files) writeEntry(w, f, /*withOid=*/true);
  w.varint(s.dirs.size());
  for (const auto& d : s.dirs) {
    w.str(d.path);
    w.svarint(d.mtimeNs);
    w.varint(d.names.size());
    for (const auto& n : d.names) w.str(n);
  }
  w.varint(s.leftOut.size());
  for (const auto& f : s.leftOut) writeEntry(w, f, /*withOid=*/false);
  return txn.put(*dbi, "snapshot", w.data());
}

Expected<WorktreeSnapshot> readWorktreeSnapshot(LmdbTxn& txn) {
  auto dbi = txn.openDb("worktree", false);
  if (!dbi) return Status(ErrorCode::NotFound, "this index version was not built from a worktree");
  auto stored = txn.get(*dbi, "snapshot");
  if (!stored) return Status(ErrorCode::NotFound, "no worktree snapshot");
  return decodeWorktreeSnapshot(*stored);
}

Expected<WorktreeSnapshot> decodeWorktreeSnapshot(std::string_view bytes) {
  WorktreeSnapshot s;
  // Every text field below views the mapped value itself: no copy, no allocation per string.
  ByteReader r(bytes);
  const uint8_t format = r.u8();
  if (format != 1 && format != kFormat) return Status(ErrorCode::Corrupt, "worktree snapshot of another format");
  uint64_t n = r.varint();
  if (n > bytes.size()) return Status(ErrorCode::Corrupt, "worktree snapshot is malformed");
  s.files.resize(n);
  for (auto& f : s.files) readEntry(r, f, /*withOid=*/true);
  n = r.varint();
  if (n > bytes.size()) return Status(ErrorCode::Corrupt, "worktree snapshot is malformed");
  s.dirs.resize(n);
  for (auto& d : s.dirs) {
    d.path = r.str();
    d.mtimeNs = r.svarint();
    uint64_t k = r.varint();
    if (k > bytes.size()) return Status(ErrorCode::Corrupt, "worktree snapshot is malformed");
    d.names.resize(k);
    for (auto& name : d.names) name = r.str();
  }
  if (format >= 2) {
    n = r.varint();
    if (n > bytes.size()) return Status(ErrorCode::Corrupt, "worktree snapshot is malformed");
    s.leftOut.resize(n);
    for (auto& f : s.leftOut) readEntry(r, f, /*withOid=*/false);
  }
  if (!r.ok()) return Status(ErrorCode::Corrupt, "worktree snapshot is truncated");
  return s;
}

struct WorktreeComparisonState {
  enum class State : uint8_t { Same, Rehashed, Changed, Deleted, Unknown, NowFolder };
  // Eight bytes per file: a one-shot command allocates (and the kernel zeroes) one per file of
  // the worktree before its first stat, so what only a file whose stat data changed needs is
  // kept apart, in `found`.
  struct Result {
    State state = State::Same;
    bool hashed = false;  // hashed now: its stat data in `found` goes to the cache
    bool cached = false;  // the cache knew it
    uint32_t mode = 0;
  };
  // What a file whose stat data changed was found to hold: its blob id (when Changed) and the
  // stat data it was hashed at (when hashed).
  struct Found {
    std::string oid;
    uint64_t size = 0, inode = 0;
    int64_t mtime = 0;
  };
  std::vector<Result> results;                        // per snapshot file
  std::unordered_map<uint32_t, Found> found;          // by snapshot file: those Changed or hashed
  std::vector<std::vector<std::string>> addedPerDir;  // per snapshot folder: names it gained that count
  std::vector<char> leftOutText;                      // per left-out file: no longer a binary file
  // The snapshot's files by folder, built by the first comparison that looks at some folders
  // only (a one-shot command never does) and shared by the later ones.
  std::shared_ptr<const std::unordered_map<std::string_view, std::vector<uint32_t>>> filesByFolder;
  // The worktree's tree, hashed folder by folder; moves forward with each comparison that
  // computes a tree id (it keeps the values it was last given, so any comparison can use it).
  // Mutable: computeTreeId hashes on demand, after the comparison was published as const.
  mutable std::shared_ptr<gitlite::TreeHasher> tree;
};

WorktreeComparison compareWorktree(const fs::path& root, const WorktreeSnapshot& snapshot, WorktreeHashCache* cache,
                                   const WorktreeComparison* previous, const std::vector<std::string>* folders) {
  WorktreeComparison out;
  out.conclusive = true;
  auto state = std::make_shared<WorktreeComparisonState>();
  const WorktreeComparisonState* before =
      previous && previous->state && previous->state->results.size() == snapshot.files.size() &&
              previous->state->addedPerDir.size() == snapshot.dirs.size() && folders
          ? previous->state.get()
          : nullptr;
  // The files and folders to look at: all of them, or those of the folders with events.
  std::vector<uint32_t> fileIndexes;
  std::vector<uint32_t> dirIndexes;
  std::set<std::string_view> scope;
  if (before) {
    state->filesByFolder = before->filesByFolder ? before->filesByFolder : filesByFolderOf(snapshot);
    state->tree = before->tree;
    scope.insert(folders->begin(), folders->end());
    for (std::string_view f : scope)
      if (auto it = state->filesByFolder->find(f); it != state->filesByFolder->end())
        fileIndexes.insert(fileIndexes.end(), it->second.begin(), it->second.end());
    std::sort(fileIndexes.begin(), fileIndexes.end());
    for (uint32_t d = 0; d < snapshot.dirs.size(); ++d)
      if (scope.count(snapshot.dirs[d].path)) dirIndexes.push_back(d);
  } else {
    fileIndexes.resize(snapshot.files.size());
    for (uint32_t i = 0; i < fileIndexes.size(); ++i) fileIndexes[i] = i;
    dirIndexes.resize(snapshot.dirs.size());
    for (uint32_t d = 0; d < dirIndexes.size(); ++d) dirIndexes[d] = d;
  }
  // Files: one lstat each, hashing only those whose stat data changed. Split across a few
  // threads on large worktrees: the stat calls dominate and run in parallel well.
  using State = WorktreeComparisonState::State;
  using Result = WorktreeComparisonState::Result;
  using Found = WorktreeComparisonState::Found;
  std::vector<Result>& results = state->results;
  if (before) {
    results = before->results;
    state->found = before->found;
    for (uint32_t i : fileIndexes) state->found.erase(i);  // looked at again below
  } else {
    results.resize(snapshot.files.size());
  }
  // Per thread: what the files whose stat data changed hold, merged into state->found after.
  std::vector<std::vector<std::pair<uint32_t, Found>>> foundByThread(kCheckThreads);
  std::string rootText = root.string();
  // Files are sorted by path, so a folder's files are consecutive: each thread opens the folder
  // once and stats its files by name, which spares the kernel the walk down the whole path for
  // every file (that walk was most of the cost).
  std::vector<std::vector<std::pair<std::string_view, int64_t>>> seenFolders(kCheckThreads);
  auto check = [&](unsigned thread, size_t begin, size_t end) {
    std::string full, dir, name;
    int dirFd = -1;
    bool dirOpen = false;
    for (size_t k = begin; k < end; ++k) {
      const size_t i = fileIndexes[k];
      const auto& f = snapshot.files[i];
      Result& r = results[i];
      r = Result();
      r.mode = f.mode;
      if (f.mode == 0160000) continue;  // a submodule: its recorded commit stands
      size_t slash = f.path.rfind('/');
      std::string_view fileDir = slash == std::string::npos ? std::string_view() : std::string_view(f.path).substr(0, slash);
      if (!dirOpen || fileDir != dir) {
        if (dirFd >= 0) ::close(dirFd);
        dir.assign(fileDir);
        std::string dirPath = dir.empty() ? rootText : rootText + "/" + dir;
        dirFd = ::open(dirPath.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        dirOpen = true;
        struct stat st;
        if (dirFd >= 0 && ::fstat(dirFd, &st) == 0) seenFolders[thread].emplace_back(fileDir, mtimeOf(st));
      }
      name.assign(slash == std::string::npos ? f.path : f.path.substr(slash + 1));
      uint64_t size, inode;
      int64_t mtime;
      uint32_t mode;
      if (dirFd < 0 || !statEntryAt(dirFd, name.c_str(), &size, &mtime, &inode, &mode)) {
        r.state = State::Deleted;  // gone
        continue;
      }
      if (mode == 0) {
        // No longer a file or link. A folder in its place holds entries only git can judge.
        struct stat st;
        r.state = ::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) ? State::NowFolder
                                                                                                      : State::Deleted;
        continue;
      }
      r.mode = mode;
      // A mode change (chmod +x) leaves the mtime alone but changes git's tree.
      if (size == f.size && mtime == f.mtimeNs && inode == f.inode && mode == f.mode) continue;
      // A link's blob is its target text, as git stores it; never the file it points to.
      Expected<std::string> hashed = Status(ErrorCode::IoError, "unreadable");
      // The cache is only read while the threads run (it is updated after they join).
      const WorktreeHashCache::Entry* known = nullptr;
      if (cache)
        if (auto it = cache->entries.find(std::string(f.path)); it != cache->entries.end()) known = &it->second;
      if (known && known->size == size && known->mtimeNs == mtime && known->inode == inode && known->mode == mode) {
        hashed = known->oid;
        r.cached = true;
      } else if (mode == 0120000) {
        char target[4096];
        ssize_t n = ::readlinkat(dirFd, name.c_str(), target, sizeof target);
        if (n >= 0) hashed = gitlite::blobId(std::string_view(target, static_cast<size_t>(n)));
      } else {
        full.assign(rootText).append("/").append(f.path);
        hashed = gitlite::blobIdOfFile(full);
      }
      if (!hashed) {
        r.state = State::Unknown;
        continue;
      }
      r.hashed = !r.cached;
      r.state = *hashed != f.oid || mode != f.mode ? State::Changed : State::Rehashed;
      if (r.hashed || r.state == State::Changed)
        foundByThread[thread].emplace_back(static_cast<uint32_t>(i), Found{r.state == State::Changed ? std::move(*hashed) : std::string(),
                                                                           size, inode, mtime});
    }
    if (dirFd >= 0) ::close(dirFd);
  };
  const size_t n = snapshot.files.size();
  const size_t toCheck = fileIndexes.size();
  unsigned threads = toCheck < 4096 ? 1 : std::min(kCheckThreads, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(check, t, toCheck * t / threads, toCheck * (t + 1) / threads);
  check(0, 0, toCheck / threads);
  for (auto& t : pool) t.join();
  for (auto& list : foundByThread)
    for (auto& [i, found] : list) state->found.insert_or_assign(i, std::move(found));
  if (cache) {
    if (cache->entries.size() > 100000) cache->entries.clear();  // bounded: it only saves time
    // A file modified within the last second could change again without its stat data
    // changing (one timestamp tick): its hash is not kept (git's racy-clean rule).
    const int64_t racy = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count() - 1'000'000'000;
    for (uint32_t i : fileIndexes) {
      const Result& r = results[i];
      if (r.cached) ++cache->hits;
      if (!r.hashed) continue;
      const Found& found = state->found.at(i);
      if (found.mtime >= racy) continue;
      std::string oid = r.state == State::Changed ? found.oid : std::string(snapshot.files[i].oid);
      cache->entries[std::string(snapshot.files[i].path)] = {found.size, found.mtime, found.inode, r.mode, std::move(oid)};
    }
  }

  // Left-out files (binary, untracked): one that turned into text is a new entry like any other.
  std::vector<char>& leftOutText = state->leftOutText;
  if (before && before->leftOutText.size() == snapshot.leftOut.size()) leftOutText = before->leftOutText;
  else leftOutText.assign(snapshot.leftOut.size(), 0);
  checkLeftOut(rootText, snapshot, before ? &scope : nullptr, leftOutText);

  auto& addedPerDir = state->addedPerDir;
  if (before) addedPerDir = before->addedPerDir;
  else addedPerDir.resize(snapshot.dirs.size());
  compareFolders(rootText, snapshot, dirIndexes, seenFolders, addedPerDir);
  for (uint32_t di = 0; di < addedPerDir.size(); ++di) {
    const auto& added = addedPerDir[di];
    if (added.empty()) continue;
    std::string folder(snapshot.dirs[di].path);
    if (out.conclusive)
      out.reason = "new entries in " + (folder.empty() ? std::string(".") : folder) + " (e.g. " + added.front() + ")";
    out.conclusive = false;
    for (const std::string& name : added) out.added.push_back(folder.empty() ? name : folder + "/" + name);
  }
  for (size_t i = 0; i < leftOutText.size(); ++i) {
    if (!leftOutText[i]) continue;
    std::string path(snapshot.leftOut[i].path);
    if (out.conclusive) out.reason = path + " is no longer a binary file";
    out.conclusive = false;
    out.added.push_back(std::move(path));
  }

  bool treeKnown = true;
  for (size_t i = 0; i < n; ++i) {
    const auto& f = snapshot.files[i];
    switch (results[i].state) {
      case State::Deleted: out.deleted.emplace_back(f.path); break;
      case State::NowFolder:
        out.deleted.emplace_back(f.path);
        out.added.emplace_back(f.path);
        if (out.conclusive) out.reason = std::string(f.path) + " is now a folder";
        out.conclusive = false;
        break;
      case State::Unknown: out.changed.emplace_back(f.path); treeKnown = false; break;
      case State::Changed: out.changed.emplace_back(f.path); break;
      case State::Rehashed: ++out.rehashed; break;
      case State::Same: if (f.oid.empty() && f.mode != 0160000) treeKnown = false; break;
    }
    if (f.mode == 0160000 && f.oid.empty()) treeKnown = false;
  }
  out.state = state;
  out.treeKnown = treeKnown;
  out.unchanged = out.conclusive && treeKnown && out.changed.empty() && out.deleted.empty();
  return out;
}

void computeTreeId(const WorktreeSnapshot& snapshot, WorktreeComparison* cmp) {
  // Needs git's word on new entries, and every file's blob id.
  if (!cmp->treeId.empty() || !cmp->conclusive || !cmp->treeKnown || cmp->unchanged || !cmp->state) return;
  // The tree hasher of the earlier comparisons hashes again only the folders whose content
  // differs from what it holds.
  const WorktreeComparisonState& state = *cmp->state;
  using State = WorktreeComparisonState::State;
  const size_t n = snapshot.files.size();
  if (!state.tree) {
    std::vector<std::string_view> paths;
    paths.reserve(n);
    for (const auto& f : snapshot.files) paths.push_back(f.path);
    state.tree = std::make_shared<gitlite::TreeHasher>(paths);
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& f = snapshot.files[i];
    const auto& r = state.results[i];
    if (r.state == State::Deleted) state.tree->set(i, 0, {});
    else state.tree->set(i, r.mode, r.state == State::Changed ? std::string_view(state.found.at(static_cast<uint32_t>(i)).oid) : f.oid);
  }
  if (auto tree = state.tree->id()) cmp->treeId = *tree;
}

}  // namespace nib
