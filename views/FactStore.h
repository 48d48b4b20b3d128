// The content-addressed store of per-file facts, shared by every version of one index
// (<repo>/.nib/facts). Keys are (blob OID, language, extractor profile digest): a blob that did
// not change is never extracted again, whatever commit or worktree it appears in.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/Language.h"
#include "views/FileFacts.h"
#include "views/Lmdb.h"

namespace nib {

struct FactKey {
  std::string blobOid;         // 40 hex digits
  Language language = Language::Unknown;
  std::string profileDigest;   // the extractor profile's digest
  std::string bytes() const;   // the LMDB key
};

class FactStore {
 public:
  static Expected<std::unique_ptr<FactStore>> open(const std::filesystem::path& dir, bool readOnly);

  // Reads need a transaction so that several lookups see one snapshot and share its cost.
  class Reader {
   public:
    Expected<FileFacts> get(const FactKey& key, bool definitionsOnly = false);
    bool contains(const FactKey& key);
    // A blob's bytes, as stored for the search views' verification. The view points into the
    // memory map and stays valid while this reader lives; it may be read from any thread.
    Expected<std::string_view> content(const std::string& blobOid);
    bool hasContent(const std::string& blobOid);
    // Why extraction failed for this key in an earlier build (a parse that timed out), if it did.
    std::optional<std::string> failure(const FactKey& key);

   private:
    friend class FactStore;
    Reader(LmdbTxn txn, MDB_dbi dbi, MDB_dbi content) : txn_(std::move(txn)), dbi_(dbi), content_(content) {}
    LmdbTxn txn_;
    MDB_dbi dbi_, content_;
  };
  Expected<Reader> reader();

  // Writes a batch of (key, serialized facts) in one transaction; keys starting with "c:" are
  // file contents (see contentKey) and go to the content table.
  Status putBatch(const std::vector<std::pair<std::string, std::string>>& records);
  static std::string contentKey(const std::string& blobOid) { return "c:" + blobOid; }
  // A failed extraction is remembered like facts are: the same bytes with the same extractor
  // fail the same way, and a pathological file must not cost its parse timeout on every build.
  static std::string failureKey(const FactKey& key) { return "x:" + key.bytes(); }
  Status sync() { return env_->sync(); }
  void releaseMappedPages() const { env_->releaseMappedPages(); }

 private:
  FactStore(std::unique_ptr<LmdbEnv> env, MDB_dbi dbi, MDB_dbi content)
      : env_(std::move(env)), dbi_(dbi), content_(content) {}
  std::unique_ptr<LmdbEnv> env_;
  MDB_dbi dbi_, content_;
};

}  // namespace nib
