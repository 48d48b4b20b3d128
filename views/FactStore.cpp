#include "views/FactStore.h"

#include <cstdio>

#include "views/StoredContent.h"

namespace nib {

std::string FactKey::bytes() const {
  std::string k = blobOid;
  k.push_back(':');
  k += languageName(language);
  k.push_back(':');
  k += profileDigest;
  return k;
}

Expected<std::unique_ptr<FactStore>> FactStore::open(const std::filesystem::path& dir, bool readOnly) {
  LmdbEnv::Options options;
  options.readOnly = readOnly;
  // Facts are content-addressed and idempotent: losing the last unsynced batch after a power
  // failure only means re-extracting it, so batches are not synced one by one.
  options.noSync = !readOnly;
  auto env = LmdbEnv::open(dir, options);
  if (!env) return env.status();
  auto txn = LmdbTxn::begin(**env, !readOnly);
  if (!txn) return txn.status();
  auto dbi = txn->openDb("facts", !readOnly);
  if (!dbi) return dbi.status();
  // File contents, kept for the trigram view's verification (content-addressed like facts).
  // A store written before they existed has no such table: lookups then find nothing.
  auto content = txn->openDb("content", !readOnly);
  if (!readOnly && !content) return content.status();
  auto meta = txn->openDb("meta", !readOnly);
  if (!readOnly && !meta) return meta.status();
  // Committing (even a read-only transaction) keeps the table handle open for the env's life.
  NIB_RETURN_IF_ERROR(txn->commit());
  return std::unique_ptr<FactStore>(new FactStore(std::move(*env), *dbi, content ? *content : *dbi,
                                                  meta ? std::optional<MDB_dbi>(*meta) : std::nullopt));
}

Expected<FactStore::Reader> FactStore::reader() {
  auto txn = LmdbTxn::begin(*env_, false);
  if (!txn) return txn.status();
  return Reader(env_.get(), std::move(*txn), dbi_, content_);
}

std::string FactStore::factsRecord(const FileFacts& facts) { return packContent(serializeFacts(facts), true); }

namespace {

// Whether a stored facts record is one this nib reads. Records of facts formats before 4 were
// stored unpacked, behind their format version (2 or 3, no tag of packContent's): not damage
// but another nib's index, which `nib index` rebuilds. A tagged record that does not unpack is
// damage.
Status recordFormat(std::string_view stored) {
  auto otherFormat = [] {
    return Status(ErrorCode::Unsupported, Reason::OtherFormat,
                  "the index's facts were written by another version of nib: run `nib index` to rebuild it");
  };
  if (!hasContentTag(stored)) return otherFormat();
  auto first = firstContentByte(stored);
  if (!first) return Status(ErrorCode::Corrupt, "a file's facts record does not unpack");
  return *first == factsFormatVersion() ? Status::ok() : otherFormat();
}

}  // namespace

Expected<FileFacts> FactStore::Reader::get(const FactKey& key, bool definitionsOnly) {
  auto stored = txn_.get(dbi_, key.bytes());
  if (!stored) return stored.status();
  NIB_RETURN_IF_ERROR(recordFormat(*stored));
  // One buffer per thread: queries read thousands of records in a row.
  thread_local std::string buffer;
  auto bytes = unpackContentInto(*stored, buffer);
  if (!bytes) return Status(ErrorCode::Corrupt, "a file's facts record: " + bytes.status().message());
  auto facts = deserializeFacts(*bytes, definitionsOnly);
  // A references query over thousands of files must not leave a large file's buffer behind.
  if (buffer.capacity() > (size_t(4) << 20)) std::string().swap(buffer);
  return facts;
}

Status FactStore::Reader::checkFormat(const FactKey& key) {
  auto stored = txn_.get(dbi_, key.bytes());
  return stored ? recordFormat(*stored) : Status::ok();
}

bool FactStore::Reader::contains(const FactKey& key) { return txn_.get(dbi_, key.bytes()).hasValue(); }

Expected<std::string_view> FactStore::Reader::packedContent(const std::string& blobOid) {
  return txn_.get(content_, contentKey(blobOid));
}

Expected<std::string> FactStore::Reader::content(const std::string& blobOid) {
  auto packed = packedContent(blobOid);
  if (!packed) return packed.status();
  return unpackContent(*packed);
}

std::optional<std::string> FactStore::Reader::failure(const FactKey& key) {
  auto v = txn_.get(dbi_, failureKey(key));
  if (!v) return std::nullopt;
  return std::string(*v);
}

bool FactStore::Reader::hasContent(const std::string& blobOid) { return txn_.get(content_, contentKey(blobOid)).hasValue(); }

Status FactStore::putBatch(const std::vector<std::pair<std::string, std::string>>& records) {
  auto txn = LmdbTxn::begin(*env_, true);
  if (!txn) return txn.status();
  for (const auto& [k, v] : records)
    NIB_RETURN_IF_ERROR(txn->put(std::string_view(k).substr(0, 2) == kContentPrefix ? content_ : dbi_, k, v));
  return txn->commit();
}

Expected<FactStore::Counts> FactStore::counts() {
  auto txn = LmdbTxn::begin(*env_, false);
  if (!txn) return txn.status();
  Counts c;
  auto records = txn->entries(dbi_);
  if (!records) return records.status();
  c.records = *records;
  if (content_ != dbi_) {
    auto contents = txn->entries(content_);
    if (!contents) return contents.status();
    c.contents = *contents;
  }
  return c;
}

Expected<FactStore::Counts> FactStore::sweep(const std::unordered_set<std::string_view>& blobs,
                                             const std::unordered_set<std::string_view>& profiles) {
  auto txn = LmdbTxn::begin(*env_, true);
  if (!txn) return txn.status();
  // A record's key is `<blob>:<language>:<profile>`, a failure's the same behind `x:`.
  auto deadRecord = [&](std::string_view key) {
    if (key.substr(0, 2) == "x:") key.remove_prefix(2);
    size_t first = key.find(':'), last = key.rfind(':');
    if (first == std::string_view::npos || last == first) return true;  // no key this store writes
    return !blobs.count(key.substr(0, first)) || !profiles.count(key.substr(last + 1));
  };
  Counts removed;
  auto records = txn->eraseIf(dbi_, deadRecord);
  if (!records) return records.status();
  removed.records = *records;
  if (content_ != dbi_) {
    auto contents = txn->eraseIf(content_, [&](std::string_view key) {
      return key.substr(0, 2) != kContentPrefix || !blobs.count(key.substr(2));
    });
    if (!contents) return contents.status();
    removed.contents = *contents;
  }
  if (meta_) {
    auto left = [&](MDB_dbi dbi) {
      auto n = txn->entries(dbi);
      return n ? *n : size_t(0);
    };
    std::string note = std::to_string(left(dbi_)) + " " + std::to_string(content_ != dbi_ ? left(content_) : 0);
    NIB_RETURN_IF_ERROR(txn->put(*meta_, "live", note));
  }
  NIB_RETURN_IF_ERROR(txn->commit());
  return removed;
}

FactStore::Counts FactStore::liveAtLastSweep() {
  Counts c;
  if (!meta_) return c;
  auto txn = LmdbTxn::begin(*env_, false);
  if (!txn) return c;
  auto note = txn->get(*meta_, "live");
  if (!note) return c;
  unsigned long long records = 0, contents = 0;
  if (std::sscanf(std::string(*note).c_str(), "%llu %llu", &records, &contents) == 2) c = {records, contents};
  return c;
}

}  // namespace nib
