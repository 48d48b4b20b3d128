#include "indexer/IndexBuilder.h"

#include "indexer/BuildParts.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <mutex>
#include <thread>
#include <set>
#include <unordered_map>

#include "indexer/DenseBuilder.h"
#include "indexer/DenseFollowUp.h"
#include "views/DenseView.h"
#include "indexer/Extractor.h"
#include "indexer/GitRepository.h"
#include "indexer/LanguageSpec.h"
#include "support/GitLite.h"
#include "support/RepoPath.h"
#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/Language.h"
#include "support/Log.h"
#include "support/ProjectConfig.h"
#include "indexer/ClangBuilder.h"
#include "views/ClangView.h"
#include "views/CommitView.h"
#include "views/FactStore.h"
#include "views/IndexLayout.h"
#include "views/SearchViews.h"
#include "views/VersionDelta.h"

#ifndef NIB_VERSION
#define NIB_VERSION "0.0.0"
#endif

namespace nib {
namespace fs = std::filesystem;
namespace {


constexpr size_t kBinaryProbe = 8000;  // the prefix git itself inspects for NUL bytes
constexpr size_t kWriteBatch = 512;
constexpr size_t kMaxPath = 400;  // LMDB keys are limited to 511 bytes
constexpr size_t kRehashedTolerated = 16;  // touched-but-unchanged files an up-to-date index keeps
// Bump when tokenization, trigram extraction or the lexical view's tables change (recorded in
// the views' profile). 3: the lexical view's compound-parts table.
constexpr int kSearchRevision = 3;

}  // namespace

namespace build {

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


// Reads one file, classifies it (too large, binary, no grammar) and finds or extracts its
// facts; new facts, failures and contents go to `ctx.local` for the fact store.
void processItem(WorkItem& w, ItemContext& ctx) {
  std::string content;
  auto c = ctx.fromWorktree ? readFile(ctx.root / w.entry.path) : ctx.repo->readBlob(w.entry.oid);
  if (!c) {
    w.skipReason = "unreadable";
    w.error = c.status().message();
  } else {
    content = std::move(*c);
    // Facts are keyed by the bytes parsed, which can differ from git's blob (an edit racing
    // the index's stat data, line-ending or smudge filters).
    w.contentOid = ctx.fromWorktree ? gitlite::blobId(content) : w.entry.oid;
    if (w.entry.oid.empty()) w.entry.oid = w.contentOid;
  }
  if (w.skipReason.empty() && content.size() > ctx.options.maxFileSize) w.skipReason = "too-large";
  if (w.skipReason.empty()) {
    std::string_view probe(content.data(), std::min(content.size(), kBinaryProbe));
    if (probe.find('\0') != std::string_view::npos) w.skipReason = "binary";
  }
  if (w.skipReason.empty()) {
    std::string_view head(content.data(), std::min<size_t>(content.size(), 16384));
    w.language = detectLanguage(w.entry.path, head);
    w.searchable = true;
    if (w.language == Language::Unknown) w.skipReason = "no-grammar";
  }
  // Search facts exist for every text file, grammar or not. They are rebuilt from the content
  // on every build (tokenizing costs little next to parsing) rather than stored: the views
  // themselves are the persisted form.
  std::optional<FileFacts> ff;
  auto searchFacts = [&](const FileFacts* structural) {
    if (ctx.searchFacts) w.search = buildSearchFacts(w.entry.path, content, structural);
  };
  // The bytes themselves, for the trigram view's verification from the memory map.
  if (w.searchable && !(ctx.reader && ctx.reader->hasContent(w.contentOid)))
    ctx.local.emplace_back(FactStore::contentKey(w.contentOid), content);
  if (w.searchable && w.skipReason == "no-grammar") searchFacts(nullptr);
  if (w.skipReason.empty()) {
    FactKey key{w.contentOid, w.language, ctx.profile};
    if (ctx.reader) {
      auto cached = ctx.reader->get(key);
      if (cached) ff = std::move(*cached);
    }
    // A remembered failure stands for the same bytes and extractor, unless this build may
    // parse longer than the one that failed (a timeout on a busy machine) or retries.
    std::optional<std::string> failedBefore;
    if (!ff && ctx.reader && !ctx.options.retryFailed) failedBefore = ctx.reader->failure(key);
    uint64_t budget = ctx.options.parseTimeoutMicros ? ctx.options.parseTimeoutMicros : Extractor::kDefaultParseTimeoutMicros;
    if (failedBefore) {
      size_t tab = failedBefore->find('\t');
      uint64_t triedWith = tab == std::string::npos ? 0 : std::strtoull(failedBefore->c_str(), nullptr, 10);
      if (tab == std::string::npos || triedWith < budget) failedBefore.reset();
      else failedBefore = failedBefore->substr(tab + 1);
    }
    if (!ff && failedBefore) {
      w.failed = true;
      w.error = *failedBefore;  // word for word: a version declares the same either way
      w.skipReason = "extract-failed";
    } else if (!ff) {
      auto extracted = ctx.extractor.extract(w.language, content);
      if (!extracted) {
        w.failed = true;
        w.error = extracted.status().message();
        w.skipReason = "extract-failed";
        ctx.local.emplace_back(FactStore::failureKey(key), std::to_string(budget) + "\t" + w.error);
      } else {
        ff = std::move(*extracted);
        w.extracted = true;
        ctx.local.emplace_back(key.bytes(), serializeFacts(*ff));
      }
    }
    if (ff) {
      searchFacts(&*ff);
      w.summary = summarizeFacts(std::move(*ff));
    } else {
      searchFacts(nullptr);  // extraction failed: the text is still searchable
    }
  }
}


// The worktree's own tree id: every entry (skipped ones too) with its blob id. Untracked nested
// repositories have no id to contribute, so they make the tree id unknowable ("").
Expected<std::string> worktreeTreeId(const std::vector<WorkItem>& items) {
  std::vector<TreeEntry> all;
  for (const WorkItem& w : items) {
    if (w.skipReason == "nib-index") continue;
    if (w.entry.oid.empty()) return std::string();
    all.push_back(w.entry);
  }
  return GitRepository::treeIdOf(all);
}

// Writes the pending manifest, checks it and the artifacts named in `verify` (all of them when
// empty), and publishes the version. Durability first: the artifacts' folder entries, the
// manifest (written as pending, verified, then renamed into place) and the version's entry in
// versions/ are all on disk before CURRENT names the version; a crash anywhere before leaves
// CURRENT as it was.
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

// The state a path has in a version, for a delta entry.
DeltaEntry deltaEntryOf(const WorkItem& w) {
  DeltaEntry e;
  e.path = w.entry.path;
  e.blobOid = w.contentOid;
  e.language = w.language;
  e.size = w.entry.size;
  e.searchable = w.searchable && !w.contentOid.empty();
  if (w.skipReason.empty()) {
    e.state = DeltaEntry::State::Indexed;
    e.definitions = w.summary.definitionCount;
    e.occurrences = w.summary.occurrenceCount;
  } else {
    e.state = DeltaEntry::State::Skipped;
    e.skipReason = w.error.empty() ? w.skipReason : w.skipReason + ": " + w.error;
  }
  return e;
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
  if (!v || v->status == ViewStatus::Absent) return false;
  return v->status != ViewStatus::Complete || denseVectorsComparable(v->profile);
}

// A delta shares its base's dense view: a base whose view is still Pending (its follow-up has
// not published it) is no base, since the follow-up completes only the version it was made for.
bool denseViewPending(const Manifest& m) {
  const ViewRecord* v = m.view("dense");
  return v && v->status == ViewStatus::Pending;
}

}  // namespace build

using namespace build;

// The compilation database the clang view would be built from ("" when none).
fs::path clangDatabase(const fs::path& root, const IndexOptions& options, const ProjectConfig& config) {
  if (!options.clang) return {};
  fs::path configured = options.compileCommandsDir;
  if (configured.empty())
    if (auto v = config.get("clang.compile-commands-dir")) configured = *v;
  return findCompilationDatabase(root, configured);
}

std::string configDigest(const IndexOptions& options, const std::optional<EncoderSettings>& encoder,
                         const fs::path& database = {}) {
  Digester d;
  d.add("max-file-size").add(options.maxFileSize);
  // The compilation database is usually untracked and ignored: its content is configuration.
  if (!database.empty()) {
    d.add("clang-view").add(static_cast<uint64_t>(kClangViewFormat));
    if (auto digest = digestFile(database / "compile_commands.json")) d.add("compile-commands").add(*digest);
  }
  // Only a departure from the default is added, so that existing indexes keep their digest.
  if (!options.dense) d.add("no-dense");
  if (options.dense && encoder) d.add("encoder").add(encoder->identity());
  return d.hex().substr(0, 16);
}

Expected<IndexReport> buildIndex(const fs::path& repoPath, const IndexOptions& options) {
  auto started = std::chrono::steady_clock::now();
  auto repoOr = GitRepository::discover(repoPath);
  if (!repoOr) return repoOr.status();
  GitRepository& repo = **repoOr;
  IndexLayout layout(options.indexDir.empty() ? repo.root() / ".nib" : options.indexDir);
  auto lock = IndexWriteLock::acquire(layout, options.waitForLock);
  if (!lock) return lock.status();
  layout.prune(options.keepVersions);  // removes folders of builds that died

  IndexReport report;
  report.repoRoot = repo.root();
  auto config = ProjectConfig::load(repo.root());
  if (!config) return config.status();
  auto encoder = EncoderSettings::fromConfig(*config);
  if (!encoder) return encoder.status();
  // libclang reads the files on disk: a build of another commit gets no clang view.
  fs::path database = options.commit.empty() ? clangDatabase(repo.root(), options, *config) : fs::path();
  auto head = repo.headCommit();
  if (!head) return head.status();
  bool fromWorktree = options.commit.empty();
  std::string commit = *head;
  if (!fromWorktree) {
    auto c = repo.resolveCommit(options.commit);
    if (!c) return c.status();
    commit = *c;
  }
  if (options.skipIfCurrent && fromWorktree) {
    auto current = layout.currentManifest();
    if (current && current->sourceCommit == commit && current->configDigest == configDigest(options, *encoder, database) &&
        current->extractorProfile == Extractor::profileDigest() && current->nibVersion == NIB_VERSION &&
        // A version from before the dense view existed lacks it, or one trained otherwise: not current.
        denseViewCurrent(*current, options)) {
      std::optional<WorktreeComparison> cmp;
      if (auto recorded = recordedWorktree(layout.versionDir(current->versionId), *current))
        cmp = compareWorktree(repo.root(), recorded->snapshot);
      // Only a conclusive "nothing changed" counts: new folder entries need the full scan. Files
      // touched without a change (a checkout, a build) are hashed by every query until a new
      // version records their stat data: past a few, build one.
      if (cmp && cmp->conclusive && cmp->unchanged && cmp->rehashed <= kRehashedTolerated) {
        report.manifest = *current;
        report.upToDate = true;
        report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        return report;
      }
    }
  }
  auto phaseStart = std::chrono::steady_clock::now();
  auto phase = [&](const char* name) {
    auto now = std::chrono::steady_clock::now();
    report.phaseSeconds.emplace_back(name, std::chrono::duration<double>(now - phaseStart).count());
    phaseStart = now;
  };
  if (options.progress) options.progress({0, 0, "scanning"});
  // The wall-clock time of the scan, for the next update's racy-clean rule (see buildDelta).
  const int64_t scanStartedNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::system_clock::now().time_since_epoch()).count();
  auto listing = fromWorktree ? repo.listWorktree() : repo.listCommit(commit);
  if (!listing) return listing.status();

  // Classify what can be decided without reading content.
  std::vector<WorkItem> items(listing->size());
  for (size_t i = 0; i < listing->size(); ++i) {
    WorkItem& w = items[i];
    w.entry = std::move((*listing)[i]);
    if (w.entry.path.rfind(".nib/", 0) == 0) w.skipReason = "nib-index";
    else if (w.entry.mode == EntryMode::Symlink) w.skipReason = "symlink";
    else if (w.entry.mode == EntryMode::Submodule) w.skipReason = "submodule";
    else if (!RepoPath::parse(w.entry.path)) w.skipReason = "bad-path";
    else if (w.entry.path.size() > kMaxPath) w.skipReason = "path-too-long";
    else if (fromWorktree && w.entry.size > options.maxFileSize) w.skipReason = "too-large";
  }

  // The worktree as scanned: stat data now, folder listings now (a file created while the build
  // runs must show up as a change later, not be mistaken for part of this version).
  std::optional<WorktreeSnapshot> snapshot;
  if (fromWorktree) {
    snapshot.emplace();
    for (const WorkItem& w : items) {
      if (w.skipReason == "nib-index") continue;
      snapshot->files.push_back({snapshot->intern(w.entry.path), static_cast<uint32_t>(w.entry.mode),
                                 snapshot->intern(w.entry.oid), w.entry.size, w.entry.mtimeNs, w.entry.inode});
    }
    NIB_RETURN_IF_ERROR(snapshot->recordDirectories(repo.root()));
  }
  phase("scan");
  auto factsOr = FactStore::open(layout.factsDir(), /*readOnly=*/false);
  if (!factsOr) return factsOr.status();
  FactStore& facts = **factsOr;
  const std::string& profile = Extractor::profileDigest();
  // The search views change with the tokenizer and the units (hence the extractor).
  const std::string searchProfile = "s" + std::to_string(kSearchRevision) + "-" + profile;
  if (snapshot) {
    auto delta = buildDelta(repo, layout, options, commit, configDigest(options, *encoder, database), items, *snapshot,
                            scanStartedNs, facts, profile, started, report);
    if (!delta) return delta.status();
    if (*delta) return std::move(**delta);
  }

  // Files of one language together (switching grammars per file costs cache misses in the
  // parser's tables), largest first within each, so no thread is left with one big file at the
  // end. The language here is the extension's guess; the content decides later.
  std::vector<size_t> order(items.size());
  std::vector<Language> guess(items.size());
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
    guess[i] = detectLanguage(items[i].entry.path, "");
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (guess[a] != guess[b]) return guess[a] < guess[b];
    return items[a].entry.size > items[b].entry.size;
  });

  std::atomic<size_t> next{0};
  std::atomic<uint64_t> done{0};
  std::mutex pendingMutex;  // guards `pending` only
  std::mutex storeMutex;    // one LMDB write transaction at a time, outside pendingMutex
  std::vector<std::pair<std::string, std::string>> pending;
  Status writeStatus;
  auto flush = [&](std::vector<std::pair<std::string, std::string>>& batch) {
    std::lock_guard<std::mutex> g(storeMutex);
    Status s = facts.putBatch(batch);
    if (!s.isOk() && writeStatus.isOk()) writeStatus = s;
    batch.clear();
  };
  // Hands a worker's results over; whoever fills a batch writes it while the others go on.
  auto submit = [&](std::vector<std::pair<std::string, std::string>>& local, bool force) {
    std::vector<std::pair<std::string, std::string>> batch;
    {
      std::lock_guard<std::mutex> g(pendingMutex);
      for (auto& r : local) pending.push_back(std::move(r));
      local.clear();
      if (pending.size() >= kWriteBatch || (force && !pending.empty())) batch.swap(pending);
    }
    if (!batch.empty()) flush(batch);
  };

  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  auto worker = [&] {
    Extractor extractor(options.parseTimeoutMicros);
    auto reader = facts.reader();
    // libgit2 objects are not to be shared between threads: each worker reading blobs opens
    // its own handle on the repository.
    std::unique_ptr<GitRepository> ownRepo;
    if (!fromWorktree) {
      auto r = GitRepository::discover(repo.root());
      if (r) ownRepo = std::move(*r);
    }
    std::vector<std::pair<std::string, std::string>> local;
    ItemContext itemContext{repo.root(), fromWorktree, ownRepo.get(), options, extractor,
                            reader ? &*reader : nullptr, profile, local};
    for (;;) {
      if (options.cancelled && options.cancelled()) break;
      size_t n = next.fetch_add(1);
      if (n >= items.size()) break;
      WorkItem& w = items[order[n]];
      if (!w.skipReason.empty()) {
        // Not indexed, but the worktree's tree id still needs its blob id: hash it streamed.
        if (fromWorktree && w.entry.oid.empty() && w.entry.mode != EntryMode::Submodule) {
          auto oid = gitlite::blobIdOfFile(repo.root() / w.entry.path);
          if (oid) w.entry.oid = *oid;
        }
        if (++done % 256 == 0 && options.progress) options.progress({done, items.size(), "extracting"});
        continue;
      }
      if (!fromWorktree) {
        if (!ownRepo) {
          w.skipReason = "unreadable";
          w.error = "cannot open the repository";
          ++done;
          continue;
        }
        auto size = ownRepo->blobSize(w.entry.oid);
        if (size) w.entry.size = *size;
        if (size && *size > options.maxFileSize) {
          w.skipReason = "too-large";
          ++done;
          continue;
        }
      }
      processItem(w, itemContext);
      if (local.size() >= 64) submit(local, false);
      uint64_t d = ++done;
      if (options.progress && (d % 256 == 0 || d == items.size())) options.progress({d, items.size(), "extracting"});
    }
    submit(local, false);
  };
  {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  std::vector<std::pair<std::string, std::string>> none;
  submit(none, true);
  if (options.cancelled && options.cancelled()) return Status(ErrorCode::Unsupported, "the build was cancelled");
  NIB_RETURN_IF_ERROR(writeStatus);
  NIB_RETURN_IF_ERROR(facts.sync());
  phase("extract");
  if (options.progress) options.progress({items.size(), items.size(), "writing"});

  // Assemble the commit view.
  std::vector<FileRecord> records;
  std::vector<FileSummary> summaries;
  std::vector<SkippedFile> skipped;
  std::map<std::string, size_t> examplesPerReason;
  for (WorkItem& w : items) {
    if (!w.skipReason.empty()) {
      if (w.skipReason == "nib-index") continue;
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
    report.definitions += w.summary.definitionCount;
    report.occurrences += w.summary.occurrenceCount;
    (w.extracted ? report.extracted : report.reused)++;
    records.push_back(std::move(r));
    summaries.push_back(std::move(w.summary));
  }
  report.files = records.size();

  Manifest& m = report.manifest;
  m.versionId = layout.newVersionId();
  m.created = utcTimestamp();
  m.sourceCommit = commit;
  m.nibVersion = NIB_VERSION;
  m.extractorProfile = profile;
  m.grammars = std::string(grammarVersions());
  m.configDigest = configDigest(options, *encoder, database);
  if (auto cur = layout.currentVersion()) m.previous = *cur;
  auto headTree = repo.commitTree(commit);
  if (!headTree) return headTree.status();
  if (fromWorktree) {
    // The worktree's own tree id: every entry (skipped ones too) with its blob id. Untracked
    // nested repositories have no id to contribute, so they make the tree id unknowable.
    std::vector<TreeEntry> all;
    bool complete = true;
    for (const WorkItem& w : items) {
      if (w.skipReason == "nib-index") continue;
      if (w.entry.oid.empty()) complete = false;
      else all.push_back(w.entry);
    }
    auto tree = complete ? GitRepository::treeIdOf(all) : Expected<std::string>(std::string());
    if (!tree) return tree.status();
    m.sourceTree = *tree;
    m.dirty = m.sourceTree != *headTree;
  } else {
    m.sourceTree = *headTree;
  }

  fs::path versionDir = layout.versionDir(m.versionId);
  std::error_code ec;
  fs::create_directories(versionDir / "structural", ec);
  if (ec) return Status(ErrorCode::IoError, "cannot create " + versionDir.string() + ": " + ec.message());
  if (snapshot) {
    // Blob ids were filled in by the workers; the entries are in the same order.
    size_t k = 0;
    for (const WorkItem& w : items)
      if (w.skipReason != "nib-index") snapshot->files[k++].oid = snapshot->intern(w.entry.oid);
  }
  NIB_RETURN_IF_ERROR(CommitViewWriter::write(versionDir / "structural", records, summaries, skipped,
                                              snapshot ? &*snapshot : nullptr));
  phase("commit-view");

  // The search views: every text file, grammar or not, sorted by path (items are).
  std::vector<SearchDoc> docs;
  std::vector<const SearchFacts*> docFacts;
  for (const WorkItem& w : items) {
    if (!w.searchable || w.contentOid.empty()) continue;
    docs.push_back({static_cast<uint32_t>(docs.size()), w.entry.path, w.contentOid, w.language,
                    static_cast<uint32_t>(w.search.contentSize)});
    docFacts.push_back(&w.search);
  }
  auto searchView = [&](const char* name, const std::vector<std::string>& caps,
                        Status (*writer)(const fs::path&, const std::vector<SearchDoc>&, const std::vector<const SearchFacts*>&)) {
    ViewRecord v;
    v.name = name;
    v.profile = searchProfile;
    v.capabilities = caps;
    fs::path dir = versionDir / name;
    std::error_code dirError;
    fs::create_directories(dir, dirError);
    Status s = dirError ? Status(ErrorCode::IoError, dirError.message()) : writer(dir, docs, docFacts);
    if (s.isOk()) s = syncDirectory(dir);
    auto digest = s.isOk() ? digestFile(dir / "data.mdb") : Expected<std::string>(s);
    if (!digest) {
      // A failed optional view never invalidates its siblings: record why and go on.
      v.status = ViewStatus::Failed;
      v.error = digest.status().message();
      fs::remove_all(dir, dirError);
    } else {
      v.status = ViewStatus::Complete;
      v.artifacts.push_back({std::string(name) + "/data.mdb", *digest, fs::file_size(dir / "data.mdb")});
    }
    return v;
  };
  ViewRecord lexical = searchView("lexical", {"bm25", "units", "paths"}, &writeLexicalView);
  ViewRecord trigram = searchView("trigram", {"literal", "regex", "case-insensitive"}, &writeTrigramView);
  phase("search-views");

  ViewRecord structural;
  structural.name = "structural";
  structural.status = ViewStatus::Complete;
  structural.profile = "tree-sitter;extractor=" + profile;
  structural.capabilities = {"definitions", "references", "symbols", "imports", "calls", "units"};
  auto digest = digestFile(versionDir / "structural" / "data.mdb");
  if (!digest) return digest.status();
  structural.artifacts.push_back({"structural/data.mdb", *digest, fs::file_size(versionDir / "structural" / "data.mdb")});
  m.views.push_back(structural);
  m.views.push_back(lexical);
  m.views.push_back(trigram);
  if (!database.empty()) {
    ClangBuildInput in;
    in.root = repo.root();
    in.dir = versionDir / "clang";
    in.cacheDir = layout.dir() / "clang-cache";
    in.databaseDir = database;
    in.worker = options.clangWorker;
    if (in.worker.empty()) {
      std::error_code selfError;
      in.worker = fs::read_symlink("/proc/self/exe", selfError).parent_path() / "nib-clang";
      if (const char* env = std::getenv("NIB_CLANG_WORKER"); env && !fs::exists(in.worker)) in.worker = env;
    }
    for (const WorkItem& w : items)
      if (!w.entry.oid.empty() && w.skipReason.empty()) in.blobIds[w.entry.path] = w.entry.oid;
    in.threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    in.timeout = std::chrono::seconds(options.clangTimeoutSeconds);
    in.cancelled = options.cancelled;
    in.progress = [&](uint64_t done, uint64_t total) {
      if (options.progress) options.progress({done, total, "clang"});
    };
    ClangBuildReport clang;
    if (!fs::exists(in.worker)) {
      clang.view.name = "clang";
      clang.view.status = ViewStatus::Failed;
      clang.view.error = "the libclang worker " + in.worker.string() + " is missing";
    } else {
      clang = buildClangView(in);
    }
    if (options.cancelled && options.cancelled()) return Status(ErrorCode::Cancelled, "the build was cancelled");
    m.stats["clang.database"] = database.string();
    m.stats["clang.units"] = std::to_string(clang.units);
    m.stats["clang.indexed"] = std::to_string(clang.indexed);
    m.stats["clang.cached"] = std::to_string(clang.cached);
    m.stats["clang.failed"] = std::to_string(clang.failed);
    m.stats["clang.interpolated"] = std::to_string(clang.interpolated);
    m.stats["clang.interpolated-failed"] = std::to_string(clang.interpolatedFailed);
    m.stats["clang.shared"] = std::to_string(clang.shared);
    m.stats["clang.symbols"] = std::to_string(clang.symbols);
    m.stats["clang.occurrences"] = std::to_string(clang.occurrences);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", clang.seconds);
    m.stats["clang.seconds"] = buf;
    std::snprintf(buf, sizeof buf, "%.3f", clang.maxUnitSeconds);
    m.stats["clang.max-unit-seconds"] = buf;
    std::snprintf(buf, sizeof buf, "%.3f", clang.unitSeconds);
    m.stats["clang.unit-seconds"] = buf;
    for (size_t i = 0; i < clang.failures.size(); ++i)
      m.stats["clang.failure." + std::to_string(i)] = clang.failures[i].first + ": " + clang.failures[i].second;
    m.views.push_back(clang.view);
    phase("clang");
  }
  if (options.dense && options.deferDense) {
    m.views.push_back(pendingDenseView());
  } else if (options.dense) {
    if (options.progress) options.progress({items.size(), items.size(), "embedding"});
    auto contents = facts.reader();
    VersionDenseInput in;
    in.layout = &layout;
    in.previousId = m.previous;
    in.versionDir = versionDir;
    in.docs = &docs;
    in.facts = &docFacts;
    in.contents = contents ? &*contents : nullptr;
    in.contentsError = contents ? "" : contents.status().message();
    in.searchProfile = searchProfile;
    in.encoder = *encoder;
    in.threads = threads;
    DenseBuildReport dense = buildVersionDense(in, options);
    recordDenseStats(m, dense);
    m.views.push_back(dense.view);
    phase("dense");
  } else {
    ViewRecord v;
    v.name = "dense";
    v.status = ViewStatus::Absent;
    m.views.push_back(v);
  }
  m.stats["files"] = std::to_string(report.files);
  if (fromWorktree) m.stats["worktree.scan-ns"] = std::to_string(scanStartedNs);
  m.stats["config.max-file-size"] = std::to_string(options.maxFileSize);
  for (const auto& [lang, n] : report.filesByLanguage) m.stats["files." + lang] = std::to_string(n);
  for (const auto& [reason, n] : report.skippedByReason) m.stats["skipped." + reason] = std::to_string(n);
  m.stats["definitions"] = std::to_string(report.definitions);
  m.stats["occurrences"] = std::to_string(report.occurrences);
  m.stats["source-bytes"] = std::to_string(report.sourceBytes);
  m.stats["extracted"] = std::to_string(report.extracted);
  m.stats["reused"] = std::to_string(report.reused);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", report.seconds);
  m.stats["build-seconds"] = secs;

  // Durability before publication: the artifacts' folder entries, the manifest (written as
  // pending, verified, then renamed into place) and the version's entry in versions/ are all on
  // disk before CURRENT names the version. A crash anywhere before leaves CURRENT as it was.
  NIB_RETURN_IF_ERROR(syncDirectory(versionDir / "structural"));
  NIB_RETURN_IF_ERROR(writePendingManifest(versionDir, m));
  auto reread = readPendingManifest(versionDir);
  if (!reread) return reread.status();
  NIB_RETURN_IF_ERROR(verifyArtifacts(versionDir, *reread));
  NIB_RETURN_IF_ERROR(commitManifest(versionDir));
  NIB_RETURN_IF_ERROR(syncDirectory(layout.versionsDir()));
  if (options.beforePublish) options.beforePublish();
  NIB_RETURN_IF_ERROR(layout.publish(m.versionId));
  phase("publish");
  layout.prune(options.keepVersions);
  report.indexBytes = directorySize(versionDir) + directorySize(layout.factsDir());
  return report;
}

}  // namespace nib
