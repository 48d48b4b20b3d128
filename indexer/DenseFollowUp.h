// The dense view off the critical path. Building it (training the model, embedding every unit,
// the FAISS index) took 40% of a cold `nib index` on qemu and most of it on small repositories,
// while every other command needs only the structural and search views. So `nib index`
// publishes a version whose dense view is Pending and returns; a follow-up (a detached
// `nib-indexer index --complete-dense`) builds the view and publishes it as a new version: the
// same files (hard links) plus the dense view, made current only if the version it completes is
// still current. Versions stay immutable; queries never wait; a follow-up that dies leaves the
// view Pending, and the next `nib index` starts another.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "indexer/DenseBuilder.h"
#include "indexer/IndexBuilder.h"
#include "support/Status.h"
#include "views/IndexLayout.h"
#include "views/Manifest.h"

namespace nib {

// The dense view of a version being written in `versionDir` whose predecessor is `previousId`
// (its model is kept from there unless the options say otherwise). Shared by the full build
// (dense inline) and the follow-up.
struct VersionDenseInput {
  const IndexLayout* layout = nullptr;
  std::string previousId;
  // The version whose dense view gives the model, already resolved (denseModelSource) and
  // its folder — a copy by hard links the follow-up made before pruning could remove it; when
  // unset, it is resolved from previousId.
  std::optional<Manifest> modelSource;
  std::filesystem::path modelSourceDir;
  std::filesystem::path versionDir;
  const std::vector<SearchDoc>* docs = nullptr;
  const std::vector<const SearchFacts*>* facts = nullptr;
  FactStore::Reader* contents = nullptr;  // null: the view fails with `contentsError`
  std::string contentsError;
  std::string searchProfile;
  std::optional<EncoderSettings> encoder;
  unsigned threads = 1;
};
DenseBuildReport buildVersionDense(const VersionDenseInput& input, const IndexOptions& options);
// The version whose complete dense view a new one keeps the model of: `previousId`, or when it
// is gone (pruned while a busy worktree published deltas) or has no complete view itself, the
// newest version on disk that has one. Training again would make every cached vector useless.
std::optional<Manifest> denseModelSource(const IndexLayout& layout, const std::string& previousId);

// The dense statistics a version's manifest records (`nib status`, the benchmarks).
void recordDenseStats(Manifest& manifest, const DenseBuildReport& dense);

// The view record of a dense view left for the follow-up.
ViewRecord pendingDenseView();

// Whether the manifest's clang view waits for the follow-up to add its deferred made-up units.
bool clangUncompiledPending(const Manifest& m);
// Whether the version waits for a follow-up: its dense view, or its clang view's made-up units.
bool followUpPending(const Manifest& m);
// The statistic a follow-up version names the version it completes with.
inline constexpr const char* kFollowUpOf = "follow-up.of";
// The version the follow-up made of version `id` (the same views, the pending ones complete,
// `previous` and kFollowUpOf naming `id`), when one is on disk: the base a delta over `id`
// moves to.
std::optional<Manifest> followUpCompletionOf(const IndexLayout& layout, const std::string& id);

struct DenseFollowUpReport {
  bool published = false;
  std::string versionId;  // the version published, or the one that needed nothing
  std::string skipped;    // why nothing was published (another follow-up runs, nothing pending, ...)
  DenseBuildReport dense;
  // The clang view's made-up units, when the version deferred them: added (the units indexed
  // now), or why not (the worktree changed since the version was built).
  bool clangCompleted = false;
  size_t clangIndexed = 0;
  std::string clangSkipped;
  double seconds = 0;
};

// Builds what the current version left pending (its dense view, its clang view's made-up
// units) and publishes the follow-up version.
// Only one follow-up runs at a time (<index>/dense.lock); none is needed for a delta version
// (deltas are made over versions whose dense view is complete).
Expected<DenseFollowUpReport> completeDenseView(const std::filesystem::path& repoRoot, const IndexOptions& options);

// Starts completeDenseView as a background process: `indexer` (the nib-indexer executable) with
// `index --complete-dense`, detached from the terminal and from this process (setsid, double
// fork), at a lower priority, its output in <index>/dense.log. Nothing when one runs already.
// A fork that fails only delays the view: the next `nib index` starts one again.
// NIB_NO_DENSE_FOLLOW_UP=1 starts none (tests of an interrupted follow-up).
void startDenseFollowUp(const std::filesystem::path& indexer, const std::filesystem::path& repoRoot,
                        const IndexLayout& layout, unsigned threads);

}  // namespace nib
