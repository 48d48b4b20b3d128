// The update path of a worktree build: a delta version (the base's view files hard-linked, a
// VersionDelta beside them) when few files differ from the last full build.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include "indexer/BuildParts.h"
#include "support/GitLite.h"
#include "support/Hash.h"
#include "support/Log.h"
#include "views/CommitView.h"
#include "views/IndexLayout.h"
#include "views/VersionDelta.h"

#ifndef NIB_VERSION
#define NIB_VERSION "0.0.0"
#endif

namespace nib::build {

// The update path of a worktree build: when the current version (a complete one, or a delta
// over one) was built with the same configuration and extractor, and few files differ from its
// base, the new version is a delta over that base instead of a rewrite of every view. Files
// whose stat data still matches the current version's snapshot are not read at all; the others
// are read, hashed and (when new) extracted; a file whose blob equals the base's needs no entry.
// Returns nullopt when a full build is needed (no such base, too many changes).
Expected<std::optional<IndexReport>> buildDelta(GitRepository& repo, const IndexLayout& layout,
                                                const IndexOptions& options, const std::string& commit,
                                                const std::string& config, std::vector<WorkItem>& items,
                                                WorktreeSnapshot& snapshot, int64_t scanStartedNs, FactStore& facts,
                                                const std::string& profile,
                                                std::chrono::steady_clock::time_point started, IndexReport report) {
  using Result = std::optional<IndexReport>;
  if (options.deltaBudget == 0 || options.retryFailed || options.retrainModel || !options.denseModel.empty())
    return Result();
  auto current = layout.currentManifest();
  if (!current || current->configDigest != config || current->extractorProfile != profile ||
      current->nibVersion != NIB_VERSION)
    return Result();
  std::string baseId = current->base.empty() ? current->versionId : current->base;
  auto base = current->base.empty() ? Expected<Manifest>(*current) : readManifest(layout.versionDir(baseId));
  if (!base || !base->servable() || !checkArtifactSizes(layout.versionDir(baseId), *base).isOk()) return Result();
  if (!denseViewCurrent(*base, options) || denseViewPending(*base)) return Result();
  auto baseView = CommitView::open(layout.versionDir(baseId) / "structural");
  if (!baseView) return Result();
  auto baseSnapshot = (*baseView)->worktreeSnapshot();
  if (!baseSnapshot) return Result();  // a commit build: nothing to compare with
  std::unique_ptr<VersionDelta> currentDelta;
  if (!current->base.empty()) {
    auto d = VersionDelta::open(layout.versionDir(current->versionId) / "delta");
    if (!d) return Result();
    currentDelta = std::move(*d);
  }
  auto currentSnapshot = currentDelta ? currentDelta->worktreeSnapshot() : (*baseView)->worktreeSnapshot();
  if (!currentSnapshot) return Result();
  SnapshotIndex inBase(*baseSnapshot), inCurrent(*currentSnapshot);

  // Which entries must be read: those whose stat data differs from the current version's, and
  // those whose extraction failed (a build with a larger parse budget tries them again).
  auto failedBefore = [&](const std::string& path) {
    std::optional<std::string> reason;
    const DeltaEntry* e = currentDelta ? currentDelta->find(path) : nullptr;
    if (e) reason = e->state == DeltaEntry::State::Skipped ? std::optional<std::string>(e->skipReason) : std::nullopt;
    else reason = (*baseView)->skipReason(path);
    return reason && reason->rfind("extract-failed", 0) == 0;
  };
  // Stat data is trusted only for files last modified well before the current version's scan
  // (git's racy-clean rule): a same-size rewrite within one timestamp tick of the scan would
  // otherwise keep its old stat data and go unseen.
  // (A version from before the scan time was recorded trusts nothing: everything is read.)
  int64_t trustedBefore = 0;
  if (auto it = current->stats.find("worktree.scan-ns"); it != current->stats.end())
    trustedBefore = std::strtoll(it->second.c_str(), nullptr, 10) - 1'000'000'000;
  std::vector<size_t> toRead;
  std::vector<std::pair<size_t, std::string_view>> statMatched;  // applied once the delta is certain
  for (size_t i = 0; i < items.size(); ++i) {
    const WorkItem& w = items[i];
    if (w.skipReason == "nib-index") continue;
    const WorktreeSnapshot::File* was = inCurrent.find(w.entry.path);
    if (was && !was->oid.empty() && was->size == w.entry.size && was->mtimeNs == w.entry.mtimeNs &&
        was->inode == w.entry.inode && was->mode == static_cast<uint32_t>(w.entry.mode) &&
        was->mtimeNs < trustedBefore && !failedBefore(w.entry.path)) {
      statMatched.emplace_back(i, was->oid);
      continue;
    }
    toRead.push_back(i);
  }
  if (toRead.size() > 4 * options.deltaBudget) return Result();

  Extractor extractor(options.parseTimeoutMicros);
  auto reader = facts.reader();
  std::vector<std::pair<std::string, std::string>> records;
  ItemContext ctx{repo.root(), /*fromWorktree=*/true, nullptr, options, extractor,
                  reader ? &*reader : nullptr, profile, records, /*searchFacts=*/false};
  // Read into copies: when the delta turns out over budget, the full build starts from the
  // items as scanned.
  std::map<size_t, WorkItem> read;
  for (size_t i : toRead) {
    WorkItem& w = read.emplace(i, items[i]).first->second;
    if (!w.skipReason.empty()) {
      // Decided without its content (a link, a submodule, too large): only its id is needed.
      if (w.entry.oid.empty() && w.entry.mode != EntryMode::Submodule)
        if (auto oid = gitlite::blobIdOfFile(repo.root() / w.entry.path)) w.entry.oid = *oid;
      continue;
    }
    processItem(w, ctx);
    if (w.extracted) report.extracted++;
    if (w.failed) report.failed++;
  }
  NIB_RETURN_IF_ERROR(facts.putBatch(records));
  NIB_RETURN_IF_ERROR(facts.sync());

  // The entries: every path whose state differs from the base's, in path order (items are).
  std::vector<DeltaEntry> entries;
  std::set<std::string_view> present;
  for (size_t i = 0; i < items.size(); ++i) {
    auto copy = read.find(i);
    const WorkItem& w = copy == read.end() ? items[i] : copy->second;
    if (w.skipReason == "nib-index") continue;
    present.insert(w.entry.path);
    if (copy == read.end()) {
      // Unchanged since the current version: its entry there, if it had one, still stands.
      if (currentDelta)
        if (const DeltaEntry* e = currentDelta->find(w.entry.path)) entries.push_back(*e);
      continue;
    }
    // The state it has now against the base's, by the bytes read (not git's blob id, which
    // line-ending filters can make differ from them).
    DeltaEntry e = deltaEntryOf(w);
    if (auto record = (*baseView)->fileByPath(w.entry.path)) {
      if (e.state == DeltaEntry::State::Indexed && e.blobOid == record->blobOid && e.language == record->language)
        continue;
    } else if (auto reason = (*baseView)->skipReason(w.entry.path)) {
      // Skipped in the base too, for the same reason: the same state, unless the file is
      // searchable (its text may differ; the base's blob id of it is the snapshot's).
      const WorktreeSnapshot::File* b = inBase.find(w.entry.path);
      bool sameText = !e.searchable || (b && !e.blobOid.empty() && b->oid == e.blobOid);
      if (e.state == DeltaEntry::State::Skipped && e.skipReason == *reason && sameText) continue;
    }
    entries.push_back(std::move(e));
  }
  for (const auto& f : baseSnapshot->files)
    if (!present.count(f.path)) {
      DeltaEntry e;
      e.path = std::string(f.path);
      e.state = DeltaEntry::State::Deleted;
      entries.push_back(std::move(e));
    }
  std::sort(entries.begin(), entries.end(), [](const DeltaEntry& a, const DeltaEntry& b) { return a.path < b.path; });
  if (entries.size() > options.deltaBudget) return Result();
  // C and C++ files that libclang indexed are answered from its facts, which only the clang
  // build (its translation units cached) refreshes: a change to one takes the full path.
  if (const ViewRecord* clang = base->view("clang"); clang && clang->status == ViewStatus::Complete)
    for (const DeltaEntry& e : entries)
      if (e.language == Language::C || e.language == Language::Cpp || detectLanguage(e.path, "") == Language::C ||
          detectLanguage(e.path, "") == Language::Cpp)
        return Result();

  for (const auto& [i, oid] : statMatched) items[i].entry.oid = std::string(oid);
  for (auto& [i, w] : read) items[i].entry.oid = w.entry.oid;
  auto tree = worktreeTreeId(items);
  if (!tree) return tree.status();
  auto headTree = repo.commitTree(commit);
  if (!headTree) return headTree.status();
  size_t k = 0;
  for (const WorkItem& w : items)
    if (w.skipReason != "nib-index") snapshot.files[k++].oid = snapshot.intern(w.entry.oid);

  Manifest m = *base;
  m.versionId = layout.newVersionId();
  m.created = utcTimestamp();
  m.sourceCommit = commit;
  m.sourceTree = *tree;
  m.dirty = m.sourceTree != *headTree;
  m.previous = current->versionId;
  m.base = baseId;
  fs::path versionDir = layout.versionDir(m.versionId), baseDir = layout.versionDir(baseId);
  // The base's view files, shared by hard links (never written again: versions are immutable).
  // A file system without hard links (or out of them) gets a full build instead.
  std::error_code ec;
  auto link = [&](const std::string& rel) {
    fs::create_directories((versionDir / rel).parent_path(), ec);
    if (!ec) fs::create_hard_link(baseDir / rel, versionDir / rel, ec);
    return !ec;
  };
  bool linked = true;
  for (const ViewRecord& v : base->views)
    for (const Artifact& a : v.artifacts) linked = linked && link(a.path);
  // Files a view keeps beside its artifacts (the dense view's encoder settings) come along.
  for (const char* extra : {"dense/encoder"})
    if (linked && fs::exists(baseDir / extra) && !fs::exists(versionDir / extra)) linked = link(extra);
  if (!linked) {
    logWarn("cannot share the views of version " + baseId + " by hard links (" + ec.message() +
               "): rewriting every view");
    fs::remove_all(versionDir, ec);
    return Result();
  }
  fs::create_directories(versionDir / "structural", ec);
  fs::create_directories(versionDir / "delta", ec);
  if (ec) return Status(ErrorCode::IoError, "cannot create " + versionDir.string() + ": " + ec.message());
  NIB_RETURN_IF_ERROR(VersionDelta::write(versionDir / "delta", entries, snapshot));
  auto digest = digestFile(versionDir / "delta" / "data.mdb");
  if (!digest) return digest.status();
  ViewRecord deltaView;
  deltaView.name = "delta";
  deltaView.status = ViewStatus::Complete;
  deltaView.profile = "delta-1;base=" + baseId;
  deltaView.capabilities = {"changed", "deleted", "worktree"};
  deltaView.artifacts.push_back({"delta/data.mdb", *digest, fs::file_size(versionDir / "delta" / "data.mdb")});
  std::erase_if(m.views, [](const ViewRecord& v) { return v.name == "delta"; });
  m.views.push_back(deltaView);
  report.deltaBase = baseId;
  report.deltaFiles = entries.size();
  m.stats["delta.files"] = std::to_string(entries.size());
  m.stats["worktree.scan-ns"] = std::to_string(scanStartedNs);
  m.stats["delta.read"] = std::to_string(read.size());
  m.stats["extracted"] = std::to_string(report.extracted);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  double before = 0;
  for (const auto& [_, secs] : report.phaseSeconds) before += secs;
  report.phaseSeconds.emplace_back("delta", report.seconds - before);
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", report.seconds);
  m.stats["build-seconds"] = secs;
  std::vector<std::string> dirs{"delta", "structural"};
  for (const ViewRecord& v : base->views)
    if (!v.artifacts.empty()) dirs.push_back(fs::path(v.artifacts.front().path).parent_path().string());
  auto files = [&](const char* key) {
    auto it = base->stats.find(key);
    return it == base->stats.end() ? 0ull : std::strtoull(it->second.c_str(), nullptr, 10);
  };
  // The indexed files: the base's, less those an entry replaces, plus the entries indexed now.
  report.files = files("files");
  report.definitions = files("definitions");
  report.occurrences = files("occurrences");
  report.sourceBytes = files("source-bytes");
  for (const DeltaEntry& e : entries) {
    if (auto was = (*baseView)->fileByPath(e.path)) {
      report.files--;
      report.sourceBytes -= std::min<uint64_t>(report.sourceBytes, was->size);
      if (auto f = reader ? reader->get(was->factKey()) : Expected<FileFacts>(Status(ErrorCode::NotFound, ""))) {
        report.definitions -= std::min<uint64_t>(report.definitions, f->definitions.size());
        report.occurrences -= std::min<uint64_t>(report.occurrences, f->occurrences.size());
      }
    }
    if (e.state == DeltaEntry::State::Indexed) {
      report.files++;
      report.sourceBytes += e.size;
      report.definitions += e.definitions;
      report.occurrences += e.occurrences;
    }
  }
  // Files per language and skipped files per reason likewise (the report and `nib status`
  // print them): the base's counts, less the paths an entry replaces, plus the entries.
  for (const auto& [key, value] : base->stats) {
    if (key.rfind("files.", 0) == 0) report.filesByLanguage[key.substr(6)] = std::strtoull(value.c_str(), nullptr, 10);
    else if (key.rfind("skipped.", 0) == 0) report.skippedByReason[key.substr(8)] = std::strtoull(value.c_str(), nullptr, 10);
  }
  auto reasonOf = [](const std::string& r) { return r.substr(0, r.find(':')); };
  auto decrement = [](std::map<std::string, uint64_t>& counts, const std::string& key) {
    auto it = counts.find(key);
    if (it != counts.end() && it->second > 0 && --it->second == 0) counts.erase(it);
  };
  for (const DeltaEntry& e : entries) {
    if (auto was = (*baseView)->fileByPath(e.path)) decrement(report.filesByLanguage, languageName(was->language));
    else if (auto reason = (*baseView)->skipReason(e.path)) decrement(report.skippedByReason, reasonOf(*reason));
    if (e.state == DeltaEntry::State::Indexed) report.filesByLanguage[languageName(e.language)]++;
    else if (e.state == DeltaEntry::State::Skipped) report.skippedByReason[reasonOf(e.skipReason)]++;
  }
  std::erase_if(m.stats, [](const auto& kv) { return kv.first.rfind("files.", 0) == 0 || kv.first.rfind("skipped.", 0) == 0; });
  for (const auto& [lang, n] : report.filesByLanguage) m.stats["files." + lang] = std::to_string(n);
  for (const auto& [reason, n] : report.skippedByReason) m.stats["skipped." + reason] = std::to_string(n);
  m.stats["files"] = std::to_string(report.files);
  m.stats["definitions"] = std::to_string(report.definitions);
  m.stats["occurrences"] = std::to_string(report.occurrences);
  m.stats["source-bytes"] = std::to_string(report.sourceBytes);
  report.reused = report.files > report.extracted ? report.files - report.extracted : 0;
  report.manifest = m;
  NIB_RETURN_IF_ERROR(publishVersion(layout, m, options, dirs, {"delta/data.mdb"}));
  layout.prune(options.keepVersions);
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  report.phaseSeconds.emplace_back("publish", total - report.seconds);
  report.seconds = total;
  report.indexBytes = directorySize(versionDir / "delta") + directorySize(layout.factsDir());
  return Result(std::move(report));
}

}  // namespace nib::build
