#include "views/StoreCollection.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_set>

#include "views/CommitView.h"
#include "views/Manifest.h"
#include "views/SearchViews.h"
#include "views/VersionDelta.h"

namespace nib {
namespace fs = std::filesystem;

namespace {

// The blobs and extractor profiles the versions on disk reference. The strings are owned here
// so that the sets of views into them outlive the views that were read.
struct Marks {
  std::set<std::string> blobs;
  std::set<std::string> profiles;
};

Status markVersion(const fs::path& versionDir, const Manifest& m, Marks& marks) {
  marks.profiles.insert(m.extractorProfile);
  if (!m.base.empty()) {
    // A delta version: its own entries; its base is a version on disk of its own (prune keeps
    // the base of every version it keeps).
    auto delta = VersionDelta::open(versionDir / VersionDelta::kDirectory);
    if (!delta) return delta.status();
    for (const DeltaEntry& e : (*delta)->entries())
      if (!e.blobOid.empty()) marks.blobs.insert(e.blobOid);
    return Status::ok();
  }
  auto view = CommitView::open(versionDir / CommitView::kDirectory);
  if (!view) return view.status();
  (*view)->forEachFile([&](const FileRecord& f) {
    marks.blobs.insert(f.blobOid);
    return true;
  });
  // Searchable files without a grammar have contents but no facts: the search views list them.
  if (const ViewRecord* trigram = m.view("trigram"); trigram && trigram->status == ViewStatus::Complete) {
    auto docs = TrigramView::open(versionDir / TrigramView::kDirectory);
    if (!docs) return docs.status();
    (*docs)->forEach([&](const SearchDoc& d) {
      marks.blobs.insert(d.blobOid);
      return true;
    });
  }
  return Status::ok();
}

}  // namespace

Expected<FactCollection> collectFacts(const IndexLayout& layout, FactStore& facts, const FactStore::Counts& current,
                                      double slack, bool force) {
  FactCollection out;
  auto counts = facts.counts();
  if (!counts) return counts.status();
  out.before = *counts;
  auto over = [&](size_t held, size_t needed) {
    return static_cast<double>(held) > slack * static_cast<double>(needed) + 64;
  };
  // Measured against the larger of the published version's needs and what the last sweep
  // found live (older kept versions and a delta's base count too): a store that is all live
  // is not marked again until it has grown past that by the slack.
  const FactStore::Counts live = facts.liveAtLastSweep();
  if (!force && !over(counts->records, std::max(current.records, live.records)) &&
      !over(counts->contents, std::max(current.contents, live.contents)))
    return out;
  Marks marks;
  for (const std::string& id : layout.listVersions()) {
    const fs::path dir = layout.versionDir(id);
    auto m = readManifest(dir);
    if (!m) return Status(m.status().code(), "version " + id + ": " + m.status().message() + "; nothing collected");
    if (Status s = markVersion(dir, *m, marks); !s.isOk())
      return Status(s.code(), "version " + id + ": " + s.message() + "; nothing collected");
  }
  std::unordered_set<std::string_view> blobs(marks.blobs.begin(), marks.blobs.end());
  std::unordered_set<std::string_view> profiles(marks.profiles.begin(), marks.profiles.end());
  out.liveBlobs = blobs.size();
  // No version at all (the first build failed before publishing) marks nothing: keep the store,
  // whose facts the next build reuses.
  if (blobs.empty()) return out;
  auto removed = facts.sweep(blobs, profiles);
  if (!removed) return removed.status();
  out.swept = true;
  out.removed = *removed;
  // A sweep runs once a quarter of the records is garbage, so compacting after each one that
  // left a tenth of the file free costs a copy of the live store per quarter of it rewritten.
  auto compacted = facts.compactIfSparse(layout.factsDir(), 0.10);
  if (!compacted) return compacted.status();
  out.compacted = *compacted;
  return out;
}

}  // namespace nib
