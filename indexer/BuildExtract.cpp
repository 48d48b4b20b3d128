// The scan, classify and extract phases of a build (see BuildPhases.h).
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "indexer/BuildPhases.h"
#include "indexer/LanguageSpec.h"
#include "indexer/WorktreeGit.h"
#include "support/FileIo.h"
#include "support/GitLite.h"
#include "support/Language.h"
#include "support/RepoPath.h"
#include "views/StoredContent.h"

namespace nib::build {
namespace {

constexpr size_t kWriteBatch = 512;    // fact-store records per write transaction
constexpr size_t kMaxPath = 400;       // LMDB keys are limited to 511 bytes
constexpr uint64_t kReleaseEvery = 2048;  // items between hand-backs of the fact store's pages

bool isIndexOwnPath(const std::string& path) { return path.rfind(".nib/", 0) == 0; }

}  // namespace

Expected<ScanOutput> scanPhase(GitRepository& repo, const std::string& commit, bool fromWorktree) {
  ScanOutput out;
  out.startedNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count();
  auto listing = fromWorktree ? repo.listWorktree() : repo.listCommit(commit);
  if (!listing) return listing.status();
  out.items.resize(listing->size());
  for (size_t i = 0; i < listing->size(); ++i) out.items[i].entry = std::move((*listing)[i]);
  if (!fromWorktree) return out;
  WorktreeSnapshot& snapshot = out.snapshot.emplace();
  // Untracked binary files are no part of the worktree the version reflects (its tree id leaves
  // them out, as `nib status`'s probe does): the snapshot keeps only their stat data.
  std::erase_if(out.items, [&](const WorkItem& w) {
    if (!leftOutOfWorktree(repo.root(), w.entry)) return false;
    snapshot.leftOut.push_back({snapshot.intern(w.entry.path), static_cast<uint32_t>(w.entry.mode), {}, w.entry.size,
                                w.entry.mtimeNs, w.entry.inode});
    return true;
  });
  for (const WorkItem& w : out.items) {
    if (isIndexOwnPath(w.entry.path)) continue;
    snapshot.files.push_back({snapshot.intern(w.entry.path), static_cast<uint32_t>(w.entry.mode),
                              snapshot.intern(w.entry.oid), w.entry.size, w.entry.mtimeNs, w.entry.inode});
  }
  NIB_RETURN_IF_ERROR(snapshot.recordDirectories(repo.root()));
  return out;
}

std::string classifyEntry(const TreeEntry& entry, bool fromWorktree, uint64_t maxFileSize) {
  if (isIndexOwnPath(entry.path)) return kIndexOwnFiles;
  if (entry.mode == EntryMode::Symlink) return "symlink";
  if (entry.mode == EntryMode::Submodule) return "submodule";
  if (!RepoPath::parse(entry.path)) return "bad-path";
  if (entry.path.size() > kMaxPath) return "path-too-long";
  // A commit's blob sizes are not listed: the extract phase checks them.
  if (fromWorktree && entry.size > maxFileSize) return kTooLargeReason;
  return "";
}

void classifyPhase(std::vector<WorkItem>& items, bool fromWorktree, uint64_t maxFileSize) {
  for (WorkItem& w : items) w.skipReason = classifyEntry(w.entry, fromWorktree, maxFileSize);
}

namespace {

// A failure the fact store remembers for these bytes stands only if it was reached with at
// least this build's parse budget (a timeout on a busy machine is retried with a larger one).
// The record is "<budget>\t<message>"; returns the message when it stands.
std::optional<std::string> standingFailure(const std::optional<std::string>& record, uint64_t budget) {
  if (!record) return std::nullopt;
  size_t tab = record->find('\t');
  if (tab == std::string::npos) return std::nullopt;
  uint64_t triedWith = std::strtoull(record->c_str(), nullptr, 10);
  if (triedWith < budget) return std::nullopt;
  return record->substr(tab + 1);
}

// The content-independent part of processItem: the bytes, their id, and the classification
// by content (too large, binary, no grammar).
std::string readAndClassify(WorkItem& w, ItemContext& ctx) {
  std::string content;
  auto c = ctx.fromWorktree ? readFile(ctx.root / w.entry.path) : ctx.repo->readBlob(w.entry.oid);
  if (!c) {
    w.skipReason = "unreadable";
    w.error = c.status().message();
    return content;
  }
  content = std::move(*c);
  w.contentSize = static_cast<uint32_t>(content.size());
  // Facts are keyed by the bytes parsed, which can differ from git's blob (an edit racing
  // the index's stat data, line-ending or smudge filters).
  w.contentOid = ctx.fromWorktree ? gitlite::blobId(content) : w.entry.oid;
  if (w.entry.oid.empty()) w.entry.oid = w.contentOid;
  if (content.size() > ctx.options.maxFileSize) {
    w.skipReason = kTooLargeReason;
    return content;
  }
  std::string_view probe(content.data(), std::min(content.size(), kBinaryProbeBytes));
  if (probe.find('\0') != std::string_view::npos) {
    w.skipReason = "binary";
    return content;
  }
  std::string_view head(content.data(), std::min<size_t>(content.size(), 16384));
  w.language = detectLanguage(w.entry.path, head);
  w.searchable = true;
  if (w.language == Language::Unknown) w.skipReason = "no-grammar";
  return content;
}

}  // namespace

void processItem(WorkItem& w, ItemContext& ctx) {
  std::string content = readAndClassify(w, ctx);
  // Search facts exist for every text file, grammar or not. They are rebuilt from the content
  // on every build (tokenizing costs little next to parsing) rather than stored: the views
  // themselves are the persisted form.
  auto searchFacts = [&](const FileFacts* structural) {
    if (ctx.spill) w.search = ctx.spill->append(encodeSearchFacts(buildSearchFacts(w.entry.path, content, structural)));
  };
  // The bytes themselves, for the trigram view's verification and the snippets (packed unless
  // .nib.conf's index.pack-contents is false).
  if (w.searchable && !(ctx.reader && ctx.reader->hasContent(w.contentOid)))
    ctx.local.emplace_back(FactStore::contentKey(w.contentOid), packContent(content, ctx.options.packContents));
  if (w.searchable && w.skipReason == "no-grammar") searchFacts(nullptr);
  if (!w.skipReason.empty()) return;
  FactKey key{w.contentOid, w.language, ctx.profile};
  std::optional<FileFacts> ff;
  if (ctx.reader)
    if (auto cached = ctx.reader->get(key)) ff = std::move(*cached);
  uint64_t budget = ctx.options.parseTimeoutMicros ? ctx.options.parseTimeoutMicros : Extractor::kDefaultParseTimeoutMicros;
  std::optional<std::string> failedBefore;
  if (!ff && ctx.reader && !ctx.options.retryFailed) failedBefore = standingFailure(ctx.reader->failure(key), budget);
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
      ctx.local.emplace_back(key.bytes(), FactStore::factsRecord(*ff));
    }
  }
  if (ff) {
    searchFacts(&*ff);
    FileSummary summary = summarizeFacts(std::move(*ff));
    w.definitions = summary.definitionCount;
    w.occurrences = summary.occurrenceCount;
    if (ctx.spill) w.summary = ctx.spill->append(encodeFileSummary(summary));
  } else {
    searchFacts(nullptr);  // extraction failed: the text is still searchable
  }
}

namespace {

// Files of one language together (switching grammars per file costs cache misses in the
// parser's tables), largest first within each, so no thread is left with one big file at the
// end. The language here is the extension's guess; the content decides later.
std::vector<size_t> extractionOrder(const std::vector<WorkItem>& items) {
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
  return order;
}

// The workers' records, written to the fact store in batches: whoever fills a batch writes it
// while the others go on; one LMDB write transaction at a time.
class FactSink {
 public:
  explicit FactSink(FactStore& facts) : facts_(facts) {}
  void submit(std::vector<std::pair<std::string, std::string>>& local, bool force) {
    std::vector<std::pair<std::string, std::string>> batch;
    {
      std::lock_guard<std::mutex> g(pendingMutex_);
      for (auto& r : local) pending_.push_back(std::move(r));
      local.clear();
      if (pending_.size() >= kWriteBatch || (force && !pending_.empty())) batch.swap(pending_);
    }
    if (batch.empty()) return;
    std::lock_guard<std::mutex> g(storeMutex_);
    Status s = facts_.putBatch(batch);
    if (!s.isOk() && status_.isOk()) status_ = s;
  }
  const Status& status() const { return status_; }

 private:
  FactStore& facts_;
  std::mutex pendingMutex_;  // guards pending_ only
  std::mutex storeMutex_;    // outside pendingMutex_
  std::vector<std::pair<std::string, std::string>> pending_;
  Status status_;
};

// One worker's share of the extract phase: items taken in `order` until none is left.
void extractWorker(std::vector<WorkItem>& items, const std::vector<size_t>& order, std::atomic<size_t>& next,
                   std::atomic<uint64_t>& done, FactStore& facts, FactSink& sink, const ExtractInput& in) {
  const IndexOptions& options = *in.options;
  Extractor extractor(options.parseTimeoutMicros);
  auto reader = facts.reader();
  // libgit2 objects are not to be shared between threads: each worker reading blobs opens its
  // own handle on the repository.
  std::unique_ptr<GitRepository> ownRepo;
  if (!in.fromWorktree)
    if (auto r = GitRepository::discover(in.root)) ownRepo = std::move(*r);
  std::vector<std::pair<std::string, std::string>> local;
  ItemContext ctx{in.root, in.fromWorktree, ownRepo.get(), options, extractor, reader ? &*reader : nullptr,
                  in.profile, local, in.spill};
  auto progress = [&](uint64_t d) {
    if (options.progress && (d % 256 == 0 || d == items.size())) options.progress({d, items.size(), "extracting"});
  };
  for (;;) {
    if (options.cancelled && options.cancelled()) break;
    size_t n = next.fetch_add(1);
    if (n >= items.size()) break;
    WorkItem& w = items[order[n]];
    if (!w.skipReason.empty()) {
      // Not indexed, but the worktree's tree id still needs its blob id: hash it streamed.
      if (in.fromWorktree && w.entry.oid.empty() && w.entry.mode != EntryMode::Submodule)
        if (auto oid = gitlite::blobIdOfFile(in.root / w.entry.path)) w.entry.oid = *oid;
    } else if (!in.fromWorktree && !ownRepo) {
      w.skipReason = "unreadable";
      w.error = "cannot open the repository";
    } else {
      // A commit's listing has no sizes: its blob's decides here (a worktree's was classified).
      if (!in.fromWorktree)
        if (auto size = ownRepo->blobSize(w.entry.oid)) {
          w.entry.size = *size;
          if (*size > options.maxFileSize) w.skipReason = kTooLargeReason;
        }
      if (w.skipReason.empty()) processItem(w, ctx);
      if (local.size() >= 64) {
        sink.submit(local, false);
        // Let go of the snapshot this worker read from, so that the pages the writes since then
        // freed can be reused (otherwise a cold store ends a sixth free pages); a reader that
        // cannot be renewed reads nothing more (every file is then extracted).
        if (ctx.reader && !ctx.reader->refresh().isOk()) ctx.reader = nullptr;
      }
    }
    uint64_t d = ++done;
    progress(d);
    // Stored facts read for unchanged files stay mapped: handed back now and then, so that the
    // build's resident memory does not grow with the store (the page cache keeps them).
    if (d % kReleaseEvery == 0) facts.releaseMappedPages();
  }
  sink.submit(local, false);
}

}  // namespace

Status extractPhase(std::vector<WorkItem>& items, FactStore& facts, const ExtractInput& in) {
  const IndexOptions& options = *in.options;
  std::vector<size_t> order = extractionOrder(items);
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> done{0};
  FactSink sink(facts);
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&] { extractWorker(items, order, next, done, facts, sink, in); });
    for (auto& t : pool) t.join();
  }
  std::vector<std::pair<std::string, std::string>> none;
  sink.submit(none, true);
  if (options.cancelled && options.cancelled()) return Status(ErrorCode::Cancelled, "the build was cancelled");
  NIB_RETURN_IF_ERROR(sink.status());
  if (in.spill) NIB_RETURN_IF_ERROR(in.spill->status());
  return facts.sync();
}

}  // namespace nib::build
