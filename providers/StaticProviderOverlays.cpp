// StaticProvider's overlays: the facts that stand in for the index's where a file differs from
// it — the version's own delta over its base, a file open in the editor or changed on disk
// (re-extracted), a deleted one (a tombstone) — and the caches they invalidate.
#include "providers/StaticProvider.h"

namespace nib {

const std::vector<DeltaEntry>& StaticProvider::versionDelta() const {
  static const std::vector<DeltaEntry> none;
  return delta_ ? delta_->entries() : none;
}

Status StaticProvider::applyVersionEntry(const DeltaEntry& e) {
  if (e.state != DeltaEntry::State::Indexed) {
    // Deleted, or not indexed any more (binary now, no grammar now): a tombstone over the
    // base's file, if it had one.
    if (auto indexed = view_->fileByPath(e.path)) {
      setOverlayOf(e.path, indexed->language, FileFacts{}, /*fromVersion=*/true);
      overlays_[e.path]->tombstone = true;
    }
    return Status::ok();
  }
  FactKey key{e.blobOid, e.language, manifest_.extractorProfile};
  auto facts = reader_->get(key);
  if (!facts) return Status(facts.status().code(), "facts of " + e.path + " (" + e.blobOid + "): " + facts.status().message());
  setOverlayOf(e.path, e.language, std::move(*facts), /*fromVersion=*/true);
  FileRecord& r = overlays_[e.path]->record;
  r.blobOid = e.blobOid;
  r.size = e.size;
  r.profileDigest = manifest_.extractorProfile;
  return Status::ok();
}

bool StaticProvider::hasOverlay(const std::string& path) const {
  auto it = overlays_.find(path);
  return it != overlays_.end() && !it->second->fromVersion;
}

void StaticProvider::invalidateCaches() {
  defCache_.clear();
  moduleFiles_.clear();
}

void StaticProvider::setOverlay(const std::string& path, Language language, FileFacts facts, bool asOnDisk) {
  setOverlayOf(path, language, std::move(facts), /*fromVersion=*/false);
  overlays_[path]->asOnDisk = asOnDisk;
}

void StaticProvider::setOverlayOf(const std::string& path, Language language, FileFacts facts, bool fromVersion) {
  FileRecord record;
  // Overlays change between queries, when no pointer into the caches is held: old entries can
  // go at once (keeping them would hold a copy of the file's facts per keystroke).
  if (auto existing = overlays_.find(path); existing != overlays_.end()) {
    record = existing->second->record;
  } else if (auto indexed = view_->fileByPath(path)) {
    record = *indexed;
    cache_.erase(record.fileId);
  } else if (auto known = versionIds_.find(path); known != versionIds_.end()) {
    record.fileId = known->second;  // a file the delta added keeps its id in every process
    record.path = path;
  } else {
    record.fileId = nextOverlayId_++;
    if (fromVersion) versionIds_[path] = record.fileId;
    record.path = path;
  }
  record.language = language;
  record.size = facts.byteSize;
  auto loaded = std::make_unique<LoadedFile>(LoadedFile{record, std::move(facts), true});
  loaded->fromVersion = fromVersion;
  if (auto existing = overlays_.find(path); existing != overlays_.end() && !existing->second->fromVersion)
    --sessionOverlays_;
  if (!fromVersion) ++sessionOverlays_;
  overlayById_[record.fileId] = loaded.get();
  overlays_[path] = std::move(loaded);
  invalidateCaches();
}

void StaticProvider::setTombstone(const std::string& path) {
  // A file of the version: the base's, or one the version's delta indexed.
  std::optional<FileRecord> indexed = view_->fileByPath(path);
  if (!indexed && delta_)
    if (const DeltaEntry* e = delta_->find(path); e && e->state == DeltaEntry::State::Indexed) {
      indexed.emplace();
      indexed->language = e->language;
    }
  if (!indexed) {
    removeOverlay(path);  // never indexed: nothing to hide
    return;
  }
  setOverlay(path, indexed->language, FileFacts{});
  overlays_[path]->tombstone = true;
}

void StaticProvider::removeOverlay(const std::string& path) {
  auto it = overlays_.find(path);
  if (it == overlays_.end() || it->second->fromVersion) return;
  const DeltaEntry* entry = delta_ ? delta_->find(path) : nullptr;
  uint32_t id = it->second->record.fileId;
  overlayById_.erase(id);
  overlays_.erase(it);
  --sessionOverlays_;
  invalidateCaches();
  if (entry) (void)applyVersionEntry(*entry);
}

}  // namespace nib
