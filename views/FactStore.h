// The content-addressed store of per-file facts, shared by every version of one index
// (<repo>/.nib/facts). Keys are (blob OID, language, extractor profile digest): a blob that did
// not change is never extracted again, whatever commit or worktree it appears in.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
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
    // Unsupported when the record is of another facts format (an index of another nib).
    Expected<FileFacts> get(const FactKey& key, bool definitionsOnly = false);
    // The same verdict on the record's format alone, without decoding it (a missing record
    // passes): cheap enough for every engine's start.
    Status checkFormat(const FactKey& key);
    bool contains(const FactKey& key);
    // A blob's bytes, as stored for the search views' verification and snippets.
    Expected<std::string> content(const std::string& blobOid);
    // The same in its stored form (views/StoredContent: compressed), to unpack on another
    // thread: the view points into the memory map and stays valid while this reader lives.
    Expected<std::string_view> packedContent(const std::string& blobOid);
    bool hasContent(const std::string& blobOid);
    // Why extraction failed for this key in an earlier build (a parse that timed out), if it did.
    std::optional<std::string> failure(const FactKey& key);
    // Hands back the pages this process has mapped (LmdbEnv::releaseMappedPages): a reader that
    // goes through every stored content (the dense view's training and embedding) calls it now
    // and then. Views returned earlier stay valid: the next read faults the page back in.
    void releaseMappedPages() const { env_->releaseMappedPages(); }
    // Moves the reader to the store's newest state. A reader held open pins the snapshot it
    // began with, and LMDB cannot reuse any page freed after it: a build whose workers held
    // theirs through the whole extract phase left a cold store a sixth free pages (59 MB of
    // 310 on a 12k-file Linux sample). Every view read before is invalid afterwards.
    Status refresh() { return txn_.renew(); }

   private:
    friend class FactStore;
    Reader(const LmdbEnv* env, LmdbTxn txn, MDB_dbi dbi, MDB_dbi content)
        : env_(env), txn_(std::move(txn)), dbi_(dbi), content_(content) {}
    const LmdbEnv* env_;
    LmdbTxn txn_;
    MDB_dbi dbi_, content_;
  };
  Expected<Reader> reader();

  // A file's facts as the store keeps them: serialized, then LZ4-packed (views/StoredContent).
  // Facts compress to ~60 % (a 12k-file Linux sample: 112 MB of records, 68 MB packed);
  // unpacking a record costs microseconds next to decoding it, so this is not optional.
  static std::string factsRecord(const FileFacts& facts);
  // Writes a batch of (key, record) in one transaction: facts as factsRecord made them, failures,
  // and file contents (keys contentKey made, packed by packContent), which go to the content
  // table.
  Status putBatch(const std::vector<std::pair<std::string, std::string>>& records);
  // "z:" since contents are stored packed; the sweep deletes the "c:" records of older stores
  // (their raw bytes), and a build stores each content again, packed, as it meets it.
  static constexpr std::string_view kContentPrefix = "z:";
  static std::string contentKey(const std::string& blobOid) { return std::string(kContentPrefix) + blobOid; }
  // A failed extraction is remembered like facts are: the same bytes with the same extractor
  // fail the same way, and a pathological file must not cost its parse timeout on every build.
  static std::string failureKey(const FactKey& key) { return "x:" + key.bytes(); }
  Status sync() { return env_->sync(); }

  // What the store holds: fact and failure records, and file contents (views/StoreCollection
  // weighs them against what the kept versions reference before sweeping).
  struct Counts {
    size_t records = 0;   // facts and failures
    size_t contents = 0;
  };
  Expected<Counts> counts();
  // What the last sweep left (all of it live then); zeros before the first.
  Counts liveAtLastSweep();
  // Deletes, in one transaction, every record whose blob is not in `blobs` or whose extractor
  // profile is not in `profiles`, and every content whose blob is not in `blobs`, and records
  // what is left (liveAtLastSweep). Readers that began before it keep their snapshot. Returns
  // what was deleted.
  Expected<Counts> sweep(const std::unordered_set<std::string_view>& blobs,
                         const std::unordered_set<std::string_view>& profiles);
  // Rewrites the store compacted when much of its file is free pages (compactIfSparse in
  // views/Lmdb.h); `dir` is the store's folder. Nothing may be written through this object
  // after it compacted.
  Expected<bool> compactIfSparse(const std::filesystem::path& dir, double maxFree) {
    return nib::compactIfSparse(*env_, dir, maxFree);
  }
  void releaseMappedPages() const { env_->releaseMappedPages(); }

 private:
  FactStore(std::unique_ptr<LmdbEnv> env, MDB_dbi dbi, MDB_dbi content, std::optional<MDB_dbi> meta)
      : env_(std::move(env)), dbi_(dbi), content_(content), meta_(meta) {}
  std::unique_ptr<LmdbEnv> env_;
  MDB_dbi dbi_, content_;
  std::optional<MDB_dbi> meta_;  // the store's own notes (the last sweep's counts); absent in older stores
};

}  // namespace nib
