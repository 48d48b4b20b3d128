#include "indexer/ClangBuilder.h"

#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "indexer/UnitMerge.h"
#include "indexer/WorkerProcess.h"
#include "support/Binary.h"
#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/Log.h"
#include "support/RepoPath.h"
#include "views/ClangFacts.h"
#include "views/ClangView.h"
#include "views/FileFacts.h"
#include "views/Lmdb.h"

namespace nib {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// What a dependency looked like: its blob id inside the repository, size and mtime outside.
std::string signatureOf(const std::string& absolute, const std::string& root, const std::map<std::string, std::string>& blobs) {
  if (absolute.compare(0, root.size(), root) == 0)
    if (auto it = blobs.find(absolute.substr(root.size())); it != blobs.end()) return "g" + it->second;
  return fileStatSignature(absolute);
}

// `worker` identifies the nib-clang executable (its digest): facts from another build of the
// worker are never reused.
std::string cacheKey(const CompileCommand& c, const std::string& worker) {
  Digester d;
  d.add("clang-tu").add(worker).add(c.directory).add(c.file);
  for (const std::string& a : c.arguments) d.add(a);
  return d.hex();
}


// A C/C++ file nib indexes, by extension.
bool isClangSource(const std::string& ext) {
  static const std::set<std::string> kExts = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp"};
  return kExts.count(ext) > 0;
}

// The language the compiler reads a unit's file in: what `-x` says, else the file's extension.
std::string languageOf(const CompileCommand& c) {
  for (size_t a = 0; a + 1 < c.arguments.size(); ++a)
    if (c.arguments[a] == "-x") return c.arguments[a + 1];
  std::string ext = fs::path(c.file).extension().string();
  return ext == ".c" ? "c" : ext == ".h" ? "c-header" : "c++";
}

// The command of the unit sharing the longest folder prefix with `file` (under `root`), made to
// compile `file` instead, in the language its extension and the donor's suggest: how clangd
// interpolates a command for a file the database does not list.
CompileCommand interpolatedCommand(const CompileCommand& donor, const std::string& root, const std::string& file) {
  std::string ext = fs::path(file).extension().string();
  CompileCommand c = donor;
  c.file = file;
  bool isHeader = ext[1] == 'h' || ext == ".inl" || ext == ".ipp";
  bool cDonor = fs::path(donor.file).extension() == ".c";
  bool cxxOnly = ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".hpp" || ext == ".hh" || ext == ".hxx";
  std::string language = cDonor && !cxxOnly ? (isHeader ? "c-header" : "c") : (isHeader ? "c++-header" : "c++");
  std::vector<std::string> args;
  std::string donorRel = donor.file.substr(root.size());
  for (size_t a = 0; a < c.arguments.size(); ++a) {
    const std::string& arg = c.arguments[a];
    bool isSource = arg == donor.file || arg == donorRel || (fs::path(c.directory) / arg).lexically_normal().string() == donor.file;
    if (a > 0 && isSource) {
      args.push_back("-x");
      args.push_back(language);
      args.push_back(c.file);
    } else {
      args.push_back(arg);
    }
  }
  c.arguments = std::move(args);
  return c;
}

// One build of the clang view: the units, their outcomes, the cache, and the worker batches
// that index them.
class ClangViewBuild {
 public:
  ClangViewBuild(const ClangBuildInput& in, std::string root, std::vector<CompileCommand> units)
      : in_(in), root_(std::move(root)), units_(std::move(units)) {
    LmdbEnv::Options cacheOptions;
    cacheOptions.noSync = true;  // a lost cache entry only costs a re-index
    std::error_code ec;
    fs::create_directories(in.cacheDir, ec);
    if (auto env = LmdbEnv::open(in.cacheDir, cacheOptions)) cacheEnv_ = std::move(*env);
    auto digest = digestFile(in.worker);
    workerDigest_ = digest ? *digest : std::string();
    grow();
  }

  size_t size() const { return units_.size(); }
  bool cancelled() const { return in_.cancelled && in_.cancelled(); }

  // Indexes units [from, size()): from the cache where every file a unit read is as it was,
  // else in batches, one worker session per batch. With `defer`, made-up units the cache lacks
  // are left to a follow-up.
  void indexFrom(size_t from, bool defer = false) {
    std::vector<size_t> todo;
    for (size_t i = from; i < units_.size(); ++i) {
      if (fromCache(i)) {
        progress();
      } else if (defer && i >= realUnits_) {
        deferred_[i] = true;
        progress();
      } else {
        todo.push_back(i);
      }
    }
    runBatches(todo, /*keepBodies=*/false);
  }

  // C/C++ files no translation unit read (headers nothing includes, sources the database does
  // not list) become units of their own with the command of the nearest TU, the way clangd
  // interpolates one when such a file is opened. Best effort: their failures are not the
  // database's and are only counted.
  void addInterpolatedUnits() {
    realUnits_ = units_.size();
    std::set<std::string> covered;
    for (size_t i = 0; i < realUnits_; ++i) {
      covered.insert(units_[i].file);  // a TU that failed keeps its own command's verdict
      if (results_[i])
        for (const std::string& f : results_[i]->files) covered.insert(f);
    }
    for (const auto& [path, blob] : in_.blobIds) {
      if (!isClangSource(fs::path(path).extension().string()) || covered.count(root_ + path)) continue;
      const CompileCommand* donor = nullptr;
      size_t best = 0;
      std::string file = root_ + path;
      for (size_t i = 0; i < realUnits_; ++i) {
        const std::string& f = units_[i].file;
        size_t n = 0;
        while (n < f.size() && n < file.size() && f[n] == file[n]) ++n;
        if (!donor || n > best) donor = &units_[i], best = n;
      }
      if (!donor) break;
      units_.push_back(interpolatedCommand(*donor, root_, file));
      if (units_.size() - realUnits_ >= 2000) break;
    }
    grow();
  }

  // Every file some unit read must have its function bodies parsed by one unit (a session skips
  // them after the first); where the unit that did is gone (removed, failed, or another order),
  // one unit reading the file is indexed again on its own, bodies kept.
  void coverBodies() {
    std::set<std::string> owned;
    for (const auto& r : results_)
      if (r)
        for (uint32_t k : r->bodiesParsed) owned.insert(r->files[k]);
    std::vector<size_t> again;
    for (size_t i = 0; i < results_.size(); ++i) {
      if (!results_[i]) continue;
      bool needed = false;
      for (const std::string& f : results_[i]->files)
        if (f.compare(0, root_.size(), root_) == 0 && in_.blobIds.count(f.substr(root_.size())) && !owned.count(f)) needed = true;
      if (!needed) continue;
      again.push_back(i);
      for (const std::string& f : results_[i]->files) owned.insert(f);
    }
    runBatches(again, /*keepBodies=*/true);
  }

  void report(ClangBuildReport& report) const;
  const std::vector<std::optional<TuFacts>>& results() const { return results_; }
  size_t realUnits() const { return realUnits_; }

  // The cache keeps the units this build has (a changed command, a removed file or a new
  // nib-clang would otherwise leave their facts behind for good).
  void collectCache() {
    if (!cacheEnv_) return;
    std::vector<std::string> keys;
    for (const CompileCommand& c : units_) keys.push_back(cacheKey(c, workerDigest_));
    std::unordered_set<std::string_view> used(keys.begin(), keys.end());
    auto swept = retainCacheKeys(*cacheEnv_, "tus", used, 1.5);
    Expected<bool> compacted = swept && *swept > 0 ? compactIfSparse(*cacheEnv_, in_.cacheDir) : Expected<bool>(false);
    if (!swept || !compacted)
      logWarn("the clang cache was not collected: " + (swept ? compacted.status() : swept.status()).message());
  }

 private:
  void grow() {
    results_.resize(units_.size());
    failures_.resize(units_.size());
    seconds_.resize(units_.size(), 0);
    fresh_.resize(units_.size(), false);
    deferred_.resize(units_.size(), false);
  }
  void progress() {
    if (in_.progress) in_.progress(++done_, units_.size());
  }
  bool fromCache(size_t i);
  void store(size_t i, const std::string& encoded);
  void runBatches(const std::vector<size_t>& todo, bool keepBodies);
  std::vector<std::vector<size_t>> runBatch(const std::vector<size_t>& batch, bool keepBodies);

  const ClangBuildInput& in_;
  const std::string root_;
  std::vector<CompileCommand> units_;
  size_t realUnits_ = 0;
  std::unique_ptr<LmdbEnv> cacheEnv_;
  std::mutex cacheMutex_;
  std::string workerDigest_;
  std::vector<std::optional<TuFacts>> results_;
  std::vector<std::string> failures_;
  std::vector<double> seconds_;
  std::vector<char> fresh_;  // indexed by a worker in this build (not vector<bool>: threads set their own)
  std::vector<char> deferred_;  // a made-up unit left to the follow-up
  std::mutex progressMutex_;
  size_t done_ = 0;
  size_t cached_ = 0;
};

bool ClangViewBuild::fromCache(size_t i) {
  if (!cacheEnv_) return false;
  std::lock_guard<std::mutex> g(cacheMutex_);
  auto txn = LmdbTxn::begin(*cacheEnv_, false);
  auto db = txn ? txn->openDb("tus", false) : Expected<MDB_dbi>(Status(ErrorCode::NotFound, ""));
  auto raw = db ? txn->get(*db, cacheKey(units_[i], workerDigest_)) : Expected<std::string_view>(Status(ErrorCode::NotFound, ""));
  if (!raw) return false;
  ByteReader r(*raw);
  uint64_t n = r.varint();
  bool valid = r.ok() && n < raw->size();
  for (uint64_t k = 0; k < n && valid && r.ok(); ++k) {
    std::string path(r.str());
    std::string sig(r.str());
    valid = signatureOf(path, root_, in_.blobIds) == sig;
  }
  if (!valid || !r.ok()) return false;
  auto facts = decodeTuFacts(r.str());
  if (!facts || !r.ok()) return false;
  results_[i] = std::move(*facts);
  ++cached_;
  return true;
}

// Every file the TU read, with its signature now, keys the cached facts.
void ClangViewBuild::store(size_t i, const std::string& encoded) {
  if (!cacheEnv_) return;
  ByteWriter rec;
  rec.varint(results_[i]->files.size());
  for (const std::string& f : results_[i]->files) {
    rec.str(f);
    rec.str(signatureOf(f, root_, in_.blobIds));
  }
  rec.str(encoded);
  std::lock_guard<std::mutex> g(cacheMutex_);
  if (auto txn = LmdbTxn::begin(*cacheEnv_, true))
    if (auto db = txn->openDb("tus", true); db && txn->put(*db, cacheKey(units_[i], workerDigest_), rec.data()).isOk())
      (void)txn->commit();
}

// Runs one batch in one worker; returns what must run again: after a worker died or ran out of
// time, the unit it was on alone (so that it fails alone) and the batch's rest together.
std::vector<std::vector<size_t>> ClangViewBuild::runBatch(const std::vector<size_t>& batch, bool keepBodies) {
  std::vector<CompileCommand> commands;
  for (size_t i : batch) commands.push_back(units_[i]);
  std::vector<std::string> args = {in_.worker.string(), "index", root_};
  if (keepBodies) args.push_back("--keep-bodies");
  // The time limit is per unit: it counts from the last outcome the worker wrote.
  WorkerResult w = runWorker(args, encodeCompileCommands(commands), in_.timeout, in_.cancelled, /*timeoutPerOutput=*/true);
  std::vector<UnitOutcome> outcomes = decodeUnitOutcomes(w.out);
  for (size_t k = 0; k < outcomes.size() && k < batch.size(); ++k) {
    size_t i = batch[k];
    seconds_[i] = outcomes[k].seconds;
    fresh_[i] = true;
    auto facts = outcomes[k].ok ? decodeTuFacts(outcomes[k].payload) : Expected<TuFacts>(Status(ErrorCode::Internal, outcomes[k].payload));
    if (facts) {
      results_[i] = std::move(*facts);
      failures_[i].clear();
      store(i, outcomes[k].payload);
    } else {
      failures_[i] = facts.status().message();
    }
    std::lock_guard<std::mutex> g(progressMutex_);
    progress();
  }
  if (outcomes.size() >= batch.size() || cancelled()) return {};
  if (batch.size() - outcomes.size() > 1 || outcomes.size() > 0) {
    std::vector<size_t> rest(batch.begin() + static_cast<long>(outcomes.size()) + 1, batch.end());
    std::vector<std::vector<size_t>> again = {{batch[outcomes.size()]}};
    if (!rest.empty()) again.push_back(std::move(rest));
    return again;
  }
  // A unit alone that did not finish: the worker's verdict is the unit's.
  size_t i = batch.front();
  fresh_[i] = true;
  if (w.timedOut) failures_[i] = "timed out after " + std::to_string(in_.timeout.count()) + " s";
  else if (w.status != 0) failures_[i] = w.err.empty() ? "nib-clang exited with status " + std::to_string(w.status) : w.err;
  else failures_[i] = "nib-clang wrote no facts";
  while (!failures_[i].empty() && (failures_[i].back() == '\n' || failures_[i].back() == ' ')) failures_[i].pop_back();
  std::lock_guard<std::mutex> g(progressMutex_);
  progress();
  return {};
}

// Batches of units of one language sorted by path (neighbours share headers, so a session skips
// more), a few per thread so that the threads end together; a batch that must run again goes
// back in line. Languages never share a session: a header a C unit parsed (a C++ header a
// made-up unit guessed wrong) must not have its bodies skipped in a C++ unit.
void ClangViewBuild::runBatches(const std::vector<size_t>& todo, bool keepBodies) {
  if (todo.empty()) return;
  std::vector<std::pair<std::string, size_t>> order;
  for (size_t i : todo) order.emplace_back(languageOf(units_[i]), i);
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : units_[a.second].file < units_[b.second].file;
  });
  unsigned threads = std::max(1u, in_.threads);
  size_t size = std::clamp<size_t>((order.size() + 2 * threads - 1) / (2 * threads), 1, 16);
  std::deque<std::vector<size_t>> queue;
  for (size_t k = 0; k < order.size(); ++k) {
    if (queue.empty() || queue.back().size() >= size || order[k].first != order[k - 1].first) queue.emplace_back();
    queue.back().push_back(order[k].second);
  }
  // The longest batches first (a unit's cost guessed by its main file's size), so that the
  // threads end together rather than one running the largest batch alone at the end.
  std::vector<std::pair<uint64_t, std::vector<size_t>>> sized;
  for (auto& batch : queue) {
    uint64_t bytes = 0;
    for (size_t i : batch) {
      std::error_code ec;
      uint64_t n = fs::file_size(units_[i].file, ec);
      bytes += ec ? 0 : n;
    }
    sized.emplace_back(bytes, std::move(batch));
  }
  std::stable_sort(sized.begin(), sized.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  queue.clear();
  for (auto& [_, batch] : sized) queue.push_back(std::move(batch));
  std::mutex m;
  std::condition_variable cv;
  size_t running = 0;
  auto work = [&] {
    std::unique_lock<std::mutex> lock(m);
    for (;;) {
      cv.wait(lock, [&] { return !queue.empty() || running == 0; });
      if (queue.empty() || cancelled()) break;
      std::vector<size_t> batch = std::move(queue.front());
      queue.pop_front();
      ++running;
      lock.unlock();
      auto again = runBatch(batch, keepBodies);
      lock.lock();
      --running;
      for (auto& b : again) queue.push_back(std::move(b));
      cv.notify_all();
    }
    cv.notify_all();
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
}

void ClangViewBuild::report(ClangBuildReport& report) const {
  report.cached = cached_;
  report.interpolated = units_.size() - realUnits_;
  for (size_t i = 0; i < units_.size(); ++i) {
    if (deferred_[i]) {
      ++report.deferred;
      continue;
    }
    if (!results_[i]) {
      if (i >= realUnits_) {
        ++report.interpolatedFailed;
        continue;
      }
      ++report.failed;
      if (report.failures.size() < 20) report.failures.emplace_back(units_[i].file.substr(root_.size()), failures_[i]);
      continue;
    }
    if (!fresh_[i]) continue;
    report.maxUnitSeconds = std::max(report.maxUnitSeconds, seconds_[i]);
    report.unitSeconds += seconds_[i];
    ++report.indexed;
  }
}

}  // namespace

ClangBuildReport buildClangView(const ClangBuildInput& in) {
  ClangBuildReport report;
  report.view.name = "clang";
  report.view.capabilities = {"definitions", "declarations", "references", "usr"};
  auto started = Clock::now();
  auto failView = [&](const std::string& why) {
    report.view.status = ViewStatus::Failed;
    report.view.error = why;
    std::error_code ec;
    fs::remove_all(in.dir, ec);
    return report;
  };
  std::error_code ec;
  std::string root = fs::weakly_canonical(in.root, ec).string() + "/";

  WorkerResult listed = runWorker({in.worker.string(), "list", in.databaseDir.string()}, "", std::chrono::seconds(120));
  if (listed.status != 0) return failView("broken compilation database: " + (listed.err.empty() ? "nib-clang failed" : listed.err));
  auto commands = decodeCompileCommands(listed.out);
  if (!commands) return failView(commands.status().message());
  // One entry per source file inside the repository (a database may list a file twice).
  std::vector<CompileCommand> units;
  std::set<std::string> seen;
  for (CompileCommand& c : *commands) {
    std::string file = fs::weakly_canonical(c.file, ec).string();
    if (file.compare(0, root.size(), root) != 0 || !seen.insert(file).second) continue;
    c.file = file;
    units.push_back(std::move(c));
  }
  report.units = units.size();
  report.view.profile = "libclang-14;tus=" + std::to_string(units.size());

  ClangViewBuild build(in, root, std::move(units));
  build.indexFrom(0);
  if (build.cancelled()) return failView("cancelled");
  size_t realUnits = build.size();
  build.addInterpolatedUnits();
  build.indexFrom(realUnits, in.deferUncompiled);
  if (build.cancelled()) return failView("cancelled");
  build.coverBodies();
  if (build.cancelled()) return failView("cancelled");
  build.collectCache();
  build.report(report);

  ClangViewContents contents = mergeUnitFacts(root, in.blobIds, build.results(), build.realUnits(), /*listUnindexed=*/true);
  for (const auto& [path, occurrences] : contents.files) report.occurrences += occurrences.size();
  report.shared = contents.sharedMainFiles.size();
  report.symbols = contents.symbols.size();
  report.files = contents.files.size();
  fs::create_directories(in.dir, ec);
  Status s = ec ? Status(ErrorCode::IoError, ec.message()) : writeClangView(in.dir, contents);
  auto digest = s.isOk() ? digestFile(in.dir / "data.mdb") : Expected<std::string>(s);
  if (!digest) return failView(digest.status().message());
  report.view.status = ViewStatus::Complete;
  if (report.deferred) report.view.capabilities.push_back(ViewRecord::kUncompiledPending);
  report.view.artifacts.push_back({"clang/data.mdb", *digest, fs::file_size(in.dir / "data.mdb")});
  report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return report;
}

}  // namespace nib
