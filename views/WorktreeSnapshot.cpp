#include "views/WorktreeSnapshot.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>

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

bool statEntry(const fs::path& path, uint64_t* size, int64_t* mtimeNs, uint64_t* inode, uint32_t* mode) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return false;
  *size = static_cast<uint64_t>(st.st_size);
  *mtimeNs = mtimeOf(st);
  *inode = static_cast<uint64_t>(st.st_ino);
  *mode = S_ISLNK(st.st_mode) ? 0120000 : S_ISREG(st.st_mode) ? ((st.st_mode & 0111) ? 0100755 : 0100644) : 0;
  return true;
}

Status WorktreeSnapshot::recordDirectories(const fs::path& root) {
  std::set<std::string> paths{""};
  for (const File& f : files) {
    std::string p = f.path;
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
    d.path = p;
    d.mtimeNs = mtimeOf(st);
    bool ok;
    d.names = listNames(full, &ok);
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
  auto bytes = txn.get(*dbi, "snapshot");
  if (!bytes) return Status(ErrorCode::NotFound, "no worktree snapshot");
  ByteReader r(*bytes);
  if (r.u8() != kFormat) return Status(ErrorCode::Corrupt, "worktree snapshot of another format");
  WorktreeSnapshot s;
  uint64_t n = r.varint();
  if (n > bytes->size()) return Status(ErrorCode::Corrupt, "worktree snapshot is malformed");
  s.files.resize(n);
  for (auto& f : s.files) {
    f.path = std::string(r.str());
    f.mode = r.u32();
    f.oid = std::string(r.str());
    f.size = r.varint();
    f.mtimeNs = r.svarint();
    f.inode = r.varint();
  }
  n = r.varint();
  if (n > bytes->size()) return Status(ErrorCode::Corrupt, "worktree snapshot is malformed");
  s.dirs.resize(n);
  for (auto& d : s.dirs) {
    d.path = std::string(r.str());
    d.mtimeNs = r.svarint();
    uint64_t k = r.varint();
    if (k > bytes->size()) return Status(ErrorCode::Corrupt, "worktree snapshot is malformed");
    d.names.resize(k);
    for (auto& name : d.names) name = std::string(r.str());
  }
  if (!r.ok()) return Status(ErrorCode::Corrupt, "worktree snapshot is truncated");
  return s;
}

WorktreeComparison compareWorktree(const fs::path& root, const WorktreeSnapshot& snapshot) {
  WorktreeComparison out;
  out.conclusive = true;
  // Folders first: a new name anywhere makes the answer git's to give.
  for (const auto& d : snapshot.dirs) {
    fs::path full = d.path.empty() ? root : root / d.path;
    struct stat st;
    if (::stat(full.c_str(), &st) != 0) continue;  // the folder is gone: its files are missing
    if (mtimeOf(st) == d.mtimeNs) continue;
    bool ok;
    std::vector<std::string> now = listNames(full, &ok);
    std::vector<std::string> added;
    std::set_difference(now.begin(), now.end(), d.names.begin(), d.names.end(), std::back_inserter(added));
    if (!added.empty()) {
      if (out.conclusive)
        out.reason = "new entries in " + (d.path.empty() ? std::string(".") : d.path) + " (e.g. " + added.front() + ")";
      out.conclusive = false;
      for (const std::string& name : added) out.added.push_back(d.path.empty() ? name : d.path + "/" + name);
    }
  }
  std::vector<gitlite::TreeItem> items;
  bool treeKnown = true;
  for (const auto& f : snapshot.files) {
    uint64_t size, inode;
    int64_t mtime;
    uint32_t mode;
    fs::path full = root / f.path;
    if (f.mode == 0160000) {  // a submodule: its recorded commit stands
      if (f.oid.empty()) treeKnown = false;
      else items.push_back({f.path, f.mode, f.oid});
      continue;
    }
    if (!statEntry(full, &size, &mtime, &inode, &mode) || mode == 0) {
      out.deleted.push_back(f.path);  // gone, or no longer a file or link
      continue;
    }
    std::string oid = f.oid;
    // A mode change (chmod +x) leaves the mtime alone but changes git's tree.
    if (size != f.size || mtime != f.mtimeNs || inode != f.inode || mode != f.mode) {
      auto hashed = gitlite::blobIdOfFile(full);
      if (!hashed) {
        out.changed.push_back(f.path);
        treeKnown = false;
        continue;
      }
      oid = *hashed;
      if (oid != f.oid || mode != f.mode) out.changed.push_back(f.path);
    }
    if (oid.empty()) treeKnown = false;
    items.push_back({f.path, mode, oid});
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
