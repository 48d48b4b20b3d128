// Thin RAII layer over the LMDB C API: one environment per store, short transactions, named
// databases. Errors become Status values; nothing here throws.
#pragma once

#include <lmdb.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "support/Status.h"

namespace nib {

class LmdbEnv {
 public:
  struct Options {
    bool readOnly = false;
    bool noSync = false;  // bulk builds sync once at the end instead of per commit
    unsigned maxDbs = 16;
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
  // calls it to keep its resident memory bounded after reading much of a large store.
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
  Status commit();
  void abort();
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

Status lmdbError(int rc, std::string_view what);

}  // namespace nib
