// The phases of a build, in the order buildIndex runs them:
//
//   scan          the entries of the worktree (or a commit) and, for a worktree, its snapshot
//   classify      what can be decided without reading a file (links, submodules, bad paths)
//   extract       read, classify by content, extract missing facts in parallel (fact store)
//   commit view   the structural view: file records, summaries, skipped files, the snapshot
//   search views  the lexical and trigram views over every text file
//   clang view    libclang's facts through nib-clang workers (with a compilation database)
//   precise view  SCIP indexers' facts through nib-scip (TypeScript/JavaScript, Python projects)
//   dense view    the semantic view, inline or left Pending for the follow-up
//   manifest      the version's header (commit, tree, previous) and statistics
//   publish       verify, commit the manifest, make the version current
//
// Each phase is a function with explicit inputs and outputs: adding a view means adding a
// phase, not a block in buildIndex. An update's delta version (IndexDelta.cpp) shares scan,
// classify, the reading of one file and publish. Internal to indexer/.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "indexer/Extractor.h"
#include "indexer/GitRepository.h"
#include "indexer/IndexBuilder.h"
#include "indexer/BuildSpill.h"
#include "views/FactStore.h"
#include "views/FileFacts.h"
#include "views/IndexLayout.h"
#include "views/Manifest.h"
#include "views/SearchFacts.h"
#include "views/SearchViews.h"
#include "views/VersionDelta.h"
#include "views/WorktreeSnapshot.h"

namespace nib::build {
namespace fs = std::filesystem;

// The skip reason of the index's own files: they are neither indexed nor part of the tree id.
inline constexpr const char* kIndexOwnFiles = "nib-index";

struct WorkItem {
  TreeEntry entry;         // entry.oid is git's id (what the tree id is made of)
  std::string contentOid;  // the id of the bytes actually parsed: the facts' key
  Language language = Language::Unknown;
  bool searchable = false;  // a text file: part of the search views (with or without a grammar)
  uint32_t contentSize = 0;
  SpillRef search;  // its encoded search facts in the build's spill
  // Filled by workers:
  std::string skipReason;
  SpillRef summary;  // its encoded FileSummary in the build's spill (full builds)
  uint64_t definitions = 0, occurrences = 0;
  bool extracted = false;
  bool failed = false;
  std::string error;

  bool ownFile() const { return skipReason == kIndexOwnFiles; }
};

// Records each phase's wall time in the report, in order (`nib index` prints them).
class PhaseClock {
 public:
  explicit PhaseClock(IndexReport& report) : report_(report), start_(std::chrono::steady_clock::now()) {}
  void end(const char* phase);

 private:
  IndexReport& report_;
  std::chrono::steady_clock::time_point start_;
};

// The bytes a folder holds on disk (allocated blocks).
uint64_t directorySize(const fs::path& dir);

// ---- scan ----------------------------------------------------------------------------------

struct ScanOutput {
  std::vector<WorkItem> items;  // in path order, entries only (nothing classified yet)
  // The worktree as scanned (worktree builds): stat data and folder listings now, so that a
  // file created while the build runs shows up as a change later.
  std::optional<WorktreeSnapshot> snapshot;
  int64_t startedNs = 0;  // wall-clock start, for the next update's racy-clean rule
};
Expected<ScanOutput> scanPhase(GitRepository& repo, const std::string& commit, bool fromWorktree);

// ---- classify ------------------------------------------------------------------------------

// Why an entry is skipped before its content is read ("" when it is to be read).
std::string classifyEntry(const TreeEntry& entry, bool fromWorktree, uint64_t maxFileSize);
void classifyPhase(std::vector<WorkItem>& items, bool fromWorktree, uint64_t maxFileSize);

// ---- extract -------------------------------------------------------------------------------

// What processItem needs besides the item: one per worker thread.
struct ItemContext {
  const fs::path& root;
  bool fromWorktree;
  GitRepository* repo;  // the worker's own handle, for commit builds
  const IndexOptions& options;
  Extractor& extractor;
  FactStore::Reader* reader;  // nullptr before the store has anything
  const std::string& profile;
  std::vector<std::pair<std::string, std::string>>& local;  // records for the fact store
  BuildSpill* spill = nullptr;  // where search facts and summaries go; none for the delta path
};

// Reads one file, classifies it (too large, binary, no grammar) and finds or extracts its
// facts; new facts, failures and contents go to `ctx.local` for the fact store.
void processItem(WorkItem& w, ItemContext& ctx);

struct ExtractInput {
  fs::path root;
  bool fromWorktree = true;
  const IndexOptions* options = nullptr;
  std::string profile;  // the extractor's profile digest: part of every fact key
  BuildSpill* spill = nullptr;  // receives every text file's search facts and every summary
};
// Every item not skipped is processed on options.threads workers; skipped worktree items get
// their blob id (the tree id needs it). Fails when cancelled or when the store cannot be written.
Status extractPhase(std::vector<WorkItem>& items, FactStore& facts, const ExtractInput& in);

// ---- commit view ---------------------------------------------------------------------------

// Writes the structural view of the items (their summaries read from `spill`) into
// versionDir/structural and counts them into `report` (files by language, skipped by reason,
// definitions, reused or extracted). The snapshot, when given, receives the blob ids the
// workers found.
Expected<ViewRecord> commitViewPhase(const fs::path& versionDir, std::vector<WorkItem>& items,
                                     const BuildSpill& spill, const std::string& profile,
                                     WorktreeSnapshot* snapshot, IndexReport& report);

// ---- search views --------------------------------------------------------------------------

// Every text file of the items, grammar or not, in path order, with its facts in the spill.
struct SearchCorpus final : SearchFactsSource {
  std::vector<SearchDoc> docs;
  std::vector<SpillRef> refs;  // parallel to docs
  const BuildSpill* spill = nullptr;

  size_t size() const override { return docs.size(); }
  Status load(size_t i, SearchFacts& out, unsigned parts) const override;
};
SearchCorpus searchCorpus(const std::vector<WorkItem>& items, const BuildSpill* spill);
// The lexical and trigram views. A view that cannot be written is recorded Failed with the
// reason; it never fails its sibling or the version.
std::vector<ViewRecord> searchViewsPhase(const fs::path& versionDir, const SearchCorpus& corpus,
                                         const std::string& extractorProfile);

// ---- history view --------------------------------------------------------------------------

// The walk of at most `maxCommits` commits behind `commit` (GitRepository::history), started at
// construction on a thread and a repository handle of its own: it reads git objects only, so it
// runs beside the extract phase instead of after the search views. The commits an earlier walk
// summarized come from `cacheDir` (HistoryCache); the others are diffed (0.25 ms a commit here).
class HistoryWalkTask {
 public:
  HistoryWalkTask(const fs::path& root, const fs::path& cacheDir, const std::string& commit, size_t maxCommits);
  HistoryWalkTask(const HistoryWalkTask&) = delete;  // the walk's thread holds `this`
  HistoryWalkTask& operator=(const HistoryWalkTask&) = delete;
  // A build that ends early (failed, cancelled) does not wait for the rest of the walk: it stops
  // before its next commit (its cache is not written then).
  ~HistoryWalkTask() { stop_ = true; }
  size_t maxCommits() const { return maxCommits_; }
  const std::string& commit() const { return commit_; }
  // The walk's result (once; waits for it).
  Expected<HistoryWalk> take() { return walk_.get(); }
  // How long the walk took, once taken (it overlaps other phases: not their wall time).
  double seconds() const { return seconds_; }

 private:
  size_t maxCommits_;
  std::string commit_;
  double seconds_ = 0;
  std::atomic<bool> stop_{false};            // declared before walk_: outlives the wait for it
  std::future<Expected<HistoryWalk>> walk_;  // not valid when nothing is walked
};
// The history view: the walked commits' messages and the items' paths they changed
// (HistoryMiner). Absent with the reason when there is nothing to mine (a shallow clone, an
// unborn branch, a cap of 0), Failed with it when git cannot be read; it never fails the
// version. A delta version walks again when its commit is not its base's (IndexDelta.cpp).
ViewRecord historyViewPhase(const fs::path& versionDir, HistoryWalkTask& walk, const std::vector<WorkItem>& items);

// ---- clang view ----------------------------------------------------------------------------

struct ClangPhaseInput {
  fs::path root, versionDir, cacheDir, database;
  fs::path worker;  // "" : nib-clang beside this executable (or $NIB_CLANG_WORKER)
  const std::vector<WorkItem>* items = nullptr;
  unsigned threads = 1;
  const IndexOptions* options = nullptr;
  bool deferUncompiled = false;  // see ClangBuildInput
};
// The clang view (Failed with the reason when the worker is missing) and its statistics, added
// to `manifest`. Nothing when the build was cancelled.
Expected<ViewRecord> clangViewPhase(const ClangPhaseInput& in, Manifest& manifest);

// ---- precise view ----------------------------------------------------------------------------

struct PrecisePhaseInput {
  fs::path root, versionDir, cacheDir;
  std::map<std::string, fs::path> indexers;  // by language (findScipIndexers)
  fs::path worker;                           // "" : nib-scip beside this executable (or $NIB_SCIP_WORKER)
  const std::vector<WorkItem>* items = nullptr;
  unsigned threads = 1;
  const IndexOptions* options = nullptr;
};
// The precise view (Absent when no project has an indexer; Failed with the reason when the
// worker is missing or every project failed) and its statistics, added to `manifest`. Nothing
// when the build was cancelled.
Expected<ViewRecord> preciseViewPhase(const PrecisePhaseInput& in, Manifest& manifest);

// ---- what built the compiler views ----------------------------------------------------------

// The worker executables (nib-clang; nib-scip and the SCIP indexers) that build the clang and
// precise views now, as one digest each: `named`, else the worker beside this executable (or
// the one its variable names). Each view's profile records it (`;tools=DIGEST`), so a version
// whose compiler views other workers built is not current: a `nib index` with nothing changed
// builds them again after nib-clang, nib-scip or an indexer changed (their caches are keyed by
// the same executables, so every unit and project is indexed again).
fs::path clangWorkerPath(const fs::path& named);
fs::path scipWorkerPath(const fs::path& named);
std::string clangTools(const fs::path& worker);
std::string preciseTools(const fs::path& importer, const std::map<std::string, fs::path>& indexers);
// Whether `view`'s profile records `tools` (a profile of an older nib records none).
bool builtWith(const ViewRecord& view, const std::string& tools);

// ---- dense view ----------------------------------------------------------------------------

struct DensePhaseInput {
  const IndexLayout* layout = nullptr;
  fs::path versionDir;
  std::string previousId;
  const SearchCorpus* corpus = nullptr;
  FactStore* facts = nullptr;
  std::string extractorProfile;
  std::optional<EncoderSettings> encoder;
  unsigned threads = 1;
};
// Absent without options.dense, Pending with deferDense, else built now (statistics added to
// `manifest`).
ViewRecord denseViewPhase(const DensePhaseInput& in, const IndexOptions& options, Manifest& manifest);

// ---- manifest ------------------------------------------------------------------------------

// The new version's header: id, time, commit, nib and extractor versions, configuration, the
// previous version, and the tree it reflects (for a worktree, the tree id of every entry;
// dirty when it differs from the commit's).
Expected<Manifest> manifestHeader(GitRepository& repo, const IndexLayout& layout, const std::string& commit,
                                  const std::vector<WorkItem>* worktreeItems, const std::string& configDigest);
// The counts every version records (files, files per language and skipped per reason,
// definitions, occurrences, bytes, extracted, build time), replacing the ones it has.
void recordCounts(Manifest& m, const IndexReport& report);
// A full build's statistics: the counts, the scan time and the configuration.
void recordBuildStats(Manifest& m, const IndexReport& report, const IndexOptions& options,
                      std::optional<int64_t> scanStartedNs);

// The worktree's own tree id: every entry (skipped ones too) with its blob id; "" when an
// untracked nested repository makes it unknowable.
Expected<std::string> worktreeTreeId(const std::vector<WorkItem>& items);

// ---- publish -------------------------------------------------------------------------------

// Writes the pending manifest, checks it and the artifacts named in `verify` (all of them when
// empty), and publishes the version. Durability first: the artifacts' folder entries, the
// manifest and the version's entry in versions/ are all on disk before CURRENT names the
// version; a crash anywhere before leaves CURRENT as it was.
Status publishVersion(const IndexLayout& layout, const Manifest& m, const IndexOptions& options,
                      const std::vector<std::string>& syncDirs, const std::set<std::string>& verify = {});

// After publishing: prunes old versions and collects the fact store of what none of the kept
// ones references (views/StoreCollection), recording what it removed in the report. A
// collection that fails is logged and leaves the store as it was: the version is published.
void pruneAndCollect(const IndexLayout& layout, const IndexOptions& options, FactStore& facts, IndexReport& report);

// ---- the delta path (IndexDelta.cpp) -------------------------------------------------------

// The state a path has in a version, for a delta entry.
DeltaEntry deltaEntryOf(const WorkItem& w);

struct SnapshotIndex {
  std::unordered_map<std::string_view, const WorktreeSnapshot::File*> byPath;
  explicit SnapshotIndex(const WorktreeSnapshot& s) {
    byPath.reserve(s.files.size());
    for (const auto& f : s.files) byPath.emplace(f.path, &f);
  }
  const WorktreeSnapshot::File* find(std::string_view path) const {
    auto it = byPath.find(path);
    return it == byPath.end() ? nullptr : it->second;
  }
};

// Whether this build would make the same dense view as the manifest's (see IndexBuilder.cpp).
bool denseViewCurrent(const Manifest& m, const IndexOptions& options);
// Whether the manifest's search views were written by this build's rules (kSearchViewsRevision):
// a nib that tokenizes or cuts units otherwise rebuilds them, as a version and as a delta's
// base, rather than answering from views another rule made.
bool searchViewsCurrent(const Manifest& m);
// Whether the manifest's history view is of this revision (or absent or failed for a reason
// that still stands).
bool historyViewCurrent(const Manifest& m);
// Whether the manifest's dense view waits for its follow-up version.
bool denseViewPending(const Manifest& m);
// Whether a file the version's clang view lists without indexing it (a generated header) has
// changed since: only the clang build notices, so the version is not current and a delta over
// it builds the clang view again.
bool clangUnindexedChanged(const IndexLayout& layout, const Manifest& m);

// What a delta build starts from: the scan, the build's configuration and fact store.
struct DeltaInput {
  GitRepository* repo = nullptr;
  const IndexLayout* layout = nullptr;
  const IndexOptions* options = nullptr;
  std::string commit, configDigest, profile;
  FactStore* facts = nullptr;
  std::chrono::steady_clock::time_point started;
  // What rebuilding the clang and precise views needs when the delta touches their files.
  fs::path database;                                             // "" : no clang view
  const std::map<std::string, fs::path>* scipIndexers = nullptr;  // none: no precise view
  unsigned threads = 1;
};
// The update path of a worktree build: a delta version over the current version's base when
// few files differ from it; nullopt when a full build is needed (the scan is left as it was).
// When the delta's files include C/C++ files the clang view indexed (or TS/JS/Python files the
// precise view covers), that view is built again for the version (from its cache: only units
// and projects that read a changed file run) and the others are shared with the base.
Expected<std::optional<IndexReport>> buildDelta(const DeltaInput& in, ScanOutput& scan, IndexReport report);
// The delta view's profile, which names its base.
std::string deltaViewProfile(const std::string& baseId);
// Publishes `delta` (a delta version over a base whose dense view was pending) again over
// `completion`, that base's follow-up version: the same entries and views, the dense view
// complete. The caller holds the write lock and has checked that `delta` is current. Returns
// the new version's id.
Expected<std::string> rebaseDelta(const IndexLayout& layout, const Manifest& delta, const Manifest& completion,
                                  const IndexOptions& options);

}  // namespace nib::build
