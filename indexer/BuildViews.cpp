// The view phases of a build: commit view, search views, history view, clang view, dense view (see
// BuildPhases.h). Each writes its view into the version's folder and returns its record.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>

#include "indexer/BuildPhases.h"
#include "indexer/ClangBuilder.h"
#include "indexer/DenseFollowUp.h"
#include "indexer/HistoryMiner.h"
#include "indexer/HistoryTranslation.h"
#include "indexer/PreciseBuilder.h"
#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/Log.h"
#include "views/CommitView.h"
#include "views/HistoryView.h"

namespace nib::build {
namespace {

// The record of a view whose one artifact, <name>/data.mdb, is written.
Expected<ViewRecord> completeView(const fs::path& versionDir, const std::string& name) {
  fs::path file = versionDir / name / "data.mdb";
  auto digest = digestFile(file);
  if (!digest) return digest.status();
  ViewRecord v;
  v.name = name;
  v.status = ViewStatus::Complete;
  v.artifacts.push_back({name + "/data.mdb", *digest, fs::file_size(file)});
  return v;
}

}  // namespace

Expected<ViewRecord> commitViewPhase(const fs::path& versionDir, std::vector<WorkItem>& items,
                                     const BuildSpill& spill, const std::string& profile,
                                     WorktreeSnapshot* snapshot, IndexReport& report) {
  std::vector<FileRecord> records;
  std::vector<SpillRef> summaries;
  std::vector<SkippedFile> skipped;
  std::map<std::string, size_t> examplesPerReason;
  for (WorkItem& w : items) {
    if (w.ownFile()) continue;
    if (!w.skipReason.empty()) {
      skipped.push_back({w.entry.path, w.error.empty() ? w.skipReason : w.skipReason + ": " + w.error});
      report.skippedByReason[w.skipReason]++;
      if (examplesPerReason[w.skipReason]++ < 3) report.skippedExamples.emplace_back(w.entry.path, w.skipReason);
      if (w.failed) report.failed++;
      continue;
    }
    FileRecord r;
    r.fileId = static_cast<uint32_t>(records.size());
    r.path = w.entry.path;
    r.blobOid = w.contentOid;
    r.language = w.language;
    r.size = w.entry.size;
    r.profileDigest = profile;
    report.filesByLanguage[languageName(w.language)]++;
    report.sourceBytes += w.entry.size;
    report.definitions += w.definitions;
    report.occurrences += w.occurrences;
    (w.extracted ? report.extracted : report.reused)++;
    records.push_back(std::move(r));
    summaries.push_back(w.summary);
  }
  report.files = records.size();
  if (snapshot) {
    // Blob ids were filled in by the workers; the snapshot's entries are in the same order.
    size_t k = 0;
    for (const WorkItem& w : items)
      if (!w.ownFile()) snapshot->files[k++].oid = snapshot->intern(w.entry.oid);
  }
  fs::path dir = versionDir / CommitView::kDirectory;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status(ErrorCode::IoError, "cannot create " + dir.string() + ": " + ec.message());
  auto summaryOf = [&](size_t i, FileSummary& out) {
    if (summaries[i].size == 0) {
      out = FileSummary();
      return Status::ok();
    }
    std::string bytes;
    NIB_RETURN_IF_ERROR(spill.read(summaries[i], bytes));
    if (!decodeFileSummary(bytes, out))
      return Status(ErrorCode::Corrupt, "the build's temporary summary of " + records[i].path + " does not decode");
    return Status::ok();
  };
  NIB_RETURN_IF_ERROR(CommitViewWriter::write(dir, records, summaryOf, skipped, snapshot));
  NIB_RETURN_IF_ERROR(syncDirectory(dir));
  auto view = completeView(versionDir, CommitView::kDirectory);
  if (!view) return view.status();
  view->profile = "tree-sitter;extractor=" + profile;
  view->capabilities = {"definitions", "references", "symbols", "imports", "calls", "units"};
  return view;
}

SearchCorpus searchCorpus(const std::vector<WorkItem>& items, const BuildSpill* spill) {
  SearchCorpus corpus;
  corpus.spill = spill;
  for (const WorkItem& w : items) {
    if (!w.searchable || w.contentOid.empty()) continue;
    corpus.docs.push_back({static_cast<uint32_t>(corpus.docs.size()), w.entry.path, w.contentOid, w.language,
                           w.contentSize});
    corpus.refs.push_back(w.search);
  }
  return corpus;
}

Status SearchCorpus::load(size_t i, SearchFacts& out, unsigned parts) const {
  if (i >= refs.size()) return Status(ErrorCode::InvalidArgument, "no search facts for document " + std::to_string(i));
  if (refs[i].size == 0 || !spill) {
    out = SearchFacts();
    out.contentSize = docs[i].size;
    return Status::ok();
  }
  std::string bytes;
  NIB_RETURN_IF_ERROR(spill->read(refs[i], bytes));
  if (!decodeSearchFacts(bytes, out, parts))
    return Status(ErrorCode::Corrupt, "the build's temporary search facts of " + docs[i].path + " do not decode");
  return Status::ok();
}

std::vector<ViewRecord> searchViewsPhase(const fs::path& versionDir, const SearchCorpus& corpus,
                                         const std::string& extractorProfile) {
  using Writer = Status (*)(const fs::path&, const std::vector<SearchDoc>&, const SearchFactsSource&);
  auto write = [&](const std::string& name, std::vector<std::string> caps, Writer writer) {
    fs::path dir = versionDir / name;
    std::error_code ec;
    fs::create_directories(dir, ec);
    Status s = ec ? Status(ErrorCode::IoError, "cannot create " + dir.string() + ": " + ec.message())
                  : writer(dir, corpus.docs, corpus);
    if (s.isOk()) s = syncDirectory(dir);
    auto v = s.isOk() ? completeView(versionDir, name) : Expected<ViewRecord>(s);
    if (!v) {
      // A failed optional view never invalidates its siblings: record why and go on.
      ViewRecord failed;
      failed.name = name;
      failed.status = ViewStatus::Failed;
      failed.error = v.status().message();
      if (!ec) fs::remove_all(dir, ec);
      v = failed;
    }
    v->profile = searchViewsProfile(extractorProfile);
    v->capabilities = std::move(caps);
    return *v;
  };
  // The two views share nothing but their input (read-only): the trigram view is written on a
  // thread of its own while this one writes the lexical view.
  ViewRecord trigram;
  std::thread other([&] { trigram = write("trigram", {"literal", "regex", "case-insensitive"}, &writeTrigramView); });
  ViewRecord lexical = write("lexical", {"bm25", "units", "paths"}, &writeLexicalView);
  other.join();
  return {std::move(lexical), std::move(trigram)};
}

HistoryWalkTask::HistoryWalkTask(const fs::path& root, const fs::path& cacheDir, const std::string& commit,
                                 size_t maxCommits)
    : maxCommits_(maxCommits), commit_(commit) {
  if (maxCommits == 0 || commit.empty()) return;
  walk_ = std::async(std::launch::async, [this, root, cacheDir, commit, maxCommits]() -> Expected<HistoryWalk> {
    auto start = std::chrono::steady_clock::now();
    // A handle of its own: libgit2's objects are not shared between threads.
    auto repo = GitRepository::discover(root);
    if (!repo) return repo.status();
    // Without its cache the walk diffs every commit again: slower, never wrong.
    auto cache = HistoryCache::open(cacheDir);
    if (!cache) logWarn("the history cache cannot be opened (" + cache.status().message() + "): every commit is read again");
    auto walk = (*repo)->history(commit, maxCommits, HistoryMiner::kMaxPaths, cache ? cache->get() : nullptr, &stop_);
    if (cache && walk)
      if (Status s = (*cache)->finish(); !s.isOk()) logWarn("the history cache was not updated: " + s.message());
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return walk;
  });
}

ViewRecord historyViewPhase(const fs::path& versionDir, HistoryWalkTask& task, const std::vector<WorkItem>& items) {
  ViewRecord v;
  v.name = HistoryView::kDirectory;
  auto absent = [&](std::string why) {
    v.status = ViewStatus::Absent;
    v.error = "not built: " + std::move(why);
    return v;
  };
  if (task.maxCommits() == 0) return absent("index.history-commits is 0");
  if (task.commit().empty()) return absent("the branch has no commits yet");
  auto walk = task.take();
  auto failed = [&](const Status& s) {
    v.status = ViewStatus::Failed;
    v.error = s.message();
    return v;
  };
  if (!walk) return failed(walk.status());
  if (walk->shallow) return absent("a shallow clone's history stops at the clone's depth; `git fetch --unshallow` gives it all");
  // The version's text files, and in a delta the files it did not read (they carry no content
  // facts; the base indexed them): binaries, links and files too large to search are left out,
  // so that a commit's vote is shared among the files a search can show.
  std::vector<std::string> paths;
  for (const WorkItem& w : items)
    if (!w.ownFile() && (w.searchable || w.skipReason.empty())) paths.push_back(w.entry.path);
  std::sort(paths.begin(), paths.end());
  HistoryData mined = HistoryMiner::mine(*walk, paths);
  // The translation model reads the names of the version's units from its lexical view, written
  // before this phase; without one (its build failed) the view keeps the commits alone.
  if (auto lexical = LexicalView::open(versionDir / "lexical"); lexical && !mined.commits.empty())
    mined.translations = learnTranslations(mined, fileCodeTerms(**lexical, mined.files));
  fs::path dir = versionDir / HistoryView::kDirectory;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return failed(Status(ErrorCode::IoError, "cannot create " + dir.string() + ": " + ec.message()));
  Status s = writeHistoryView(dir, mined);
  if (s.isOk()) s = syncDirectory(dir);
  auto complete = s.isOk() ? completeView(versionDir, HistoryView::kDirectory) : Expected<ViewRecord>(s);
  if (!complete) {
    fs::remove_all(dir, ec);
    return failed(complete.status());
  }
  v = *complete;
  // What `nib status` shows: the commit the walk started from (a delta version for worktree
  // edits shares its base's view), how much history the view learned from, the cap, and how
  // many message words the translation model learned code words for.
  v.profile = historyViewProfilePrefix() + "head=" + task.commit().substr(0, 12) + ";commits=" + std::to_string(mined.commits.size()) +
              ";walked=" + std::to_string(walk->visited) + ";files=" + std::to_string(mined.files.size()) +
              ";cap=" + std::to_string(task.maxCommits()) + ";words=" + std::to_string(mined.translations.size());
  v.capabilities = {"history"};
  return v;
}

namespace {

// A worker executable next to this one, else the one `variable` names.
fs::path workerBeside(const char* name, const char* variable) {
  std::error_code ec;
  fs::path worker = fs::read_symlink("/proc/self/exe", ec).parent_path() / name;
  if (const char* env = std::getenv(variable); env && !fs::exists(worker)) worker = env;
  return worker;
}

// A file's digest, or "none" when it cannot be read (a missing worker builds a failed view, the
// same every time).
std::string toolDigest(const fs::path& exe) {
  std::error_code ec;
  fs::path real = fs::canonical(exe, ec);
  auto digest = ec ? Expected<std::string>(Status(ErrorCode::NotFound, "")) : digestFile(real);
  return digest ? *digest : std::string("none");
}

// A view whose worker executable is missing: Failed, saying which.
ViewRecord missingWorkerView(const char* view, const std::string& what, const fs::path& worker) {
  ViewRecord v;
  v.name = view;
  v.status = ViewStatus::Failed;
  v.error = what + " " + worker.string() + " is missing";
  return v;
}

// A phase's progress as the build reports it.
std::function<void(uint64_t, uint64_t)> progressOf(const IndexOptions& options, const char* phase) {
  return [&options, phase](uint64_t done, uint64_t total) {
    if (options.progress) options.progress({done, total, phase});
  };
}

std::string secondsText(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

void recordClangStats(Manifest& m, const fs::path& database, const ClangBuildReport& clang) {
  m.stats["clang.database"] = database.string();
  m.stats["clang.units"] = std::to_string(clang.units);
  m.stats["clang.indexed"] = std::to_string(clang.indexed);
  m.stats["clang.cached"] = std::to_string(clang.cached);
  m.stats["clang.failed"] = std::to_string(clang.failed);
  m.stats["clang.interpolated"] = std::to_string(clang.interpolated);
  m.stats["clang.interpolated-failed"] = std::to_string(clang.interpolatedFailed);
  m.stats["clang.deferred"] = std::to_string(clang.deferred);
  m.stats["clang.headers-alone"] = std::to_string(clang.headersAlone);
  m.stats["clang.deferred-headers"] = std::to_string(clang.deferredHeaders);
  m.stats["clang.shared"] = std::to_string(clang.shared);
  m.stats["clang.symbols"] = std::to_string(clang.symbols);
  m.stats["clang.occurrences"] = std::to_string(clang.occurrences);
  m.stats["clang.seconds"] = secondsText(clang.seconds);
  m.stats["clang.max-unit-seconds"] = secondsText(clang.maxUnitSeconds);
  m.stats["clang.unit-seconds"] = secondsText(clang.unitSeconds);
  for (size_t i = 0; i < clang.failures.size(); ++i)
    m.stats["clang.failure." + std::to_string(i)] = clang.failures[i].first + ": " + clang.failures[i].second;
}

void recordPreciseStats(Manifest& m, const PreciseBuildReport& r) {
  m.stats["precise.projects"] = std::to_string(r.projects);
  m.stats["precise.indexed"] = std::to_string(r.indexed);
  m.stats["precise.cached"] = std::to_string(r.cached);
  m.stats["precise.failed"] = std::to_string(r.failed);
  m.stats["precise.files"] = std::to_string(r.files);
  m.stats["precise.symbols"] = std::to_string(r.symbols);
  m.stats["precise.occurrences"] = std::to_string(r.occurrences);
  m.stats["precise.seconds"] = secondsText(r.seconds);
  for (size_t i = 0; i < r.failures.size(); ++i)
    m.stats["precise.failure." + std::to_string(i)] = r.failures[i].first + ": " + r.failures[i].second;
}

}  // namespace

fs::path clangWorkerPath(const fs::path& named) { return named.empty() ? workerBeside("nib-clang", "NIB_CLANG_WORKER") : named; }

fs::path scipWorkerPath(const fs::path& named) { return named.empty() ? workerBeside("nib-scip", "NIB_SCIP_WORKER") : named; }

std::string clangTools(const fs::path& worker) { return Digester().add(toolDigest(worker)).hex().substr(0, 16); }

std::string preciseTools(const fs::path& importer, const std::map<std::string, fs::path>& indexers) {
  Digester d;
  d.add(toolDigest(importer));
  for (const auto& [language, exe] : indexers) d.add(language).add(toolDigest(exe));
  return d.hex().substr(0, 16);
}

bool builtWith(const ViewRecord& view, const std::string& tools) {
  const std::string field = ";tools=" + tools;
  const size_t at = view.profile.find(field);
  return at != std::string::npos && (at + field.size() == view.profile.size() || view.profile[at + field.size()] == ';');
}

Expected<ViewRecord> clangViewPhase(const ClangPhaseInput& phase, Manifest& manifest) {
  const IndexOptions& options = *phase.options;
  ClangBuildInput in;
  in.root = phase.root;
  in.dir = phase.versionDir / "clang";
  in.cacheDir = phase.cacheDir;
  in.databaseDir = phase.database;
  in.worker = clangWorkerPath(phase.worker);
  for (const WorkItem& w : *phase.items) {
    if (!w.entry.oid.empty() && w.skipReason.empty()) in.blobIds[w.entry.path] = w.entry.oid;
    if (w.skipReason.rfind(kTooLargeReason, 0) == 0) in.tooLargeSources.push_back(w.entry.path);
  }
  in.threads = phase.threads;
  in.deferUncompiled = phase.deferUncompiled;
  in.timeout = std::chrono::seconds(options.clangTimeoutSeconds);
  in.cancelled = options.cancelled;
  in.progress = progressOf(options, "clang");
  ClangBuildReport clang;
  if (!fs::exists(in.worker)) {
    clang.view = missingWorkerView("clang", "the libclang worker", in.worker);
  } else {
    clang = buildClangView(in);
  }
  if (options.cancelled && options.cancelled()) return Status(ErrorCode::Cancelled, "the build was cancelled");
  recordClangStats(manifest, phase.database, clang);
  if (clang.view.status != ViewStatus::Absent) clang.view.profile += ";tools=" + clangTools(in.worker);
  return clang.view;
}

Expected<ViewRecord> preciseViewPhase(const PrecisePhaseInput& phase, Manifest& manifest) {
  const IndexOptions& options = *phase.options;
  PreciseBuildInput in;
  in.root = phase.root;
  in.dir = phase.versionDir / "precise";
  in.cacheDir = phase.cacheDir;
  in.importer = scipWorkerPath(phase.worker);
  in.indexers = phase.indexers;
  for (const WorkItem& w : *phase.items) {
    if (w.entry.oid.empty()) continue;
    in.inputs[w.entry.path] = w.entry.oid;
    if (w.skipReason.empty()) in.blobIds[w.entry.path] = w.entry.oid;
  }
  in.timeout = std::chrono::seconds(options.preciseTimeoutSeconds);
  in.threads = phase.threads;
  in.cancelled = options.cancelled;
  in.progress = progressOf(options, "precise");
  PreciseBuildReport precise;
  if (!fs::exists(in.importer)) {
    precise.view = missingWorkerView("precise", "the SCIP worker", in.importer);
  } else {
    precise = buildPreciseView(in);
  }
  if (options.cancelled && options.cancelled()) return Status(ErrorCode::Cancelled, "the build was cancelled");
  recordPreciseStats(manifest, precise);
  if (precise.view.status != ViewStatus::Absent) precise.view.profile += ";tools=" + preciseTools(in.importer, in.indexers);
  return precise.view;
}

ViewRecord denseViewPhase(const DensePhaseInput& phase, const IndexOptions& options, Manifest& manifest) {
  if (!options.dense) {
    ViewRecord v;
    v.name = "dense";
    v.status = ViewStatus::Absent;
    if (options.denseOnRequest) {
      v.capabilities = {ViewRecord::kOnRequest};
      v.error = "not built yet: the dense view (semantic and hybrid search) is built when asked for — "
                "`nib search -r semantic` or `nib index --dense` builds it once, and later builds keep it";
    }
    return v;
  }
  uint64_t text = 0;
  for (const SearchDoc& d : phase.corpus->docs) text += d.size;
  if (options.denseMaxSourceBytes && text > options.denseMaxSourceBytes) {
    ViewRecord v;
    v.name = "dense";
    v.status = ViewStatus::Absent;
    v.error = "not built: the repository's " + std::to_string(text >> 20) + " MiB of text is over the dense view's " +
              "limit of " + std::to_string(options.denseMaxSourceBytes >> 20) + " MiB (.nib.conf's dense.max-source-mb), " +
              "since its build holds every unit at once and its memory grows with the text";
    return v;
  }
  if (options.deferDense) return pendingDenseView();
  if (options.progress) options.progress({phase.corpus->docs.size(), phase.corpus->docs.size(), "embedding"});
  auto contents = phase.facts->reader();
  VersionDenseInput in;
  in.layout = phase.layout;
  in.previousId = phase.previousId;
  in.versionDir = phase.versionDir;
  // The dense builder trains on every unit at once: the units (no trigrams) are read back
  // from the spill for it, as the follow-up rebuilds them.
  std::vector<SearchFacts> units(phase.corpus->size());
  std::vector<const SearchFacts*> pointers;
  for (size_t i = 0; i < units.size(); ++i) {
    Status s = phase.corpus->load(i, units[i], kSearchUnits);
    if (!s.isOk()) {
      ViewRecord failed;
      failed.name = "dense";
      failed.status = ViewStatus::Failed;
      failed.error = s.message();
      return failed;
    }
    pointers.push_back(&units[i]);
  }
  in.docs = &phase.corpus->docs;
  in.facts = &pointers;
  in.contents = contents ? &*contents : nullptr;
  in.contentsError = contents ? "" : contents.status().message();
  in.searchProfile = searchViewsProfile(phase.extractorProfile);
  in.encoder = phase.encoder;
  in.threads = phase.threads;
  DenseBuildReport dense = buildVersionDense(in, options);
  recordDenseStats(manifest, dense);
  return dense.view;
}

}  // namespace nib::build
