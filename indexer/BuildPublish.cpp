// The manifest and publish phases of a build, and the small pieces every phase shares (see
// BuildPhases.h).
#include <sys/stat.h>

#include <cstdio>

#include "indexer/BuildPhases.h"
#include "views/HistoryView.h"
#include "indexer/LanguageSpec.h"
#include "support/FileIo.h"
#include "support/Log.h"
#include "views/ClangView.h"
#include "views/DenseView.h"
#include "views/StoreCollection.h"

#ifndef NIB_VERSION
#define NIB_VERSION "0.0.0"
#endif

namespace nib::build {

void PhaseClock::end(const char* phase) {
  auto now = std::chrono::steady_clock::now();
  report_.phaseSeconds.emplace_back(phase, std::chrono::duration<double>(now - start_).count());
  start_ = now;
}

uint64_t directorySize(const fs::path& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st;
    // Allocated blocks, not apparent size: LMDB files are sparse.
    if (it->is_regular_file(ec) && ::stat(it->path().c_str(), &st) == 0) total += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  return total;
}

Expected<std::string> worktreeTreeId(const std::vector<WorkItem>& items) {
  std::vector<TreeEntry> all;
  for (const WorkItem& w : items) {
    if (w.ownFile()) continue;
    // Untracked nested repositories have no id to contribute: the tree id is unknowable.
    if (w.entry.oid.empty()) return std::string();
    all.push_back(w.entry);
  }
  return GitRepository::treeIdOf(all);
}

Expected<Manifest> manifestHeader(GitRepository& repo, const IndexLayout& layout, const std::string& commit,
                                  const std::vector<WorkItem>* worktreeItems, const std::string& configDigest) {
  Manifest m;
  m.versionId = layout.newVersionId();
  m.created = utcTimestamp();
  m.sourceCommit = commit;
  m.nibVersion = NIB_VERSION;
  m.extractorProfile = Extractor::profileDigest();
  m.grammars = std::string(grammarVersions());
  m.configDigest = configDigest;
  if (auto cur = layout.currentVersion()) m.previous = *cur;
  auto headTree = repo.commitTree(commit);
  if (!headTree) return headTree.status();
  m.sourceTree = *headTree;
  if (worktreeItems) {
    auto tree = worktreeTreeId(*worktreeItems);
    if (!tree) return tree.status();
    m.sourceTree = *tree;
    m.dirty = m.sourceTree != *headTree;
  }
  return m;
}

void recordCounts(Manifest& m, const IndexReport& report) {
  std::erase_if(m.stats, [](const auto& kv) { return kv.first.rfind("files.", 0) == 0 || kv.first.rfind("skipped.", 0) == 0; });
  for (const auto& [lang, n] : report.filesByLanguage) m.stats["files." + lang] = std::to_string(n);
  for (const auto& [reason, n] : report.skippedByReason) m.stats["skipped." + reason] = std::to_string(n);
  m.stats["files"] = std::to_string(report.files);
  m.stats["definitions"] = std::to_string(report.definitions);
  m.stats["occurrences"] = std::to_string(report.occurrences);
  m.stats["source-bytes"] = std::to_string(report.sourceBytes);
  m.stats["extracted"] = std::to_string(report.extracted);
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", report.seconds);
  m.stats["build-seconds"] = secs;
}

void recordBuildStats(Manifest& m, const IndexReport& report, const IndexOptions& options,
                      std::optional<int64_t> scanStartedNs) {
  recordCounts(m, report);
  if (scanStartedNs) m.stats["worktree.scan-ns"] = std::to_string(*scanStartedNs);
  m.stats["config.max-file-size"] = std::to_string(options.maxFileSize);
  m.stats["reused"] = std::to_string(report.reused);
}

Status publishVersion(const IndexLayout& layout, const Manifest& m, const IndexOptions& options,
                      const std::vector<std::string>& syncDirs, const std::set<std::string>& verify) {
  fs::path versionDir = layout.versionDir(m.versionId);
  for (const std::string& d : syncDirs) NIB_RETURN_IF_ERROR(syncDirectory(versionDir / d));
  NIB_RETURN_IF_ERROR(writePendingManifest(versionDir, m));
  auto reread = readPendingManifest(versionDir);
  if (!reread) return reread.status();
  if (verify.empty()) {
    NIB_RETURN_IF_ERROR(verifyArtifacts(versionDir, *reread));
  } else {
    // Inherited artifacts are the base's own files (hard links), verified when the base was
    // published: their sizes are checked, the new ones are read in full.
    NIB_RETURN_IF_ERROR(checkArtifactSizes(versionDir, *reread));
    Manifest fresh = *reread;
    for (ViewRecord& v : fresh.views)
      std::erase_if(v.artifacts, [&](const Artifact& a) { return !verify.count(a.path); });
    NIB_RETURN_IF_ERROR(verifyArtifacts(versionDir, fresh));
  }
  NIB_RETURN_IF_ERROR(commitManifest(versionDir));
  NIB_RETURN_IF_ERROR(syncDirectory(layout.versionsDir()));
  if (options.beforePublish) options.beforePublish();
  return layout.publish(m.versionId);
}

void pruneAndCollect(const IndexLayout& layout, const IndexOptions& options, FactStore& facts, IndexReport& report) {
  layout.prune(options.keepVersions);
  // The published version's files with facts, and its searchable files (those and the text
  // files without a grammar): each has one record and one content in the store.
  // A delta version needs its base's facts too, and its entries' (an estimate: the older
  // versions kept are the sweep's to count).
  FactStore::Counts needed{report.files + report.deltaFiles, report.files + report.deltaFiles};
  if (auto it = report.skippedByReason.find("no-grammar"); it != report.skippedByReason.end()) needed.contents += it->second;
  auto collected = collectFacts(layout, facts, needed, options.storeSlack, options.collectNow);
  if (!collected) {
    logWarn("the fact store was not collected: " + collected.status().message());
    return;
  }
  report.collection = *collected;
}

DeltaEntry deltaEntryOf(const WorkItem& w) {
  DeltaEntry e;
  e.path = w.entry.path;
  e.blobOid = w.contentOid;
  e.language = w.language;
  e.size = w.entry.size;
  e.searchable = w.searchable && !w.contentOid.empty();
  if (w.skipReason.empty()) {
    e.state = DeltaEntry::State::Indexed;
    e.definitions = w.definitions;
    e.occurrences = w.occurrences;
  } else {
    e.state = DeltaEntry::State::Skipped;
    e.skipReason = w.error.empty() ? w.skipReason : w.skipReason + ": " + w.error;
  }
  return e;
}

bool searchViewsCurrent(const Manifest& m) {
  for (const char* name : {"lexical", "trigram"})
    if (const ViewRecord* v = m.view(name); v && v->profile != searchViewsProfile(m.extractorProfile)) return false;
  return true;
}

bool historyViewCurrent(const Manifest& m) {
  // A version from before the view existed has no record, one of another revision another
  // profile. An absent or failed one stands (its reason: the cap, which the configuration
  // digest holds, or a shallow clone) until something changes.
  const ViewRecord* history = m.view(HistoryView::kDirectory);
  if (!history) return false;
  return history->status != ViewStatus::Complete || history->profile.rfind(historyViewProfilePrefix(), 0) == 0;
}

// A version's dense view is current when this build would make the same one: a fastText view
// trained with other settings (an index from before they changed, with the same nib version
// number) is not, and is no base for a delta either: its stored vectors and this build's query
// vectors would not be comparable. An external encoder's view is judged by the configuration
// digest (it holds the encoder's identity); a Failed view stands until something changes, and
// a Pending one until its follow-up publishes it.
bool denseViewCurrent(const Manifest& m, const IndexOptions& options) {
  if (!options.dense) return true;
  const ViewRecord* v = m.view("dense");
  if (!v) return false;
  // Left out with a reason (the repository is over the size limit): decided, like a Failed
  // view, until something changes.
  if (v->status == ViewStatus::Absent) return !v->error.empty();
  return v->status != ViewStatus::Complete || denseVectorsComparable(v->profile);
}

bool clangUnindexedChanged(const IndexLayout& layout, const Manifest& m) {
  const ViewRecord* v = m.view("clang");
  if (!v || v->status != ViewStatus::Complete) return false;
  auto view = ClangView::open(layout.versionDir(m.versionId) / "clang");
  return view && !(*view)->changedUnindexedFiles().empty();
}

// A delta shares its base's dense view: a base whose view is still Pending (its follow-up has
// not published it) is no base, since the follow-up completes only the version it was made for.
bool denseViewPending(const Manifest& m) {
  const ViewRecord* v = m.view("dense");
  return v && v->status == ViewStatus::Pending;
}

}  // namespace nib::build
