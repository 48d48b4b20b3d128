// Builds one complete index version of a repository: enumerate (worktree or commit), extract
// missing per-file facts in parallel, write the commit view, the manifest, verify, publish.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/Status.h"
#include "views/Manifest.h"
#include "views/StoreCollection.h"
#include "support/TextEncoder.h"

namespace nib {

struct IndexProgress {
  uint64_t done = 0;
  uint64_t total = 0;
  std::string phase;  // "scanning", "extracting", "writing"
};

struct IndexOptions {
  uint64_t maxFileSize = 1 << 20;  // larger files are recorded as skipped ("too-large")
  unsigned threads = 0;            // 0: one per hardware thread
  std::string commit;              // a revision to index instead of the worktree
  std::filesystem::path indexDir;  // default <repo>/.nib
  // Complete versions kept on disk (besides the current one, its predecessor and bases); 0:
  // .nib.conf's index.keep-versions, else 3 (keptVersions).
  size_t keepVersions = 0;
  // The fact store is swept of what no kept version references once it holds more than this
  // many times the current version's records (views/StoreCollection); collectNow sweeps on
  // this build whatever it holds.
  double storeSlack = 1.25;
  bool collectNow = false;
  std::function<void(const IndexProgress&)> progress;
  // Test hook: called after the version's artifacts are written and before it is published.
  std::function<void()> beforePublish;
  // Polled between files: when it returns true the build stops, publishing nothing.
  std::function<bool()> cancelled;
  // Wait for another process's build to finish instead of failing (the language server).
  bool waitForLock = false;
  // Publish nothing when the current version already reflects HEAD and the worktree (checked
  // by the worktree snapshot's stat comparison) with the same configuration and extractor.
  bool skipIfCurrent = false;
  // Bounds each file's parse (0: the extractor's default); a test hook for timeouts.
  uint64_t parseTimeoutMicros = 0;
  // Parse again files whose extraction failed in an earlier build (`nib index --force`).
  bool retryFailed = false;
  // Build the dense view (semantic search); its model is kept from the current version unless
  // retrainModel says to learn it again from the repository as it is now.
  bool dense = true;
  // With dense: build the repository-trained dense view only where it was asked for — the
  // current version has one (built, pending or over its size limit), or .nib.conf names an
  // external encoder (then `auto` ranks prose with it). Elsewhere it is left Absent with
  // ViewRecord::kOnRequest. `nib index` sets this unless --dense or --wait-dense asks.
  bool denseOnRequest = false;
  // Store file contents LZ4-packed (views/StoredContent): 2.3-2.8× fewer bytes, which keeps
  // the index under 3× the source, at the cost of unpacking every file a search verifies.
  // .nib.conf's index.pack-contents = false stores them as they are; contents already stored
  // keep their form.
  bool packContents = true;
  // The history view (views/HistoryView.h): at most this many commits behind the indexed commit
  // are walked for their messages. 0 leaves the view absent; SIZE_MAX (the default): .nib.conf's
  // index.history-commits, else HistoryMiner::kDefaultMaxCommits.
  size_t historyCommits = SIZE_MAX;
  // Publish the version with its dense view Pending and leave the view to a follow-up version
  // (indexer/DenseFollowUp: completeDenseView), so that the other views are answered without
  // waiting for it; `nib index` does this and starts the follow-up in the background.
  bool deferDense = false;
  // Leave the clang view's made-up units the cache lacks (files no compile command builds) to
  // the same follow-up, which publishes the view with them (indexer/ClangBuilder). A delta
  // that rebuilds the clang view runs them at once: the follow-up completes full versions only.
  bool deferUncompiled = false;
  // The dense view is left Absent, with the reason, when the text the search views index is
  // larger than this: its build holds every unit's vector and terms at once, so its memory
  // grows with the repository (qemu's 1.5 GB; Linux's past 10 GB). 0: .nib.conf's
  // dense.max-source-mb, else kDefaultDenseMaxSourceMb.
  uint64_t denseMaxSourceBytes = 0;
  static constexpr uint64_t kDefaultDenseMaxSourceMb = 256;
  bool retrainModel = false;
  // Embed with this model file instead of training or keeping one (`nib verify` rebuilds with
  // the index's own model, so that the vectors can be compared).
  std::filesystem::path denseModel;
  // The clang view: built when a compilation database is found (compileCommandsDir, else
  // .nib.conf's clang.compile-commands-dir, else the root or a build*/ folder). The worker is
  // nib-clang next to this executable unless named.
  bool clang = true;
  std::filesystem::path compileCommandsDir;
  std::filesystem::path clangWorker;
  unsigned clangTimeoutSeconds = 120;  // per translation unit
  // The precise view (PreciseBuilder.h): TypeScript/JavaScript and Python projects indexed by
  // their SCIP indexers, found by findScipIndexers unless named here (by language). Like the
  // clang view, built from the worktree only.
  bool precise = true;
  std::map<std::string, std::filesystem::path> scipIndexers;
  std::filesystem::path scipWorker;        // nib-scip next to this executable unless named
  unsigned preciseTimeoutSeconds = 600;  // per project
  // A worktree build over a current version with the same configuration publishes a delta
  // version (the base's views shared, the differing files listed) when at most this many files
  // — and at most an eighth of the base's, 32 at least — differ from the base; 0 always
  // rewrites every view (`nib index --full`).
  size_t deltaBudget = 256;
};

// The SCIP indexers by language ("typescript", "python"): $NIB_SCIP_TYPESCRIPT /
// $NIB_SCIP_PYTHON (empty: none), else scip-typescript / scip-python on the absolute entries
// of PATH, else the pinned ones scripts/setup.sh installs. A language without one is absent.
std::map<std::string, std::filesystem::path> findScipIndexers();

struct IndexReport {
  Manifest manifest;
  std::filesystem::path repoRoot;
  std::map<std::string, uint64_t> filesByLanguage;
  std::map<std::string, uint64_t> skippedByReason;
  std::vector<std::pair<std::string, std::string>> skippedExamples;  // (path, reason), a few per reason
  uint64_t files = 0, extracted = 0, reused = 0, failed = 0;
  uint64_t definitions = 0, occurrences = 0;
  uint64_t sourceBytes = 0, indexBytes = 0;
  double seconds = 0;
  std::vector<std::pair<std::string, double>> phaseSeconds;  // scan, extract, commit-view, publish
  std::string deltaBase;  // a delta version: its base ("" for a full build)
  size_t deltaFiles = 0;  // and how many files differ from it
  bool upToDate = false;  // skipIfCurrent found nothing to do: `manifest` is the current one
  FactCollection collection;  // what the fact store's collection found after publishing
};

Expected<IndexReport> buildIndex(const std::filesystem::path& repoPath, const IndexOptions& options);

// How many complete versions a build at `repoRoot` keeps: the option, else the repository's
// .nib.conf (index.keep-versions), else 3.
size_t keptVersions(const IndexOptions& options, const std::filesystem::path& repoRoot);

// The digest of the options and project configuration (.nib.conf) that change an index's
// contents (recorded as config-digest).
std::string configDigest(const IndexOptions& options, const std::optional<EncoderSettings>& encoder);

}  // namespace nib
