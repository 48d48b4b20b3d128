// A full build: the phases of BuildPhases.h in order, after the checks that may make it
// unnecessary (skipIfCurrent) or a delta (IndexDelta.cpp).
#include "indexer/IndexBuilder.h"

#include <unistd.h>

#include <chrono>
#include <thread>
#include <tuple>

#include "indexer/BuildPhases.h"
#include "indexer/ClangBuilder.h"
#include "indexer/HistoryMiner.h"
#include "indexer/PreciseBuilder.h"
#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/Log.h"
#include "support/CompilationDatabase.h"
#include "support/ProjectConfig.h"
#include "views/ClangView.h"
#include "views/CommitView.h"
#include "views/IndexLayout.h"

#ifndef NIB_VERSION
#define NIB_VERSION "0.0.0"
#endif

namespace nib {
namespace fs = std::filesystem;
using namespace build;

namespace {

constexpr size_t kRehashedTolerated = 16;  // touched-but-unchanged files an up-to-date index keeps

}  // namespace

// The compilation database the clang view would be built from ("" when none).
fs::path clangDatabase(const fs::path& root, const IndexOptions& options, const ProjectConfig& config) {
  if (!options.clang) return {};
  return findCompilationDatabase(root, options.compileCommandsDir, &config, [](const std::string& m) { logWarn(m); });
}

std::string configDigest(const IndexOptions& options, const std::optional<EncoderSettings>& encoder,
                         const fs::path& database = {}, const std::map<std::string, fs::path>& scipIndexers = {}) {
  Digester d;
  d.add("max-file-size").add(options.maxFileSize);
  // The compilation database is usually untracked and ignored: its content is configuration.
  if (!database.empty()) {
    d.add("clang-view").add(static_cast<uint64_t>(kClangViewFormat));
    if (auto digest = digestFile(database / "compile_commands.json")) d.add("compile-commands").add(*digest);
  }
  // Which SCIP indexers exist (and which build of each): installing or upgrading one makes the
  // next `nib index` build the precise view.
  // The precise view is written in the clang view's format: a new format rebuilds it too (from
  // the projects' cached facts), or it could no longer be read.
  if (!scipIndexers.empty())
    d.add("precise-view").add(static_cast<uint64_t>(kPreciseViewRevision)).add(static_cast<uint64_t>(kClangViewFormat));
  for (const auto& [language, indexer] : scipIndexers) {
    std::error_code ec;
    auto digest = digestFile(fs::canonical(indexer, ec));
    d.add(language).add(digest ? *digest : std::string("?"));
  }
  // Only a departure from the default is added, so that existing indexes keep their digest.
  if (!options.dense) d.add("no-dense");
  if (!options.dense && options.denseOnRequest) d.add("on-request");
  if (options.dense && encoder) d.add("encoder").add(encoder->identity());
  if (options.historyCommits != HistoryMiner::kDefaultMaxCommits) d.add("history-commits").add(options.historyCommits);
  if (options.dense && options.denseMaxSourceBytes != IndexOptions::kDefaultDenseMaxSourceMb << 20)
    d.add("dense-max-source").add(options.denseMaxSourceBytes);
  return d.hex().substr(0, 16);
}


namespace {

// Whether the current version already reflects `commit` and the worktree with this
// configuration: only a conclusive "nothing changed" counts (new folder entries need the full
// scan). Files touched without a change (a checkout, a build) are hashed by every query until a
// new version records their stat data: past a few, build one.
// Whether the clang and precise views were built by the workers and indexers that would build
// them now (BuildPhases.h, clangTools).
bool compilerViewsCurrent(const Manifest& m, const IndexOptions& options, const std::map<std::string, fs::path>& indexers) {
  const ViewRecord* clang = m.view("clang");
  if (clang && clang->status != ViewStatus::Absent && !builtWith(*clang, clangTools(clangWorkerPath(options.clangWorker))))
    return false;
  const ViewRecord* precise = m.view("precise");
  return !precise || precise->status == ViewStatus::Absent ||
         builtWith(*precise, preciseTools(scipWorkerPath(options.scipWorker), indexers));
}

std::optional<Manifest> currentAndUnchanged(const IndexLayout& layout, const fs::path& root, const std::string& commit,
                                            const std::string& digest, const IndexOptions& options,
                                            const std::map<std::string, fs::path>& indexers) {
  auto current = layout.currentManifest();
  if (!current || current->sourceCommit != commit || current->configDigest != digest ||
      current->extractorProfile != Extractor::profileDigest() || current->nibVersion != NIB_VERSION ||
      // A version from before the dense view existed lacks it, or one trained otherwise: not current.
      !denseViewCurrent(*current, options) || !searchViewsCurrent(*current) || !historyViewCurrent(*current) ||
      !compilerViewsCurrent(*current, options, indexers))
    return std::nullopt;
  auto recorded = recordedWorktree(layout.versionDir(current->versionId), *current);
  if (!recorded) return std::nullopt;
  WorktreeComparison cmp = compareWorktree(root, recorded->snapshot);
  if (!cmp.conclusive || !cmp.unchanged || cmp.rehashed > kRehashedTolerated) return std::nullopt;
  if (clangUnindexedChanged(layout, *current)) return std::nullopt;
  return std::move(*current);
}

// What every phase of one build reads: decided once, before the scan.
struct BuildSetup {
  std::unique_ptr<GitRepository> repo;
  std::string commit;
  bool fromWorktree = true;
  fs::path database;  // the compilation database ("" : no clang view)
  std::map<std::string, fs::path> scipIndexers;  // by language (none: no precise view)
  std::optional<EncoderSettings> encoder;
  std::string configDigest;
  unsigned threads = 1;
  IndexOptions options;  // the caller's, with what .nib.conf settles (keepVersions)
};

// .nib.conf's index.keep-versions (3 when absent).
Expected<long long> configuredKeep(const ProjectConfig& config) { return config.getInt("index.keep-versions", 3, 1, 1000); }

Expected<BuildSetup> setUp(const fs::path& repoPath, const IndexOptions& options) {
  BuildSetup s;
  s.options = options;
  auto repo = GitRepository::discover(repoPath);
  if (!repo) return repo.status();
  s.repo = std::move(*repo);
  auto config = ProjectConfig::load(s.repo->root());
  if (!config) return config.status();
  // A malformed index.keep-versions is refused here, with the key's message, rather than
  // defaulted as keptVersions does for the follow-up.
  if (options.keepVersions == 0) {
    auto keep = configuredKeep(*config);
    if (!keep) return keep.status();
    s.options.keepVersions = static_cast<size_t>(*keep);
  }
  if (options.denseMaxSourceBytes == 0) {
    auto mb = config->getInt("dense.max-source-mb", IndexOptions::kDefaultDenseMaxSourceMb, 1, 100000000);
    if (!mb) return mb.status();
    s.options.denseMaxSourceBytes = static_cast<uint64_t>(*mb) << 20;
  }
  if (options.historyCommits == SIZE_MAX) {
    auto commits = config->getInt("index.history-commits", HistoryMiner::kDefaultMaxCommits, 0, 10000000);
    if (!commits) return commits.status();
    s.options.historyCommits = static_cast<size_t>(*commits);
  }
  auto encoder = EncoderSettings::fromConfig(*config);
  if (!encoder) return encoder.status();
  s.encoder = *encoder;
  if (auto pack = config->get("index.pack-contents")) {
    if (*pack != "true" && *pack != "false")
      return Status(ErrorCode::InvalidArgument, ".nib.conf: index.pack-contents is '" + *pack + "'; it takes true or false");
    s.options.packContents = *pack == "true";
  }
  if (s.options.dense && s.options.denseOnRequest && !s.encoder) {
    auto current = IndexLayout::forRepository(s.repo->root()).currentManifest();
    const ViewRecord* dense = current ? current->view("dense") : nullptr;
    bool asked = dense && (dense->status != ViewStatus::Absent || !dense->error.empty()) && !dense->has(ViewRecord::kOnRequest);
    if (!asked) s.options.dense = false;  // denseViewPhase records it as on request
  }
  s.fromWorktree = options.commit.empty();
  // libclang reads the files on disk: a build of another commit gets no clang view.
  if (s.fromWorktree) s.database = clangDatabase(s.repo->root(), options, *config);
  // The SCIP indexers read the files on disk likewise.
  if (s.fromWorktree && options.precise) s.scipIndexers = options.scipIndexers.empty() ? findScipIndexers() : options.scipIndexers;
  auto head = s.fromWorktree ? s.repo->headCommit() : s.repo->resolveCommit(options.commit);
  if (!head) return head.status();
  s.commit = *head;
  s.configDigest = configDigest(s.options, s.encoder, s.database, s.scipIndexers);
  s.threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  return s;
}

// The view phases, in order, into the manifest `m` of the version being written.
Status writeViews(BuildSetup& s, const IndexLayout& layout, const IndexOptions& options, ScanOutput& scan,
                  FactStore& facts, const BuildSpill& spill, HistoryWalkTask& history, Manifest& m,
                  IndexReport& report, PhaseClock& clock) {
  const std::string& profile = Extractor::profileDigest();
  fs::path versionDir = layout.versionDir(m.versionId);
  // The commit view is written on a thread of its own while the search views are: they share
  // only their input, read-only (the items, the spill's records by pread), and the commit view
  // alone was a third of these phases' time on a 20k-file Linux sample, on one core.
  SearchCorpus corpus = searchCorpus(scan.items, &spill);
  Expected<ViewRecord> structural = Status(ErrorCode::Internal, "the commit view was not written");
  double commitViewSeconds = 0;
  std::thread commitView([&] {
    auto start = std::chrono::steady_clock::now();
    structural =
        commitViewPhase(versionDir, scan.items, spill, profile, scan.snapshot ? &*scan.snapshot : nullptr, report);
    commitViewSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  std::vector<ViewRecord> searchViews = searchViewsPhase(versionDir, corpus, profile);
  commitView.join();
  if (!structural) return structural.status();
  m.views.push_back(*structural);
  for (ViewRecord& v : searchViews) m.views.push_back(std::move(v));
  // Both phases' wall time, and the commit view's own (which ran inside it).
  report.phaseSeconds.emplace_back("commit-view", commitViewSeconds);
  clock.end("search-views");
  m.views.push_back(historyViewPhase(versionDir, history, scan.items));
  clock.end("history");
  report.phaseSeconds.emplace_back("history-walk", history.seconds());  // beside the extract phase
  if (!s.database.empty()) {
    ClangPhaseInput in{s.repo->root(), versionDir, layout.dir() / "clang-cache", s.database,
                       options.clangWorker, &scan.items, s.threads, &options, options.deferUncompiled};
    auto clang = clangViewPhase(in, m);
    if (!clang) return clang.status();
    m.views.push_back(*clang);
    clock.end("clang");
  }
  if (!s.scipIndexers.empty()) {
    PrecisePhaseInput in{s.repo->root(), versionDir, layout.dir() / "precise-cache", s.scipIndexers, options.scipWorker,
                         &scan.items, s.threads, &options};
    auto precise = preciseViewPhase(in, m);
    if (!precise) return precise.status();
    if (precise->status != ViewStatus::Absent || !precise->error.empty()) m.views.push_back(*precise);
    clock.end("precise");
  }
  DensePhaseInput dense{&layout, versionDir, m.previous, &corpus, &facts, profile, s.encoder, s.threads};
  m.views.push_back(denseViewPhase(dense, options, m));
  if (options.dense && !options.deferDense) clock.end("dense");
  return Status();
}

}  // namespace

std::map<std::string, fs::path> findScipIndexers() {
  std::map<std::string, fs::path> found;
  for (const auto& [language, variable, name] : {std::tuple{"typescript", "NIB_SCIP_TYPESCRIPT", "scip-typescript"},
                                                 std::tuple{"python", "NIB_SCIP_PYTHON", "scip-python"}}) {
    if (const char* named = std::getenv(variable)) {
      if (*named) found[language] = named;
      continue;
    }
    if (auto onPath = findExecutable(name)) found[language] = *onPath;
#ifdef NIB_BACKENDS_BIN
    else if (fs::path pinned = fs::path(NIB_BACKENDS_BIN) / name; ::access(pinned.c_str(), X_OK) == 0) found[language] = pinned;
#endif
  }
  return found;
}

size_t keptVersions(const IndexOptions& options, const fs::path& repoRoot) {
  if (options.keepVersions > 0) return options.keepVersions;
  auto config = ProjectConfig::load(repoRoot);
  auto keep = config ? configuredKeep(*config) : Expected<long long>(3);
  return keep ? static_cast<size_t>(*keep) : 3;
}

Expected<IndexReport> buildIndex(const fs::path& repoPath, const IndexOptions& requested) {
  auto started = std::chrono::steady_clock::now();
  auto setup = setUp(repoPath, requested);
  if (!setup) return setup.status();
  BuildSetup& s = *setup;
  const IndexOptions& options = s.options;
  IndexLayout layout(options.indexDir.empty() ? IndexLayout::forRepository(s.repo->root()).dir() : options.indexDir);
  auto lock = IndexWriteLock::acquire(layout, options.waitForLock);
  if (!lock) return lock.status();
  layout.prune(options.keepVersions);  // removes folders of builds that died

  IndexReport report;
  report.repoRoot = s.repo->root();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  if (options.skipIfCurrent && s.fromWorktree)
    if (auto current = currentAndUnchanged(layout, s.repo->root(), s.commit, s.configDigest, options, s.scipIndexers)) {
      report.manifest = std::move(*current);
      report.upToDate = true;
      // A collection asked for runs over the current version even when nothing is built.
      if (options.collectNow) {
        auto facts = FactStore::open(layout.factsDir(), /*readOnly=*/false);
        if (!facts) return facts.status();
        if (auto it = report.manifest.stats.find("files"); it != report.manifest.stats.end())
          report.files = std::strtoull(it->second.c_str(), nullptr, 10);
        pruneAndCollect(layout, options, **facts, report);
      }
      report.seconds = elapsed();
      return report;
    }
  PhaseClock clock(report);
  if (options.progress) options.progress({0, 0, "scanning"});
  auto scan = scanPhase(*s.repo, s.commit, s.fromWorktree);
  if (!scan) return scan.status();
  classifyPhase(scan->items, s.fromWorktree, options.maxFileSize);
  clock.end("scan");
  auto facts = FactStore::open(layout.factsDir(), /*readOnly=*/false);
  if (!facts) return facts.status();
  const std::string& profile = Extractor::profileDigest();
  if (s.fromWorktree) {
    DeltaInput in{s.repo.get(), &layout, &options, s.commit, s.configDigest, profile, facts->get(), started,
                  s.database, &s.scipIndexers, s.threads};
    auto delta = buildDelta(in, *scan, report);
    if (!delta) return delta.status();
    if (*delta) return std::move(**delta);
  }

  HistoryWalkTask history(s.repo->root(), layout.dir() / HistoryCache::kDirectory, s.commit, options.historyCommits);
  auto spill = BuildSpill::create(layout.dir());
  if (!spill) return spill.status();
  NIB_RETURN_IF_ERROR(extractPhase(scan->items, **facts, {s.repo->root(), s.fromWorktree, &options, profile, spill->get()}));
  clock.end("extract");
  if (options.progress) options.progress({scan->items.size(), scan->items.size(), "writing"});
  auto m = manifestHeader(*s.repo, layout, s.commit, s.fromWorktree ? &scan->items : nullptr, s.configDigest);
  if (!m) return m.status();
  NIB_RETURN_IF_ERROR(writeViews(s, layout, options, *scan, **facts, **spill, history, *m, report, clock));
  spill->reset();
  report.seconds = elapsed();
  recordBuildStats(*m, report, options, s.fromWorktree ? std::optional<int64_t>(scan->startedNs) : std::nullopt);
  report.manifest = *m;
  NIB_RETURN_IF_ERROR(publishVersion(layout, *m, options, {}));
  clock.end("publish");
  pruneAndCollect(layout, options, **facts, report);
  report.indexBytes = directorySize(layout.versionDir(m->versionId)) + directorySize(layout.factsDir());
  return report;
}

}  // namespace nib
