#include "indexer/DenseFollowUp.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <set>
#include <thread>

#include "indexer/BuildPhases.h"
#include "indexer/Extractor.h"
#include "indexer/GitRepository.h"
#include "support/FileIo.h"
#include "support/Language.h"
#include "support/Log.h"
#include "support/ProjectConfig.h"
#include "views/CommitView.h"
#include "views/FactStore.h"
#include "views/SearchFacts.h"
#include "views/SearchViews.h"
#include "views/StoredContent.h"
#include "views/VersionDelta.h"
#include "views/WorktreeSnapshot.h"

namespace nib {
namespace fs = std::filesystem;

std::optional<Manifest> denseModelSource(const IndexLayout& layout, const std::string& previousId) {
  auto complete = [](const Manifest& m) {
    const ViewRecord* d = m.view("dense");
    return d && d->status == ViewStatus::Complete;
  };
  if (!previousId.empty())
    if (auto pm = readManifest(layout.versionDir(previousId)); pm && complete(*pm)) return std::move(*pm);
  std::vector<std::string> ids = layout.listVersions();
  for (auto it = ids.rbegin(); it != ids.rend(); ++it)
    if (auto pm = readManifest(layout.versionDir(*it)); pm && complete(*pm)) return std::move(*pm);
  return std::nullopt;
}

DenseBuildReport buildVersionDense(const VersionDenseInput& v, const IndexOptions& options) {
  DenseBuildInput in;
  in.dir = v.versionDir / "dense";
  in.vectorsDir = v.layout->vectorsDir();
  in.docs = v.docs;
  in.facts = v.facts;
  in.contents = v.contents;
  // The model is kept from the source's dense view (when made with these settings), so that an
  // update's vectors compare with the ones it reuses.
  std::optional<Manifest> source = v.modelSource ? v.modelSource : denseModelSource(*v.layout, v.previousId);
  if (source) {
    in.previousDir = v.modelSource ? v.modelSourceDir : v.layout->versionDir(source->versionId);
    in.previousView = source->view("dense");
  }
  in.retrain = options.retrainModel;
  in.model = options.denseModel;
  in.encoder = v.encoder;
  in.threads = v.threads;
  in.searchProfile = v.searchProfile;
  std::error_code dirError;
  fs::create_directories(in.dir, dirError);
  DenseBuildReport dense;
  if (!in.contents || dirError) {
    dense.view.name = "dense";
    dense.view.status = ViewStatus::Failed;
    dense.view.error = dirError ? dirError.message() : v.contentsError;
    return dense;
  }
  dense = buildDenseView(in);
  if (dense.view.status == ViewStatus::Complete) {
    if (Status s = syncDirectory(in.dir); !s.isOk()) {
      dense.view.status = ViewStatus::Failed;
      dense.view.error = s.message();
      dense.view.artifacts.clear();
    }
  }
  return dense;
}

void recordDenseStats(Manifest& m, const DenseBuildReport& dense) {
  if (dense.view.status != ViewStatus::Complete) return;
  m.stats["dense.model"] = dense.modelDigest;
  m.stats["dense.trained"] = dense.trained ? "yes" : "no";
  if (dense.trained) m.stats["dense.training-tokens"] = std::to_string(dense.trainingTokens);
  m.stats["dense.units"] = std::to_string(dense.units);
  m.stats["dense.vectors"] = std::to_string(dense.vectors);
  m.stats["dense.embedded"] = std::to_string(dense.embedded);
  m.stats["dense.reused"] = std::to_string(dense.reused);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3f/%.3f/%.3f", dense.trainSeconds, dense.embedSeconds, dense.indexSeconds);
  m.stats["dense.seconds.train/embed/index"] = buf;
}

ViewRecord pendingDenseView() {
  ViewRecord v;
  v.name = "dense";
  v.status = ViewStatus::Pending;
  v.capabilities = {"semantic", "hybrid"};
  v.error = "built in the background after the version was published";
  return v;
}

bool clangUncompiledPending(const Manifest& m) {
  const ViewRecord* v = m.view("clang");
  return v && v->status == ViewStatus::Complete && v->has(ViewRecord::kUncompiledPending);
}

bool followUpPending(const Manifest& m) { return build::denseViewPending(m) || clangUncompiledPending(m); }

std::optional<Manifest> followUpCompletionOf(const IndexLayout& layout, const std::string& id) {
  std::vector<std::string> versions = layout.listVersions();
  for (auto it = versions.rbegin(); it != versions.rend() && *it > id; ++it) {
    auto m = readManifest(layout.versionDir(*it));
    if (!m || m->previous != id || !m->base.empty()) continue;
    if (auto of = m->stats.find(kFollowUpOf); of != m->stats.end() && of->second == id) return std::move(*m);
  }
  return std::nullopt;
}

namespace {

// The follow-up's own lock: at most one builds the dense view; `nib status` and `nib index` ask
// whether one runs. Released when the process ends, however it ends.
class DenseLock {
 public:
  static std::optional<DenseLock> tryAcquire(const IndexLayout& layout) {
    int fd = ::open(layout.denseLockFile().c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd < 0) return std::nullopt;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return std::nullopt;
    }
    return DenseLock(fd);
  }
  DenseLock(DenseLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  DenseLock& operator=(DenseLock&&) = delete;
  ~DenseLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  explicit DenseLock(int fd) : fd_(fd) {}
  int fd_;
};

// The lexical view's documents and their search facts, rebuilt as the full build made them (the
// same text analysis over the stored contents and facts): the dense view's unit ids are the
// lexical view's.
struct Documents {
  std::vector<SearchDoc> docs;
  std::vector<SearchFacts> facts;
  std::vector<const SearchFacts*> pointers;
};

Status readDocuments(const fs::path& versionDir, FactStore::Reader& reader, const std::string& extractorProfile,
                     unsigned threads, Documents* out) {
  auto lexical = LexicalView::open(versionDir / "lexical");
  if (!lexical) return lexical.status();
  (*lexical)->forEach([&](const SearchDoc& d) {
    out->docs.push_back(d);
    return true;
  });
  out->facts.resize(out->docs.size());
  // Reads go through one LMDB transaction (one thread); the text analysis runs on all threads,
  // a batch at a time so that only a batch's facts are in memory.
  constexpr size_t kBatch = 512;
  for (size_t from = 0; from < out->docs.size(); from += kBatch) {
    size_t to = std::min(out->docs.size(), from + kBatch);
    std::vector<std::string_view> contents(to - from);
    std::vector<std::optional<FileFacts>> structural(to - from);
    for (size_t i = from; i < to; ++i) {
      const SearchDoc& d = out->docs[i];
      auto content = reader.packedContent(d.blobOid);
      if (!content) return Status(ErrorCode::Corrupt, "the stored contents lack " + d.path + ": " + content.status().message());
      contents[i - from] = *content;  // unpacked by the thread that analyses it
      if (d.language == Language::Unknown) continue;
      // Absent facts (extraction failed) leave the text alone searchable, as in the build.
      auto facts = reader.get(FactKey{d.blobOid, d.language, extractorProfile});
      if (facts) structural[i - from] = std::move(*facts);
    }
    std::atomic<size_t> next{from};
    std::atomic<size_t> damaged{to};
    auto work = [&] {
      std::string buffer;
      for (size_t i; (i = next++) < to;) {
        auto text = unpackContentInto(contents[i - from], buffer);
        if (!text) {
          damaged = i;
          continue;
        }
        const auto& ff = structural[i - from];
        out->facts[i] = buildSearchFacts(out->docs[i].path, *text, ff ? &*ff : nullptr, /*trigrams=*/false);
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    if (damaged != to) return Status(ErrorCode::Corrupt, "the stored contents of " + out->docs[damaged].path + " are damaged");
    reader.releaseMappedPages();  // this batch's contents are analysed: not kept resident
  }
  for (const SearchFacts& f : out->facts) out->pointers.push_back(&f);
  return Status::ok();
}

// Links the files of `from`'s dense view (the model, the vectors, an encoder's settings) into
// `to`/dense; false when none could be linked.
bool linkDenseFiles(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to / "dense", ec);
  bool any = false;
  for (const char* name : {"model.bin", "vectors.faiss", "encoder"}) {
    std::error_code linkError;
    if (fs::exists(from / "dense" / name, linkError)) {
      fs::create_hard_link(from / "dense" / name, to / "dense" / name, linkError);
      any = any || !linkError;
    }
  }
  return any;
}

// Shares every artifact of `from` but the views named in `except` with `to` by hard links.
Status linkViews(const fs::path& from, const fs::path& to, const Manifest& m, const std::set<std::string>& except) {
  std::error_code ec;
  for (const ViewRecord& v : m.views) {
    if (except.count(v.name)) continue;
    for (const Artifact& a : v.artifacts) {
      fs::create_directories((to / a.path).parent_path(), ec);
      if (!ec) fs::create_hard_link(from / a.path, to / a.path, ec);
      if (ec) return Status(ErrorCode::IoError, "cannot link " + (from / a.path).string() + ": " + ec.message());
    }
  }
  // The caches beside the commit view (the resolved call graph, the definition names) are no
  // artifacts: shared too, so that the follow-up's first queries do not build them again.
  for (const char* cache : {CommitView::kCallGraphFile, CommitView::kDefinitionKeysFile}) {
    const fs::path file = from / CommitView::kDirectory / cache;
    if (fs::exists(file, ec)) fs::create_hard_link(file, to / CommitView::kDirectory / cache, ec);
  }
  // A complete dense view kept as it is brings its encoder's settings (no artifact either).
  if (!except.count("dense") && fs::exists(from / "dense" / "encoder", ec))
    fs::create_hard_link(from / "dense" / "encoder", to / "dense" / "encoder", ec);
  return Status::ok();
}

// Whether libclang may read `path` in a unit: a C or C++ file, or one of no known language (an
// `.inc` or `.def` file #included).
bool clangMayRead(const std::string& path) {
  Language l = detectLanguage(path, "");
  return l == Language::C || l == Language::Cpp || l == Language::Unknown;
}

// The clang view of `target` again, its made-up units included (the compiled ones come from
// the cache), into `versionDir`, replacing the record and statistics in `m`. libclang reads the
// files on disk, and the cache keys what it read by `target`'s blob ids: so only while every
// file it may read is still what `target` indexed (a delta made meanwhile may have changed
// others, such as Python files), else the view is left as it was (linked) for a later build to
// complete. False when it was left.
Expected<bool> completeClangView(const fs::path& repoRoot, const IndexLayout& layout, const IndexOptions& options,
                                 const Manifest& target, const fs::path& versionDir, Manifest& m, unsigned threads,
                                 DenseFollowUpReport& report) {
  const fs::path targetDir = layout.versionDir(target.versionId);
  auto recorded = recordedWorktree(targetDir, target);
  if (!recorded) return false;
  WorktreeComparison cmp = compareWorktree(repoRoot, recorded->snapshot);
  auto database = target.stats.find("clang.database");
  bool same = cmp.conclusive && std::none_of(cmp.changed.begin(), cmp.changed.end(), clangMayRead) &&
              std::none_of(cmp.deleted.begin(), cmp.deleted.end(), clangMayRead) &&
              std::none_of(cmp.added.begin(), cmp.added.end(), clangMayRead);
  if (!same || database == target.stats.end()) {
    report.clangSkipped = "C/C++ files in the worktree changed since the version was built";
    return false;
  }
  std::vector<build::WorkItem> items;
  recorded->view->forEachFile([&](const FileRecord& f) {
    build::WorkItem w;
    w.entry.path = f.path;
    w.entry.oid = f.blobOid;
    items.push_back(std::move(w));
    return true;
  });
  // Files skipped as too large are parsed alone too (clangViewPhase), as in the first build.
  for (SkippedFile& f : recorded->view->skipped())
    if (f.reason.rfind(kTooLargeReason, 0) == 0) {
      build::WorkItem w;
      w.entry.path = std::move(f.path);
      w.skipReason = std::move(f.reason);
      items.push_back(std::move(w));
    }
  build::ClangPhaseInput in{repoRoot, versionDir, layout.dir() / "clang-cache", database->second, options.clangWorker,
                            &items, threads, &options, /*deferUncompiled=*/false};
  std::erase_if(m.stats, [](const auto& kv) { return kv.first.rfind("clang.", 0) == 0; });
  auto view = build::clangViewPhase(in, m);
  if (!view) return view.status();
  for (ViewRecord& v : m.views)
    if (v.name == "clang") v = *view;
  report.clangCompleted = view->status == ViewStatus::Complete;
  if (auto it = m.stats.find("clang.indexed"); it != m.stats.end()) report.clangIndexed = std::strtoull(it->second.c_str(), nullptr, 10);
  return true;
}

// Builds the dense view of `target` (a version whose dense view is pending) into the
// completion's folder `versionDir`, its record and statistics into `m`.
Status buildDenseInto(const fs::path& repoRoot, const IndexLayout& layout, const IndexOptions& options,
                      const Manifest& target, const fs::path& versionDir, Manifest& m, unsigned threads,
                      DenseFollowUpReport& report) {
  auto config = ProjectConfig::load(repoRoot);
  if (!config) return config.status();
  auto encoder = EncoderSettings::fromConfig(*config);
  if (!encoder) return encoder.status();
  const ViewRecord* lexicalView = target.view("lexical");
  if (!lexicalView || lexicalView->status != ViewStatus::Complete)
    return Status(ErrorCode::Unsupported, "the current version has no lexical view to embed");
  auto store = FactStore::open(layout.factsDir(), /*readOnly=*/true);
  if (!store) return store.status();
  auto reader = (*store)->reader();
  if (!reader) return reader.status();
  Documents documents;
  NIB_RETURN_IF_ERROR(readDocuments(layout.versionDir(target.versionId), *reader, target.extractorProfile, threads, &documents));
  VersionDenseInput input;
  input.layout = &layout;
  input.previousId = target.previous;
  // The model's source is held by hard links beside the work from now on: a worktree edited
  // while this runs publishes versions whose pruning would otherwise take it away.
  if (auto source = denseModelSource(layout, target.previous)) {
    const fs::path seed = layout.denseWorkDir() / "model-source";
    if (linkDenseFiles(layout.versionDir(source->versionId), seed)) {
      input.modelSource = std::move(source);
      input.modelSourceDir = seed;
    }
  }
  input.versionDir = versionDir;
  input.docs = &documents.docs;
  input.facts = &documents.pointers;
  input.contents = &*reader;
  input.searchProfile = lexicalView->profile;
  input.encoder = *encoder;
  input.threads = threads;
  report.dense = buildVersionDense(input, options);
  std::erase_if(m.views, [](const ViewRecord& v) { return v.name == "dense"; });
  m.views.push_back(report.dense.view);
  recordDenseStats(m, report.dense);
  return Status::ok();
}

// Builds what `target` left pending — its dense view, its clang view's made-up units — into a
// folder outside versions/ (where a build's pruning would take it for a dead build's folder:
// builds prune under the write lock, which this holds only to publish), the rest linked, and
// returns the completion's manifest; its folder is layout.denseWorkDir() / its id.
Expected<Manifest> buildCompletion(const fs::path& repoRoot, const IndexLayout& layout, const IndexOptions& options,
                                   const Manifest& target, DenseFollowUpReport& report) {
  const bool dense = build::denseViewPending(target), clang = clangUncompiledPending(target);
  const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  Manifest m = target;
  m.versionId = layout.newVersionId();
  m.created = utcTimestamp();
  m.previous = target.versionId;
  m.stats[kFollowUpOf] = target.versionId;
  std::error_code ec;
  // A repository removed while this runs must stay removed: every step that creates folders
  // first checks that the index is still there (creating them would bring its path back).
  auto indexGone = [&] { return !fs::exists(layout.dir() / "CURRENT", ec); };
  if (indexGone()) return Status(ErrorCode::NotFound, "the index is gone");
  fs::remove_all(layout.denseWorkDir(), ec);  // an earlier follow-up's, which died
  const fs::path versionDir = layout.denseWorkDir() / m.versionId;
  std::set<std::string> built;
  if (dense) built.insert("dense");
  if (clang) built.insert("clang");
  NIB_RETURN_IF_ERROR(linkViews(layout.versionDir(target.versionId), versionDir, target, built));
  if (indexGone()) return Status(ErrorCode::NotFound, "the index is gone");
  if (clang) {
    auto completed = completeClangView(repoRoot, layout, options, target, versionDir, m, threads, report);
    if (!completed) return completed.status();
    if (!*completed && !dense) return Status(ErrorCode::Unsupported, report.clangSkipped);
    if (!*completed) {
      // Left as it was: the target's clang view, linked after all.
      std::set<std::string> others;
      for (const ViewRecord& v : target.views)
        if (v.name != "clang") others.insert(v.name);
      NIB_RETURN_IF_ERROR(linkViews(layout.versionDir(target.versionId), versionDir, target, others));
    }
  }
  if (indexGone()) return Status(ErrorCode::NotFound, "the index is gone");
  if (dense) NIB_RETURN_IF_ERROR(buildDenseInto(repoRoot, layout, options, target, versionDir, m, threads, report));
  if (indexGone()) return Status(ErrorCode::NotFound, "the index is gone");
  return m;
}

// Moves a completion built by buildCompletion into versions/, checked and durable, without
// publishing it. The caller holds the write lock.
Status installCompletion(const IndexLayout& layout, const Manifest& m, const IndexOptions& options) {
  const fs::path versionDir = layout.denseWorkDir() / m.versionId;
  Status s = writePendingManifest(versionDir, m);
  auto reread = s.isOk() ? readPendingManifest(versionDir) : Expected<Manifest>(s);
  if (reread) s = verifyArtifacts(versionDir, *reread);
  else s = reread.status();
  if (s.isOk()) s = commitManifest(versionDir);
  std::error_code ec;
  if (s.isOk()) {
    fs::rename(versionDir, layout.versionDir(m.versionId), ec);
    if (ec) s = Status(ErrorCode::IoError, "cannot move the follow-up version into place: " + ec.message());
  }
  if (s.isOk()) s = syncDirectory(layout.versionsDir());
  if (s.isOk() && options.beforePublish) options.beforePublish();
  return s;
}

// One attempt at completing the current version — or, when the current version is a delta over
// a version whose dense view is pending, that base, after which the delta is published again
// over the completion (build::rebaseDelta). True when a version was published meanwhile that
// this attempt does not cover (then the caller tries again on that one).
Expected<bool> completeCurrent(const fs::path& repoRoot, const IndexLayout& layout, const IndexOptions& options,
                               DenseFollowUpReport* out) {
  DenseFollowUpReport& report = *out;
  auto current = layout.currentManifest();
  if (!current) return current.status();
  report.versionId = current->versionId;
  auto target = current->base.empty() ? Expected<Manifest>(*current) : readManifest(layout.versionDir(current->base));
  if (!target) return target.status();
  if (!followUpPending(*target)) {
    report.skipped = "the current version has no dense view or made-up clang units to complete";
    return false;
  }
  if (target->extractorProfile != Extractor::profileDigest()) {
    report.skipped = "the current version was built by another nib; run `nib index`";
    return false;
  }
  std::error_code ec;
  auto discard = [&] { fs::remove_all(layout.denseWorkDir(), ec); };
  // An earlier follow-up may have completed the base already (and a delta been made over the
  // pending base before it published): then only the delta needs publishing again.
  std::optional<Manifest> done = followUpCompletionOf(layout, target->versionId);
  std::optional<Manifest> built;
  if (done) {
    if (const ViewRecord* v = done->view("dense")) report.dense.view = *v;
    if (auto it = done->stats.find("dense.vectors"); it != done->stats.end()) report.dense.vectors = std::strtoull(it->second.c_str(), nullptr, 10);
    report.dense.reused = report.dense.vectors;
  } else {
    auto m = buildCompletion(repoRoot, layout, options, *target, report);
    if (!m) {
      discard();
      if (m.status().code() != ErrorCode::Unsupported) return m.status();
      report.skipped = m.status().message();
      return false;
    }
    built = std::move(*m);
  }

  // Publication: over the version this completes, or over the delta on it that is current now.
  // A build published meanwhile over anything else made its own dense view or left its own
  // follow-up; this one's work stays in the vector cache.
  auto lock = IndexWriteLock::acquire(layout, /*wait=*/true);
  if (!lock) {
    discard();
    return lock.status();
  }
  auto now = layout.currentManifest();
  bool overTarget = now && now->versionId == target->versionId && built;
  bool overDelta = now && now->base == target->versionId;
  if (!overTarget && !overDelta) {
    discard();
    report.skipped = "a newer version was published meanwhile";
    return true;
  }
  Status s = built ? installCompletion(layout, *built, options) : Status::ok();
  std::string published = built ? built->versionId : std::string();
  if (s.isOk() && overTarget) s = layout.publish(published);
  if (s.isOk() && overDelta) {
    auto rebased = build::rebaseDelta(layout, *now, built ? *built : *done, options);
    if (rebased) published = *rebased;
    else s = rebased.status();
  }
  discard();
  if (!s.isOk()) {
    if (built && overTarget) fs::remove_all(layout.versionDir(built->versionId), ec);
    return s;
  }
  layout.prune(keptVersions(options, repoRoot));
  report.published = true;
  report.versionId = published;
  return false;
}

}  // namespace

Expected<DenseFollowUpReport> completeDenseView(const fs::path& repoRoot, const IndexOptions& options) {
  auto started = std::chrono::steady_clock::now();
  IndexLayout layout(options.indexDir.empty() ? IndexLayout::forRepository(repoRoot).dir() : options.indexDir);
  DenseFollowUpReport report;
  auto denseLock = DenseLock::tryAcquire(layout);
  if (!denseLock) {
    report.skipped = "another process is building the dense view";
    return report;
  }
  // A build that publishes while this runs finds this follow-up running and starts none of its
  // own: so this one goes on with the newest version (the vector cache keeps what it embedded).
  for (int attempt = 0; attempt < 8; ++attempt) {
    report = DenseFollowUpReport();
    auto newer = completeCurrent(repoRoot, layout, options, &report);
    if (!newer) return newer.status();
    if (!*newer) break;
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}


void startDenseFollowUp(const fs::path& indexer, const fs::path& repoRoot, const IndexLayout& layout, unsigned threads) {
  if (const char* off = std::getenv("NIB_NO_DENSE_FOLLOW_UP"); off && *off) return;
  if (layout.denseFollowUpRunning() || indexer.empty()) return;
  const std::string self = indexer.string();
  const std::string log = (layout.dir() / "dense.log").string(), root = repoRoot.string(), nthreads = std::to_string(threads);
  std::fflush(nullptr);
  pid_t child = ::fork();
  if (child < 0) return;
  if (child > 0) {
    ::waitpid(child, nullptr, 0);  // the intermediate process exits at once
    return;
  }
  ::setsid();
  if (::fork() != 0) ::_exit(0);
  // The grandchild: no terminal, no descriptor of this process (a lock among them would be
  // held by the follow-up), output to the log.
  int in = ::open("/dev/null", O_RDONLY);
  int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0) ::_exit(1);
  ::dup2(in, 0);
  ::dup2(out, 1);
  ::dup2(out, 2);
  ::close_range(3, ~0U, 0);
  if (::nice(10) == -1) { /* an unchanged priority is no reason to stop */ }
  ::execl(self.c_str(), "nib-indexer", "index", "--complete-dense", "--threads", nthreads.c_str(), root.c_str(),
          static_cast<char*>(nullptr));
  ::_exit(127);
}

}  // namespace nib
