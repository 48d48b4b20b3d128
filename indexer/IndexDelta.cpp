// The update path of a worktree build: a delta version (the base's view files hard-linked, a
// VersionDelta beside them) when few files differ from the last full build. Its phases: find
// the base, select the files whose stat data changed, read them, list the entries that differ
// from the base, share the base's views, write the delta view, count, publish.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "indexer/BuildPhases.h"
#include "indexer/HistoryMiner.h"
#include "indexer/DenseFollowUp.h"
#include "support/GitLite.h"
#include "support/Hash.h"
#include "support/Log.h"
#include "views/CommitView.h"
#include "views/HistoryView.h"
#include "views/IndexLayout.h"
#include "views/VersionDelta.h"

#ifndef NIB_VERSION
#define NIB_VERSION "0.0.0"
#endif

namespace nib::build {
namespace {

// The version a delta is made over (the current version's base, or the current version when it
// is complete itself) and what comparing with it needs.
struct DeltaBase {
  Manifest current, base;
  std::string baseId;
  std::unique_ptr<CommitView> baseView;
  std::unique_ptr<VersionDelta> currentDelta;  // when the current version is a delta itself
  WorktreeSnapshot baseSnapshot, currentSnapshot;
  // Stat data is trusted only for files last modified well before the current version's scan
  // (git's racy-clean rule): a same-size rewrite within one timestamp tick of the scan would
  // otherwise keep its old stat data and go unseen. A version from before the scan time was
  // recorded trusts nothing: everything is read.
  int64_t trustedBefore = 0;

  // Whether the current version records an extraction failure for `path` (a build with a larger
  // parse budget tries it again).
  bool failedBefore(const std::string& path) const {
    std::optional<std::string> reason;
    const DeltaEntry* e = currentDelta ? currentDelta->find(path) : nullptr;
    if (e) reason = e->state == DeltaEntry::State::Skipped ? std::optional<std::string>(e->skipReason) : std::nullopt;
    else reason = baseView->skipReason(path);
    return reason && reason->rfind("extract-failed", 0) == 0;
  }
};

// When the current version (a complete one, or a delta over one) was built with the same
// configuration and extractor, its base; nullopt when a full build is needed.
std::optional<DeltaBase> findBase(const DeltaInput& in) {
  const IndexOptions& options = *in.options;
  if (options.deltaBudget == 0 || options.retryFailed || options.retrainModel || !options.denseModel.empty())
    return std::nullopt;
  auto current = in.layout->currentManifest();
  if (!current || current->configDigest != in.configDigest || current->extractorProfile != in.profile ||
      current->nibVersion != NIB_VERSION)
    return std::nullopt;
  DeltaBase b;
  b.current = *current;
  b.baseId = current->base.empty() ? current->versionId : current->base;
  fs::path baseDir = in.layout->versionDir(b.baseId);
  auto base = current->base.empty() ? Expected<Manifest>(*current) : readManifest(baseDir);
  if (!base || !base->servable() || !checkArtifactSizes(baseDir, *base).isOk()) return std::nullopt;
  if (!denseViewCurrent(*base, options) || !searchViewsCurrent(*base) || !historyViewCurrent(*base))
    return std::nullopt;
  // A base whose dense view is still being built: the follow-up's version of it (the same
  // views, hard-linked, and the dense view complete) is the better base once it exists;
  // until then the delta shares the pending view, and the follow-up publishes it again over
  // its completion (rebaseDelta). Making a full build instead would leave every update of a
  // worktree edited faster than the follow-up runs a full build with its view pending.
  if (followUpPending(*base))
    if (auto done = followUpCompletionOf(*in.layout, b.baseId)) {
      b.baseId = done->versionId;
      baseDir = in.layout->versionDir(b.baseId);
      base = std::move(*done);
      if (!checkArtifactSizes(baseDir, *base).isOk()) return std::nullopt;
    }
  b.base = *base;
  auto baseView = CommitView::open(baseDir / CommitView::kDirectory);
  if (!baseView) return std::nullopt;
  b.baseView = std::move(*baseView);
  auto baseSnapshot = b.baseView->worktreeSnapshot();
  if (!baseSnapshot) return std::nullopt;  // a commit build: nothing to compare with
  b.baseSnapshot = std::move(*baseSnapshot);
  if (!current->base.empty()) {
    auto d = VersionDelta::open(in.layout->versionDir(current->versionId) / VersionDelta::kDirectory);
    if (!d) return std::nullopt;
    b.currentDelta = std::move(*d);
  }
  auto currentSnapshot = b.currentDelta ? b.currentDelta->worktreeSnapshot() : b.baseView->worktreeSnapshot();
  if (!currentSnapshot) return std::nullopt;
  b.currentSnapshot = std::move(*currentSnapshot);
  if (auto it = current->stats.find("worktree.scan-ns"); it != current->stats.end())
    b.trustedBefore = std::strtoll(it->second.c_str(), nullptr, 10) - 1'000'000'000;
  return b;
}

// Which items must be read: those whose stat data differs from the current version's, and those
// whose extraction failed. The others keep the blob id the current version recorded.
struct Selection {
  std::vector<size_t> toRead;
  std::vector<std::pair<size_t, std::string_view>> statMatched;  // applied once the delta is certain
};

Selection selectChanged(const DeltaBase& b, const std::vector<WorkItem>& items) {
  SnapshotIndex inCurrent(b.currentSnapshot);
  Selection s;
  for (size_t i = 0; i < items.size(); ++i) {
    const WorkItem& w = items[i];
    if (w.ownFile()) continue;
    const WorktreeSnapshot::File* was = inCurrent.find(w.entry.path);
    if (was && !was->oid.empty() && was->size == w.entry.size && was->mtimeNs == w.entry.mtimeNs &&
        was->inode == w.entry.inode && was->mode == static_cast<uint32_t>(w.entry.mode) &&
        was->mtimeNs < b.trustedBefore && !b.failedBefore(w.entry.path)) {
      s.statMatched.emplace_back(i, was->oid);
      continue;
    }
    s.toRead.push_back(i);
  }
  return s;
}

// Reads and (when new) extracts the selected items into copies: when the delta turns out over
// budget, the full build starts from the items as scanned.
Expected<std::map<size_t, WorkItem>> readChanged(const DeltaInput& in, const std::vector<WorkItem>& items,
                                                 const std::vector<size_t>& toRead, IndexReport& report) {
  const fs::path& root = in.repo->root();
  Extractor extractor(in.options->parseTimeoutMicros);
  auto reader = in.facts->reader();
  std::vector<std::pair<std::string, std::string>> records;
  ItemContext ctx{root, /*fromWorktree=*/true, nullptr, *in.options, extractor,
                  reader ? &*reader : nullptr, in.profile, records, /*spill=*/nullptr};
  std::map<size_t, WorkItem> read;
  for (size_t i : toRead) {
    WorkItem& w = read.emplace(i, items[i]).first->second;
    if (!w.skipReason.empty()) {
      // Decided without its content (a link, a submodule, too large): only its id is needed.
      if (w.entry.oid.empty() && w.entry.mode != EntryMode::Submodule)
        if (auto oid = gitlite::blobIdOfFile(root / w.entry.path)) w.entry.oid = *oid;
      continue;
    }
    processItem(w, ctx);
    if (w.extracted) report.extracted++;
    if (w.failed) report.failed++;
  }
  NIB_RETURN_IF_ERROR(in.facts->putBatch(records));
  NIB_RETURN_IF_ERROR(in.facts->sync());
  return read;
}

// The entries: every path whose state differs from the base's, in path order.
std::vector<DeltaEntry> deltaEntries(const DeltaBase& b, const std::vector<WorkItem>& items,
                                     const std::map<size_t, WorkItem>& read) {
  SnapshotIndex inBase(b.baseSnapshot);
  std::vector<DeltaEntry> entries;
  std::set<std::string_view> present;
  for (size_t i = 0; i < items.size(); ++i) {
    auto copy = read.find(i);
    const WorkItem& w = copy == read.end() ? items[i] : copy->second;
    if (w.ownFile()) continue;
    present.insert(w.entry.path);
    if (copy == read.end()) {
      // Unchanged since the current version: its entry there, if it had one, still stands.
      if (b.currentDelta)
        if (const DeltaEntry* e = b.currentDelta->find(w.entry.path)) entries.push_back(*e);
      continue;
    }
    // The state it has now against the base's, by the bytes read (not git's blob id, which
    // line-ending filters can make differ from them).
    DeltaEntry e = deltaEntryOf(w);
    if (auto record = b.baseView->fileByPath(w.entry.path)) {
      if (e.state == DeltaEntry::State::Indexed && e.blobOid == record->blobOid && e.language == record->language)
        continue;
    } else if (auto reason = b.baseView->skipReason(w.entry.path)) {
      // Skipped in the base too, for the same reason: the same state, unless the file is
      // searchable (its text may differ; the base's blob id of it is the snapshot's).
      const WorktreeSnapshot::File* was = inBase.find(w.entry.path);
      bool sameText = !e.searchable || (was && !e.blobOid.empty() && was->oid == e.blobOid);
      if (e.state == DeltaEntry::State::Skipped && e.skipReason == *reason && sameText) continue;
    }
    entries.push_back(std::move(e));
  }
  for (const auto& f : b.baseSnapshot.files)
    if (!present.count(f.path)) {
      DeltaEntry e;
      e.path = std::string(f.path);
      e.state = DeltaEntry::State::Deleted;
      entries.push_back(std::move(e));
    }
  std::sort(entries.begin(), entries.end(), [](const DeltaEntry& a, const DeltaEntry& b) { return a.path < b.path; });
  return entries;
}

// How many entries a delta over `base` may list: the option's bound, and an eighth of the base's
// files (32 at least). Past that a full build costs less to keep: every query lays the entries
// over the base, and the fact store keeps both the base's blobs and the entries' (a small
// repository edited all over would otherwise hold nearly two copies of its facts).
size_t deltaBudgetOver(const Manifest& base, const IndexOptions& options) {
  size_t files = 0;
  if (auto it = base.stats.find("files"); it != base.stats.end()) files = std::strtoull(it->second.c_str(), nullptr, 10);
  return std::min(options.deltaBudget, std::max<size_t>(32, files / 8));
}

// C and C++ files that libclang indexed are answered from its facts, which only the clang build
// (its translation units cached) refreshes: a change to one builds the clang view again.
bool touchesClangFacts(const Manifest& base, const std::vector<DeltaEntry>& entries) {
  const ViewRecord* clang = base.view("clang");
  if (!clang || clang->status != ViewStatus::Complete) return false;
  auto cFamily = [](Language l) { return l == Language::C || l == Language::Cpp; };
  for (const DeltaEntry& e : entries)
    if (cFamily(e.language) || cFamily(detectLanguage(e.path, ""))) return true;
  return false;
}

// So are TypeScript, JavaScript and Python files the precise view covers, which only the
// precise build (its projects cached) refreshes: a change to one builds the precise view again.
bool touchesPreciseFacts(const Manifest& base, const std::vector<DeltaEntry>& entries) {
  const ViewRecord* precise = base.view("precise");
  if (!precise || precise->status != ViewStatus::Complete) return false;
  auto covered = [](Language l) { return l == Language::TypeScript || l == Language::JavaScript || l == Language::Python; };
  for (const DeltaEntry& e : entries)
    if (covered(e.language) || covered(detectLanguage(e.path, ""))) return true;
  return false;
}

// The base's view files, shared by hard links (never written again: versions are immutable),
// with the files a view keeps beside its artifacts (the dense view's encoder settings, the
// structural view's name list); the views named in `except` are the version's own. False
// on a file system without hard links (or out of them): the caller builds in full instead.
bool linkBaseViews(const fs::path& baseDir, const fs::path& versionDir, const Manifest& base,
                   const std::set<std::string>& except = {}) {
  std::error_code ec;
  auto link = [&](const std::string& rel) {
    fs::create_directories((versionDir / rel).parent_path(), ec);
    if (!ec) fs::create_hard_link(baseDir / rel, versionDir / rel, ec);
    return !ec;
  };
  bool linked = true;
  for (const ViewRecord& v : base.views)
    if (!except.count(v.name))
      for (const Artifact& a : v.artifacts) linked = linked && link(a.path);
  // So do the caches derived from a shared artifact alone: the structural view's name list is
  // the same table's keys (the call graph is not: it includes the delta's files).
  const std::string names = std::string(CommitView::kDirectory) + "/" + CommitView::kDefinitionKeysFile;
  for (const std::string& extra : {std::string("dense/encoder"), names})
    if (linked && fs::exists(baseDir / extra) && !fs::exists(versionDir / extra)) linked = link(extra);
  if (!linked) {
    logWarn("cannot share the views of the base version by hard links (" + ec.message() + "): rewriting every view");
    fs::remove_all(versionDir, ec);
  }
  return linked;
}

Expected<ViewRecord> deltaViewPhase(const fs::path& versionDir, const std::vector<DeltaEntry>& entries,
                                    const WorktreeSnapshot& snapshot, const std::string& baseId) {
  fs::path dir = versionDir / VersionDelta::kDirectory;
  std::error_code ec;
  fs::create_directories(versionDir / CommitView::kDirectory, ec);
  fs::create_directories(dir, ec);
  if (ec) return Status(ErrorCode::IoError, "cannot create " + versionDir.string() + ": " + ec.message());
  NIB_RETURN_IF_ERROR(VersionDelta::write(dir, entries, snapshot));
  auto digest = digestFile(dir / "data.mdb");
  if (!digest) return digest.status();
  ViewRecord v;
  v.name = VersionDelta::kDirectory;
  v.status = ViewStatus::Complete;
  v.profile = deltaViewProfile(baseId);
  v.capabilities = {"changed", "deleted", "worktree"};
  v.artifacts.push_back({std::string(VersionDelta::kDirectory) + "/data.mdb", *digest, fs::file_size(dir / "data.mdb")});
  return v;
}

// The indexed files, files per language and skipped files per reason: the base's counts, less
// the paths an entry replaces, plus the entries (the report and `nib status` print them).
void countDelta(const DeltaBase& b, const std::vector<DeltaEntry>& entries, FactStore& facts, IndexReport& report) {
  auto stat = [&](const char* key) {
    auto it = b.base.stats.find(key);
    return it == b.base.stats.end() ? 0ull : std::strtoull(it->second.c_str(), nullptr, 10);
  };
  report.files = stat("files");
  report.definitions = stat("definitions");
  report.occurrences = stat("occurrences");
  report.sourceBytes = stat("source-bytes");
  for (const auto& [key, value] : b.base.stats) {
    if (key.rfind("files.", 0) == 0) report.filesByLanguage[key.substr(6)] = std::strtoull(value.c_str(), nullptr, 10);
    else if (key.rfind("skipped.", 0) == 0) report.skippedByReason[key.substr(8)] = std::strtoull(value.c_str(), nullptr, 10);
  }
  auto reasonOf = [](const std::string& r) { return r.substr(0, r.find(':')); };
  auto decrement = [](std::map<std::string, uint64_t>& counts, const std::string& key) {
    auto it = counts.find(key);
    if (it != counts.end() && it->second > 0 && --it->second == 0) counts.erase(it);
  };
  auto reader = facts.reader();
  for (const DeltaEntry& e : entries) {
    if (auto was = b.baseView->fileByPath(e.path)) {
      report.files--;
      report.sourceBytes -= std::min<uint64_t>(report.sourceBytes, was->size);
      if (auto f = reader ? reader->get(was->factKey()) : Expected<FileFacts>(Status(ErrorCode::NotFound, ""))) {
        report.definitions -= std::min<uint64_t>(report.definitions, f->definitions.size());
        report.occurrences -= std::min<uint64_t>(report.occurrences, f->occurrences.size());
      }
      decrement(report.filesByLanguage, languageName(was->language));
    } else if (auto reason = b.baseView->skipReason(e.path)) {
      decrement(report.skippedByReason, reasonOf(*reason));
    }
    if (e.state == DeltaEntry::State::Indexed) {
      report.files++;
      report.sourceBytes += e.size;
      report.definitions += e.definitions;
      report.occurrences += e.occurrences;
      report.filesByLanguage[languageName(e.language)]++;
    } else if (e.state == DeltaEntry::State::Skipped) {
      report.skippedByReason[reasonOf(e.skipReason)]++;
    }
  }
  report.reused = report.files > report.extracted ? report.files - report.extracted : 0;
}

// The delta version's manifest: the base's, with the new header and the delta view (the counts
// and rebuilt views come later).
Manifest deltaManifest(const DeltaBase& b, Manifest header, const ViewRecord& deltaView, size_t readCount,
                       int64_t scanStartedNs) {
  Manifest m = b.base;
  m.versionId = header.versionId;
  m.created = header.created;
  m.sourceCommit = header.sourceCommit;
  m.sourceTree = header.sourceTree;
  m.dirty = header.dirty;
  m.previous = b.current.versionId;
  m.base = b.baseId;
  std::erase_if(m.views, [&](const ViewRecord& v) { return v.name == deltaView.name; });
  m.views.push_back(deltaView);
  m.stats["delta.read"] = std::to_string(readCount);
  m.stats["worktree.scan-ns"] = std::to_string(scanStartedNs);
  return m;
}

// The views a delta over `base` with `entries` builds for itself; nullopt when one cannot be
// built here (its builder is not configured any more) and the full path must run.
std::optional<std::set<std::string>> viewsToRebuild(const DeltaInput& in, const Manifest& base,
                                                    const std::vector<DeltaEntry>& entries) {
  std::set<std::string> views;
  // A view other workers built (BuildPhases.h, clangTools) is built again too.
  const ViewRecord* clang = base.view("clang");
  const bool clangTooled = !clang || clang->status == ViewStatus::Absent ||
                           builtWith(*clang, clangTools(clangWorkerPath(in.options->clangWorker)));
  const ViewRecord* precise = base.view("precise");
  const bool preciseTooled = !precise || precise->status == ViewStatus::Absent || !in.scipIndexers ||
                             builtWith(*precise, preciseTools(scipWorkerPath(in.options->scipWorker), *in.scipIndexers));
  if (touchesClangFacts(base, entries) || clangUnindexedChanged(*in.layout, base) || !clangTooled) {
    if (in.database.empty()) return std::nullopt;
    views.insert("clang");
  }
  if (touchesPreciseFacts(base, entries) || !preciseTooled) {
    if (!in.scipIndexers || in.scipIndexers->empty()) return std::nullopt;
    views.insert("precise");
  }
  // The history view reflects the commit its walk started from: after a commit (or a checkout)
  // it is walked again, the cache answering for every commit the last walk saw.
  if (base.sourceCommit != in.commit) views.insert(HistoryView::kDirectory);
  return views;
}

// Builds the views in `views` into the delta version (the units and projects whose inputs did
// not change come from their caches) and puts them in its manifest in place of the base's,
// marked as covering the delta.
Status rebuildViews(const DeltaInput& in, const fs::path& versionDir, const std::vector<WorkItem>& items,
                    const std::set<std::string>& views, Manifest& m, IndexReport& report) {
  const IndexOptions& options = *in.options;
  const fs::path root = in.repo->root();
  for (const std::string& name : views) {
    auto started = std::chrono::steady_clock::now();
    // The base's statistics of the view go: the build records its own.
    std::erase_if(m.stats, [&](const auto& kv) { return kv.first.rfind(name + ".", 0) == 0; });
    Expected<ViewRecord> view = Status(ErrorCode::Internal, "no builder for view " + name);
    if (name == "clang") {
      ClangPhaseInput phase{root, versionDir, in.layout->dir() / "clang-cache", in.database, options.clangWorker,
                            &items, in.threads, &options};
      view = clangViewPhase(phase, m);
    } else if (name == "precise") {
      PrecisePhaseInput phase{root, versionDir, in.layout->dir() / "precise-cache", *in.scipIndexers,
                              options.scipWorker, &items, in.threads, &options};
      view = preciseViewPhase(phase, m);
    } else if (name == HistoryView::kDirectory) {
      HistoryWalkTask walk(root, in.layout->dir() / HistoryCache::kDirectory, in.commit, options.historyCommits);
      view = historyViewPhase(versionDir, walk, items);
    }
    if (!view) return view.status();
    view->capabilities.push_back(ViewRecord::kCoversDelta);
    for (ViewRecord& v : m.views)
      if (v.name == name) v = *view;
    report.phaseSeconds.emplace_back(name, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  return Status::ok();
}

}  // namespace

// A delta version when few files differ from the base: files whose stat data still matches the
// current version's snapshot are not read at all; the others are read, hashed and (when new)
// extracted; a file whose blob equals the base's needs no entry.
Expected<std::optional<IndexReport>> buildDelta(const DeltaInput& in, ScanOutput& scan, IndexReport report) {
  using Result = std::optional<IndexReport>;
  const IndexOptions& options = *in.options;
  std::optional<DeltaBase> b = findBase(in);
  if (!b) return Result();
  Selection selected = selectChanged(*b, scan.items);
  const size_t budget = deltaBudgetOver(b->base, options);
  if (selected.toRead.size() > 4 * budget) return Result();
  auto read = readChanged(in, scan.items, selected.toRead, report);
  if (!read) return read.status();
  std::vector<DeltaEntry> entries = deltaEntries(*b, scan.items, *read);
  if (entries.size() > budget) return Result();
  std::optional<std::set<std::string>> rebuilt = viewsToRebuild(in, b->base, entries);
  if (!rebuilt) return Result();

  // The delta is certain: the scan takes the blob ids found.
  for (const auto& [i, oid] : selected.statMatched) scan.items[i].entry.oid = std::string(oid);
  for (auto& [i, w] : *read) scan.items[i].entry.oid = w.entry.oid;
  WorktreeSnapshot& snapshot = *scan.snapshot;
  size_t k = 0;
  for (const WorkItem& w : scan.items)
    if (!w.ownFile()) snapshot.files[k++].oid = snapshot.intern(w.entry.oid);
  auto header = manifestHeader(*in.repo, *in.layout, in.commit, &scan.items, in.configDigest);
  if (!header) return header.status();
  fs::path versionDir = in.layout->versionDir(header->versionId);
  if (!linkBaseViews(in.layout->versionDir(b->baseId), versionDir, b->base, *rebuilt)) return Result();
  auto deltaView = deltaViewPhase(versionDir, entries, snapshot, b->baseId);
  if (!deltaView) return deltaView.status();
  Manifest m = deltaManifest(*b, *header, *deltaView, read->size(), scan.startedNs);
  NIB_RETURN_IF_ERROR(rebuildViews(in, versionDir, scan.items, *rebuilt, m, report));

  report.deltaBase = b->baseId;
  report.deltaFiles = entries.size();
  countDelta(*b, entries, *in.facts, report);
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - in.started).count(); };
  report.seconds = elapsed();
  double before = 0;
  for (const auto& [_, secs] : report.phaseSeconds) before += secs;
  report.phaseSeconds.emplace_back("delta", report.seconds - before);
  recordCounts(m, report);
  m.stats["delta.files"] = std::to_string(report.deltaFiles);
  report.manifest = m;
  std::vector<std::string> dirs{VersionDelta::kDirectory, CommitView::kDirectory};
  for (const ViewRecord& v : b->base.views)
    if (!v.artifacts.empty()) dirs.push_back(fs::path(v.artifacts.front().path).parent_path().string());
  std::set<std::string> verify{std::string(VersionDelta::kDirectory) + "/data.mdb"};
  for (const ViewRecord& v : m.views)
    if (rebuilt->count(v.name))
      for (const Artifact& a : v.artifacts) verify.insert(a.path);
  NIB_RETURN_IF_ERROR(publishVersion(*in.layout, m, options, dirs, verify));
  pruneAndCollect(*in.layout, options, *in.facts, report);
  double total = elapsed();
  report.phaseSeconds.emplace_back("publish", total - report.seconds);
  report.seconds = total;
  report.indexBytes = directorySize(versionDir / VersionDelta::kDirectory) + directorySize(in.layout->factsDir());
  return Result(std::move(report));
}

std::string deltaViewProfile(const std::string& baseId) { return "delta-1;base=" + baseId; }

Expected<std::string> rebaseDelta(const IndexLayout& layout, const Manifest& delta, const Manifest& completion,
                                  const IndexOptions& options) {
  Manifest m = delta;
  m.versionId = layout.newVersionId();
  m.created = utcTimestamp();
  m.previous = delta.versionId;
  m.base = completion.versionId;
  const fs::path versionDir = layout.versionDir(m.versionId), deltaDir = layout.versionDir(delta.versionId);
  // The views the delta built for itself stay its own; the others are the completion's.
  std::set<std::string> own;
  for (const ViewRecord& v : delta.views)
    if (v.coversDelta()) own.insert(v.name);
  if (!linkBaseViews(layout.versionDir(completion.versionId), versionDir, completion, own))
    return Status(ErrorCode::IoError, "cannot share the views of version " + completion.versionId + " by hard links");
  // The delta's own table, its call graph (the same files over the same views) and its own
  // views come along.
  std::error_code ec;
  const std::string deltaData = std::string(VersionDelta::kDirectory) + "/data.mdb";
  fs::create_directories(versionDir / VersionDelta::kDirectory, ec);
  if (!ec) fs::create_hard_link(deltaDir / deltaData, versionDir / deltaData, ec);
  for (const ViewRecord& v : delta.views)
    if (own.count(v.name))
      for (const Artifact& a : v.artifacts) {
        if (!ec) fs::create_directories((versionDir / a.path).parent_path(), ec);
        if (!ec) fs::create_hard_link(deltaDir / a.path, versionDir / a.path, ec);
      }
  if (ec) {
    fs::remove_all(versionDir, ec);
    return Status(ErrorCode::IoError, "cannot link the delta of version " + delta.versionId);
  }
  const fs::path graph = fs::path(CommitView::kDirectory) / CommitView::kCallGraphFile;
  if (fs::exists(deltaDir / graph, ec)) fs::create_hard_link(deltaDir / graph, versionDir / graph, ec);
  // The shared views' records and statistics are the completion's (its dense view, its clang
  // view with the made-up units added).
  for (ViewRecord& v : m.views) {
    if (v.name == VersionDelta::kDirectory) {
      v.profile = deltaViewProfile(completion.versionId);
    } else if (!own.count(v.name)) {
      if (const ViewRecord* done = completion.view(v.name)) v = *done;
      std::erase_if(m.stats, [&](const auto& kv) { return kv.first.rfind(v.name + ".", 0) == 0; });
      for (const auto& [key, value] : completion.stats)
        if (key.rfind(v.name + ".", 0) == 0) m.stats[key] = value;
    }
  }
  std::vector<std::string> dirs{VersionDelta::kDirectory, CommitView::kDirectory};
  for (const ViewRecord& v : completion.views)
    if (!v.artifacts.empty()) dirs.push_back(fs::path(v.artifacts.front().path).parent_path().string());
  Status s = publishVersion(layout, m, options, dirs, {deltaData});
  if (!s.isOk()) {
    fs::remove_all(versionDir, ec);
    return s;
  }
  return m.versionId;
}

}  // namespace nib::build
