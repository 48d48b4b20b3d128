// The builder's phases one by one (indexer/BuildPhases.h): each is called with its own inputs
// and its outputs checked, without running the build around it.
#include <catch2/catch.hpp>

#include <algorithm>

#include <filesystem>
#include <fstream>

#include "TestRepo.h"
#include "indexer/BuildPhases.h"
#include "support/FileIo.h"
#include "views/CommitView.h"

namespace nib::test {
namespace fs = std::filesystem;
using namespace nib::build;
namespace {

// A repository with a Python module, a file without a grammar, a binary file and a symbolic
// link, the module committed and the rest untracked.
void populate(TestRepo& repo) {
  repo.write("geometry.py", kDocumentedGeometry);
  repo.write("blob.bin", std::string("\x7f" "ELF\0\0\0binary", 13));
  repo.commitAll();
  repo.write("notes.txt", "the distance between two points\n");
  // Untracked and binary: no part of the worktree an index reflects (WorktreeSnapshot::leftOut).
  repo.write("stray.o", std::string("\x7f" "ELF\0\0\0object", 13));
  fs::create_symlink("geometry.py", repo.root() / "link.py");
}

ScanOutput scanned(TestRepo& repo, bool fromWorktree, const IndexOptions& options) {
  auto git = GitRepository::discover(repo.root());
  REQUIRE(git.hasValue());
  auto head = (*git)->headCommit();
  REQUIRE(head.hasValue());
  auto scan = scanPhase(**git, *head, fromWorktree);
  REQUIRE(scan.hasValue());
  classifyPhase(scan->items, fromWorktree, options.maxFileSize);
  return std::move(*scan);
}

const WorkItem& item(const ScanOutput& scan, const std::string& path) {
  for (const WorkItem& w : scan.items)
    if (w.entry.path == path) return w;
  FAIL("no item for " << path);
  throw;
}

std::unique_ptr<FactStore> openFacts(const fs::path& dir) {
  auto facts = FactStore::open(dir, /*readOnly=*/false);
  REQUIRE(facts.hasValue());
  return std::move(*facts);
}

// The populated repository scanned and extracted, with its options and a fact store kept out
// of the worktree's listing: where the phases after extract start.
struct Extracted {
  TestRepo repo;
  IndexOptions options;
  std::unique_ptr<FactStore> facts;
  std::string profile = Extractor::profileDigest();
  ScanOutput scan;
  std::unique_ptr<BuildSpill> spill;

  Extracted() {
    populate(repo);
    options.threads = 2;
    facts = openFacts(repo.root() / ".git" / "test-facts");
    scan = scanned(repo, true, options);
    auto created = BuildSpill::create(repo.root() / ".git");
    REQUIRE(created.hasValue());
    spill = std::move(*created);
    REQUIRE(extractPhase(scan.items, *facts, {repo.root(), true, &options, profile, spill.get()}).isOk());
  }
};

}  // namespace

TEST_CASE("classify decides what it can without reading a file", "[build-phases]") {
  auto entry = [](std::string path, EntryMode mode = EntryMode::File, uint64_t size = 10) {
    TreeEntry e;
    e.path = std::move(path);
    e.mode = mode;
    e.size = size;
    return e;
  };
  CHECK(classifyEntry(entry(".nib/CURRENT"), true, 100) == kIndexOwnFiles);
  CHECK(classifyEntry(entry("a.c", EntryMode::Symlink), true, 100) == "symlink");
  CHECK(classifyEntry(entry("vendor", EntryMode::Submodule), true, 100) == "submodule");
  CHECK(classifyEntry(entry("a/../b.c"), true, 100) == "bad-path");
  CHECK(classifyEntry(entry(std::string(401, 'x')), true, 100) == "path-too-long");
  CHECK(classifyEntry(entry("big.c", EntryMode::File, 101), true, 100) == "too-large");
  // A commit's listing carries no sizes: the extract phase checks the blob's.
  CHECK(classifyEntry(entry("big.c", EntryMode::File, 101), false, 100) == "");
  CHECK(classifyEntry(entry("src/ok.c", EntryMode::Executable), true, 100) == "");
}

TEST_CASE("scan lists the worktree with its snapshot, a commit without one", "[build-phases]") {
  TestRepo repo;
  populate(repo);
  indexAndOpen(repo);
  // The index's own folder ignores itself, unless someone adds a file in it by force.
  repo.write(".nib/forced.txt", "tracked by mistake\n");
  REQUIRE(repo.git("add -f .nib/forced.txt") == 0);
  IndexOptions options;
  ScanOutput worktree = scanned(repo, true, options);
  CHECK(item(worktree, "notes.txt").skipReason.empty());
  CHECK(!item(worktree, "notes.txt").entry.tracked);
  CHECK(item(worktree, "link.py").skipReason == "symlink");
  REQUIRE(worktree.snapshot);
  CHECK(worktree.startedNs > 0);
  size_t own = 0;
  for (const WorkItem& w : worktree.items) own += w.ownFile();
  CHECK(own == 1);
  // The snapshot holds every entry but the index's own files, in the same order.
  REQUIRE(worktree.snapshot->files.size() == worktree.items.size() - own);
  for (const auto& f : worktree.snapshot->files) CHECK(f.path.rfind(".nib/", 0) == std::string_view::npos);

  ScanOutput commit = scanned(repo, false, options);
  CHECK(!commit.snapshot);
  REQUIRE(commit.items.size() == 2);
  CHECK(commit.items[0].entry.path == "blob.bin");
  CHECK(commit.items[1].entry.path == "geometry.py");
  CHECK(commit.items[1].entry.oid.size() == 40);
}

TEST_CASE("extract classifies by content, stores facts once and reuses them", "[build-phases]") {
  TestRepo repo;
  populate(repo);
  IndexOptions options;
  options.threads = 2;
  auto facts = openFacts(repo.root() / ".git" / "test-facts");
  ExtractInput in{repo.root(), true, &options, Extractor::profileDigest()};

  ScanOutput first = scanned(repo, true, options);
  REQUIRE(extractPhase(first.items, *facts, in).isOk());
  const WorkItem& module = item(first, "geometry.py");
  CHECK(module.skipReason.empty());
  CHECK(module.language == Language::Python);
  CHECK(module.extracted);
  CHECK(module.definitions == 6);  // two functions and their parameters
  CHECK(module.contentOid == module.entry.oid);
  CHECK(item(first, "notes.txt").skipReason == "no-grammar");
  CHECK(item(first, "notes.txt").searchable);
  CHECK(item(first, "blob.bin").skipReason == "binary");
  CHECK(!item(first, "blob.bin").searchable);
  // Skipped files still get their blob id: the worktree's tree id is made of every entry's.
  CHECK(item(first, "blob.bin").entry.oid.size() == 40);
  // An untracked binary file is no item: the snapshot keeps its stat data alone.
  CHECK(std::none_of(first.items.begin(), first.items.end(), [](const WorkItem& w) { return w.entry.path == "stray.o"; }));
  REQUIRE(first.snapshot.has_value());
  REQUIRE(first.snapshot->leftOut.size() == 1);
  CHECK(first.snapshot->leftOut[0].path == "stray.o");

  ScanOutput second = scanned(repo, true, options);
  REQUIRE(extractPhase(second.items, *facts, in).isOk());
  CHECK(!item(second, "geometry.py").extracted);
  CHECK(item(second, "geometry.py").definitions == 6);

  ScanOutput cancelled = scanned(repo, true, options);
  options.cancelled = [] { return true; };
  Status s = extractPhase(cancelled.items, *facts, in);
  CHECK(s.code() == ErrorCode::Cancelled);
}

TEST_CASE("the view phases write their views and record why one failed", "[build-phases]") {
  Extracted x;
  TestRepo& repo = x.repo;
  IndexOptions& options = x.options;
  auto& facts = x.facts;
  ScanOutput& scan = x.scan;
  const std::string& profile = x.profile;
  fs::path versionDir = repo.root() / ".git" / "test-version";  // out of the worktree's listing

  IndexReport report;
  auto structural = commitViewPhase(versionDir, scan.items, *x.spill, profile, &*scan.snapshot, report);
  REQUIRE(structural.hasValue());
  CHECK(structural->status == ViewStatus::Complete);
  REQUIRE(structural->artifacts.size() == 1);
  CHECK(fs::file_size(versionDir / structural->artifacts[0].path) == structural->artifacts[0].size);
  CHECK(report.files == 1);  // geometry.py: the only file with a grammar
  CHECK(report.skippedByReason["no-grammar"] == 1);
  CHECK(report.skippedByReason["binary"] == 1);
  CHECK(report.skippedByReason["symlink"] == 1);
  CHECK(report.definitions == 6);
  for (const auto& f : scan.snapshot->files)
    if (f.path != "link.py") CHECK(f.oid.size() == 40);  // the workers' blob ids reached the snapshot

  // The search views index every text file; one that cannot be written fails alone.
  SearchCorpus corpus = searchCorpus(scan.items, x.spill.get());
  REQUIRE(corpus.docs.size() == 2);
  CHECK(corpus.docs[0].path == "geometry.py");
  CHECK(corpus.docs[1].path == "notes.txt");
  REQUIRE(writeFileAtomic(versionDir / "lexical", "a file where the view's folder should be").isOk());
  std::vector<ViewRecord> search = searchViewsPhase(versionDir, corpus, profile);
  REQUIRE(search.size() == 2);
  CHECK(search[0].name == "lexical");
  CHECK(search[0].status == ViewStatus::Failed);
  CHECK(search[0].error.find("lexical") != std::string::npos);
  CHECK(search[1].name == "trigram");
  CHECK(search[1].status == ViewStatus::Complete);
  CHECK(search[1].profile == searchViewsProfile(profile));

  Manifest m;
  ClangPhaseInput clangIn{repo.root(), versionDir, repo.root() / "cache", repo.root(), repo.root() / "no-such-worker",
                          &scan.items, 1, &options};
  auto clang = clangViewPhase(clangIn, m);
  REQUIRE(clang.hasValue());
  CHECK(clang->status == ViewStatus::Failed);
  CHECK(clang->error.find("no-such-worker") != std::string::npos);
  CHECK(m.stats["clang.database"] == repo.root().string());

  DensePhaseInput denseIn{nullptr, versionDir, "", &corpus, facts.get(), profile, std::nullopt, 1};
  options.dense = false;
  CHECK(denseViewPhase(denseIn, options, m).status == ViewStatus::Absent);
  options.dense = true;
  options.deferDense = true;
  CHECK(denseViewPhase(denseIn, options, m).status == ViewStatus::Pending);
}

TEST_CASE("the manifest names the tree it reflects, publish refuses an artifact that differs", "[build-phases]") {
  Extracted x;
  TestRepo& repo = x.repo;
  IndexOptions& options = x.options;
  ScanOutput& scan = x.scan;
  const std::string& profile = x.profile;
  auto git = GitRepository::discover(repo.root());
  REQUIRE(git.hasValue());
  auto head = (*git)->headCommit();
  REQUIRE(head.hasValue());
  auto headTree = (*git)->commitTree(*head);
  REQUIRE(headTree.hasValue());
  IndexLayout layout(repo.root() / ".git" / "test-index");
  REQUIRE(layout.ensure().isOk());

  auto fromCommit = manifestHeader(**git, layout, *head, nullptr, "digest");
  REQUIRE(fromCommit.hasValue());
  CHECK(fromCommit->sourceTree == *headTree);
  CHECK(!fromCommit->dirty);
  CHECK(fromCommit->configDigest == "digest");

  auto fromWorktree = manifestHeader(**git, layout, *head, &scan.items, "digest");
  REQUIRE(fromWorktree.hasValue());
  CHECK(fromWorktree->dirty);  // untracked files
  CHECK(fromWorktree->sourceTree.size() == 40);
  CHECK(fromWorktree->sourceTree != *headTree);
  // An entry without a blob id (an untracked nested repository) makes the tree unknowable.
  scan.items.push_back(scan.items.front());
  scan.items.back().entry.path = "zz-nested";
  scan.items.back().entry.oid.clear();
  scan.items.back().skipReason.clear();
  auto unknowable = worktreeTreeId(scan.items);
  REQUIRE(unknowable.hasValue());
  CHECK(unknowable->empty());
  scan.items.pop_back();

  Manifest m = *fromWorktree;
  IndexReport report;
  auto structural = commitViewPhase(layout.versionDir(m.versionId), scan.items, *x.spill, profile, &*scan.snapshot, report);
  REQUIRE(structural.hasValue());
  m.views.push_back(*structural);
  recordBuildStats(m, report, options, scan.startedNs);
  CHECK(m.stats["files"] == "1");
  CHECK(m.stats["worktree.scan-ns"] == std::to_string(scan.startedNs));

  // An artifact changed after its digest was taken: nothing is published.
  Manifest tampered = m;
  tampered.views[0].artifacts[0].digest = std::string(32, '0');
  CHECK(!publishVersion(layout, tampered, options, {CommitView::kDirectory}).isOk());
  CHECK(!layout.currentVersion().hasValue());
  REQUIRE(publishVersion(layout, m, options, {CommitView::kDirectory}).isOk());
  auto current = layout.currentVersion();
  REQUIRE(current.hasValue());
  CHECK(*current == m.versionId);
}

}  // namespace nib::test
