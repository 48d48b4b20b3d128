#include "views/Lmdb.h"

#include <sys/mman.h>
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
  if (!readOnly_) return;  // a writer's pages may be dirty
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

Expected<LmdbReader> openLmdbReader(const std::filesystem::path& dir) {
  LmdbEnv::Options options;
  options.readOnly = true;
  auto env = LmdbEnv::open(dir, options);
  if (!env) return env.status();
  auto txn = LmdbTxn::begin(**env, false);
  if (!txn) return txn.status();
  return LmdbReader{std::move(*env), std::move(*txn)};
}

}  // namespace nib
