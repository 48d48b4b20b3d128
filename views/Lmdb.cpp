#include "views/Lmdb.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdio>
#include <string>

#include <system_error>

namespace nib {

Status lmdbError(int rc, std::string_view what) {
  ErrorCode code = rc == MDB_NOTFOUND ? ErrorCode::NotFound
                   : (rc == MDB_CORRUPTED || rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH) ? ErrorCode::Corrupt
                                                                                              : ErrorCode::IoError;
  return Status(code, std::string(what) + ": " + mdb_strerror(rc));
}

Expected<std::unique_ptr<LmdbEnv>> LmdbEnv::open(const std::filesystem::path& dir, Options options) {
  std::error_code ec;
  if (!options.readOnly) std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir, ec))
    return Status(ErrorCode::NotFound, "no LMDB store at " + dir.string());
  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc) return lmdbError(rc, "mdb_env_create");
  mdb_env_set_maxdbs(env, options.maxDbs);
  mdb_env_set_mapsize(env, options.mapSize);
  // Readers come from many short-lived processes and several threads; NOTLS lets one thread
  // hold more than one read transaction and hand them across threads.
  mdb_env_set_maxreaders(env, 512);
  unsigned flags = MDB_NOTLS;
  if (options.readOnly) flags |= MDB_RDONLY;
  if (options.noSync) flags |= MDB_NOSYNC;
  rc = mdb_env_open(env, dir.c_str(), flags, 0644);
  if (rc) {
    mdb_env_close(env);
    return lmdbError(rc, "cannot open LMDB store " + dir.string());
  }
  return std::unique_ptr<LmdbEnv>(new LmdbEnv(env, options.readOnly));
}

LmdbEnv::~LmdbEnv() { mdb_env_close(env_); }

void LmdbEnv::releaseMappedPages() const {
  // Without MDB_WRITEMAP (which nib never sets) LMDB maps the file read-only for writers too
  // and writes with pwrite: the map never holds a dirty page, whoever opened it.
  unsigned flags = 0;
  if (mdb_env_get_flags(env_, &flags) != 0 || (flags & MDB_WRITEMAP)) return;
  // LMDB tells its map's address only for MDB_FIXEDMAP environments: the process's own map
  // list names it, by the data file's device and inode (its path there is the canonical one,
  // which the path the environment was opened with need not be).
  const char* dir = nullptr;
  struct stat data;
  if (mdb_env_get_path(env_, &dir) != 0 || !dir || ::stat((std::string(dir) + "/data.mdb").c_str(), &data) != 0) return;
  std::FILE* maps = std::fopen("/proc/self/maps", "re");
  if (!maps) return;
  char line[4096];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long from = 0, to = 0, inode = 0;
    unsigned devMajor = 0, devMinor = 0;
    if (std::sscanf(line, "%lx-%lx %*s %*s %x:%x %lu", &from, &to, &devMajor, &devMinor, &inode) == 5 && to > from &&
        inode == data.st_ino && devMajor == major(data.st_dev) && devMinor == minor(data.st_dev))
      (void)::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
  }
  std::fclose(maps);
}

Status LmdbEnv::sync() {
  int rc = mdb_env_sync(env_, 1);
  return rc ? lmdbError(rc, "mdb_env_sync") : Status::ok();
}

Expected<LmdbTxn> LmdbTxn::begin(LmdbEnv& env, bool write) {
  MDB_txn* txn = nullptr;
  int rc = mdb_txn_begin(env.raw(), nullptr, write ? 0 : MDB_RDONLY, &txn);
  if (rc) return lmdbError(rc, "mdb_txn_begin");
  return LmdbTxn(txn);
}

LmdbTxn::~LmdbTxn() { abort(); }

void LmdbTxn::abort() {
  if (txn_) mdb_txn_abort(txn_);
  txn_ = nullptr;
}

Status LmdbTxn::renew() {
  if (!txn_) return Status(ErrorCode::Internal, "mdb_txn_renew: no transaction");
  mdb_txn_reset(txn_);
  int rc = mdb_txn_renew(txn_);
  if (rc) {
    mdb_txn_abort(txn_);
    txn_ = nullptr;
    return lmdbError(rc, "mdb_txn_renew");
  }
  return Status::ok();
}

Status LmdbTxn::commit() {
  int rc = mdb_txn_commit(txn_);
  txn_ = nullptr;
  return rc ? lmdbError(rc, "mdb_txn_commit") : Status::ok();
}

Expected<MDB_dbi> LmdbTxn::openDb(const char* name, bool create) {
  MDB_dbi dbi;
  int rc = mdb_dbi_open(txn_, name, create ? MDB_CREATE : 0, &dbi);
  if (rc) return lmdbError(rc, std::string("cannot open table ") + name);
  return dbi;
}

Expected<std::string_view> LmdbTxn::get(MDB_dbi dbi, std::string_view key) {
  MDB_val k{key.size(), const_cast<char*>(key.data())};
  MDB_val v;
  int rc = mdb_get(txn_, dbi, &k, &v);
  if (rc) return lmdbError(rc, "get");
  return std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}

Status LmdbTxn::put(MDB_dbi dbi, std::string_view key, std::string_view value, unsigned flags) {
  MDB_val k{key.size(), const_cast<char*>(key.data())};
  MDB_val v{value.size(), const_cast<char*>(value.data())};
  int rc = mdb_put(txn_, dbi, &k, &v, flags);
  return rc ? lmdbError(rc, "put") : Status::ok();
}

Status LmdbTxn::scan(MDB_dbi dbi, std::string_view from,
                     const std::function<bool(std::string_view, std::string_view)>& visit) {
  MDB_cursor* cur;
  int rc = mdb_cursor_open(txn_, dbi, &cur);
  if (rc) return lmdbError(rc, "mdb_cursor_open");
  MDB_val k{from.size(), const_cast<char*>(from.data())};
  MDB_val v;
  rc = from.empty() ? mdb_cursor_get(cur, &k, &v, MDB_FIRST) : mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
  while (rc == 0) {
    if (!visit(std::string_view(static_cast<const char*>(k.mv_data), k.mv_size),
               std::string_view(static_cast<const char*>(v.mv_data), v.mv_size)))
      break;
    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cur);
  return (rc == 0 || rc == MDB_NOTFOUND) ? Status::ok() : lmdbError(rc, "cursor");
}

Expected<size_t> LmdbTxn::eraseIf(MDB_dbi dbi, const std::function<bool(std::string_view)>& drop) {
  MDB_cursor* cur;
  int rc = mdb_cursor_open(txn_, dbi, &cur);
  if (rc) return lmdbError(rc, "mdb_cursor_open");
  size_t erased = 0;
  MDB_val k, v;
  rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
  while (rc == 0) {
    if (drop(std::string_view(static_cast<const char*>(k.mv_data), k.mv_size))) {
      // After a delete the cursor stands on the next key; MDB_GET_CURRENT reads it (or says
      // the table ended).
      if ((rc = mdb_cursor_del(cur, 0)) != 0) break;
      ++erased;
      rc = mdb_cursor_get(cur, &k, &v, MDB_GET_CURRENT);
      if (rc == MDB_NOTFOUND || rc == EINVAL) rc = MDB_NOTFOUND;
      continue;
    }
    rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cur);
  if (rc != MDB_NOTFOUND) return lmdbError(rc, "cursor");
  return erased;
}

Expected<size_t> LmdbTxn::entries(MDB_dbi dbi) {
  MDB_stat st;
  int rc = mdb_stat(txn_, dbi, &st);
  if (rc) return lmdbError(rc, "mdb_stat");
  return static_cast<size_t>(st.ms_entries);
}

Expected<size_t> retainCacheKeys(LmdbEnv& env, const char* table, const std::unordered_set<std::string_view>& keep,
                                 double slack) {
  auto txn = LmdbTxn::begin(env, /*write=*/true);
  if (!txn) return txn.status();
  auto dbi = txn->openDb(table, /*create=*/true);
  if (!dbi) return dbi.status();
  auto count = txn->entries(*dbi);
  if (!count) return count.status();
  if (static_cast<double>(*count) <= slack * static_cast<double>(keep.size()) + 64) return size_t(0);
  auto erased = txn->eraseIf(*dbi, [&](std::string_view key) { return !keep.count(key); });
  if (!erased) return erased.status();
  NIB_RETURN_IF_ERROR(txn->commit());
  return *erased;
}

Expected<LmdbSpace> lmdbSpace(LmdbEnv& env) {
  MDB_envinfo info;
  MDB_stat st;
  int rc = mdb_env_info(env.raw(), &info);
  if (!rc) rc = mdb_env_stat(env.raw(), &st);
  if (rc) return lmdbError(rc, "mdb_env_info");
  LmdbSpace space;
  space.pages = info.me_last_pgno + 1;
  space.pageSize = st.ms_psize;
  auto txn = LmdbTxn::begin(env, /*write=*/false);
  if (!txn) return txn.status();
  // The free-page table (database 0): each record lists pages freed by one transaction, as a
  // count followed by the page numbers.
  MDB_cursor* cur;
  rc = mdb_cursor_open(txn->raw(), 0, &cur);
  if (rc) return lmdbError(rc, "mdb_cursor_open (free pages)");
  MDB_val k, v;
  while ((rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0)
    if (v.mv_size >= sizeof(size_t)) space.freePages += *static_cast<const size_t*>(v.mv_data);
  mdb_cursor_close(cur);
  if (rc != MDB_NOTFOUND) return lmdbError(rc, "cursor (free pages)");
  return space;
}

Expected<bool> compactIfSparse(LmdbEnv& env, const std::filesystem::path& dir, double maxFree, size_t minBytes) {
  namespace fs = std::filesystem;
  auto space = lmdbSpace(env);
  if (!space) return space.status();
  if (space->pages * space->pageSize < minBytes ||
      static_cast<double>(space->freePages) <= maxFree * static_cast<double>(space->pages))
    return false;
  const fs::path copy = dir.string() + ".compacting";
  std::error_code ec;
  fs::remove_all(copy, ec);  // a compaction that died
  fs::create_directories(copy, ec);
  if (ec) return Status(ErrorCode::IoError, "cannot create " + copy.string() + ": " + ec.message());
  int rc = mdb_env_copy2(env.raw(), copy.c_str(), MDB_CP_COMPACT);
  if (rc) {
    fs::remove_all(copy, ec);
    return lmdbError(rc, "cannot compact " + dir.string());
  }
  // The copy is on disk before it takes the store's name.
  int fd = ::open((copy / "data.mdb").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  if (::renameat2(AT_FDCWD, copy.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) != 0) {
    fs::remove_all(copy, ec);
    return false;
  }
  fs::remove_all(copy, ec);  // now the old store
  return true;
}

Expected<LmdbReader> openLmdbReader(const std::filesystem::path& dir) {
  LmdbEnv::Options options;
  options.readOnly = true;
  auto env = LmdbEnv::open(dir, options);
  if (!env) return env.status();
  auto txn = LmdbTxn::begin(**env, false);
  if (!txn) return txn.status();
  return LmdbReader{std::move(*env), std::move(*txn)};
}


Expected<LmdbBulkWriter> LmdbBulkWriter::create(const std::filesystem::path& dir) {
  LmdbEnv::Options options;
  options.noSync = true;  // synced once by finish(), before the manifest records the digest
  auto env = LmdbEnv::open(dir, options);
  if (!env) return env.status();
  LmdbBulkWriter w(std::move(*env));
  NIB_RETURN_IF_ERROR(w.renew());
  return w;
}

Status LmdbBulkWriter::renew() {
  txn_.reset();
  auto txn = LmdbTxn::begin(*env_, true);
  if (!txn) return txn.status();
  txn_.emplace(std::move(*txn));
  return Status::ok();
}

Status LmdbBulkWriter::put(MDB_dbi db, std::string_view key, std::string_view value, unsigned flags) {
  NIB_RETURN_IF_ERROR(txn_->put(db, key, value, flags));
  written_ += key.size() + value.size();
  if (written_ < kBytesPerTransaction) return Status::ok();
  written_ = 0;
  NIB_RETURN_IF_ERROR(txn_->commit());
  return renew();
}

Status LmdbBulkWriter::finish() {
  NIB_RETURN_IF_ERROR(txn_->commit());
  txn_.reset();
  return env_->sync();
}

}  // namespace nib
