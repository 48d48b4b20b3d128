#include "views/VersionDelta.h"

#include <algorithm>

#include "support/Binary.h"

namespace nib {
namespace {

constexpr uint8_t kEntryFormat = 1;

std::string encodeEntry(const DeltaEntry& e) {
  ByteWriter w;
  w.u8(kEntryFormat);
  w.u8(static_cast<uint8_t>(e.state));
  w.str(e.blobOid);
  w.u8(static_cast<uint8_t>(e.language));
  w.varint(e.size);
  w.u8(e.searchable ? 1 : 0);
  w.str(e.skipReason);
  w.varint(e.definitions);
  w.varint(e.occurrences);
  return w.take();
}

}  // namespace

std::optional<DeltaEntry> VersionDelta::decodeEntry(std::string_view path, std::string_view bytes) {
  ByteReader r(bytes);
  DeltaEntry e;
  e.path = std::string(path);
  if (r.u8() != kEntryFormat) return std::nullopt;
  uint8_t state = r.u8();
  if (state > static_cast<uint8_t>(DeltaEntry::State::Deleted)) return std::nullopt;
  e.state = static_cast<DeltaEntry::State>(state);
  e.blobOid = std::string(r.str());
  e.language = static_cast<Language>(r.u8());
  e.size = r.varint();
  e.searchable = r.u8() != 0;
  e.skipReason = std::string(r.str());
  e.definitions = r.varint();
  e.occurrences = r.varint();
  if (!r.ok() || !r.atEnd()) return std::nullopt;
  return e;
}


Status VersionDelta::write(const std::filesystem::path& dir, const std::vector<DeltaEntry>& entries,
                           const WorktreeSnapshot& snapshot) {
  LmdbEnv::Options options;
  options.noSync = true;  // synced once below
  auto env = LmdbEnv::open(dir, options);
  if (!env) return env.status();
  auto txn = LmdbTxn::begin(**env, true);
  if (!txn) return txn.status();
  auto db = txn->openDb("entries", true);
  if (!db) return db.status();
  for (const DeltaEntry& e : entries) NIB_RETURN_IF_ERROR(txn->put(*db, e.path, encodeEntry(e), MDB_APPEND));
  NIB_RETURN_IF_ERROR(writeWorktreeSnapshot(*txn, snapshot));
  NIB_RETURN_IF_ERROR(txn->commit());
  return (*env)->sync();
}

Expected<std::unique_ptr<VersionDelta>> VersionDelta::open(const std::filesystem::path& dir) {
  auto reader = openLmdbReader(dir);
  if (!reader) return reader.status();
  std::unique_ptr<VersionDelta> d(new VersionDelta(std::move(reader->env), std::move(reader->txn)));
  auto db = d->txn_.openDb("entries", false);
  if (!db) return db.status();
  Status bad;
  NIB_RETURN_IF_ERROR(d->txn_.scan(*db, "", [&](std::string_view key, std::string_view value) {
    auto e = decodeEntry(key, value);
    if (!e) {
      bad = Status(ErrorCode::Corrupt, "damaged delta entry for " + std::string(key) + " in " + dir.string());
      return false;
    }
    d->entries_.push_back(std::move(*e));
    return true;
  }));
  NIB_RETURN_IF_ERROR(bad);
  return d;
}

const DeltaEntry* VersionDelta::find(const std::string& path) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), path,
                             [](const DeltaEntry& e, const std::string& p) { return e.path < p; });
  return it != entries_.end() && it->path == path ? &*it : nullptr;
}

Expected<RecordedWorktree> recordedWorktree(const std::filesystem::path& versionDir, const Manifest& manifest) {
  RecordedWorktree r;
  if (!manifest.base.empty()) {
    auto d = VersionDelta::open(versionDir / "delta");
    if (!d) return d.status();
    r.delta = std::move(*d);
    auto s = r.delta->worktreeSnapshot();
    if (!s) return s.status();
    r.snapshot = std::move(*s);
    return r;
  }
  auto v = CommitView::open(versionDir / CommitView::kDirectory);
  if (!v) return v.status();
  r.view = std::move(*v);
  auto s = r.view->worktreeSnapshot();
  if (!s) return s.status();
  r.snapshot = std::move(*s);
  return r;
}

}  // namespace nib
