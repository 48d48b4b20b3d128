// The static provider's loaded files: facts decoded from the fact store on demand, kept across
// queries within a bound (least recently used go first, also in the middle of a references
// query), and the store's pages and the freed heap handed back after heavy decoding.
#include <malloc.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "providers/StaticProvider.h"

namespace nib {

Expected<const StaticProvider::LoadedFile*> StaticProvider::load(uint32_t fileId, bool occurrences) {
  if (!overlayById_.empty())
    if (auto o = overlayById_.find(fileId); o != overlayById_.end()) return o->second;
  auto it = cache_.find(fileId);
  if (it != cache_.end() && (it->second->complete || !occurrences)) {
    it->second->lastUse = ++useClock_;
    return it->second.get();
  }
  std::optional<FileRecord> record;
  if (it != cache_.end()) record = it->second->record;
  else record = view_->fileById(fileId);
  if (!record) return Status(ErrorCode::Corrupt, "commit view names file id " + std::to_string(fileId) + " without a record");
  auto facts = reader_->get(record->factKey(), !occurrences);
  if (!facts)
    return Status(ErrorCode::Corrupt, "facts for " + record->path + " are missing from the fact store (" +
                                          facts.status().message() + "); run `nib index`");
  auto loaded = std::make_unique<LoadedFile>(LoadedFile{std::move(*record), std::move(*facts), occurrences});
  loaded->lastUse = ++useClock_;
  const LoadedFile* out = loaded.get();
  cachedOccurrences_ += out->facts.occurrences.size() + out->facts.definitions.size();
  decodedSinceRelease_ += out->facts.occurrences.size() + out->facts.definitions.size();
  releaseAfterDecoding();
  // A partial entry being upgraded may still be pointed at by a caller: keep it alive.
  if (it != cache_.end()) retired_.push_back(std::move(it->second));
  cache_[fileId] = std::move(loaded);
  return out;
}

Expected<const StaticProvider::LoadedFile*> StaticProvider::loadPath(const std::string& path) {
  if (auto o = overlays_.find(path); o != overlays_.end()) {
    if (o->second->tombstone) return Status(ErrorCode::NotFound, Reason::NotIndexed, path + " is not indexed (deleted since the index was built)");
    return o->second.get();
  }
  auto record = view_->fileByPath(path);
  if (!record) {
    if (auto reason = skipReason(path)) return Status(ErrorCode::NotFound, Reason::NotIndexed, path + " is not indexed (" + *reason + ")");
    return Status(ErrorCode::NotFound, Reason::NotIndexed, path + " is not in the index (not tracked, ignored, or added after the last `nib index`)");
  }
  return load(record->fileId, /*occurrences=*/true);
}

void StaticProvider::beginQuery() {
  // Loaded files are kept between queries (a server answers many about the same files) but
  // not without bound (in occurrences, what a file's facts weigh, not files). No pointer into
  // the cache outlives a query, so any of it can go here.
  trimCacheKeeping(UINT32_MAX);
  retired_.clear();
  globalMemo_.clear();
}

void StaticProvider::trimCacheKeeping(uint32_t fileId) {
  if (cachedOccurrences_ <= cacheBound_) return;
  // Least recently asked for first: the headers and modules every file resolves through stay.
  auto weight = [](const LoadedFile& f) { return f.facts.occurrences.size() + f.facts.definitions.size(); };
  std::vector<std::pair<uint64_t, uint32_t>> byAge;
  size_t total = 0;
  for (const auto& [id, f] : cache_) {
    total += weight(*f);
    if (id != fileId) byAge.emplace_back(f->lastUse, id);
  }
  std::sort(byAge.begin(), byAge.end());
  for (const auto& [use, id] : byAge) {
    if (total <= cacheBound_ / 2) break;
    auto it = cache_.find(id);
    total -= weight(*it->second);
    cache_.erase(it);
  }
  cachedOccurrences_ = total;
}

void StaticProvider::releaseAfterDecoding() {
  // After much decoding (a references query over thousands of files), the fact store's pages
  // it read stay mapped and the decoded facts freed since stay in the heap, both counted in the
  // server's resident memory (on qemu, 200 references requests took `nib serve` to 390 MiB of
  // mapped pages and 218 MiB of heap) though nothing reads them again soon. Both go back, also
  // in the middle of a long query: the page cache keeps the pages (a later read faults them in
  // again), and it costs a millisecond or two every couple of hundred thousand entries decoded.
  if (decodedSinceRelease_ <= kReleaseAfterDecoded) return;
  factStore_->releaseMappedPages();
  malloc_trim(0);
  decodedSinceRelease_ = 0;
}

}  // namespace nib
