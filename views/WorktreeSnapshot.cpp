#include "views/WorktreeSnapshot.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <thread>
#include <unordered_map>

#include "support/Binary.h"
#include "support/GitLite.h"

namespace nib {
namespace fs = std::filesystem;
namespace {

constexpr uint8_t kFormat = 1;

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

}  // namespace

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
  for (const File& f : files) {
    std::string p(f.path);
    for (size_t slash = p.rfind('/'); slash != std::string::npos; slash = p.rfind('/')) {
      p.resize(slash);
      if (!paths.insert(p).second) break;
    }
  }
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

Status writeWorktreeSnapshot(LmdbTxn& txn, const WorktreeSnapshot& s) {
  auto dbi = txn.openDb("worktree", true);
  if (!dbi) return dbi.status();
  ByteWriter w;
  w.u8(kFormat);
  w.varint(s.files.size());
  for (const auto& f : s.files) {
    w.str(f.path);
    w.varint(f.mode);
    w.str(f.oid);
    w.varint(f.size);
    w.svarint(f.mtimeNs);
    w.varint(f.inode);
  }
  w.varint(s.dirs.size());
  for (const auto& d : s.dirs) {
    w.str(d.path);
    w.svarint(d.mtimeNs);
    w.varint(d.names.size());
    for (const auto& n : d.names) w.str(n);
  }
  return txn.put(*dbi, "snapshot", w.data());
}

Expected<WorktreeSnapshot> readWorktreeSnapshot(LmdbTxn& txn) {
  auto dbi = txn.openDb("worktree", false);
  if (!dbi) return Status(ErrorCode::NotFound, "this index version was not built from a worktree");
  auto stored = txn.get(*dbi, "snapshot");
  if (!stored) return Status(ErrorCode::NotFound, "no worktree snapshot");
  WorktreeSnapshot s;
  // Every text field below views the mapped value itself: no copy, no allocation per string.
  std::string_view bytes = *stored;
  ByteReader r(bytes);
  if (r.u8() != kFormat) return Status(ErrorCode::Corrupt, "worktree snapshot of another format");
  uint64_t n = r.varint();
  if (n > bytes.size()) return Status(ErrorCode::Corrupt, "worktree snapshot is malformed");
  s.files.resize(n);
  for (auto& f : s.files) {
    f.path = r.str();
    f.mode = r.u32();
    f.oid = r.str();
    f.size = r.varint();
    f.mtimeNs = r.svarint();
    f.inode = r.varint();
  }
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
  if (!r.ok()) return Status(ErrorCode::Corrupt, "worktree snapshot is truncated");
  return s;
}

WorktreeComparison compareWorktree(const fs::path& root, const WorktreeSnapshot& snapshot) {
  WorktreeComparison out;
  out.conclusive = true;
  // Files: one lstat each, hashing only those whose stat data changed. Split across a few
  // threads on large worktrees: the stat calls dominate and run in parallel well.
  enum class State : uint8_t { Same, Rehashed, Changed, Deleted, Unknown, NowFolder };
  struct Result {
    State state = State::Same;
    uint32_t mode = 0;
    std::string oid;
  };
  std::vector<Result> results(snapshot.files.size());
  std::string rootText = root.string();
  // Files are sorted by path, so a folder's files are consecutive: each thread opens the folder
  // once and stats its files by name, which spares the kernel the walk down the whole path for
  // every file (that walk was most of the cost).
  std::vector<std::vector<std::pair<std::string_view, int64_t>>> seenFolders(4);
  auto check = [&](unsigned thread, size_t begin, size_t end) {
    std::string full, dir, name;
    int dirFd = -1;
    bool dirOpen = false;
    for (size_t i = begin; i < end; ++i) {
      const auto& f = snapshot.files[i];
      Result& r = results[i];
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
      if (mode == 0120000) {
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
      if (*hashed != f.oid || mode != f.mode) {
        r.state = State::Changed;
        r.oid = std::move(*hashed);
      } else {
        r.state = State::Rehashed;
      }
    }
    if (dirFd >= 0) ::close(dirFd);
  };
  size_t n = snapshot.files.size();
  unsigned threads = n < 4096 ? 1 : std::min(4u, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(check, t, n * t / threads, n * (t + 1) / threads);
  check(0, 0, n / threads);
  for (auto& t : pool) t.join();

  // Folders: a new name anywhere makes the answer git's to give. Their mtimes mostly came with
  // the file pass (the folder was open there anyway); only folders without files of their own
  // are looked up by path.
  std::unordered_map<std::string_view, int64_t> folderMtimes;
  for (const auto& seen : seenFolders)
    for (const auto& [path, mtime] : seen) folderMtimes.emplace(path, mtime);
  for (const auto& d : snapshot.dirs) {
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
    std::string folder(d.path);
    if (!added.empty()) {
      if (out.conclusive)
        out.reason = "new entries in " + (folder.empty() ? std::string(".") : folder) + " (e.g. " + added.front() + ")";
      out.conclusive = false;
      for (const std::string& name : added) out.added.push_back(folder.empty() ? name : folder + "/" + name);
    }
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
  // The new tree id is worth computing only when something changed.
  std::vector<gitlite::TreeItem> items;
  if (out.conclusive && treeKnown && (!out.changed.empty() || !out.deleted.empty())) {
    items.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const auto& f = snapshot.files[i];
      const Result& r = results[i];
      if (r.state == State::Deleted) continue;
      items.push_back({std::string(f.path), r.mode, r.state == State::Changed ? r.oid : std::string(f.oid)});
    }
  }
  if (!out.conclusive) return out;  // the tree id needs git's word on the new entries
  if (treeKnown && (!out.changed.empty() || !out.deleted.empty())) {
    auto tree = gitlite::treeId(items);
    if (tree) out.treeId = *tree;
  } else if (treeKnown) {
    out.unchanged = true;  // the tree is the one the snapshot was taken of
  }
  return out;
}

}  // namespace nib
