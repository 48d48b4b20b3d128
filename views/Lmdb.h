// Thin RAII layer over the LMDB C API: one environment per store, short transactions, named
// databases. Errors become Status values; nothing here throws.
#pragma once

#include <lmdb.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "support/Status.h"

namespace nib {

class LmdbEnv {
 public:
  struct Options {
    bool readOnly = false;
    bool noSync = false;  // bulk builds sync once at the end instead of per commit
    // The clang view holds 18 tables; a reader opening one past the limit would find it absent.
    unsigned maxDbs = 32;
    size_t mapSize = size_t(1) << 36;  // sparse: costs address space, not disk
  };
  // Opens (and with !readOnly, creates) the environment in directory `dir`.
  static Expected<std::unique_ptr<LmdbEnv>> open(const std::filesystem::path& dir, Options options);
  ~LmdbEnv();
  LmdbEnv(const LmdbEnv&) = delete;
  LmdbEnv& operator=(const LmdbEnv&) = delete;

  MDB_env* raw() const { return env_; }
  bool readOnly() const { return readOnly_; }
  Status sync();
  // Drops this process's mappings of the environment's pages (a read-only map is backed by the
  // page cache, so nothing is lost: the next read faults the page back in). A long-lived reader
  // calls it to keep its resident memory bounded after reading much of a large store, and a
  // build while it reads a large repository's stored facts.
  void releaseMappedPages() const;

 private:
  LmdbEnv(MDB_env* env, bool readOnly) : env_(env), readOnly_(readOnly) {}
  MDB_env* env_;
  bool readOnly_;
};

class LmdbTxn {
 public:
  static Expected<LmdbTxn> begin(LmdbEnv& env, bool write);
  LmdbTxn(LmdbTxn&& other) noexcept : txn_(other.txn_) { other.txn_ = nullptr; }
  LmdbTxn& operator=(LmdbTxn&&) = delete;
  ~LmdbTxn();

  // Opens a named database; `create` is only valid in a write transaction.
  Expected<MDB_dbi> openDb(const char* name, bool create);
  // Returns NotFound when the key is absent. The view is valid until the transaction ends.
  Expected<std::string_view> get(MDB_dbi dbi, std::string_view key);
  // `flags` are mdb_put's: MDB_APPEND for keys written in sorted order (bulk loads).
  Status put(MDB_dbi dbi, std::string_view key, std::string_view value, unsigned flags = 0);
  // Visits keys >= `from` in order until `visit` returns false.
  Status scan(MDB_dbi dbi, std::string_view from,
              const std::function<bool(std::string_view key, std::string_view value)>& visit);
  // Deletes every key of `dbi` for which `drop` is true (a write transaction); returns how many.
  Expected<size_t> eraseIf(MDB_dbi dbi, const std::function<bool(std::string_view key)>& drop);
  // How many keys `dbi` holds (LMDB keeps the count: no walk).
  Expected<size_t> entries(MDB_dbi dbi);
  Status commit();
  void abort();
  // A read transaction only: ends its snapshot and starts one of the newest committed state
  // (mdb_txn_reset + mdb_txn_renew). Views it returned before are invalid afterwards.
  Status renew();
  MDB_txn* raw() const { return txn_; }

 private:
  explicit LmdbTxn(MDB_txn* txn) : txn_(txn) {}
  MDB_txn* txn_;
};

// A read-only environment with one read transaction held for its lifetime: how every published
// view is served, so that an answer sees one consistent snapshot.
struct LmdbReader {
  std::unique_ptr<LmdbEnv> env;
  LmdbTxn txn;
};
Expected<LmdbReader> openLmdbReader(const std::filesystem::path& dir);

// A new environment written in one bulk load, in transactions of bounded size: LMDB holds a
// write transaction's dirty pages in memory until it commits, so one transaction over a large
// repository's view would hold the whole view. A view is published only once the manifest
// records its digest, so one left half written by a crash is never read.
class LmdbBulkWriter {
 public:
  // Opens `dir` without per-commit syncs (finish() syncs once).
  static Expected<LmdbBulkWriter> create(const std::filesystem::path& dir);
  LmdbBulkWriter(LmdbBulkWriter&&) = default;
  Expected<MDB_dbi> openDb(const char* name) { return txn_->openDb(name, true); }
  // Puts a key (with mdb_put's `flags`), committing and going on in a new transaction every
  // kBytesPerTransaction bytes.
  Status put(MDB_dbi db, std::string_view key, std::string_view value, unsigned flags = 0);
  // Puts keys that come in order (MDB_APPEND: the fast path of a bulk load).
  Status append(MDB_dbi db, std::string_view key, std::string_view value) { return put(db, key, value, MDB_APPEND); }
  LmdbTxn& txn() { return *txn_; }
  // Commits what is left and syncs the environment.
  Status finish();

  static constexpr size_t kBytesPerTransaction = size_t(64) << 20;

 private:
  explicit LmdbBulkWriter(std::unique_ptr<LmdbEnv> env) : env_(std::move(env)) {}
  Status renew();
  std::unique_ptr<LmdbEnv> env_;
  std::optional<LmdbTxn> txn_;
  size_t written_ = 0;
};

Status lmdbError(int rc, std::string_view what);

// How much of a store's file holds data: LMDB reuses the pages deletes free, but a value
// larger than a page needs a run of free pages in a row, so a store whose records are
// rewritten and deleted (the fact store, the caches) keeps growing past its live size.
struct LmdbSpace {
  size_t pages = 0;      // pages in use in the file (the high-water mark)
  size_t freePages = 0;  // of which free for reuse
  size_t pageSize = 0;
};
Expected<LmdbSpace> lmdbSpace(LmdbEnv& env);

// When more than `maxFree` of the store's pages are free (and the file is over `minBytes`),
// writes a compacted copy beside it (mdb_env_copy2 with MDB_CP_COMPACT) and exchanges the two
// folders in one rename (renameat2 RENAME_EXCHANGE), then removes the old one. Only a process
// that may write the store calls it (the fact store: under the index's write lock). Processes
// that have the old store open keep reading it — a consistent snapshot, their files unlinked
// but alive — and the next open finds the compacted one. `env` must not be written after.
// Returns whether it compacted; a file system without RENAME_EXCHANGE leaves the store as it is.
Expected<bool> compactIfSparse(LmdbEnv& env, const std::filesystem::path& dir, double maxFree = 0.25,
                               size_t minBytes = size_t(1) << 20);

// Keeps only `keep`'s keys in table `table` of a cache store (the vector cache, the clang
// cache), once the table holds more than `slack` times as many: a cache's entries are worth
// keeping while the newest build uses them, and deleting the rest frees pages that LMDB reuses
// for the next writes, so the store's file stops growing at about `slack` times its live size.
// Returns how many keys were deleted (0 when under the bound).
Expected<size_t> retainCacheKeys(LmdbEnv& env, const char* table, const std::unordered_set<std::string_view>& keep,
                                 double slack);

}  // namespace nib
