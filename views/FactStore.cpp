#include "views/FactStore.h"

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
  // Committing (even a read-only transaction) keeps the table handle open for the env's life.
  NIB_RETURN_IF_ERROR(txn->commit());
  return std::unique_ptr<FactStore>(new FactStore(std::move(*env), *dbi, content ? *content : *dbi));
}

Expected<FactStore::Reader> FactStore::reader() {
  auto txn = LmdbTxn::begin(*env_, false);
  if (!txn) return txn.status();
  return Reader(std::move(*txn), dbi_, content_);
}

Expected<FileFacts> FactStore::Reader::get(const FactKey& key, bool definitionsOnly) {
  auto bytes = txn_.get(dbi_, key.bytes());
  if (!bytes) return bytes.status();
  return deserializeFacts(*bytes, definitionsOnly);
}

bool FactStore::Reader::contains(const FactKey& key) { return txn_.get(dbi_, key.bytes()).hasValue(); }

Expected<std::string_view> FactStore::Reader::content(const std::string& blobOid) {
  return txn_.get(content_, contentKey(blobOid));
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
    NIB_RETURN_IF_ERROR(txn->put(k.rfind("c:", 0) == 0 ? content_ : dbi_, k, v));
  return txn->commit();
}

}  // namespace nib
