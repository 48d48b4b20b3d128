#include "indexer/ClangBuilder.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <deque>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "indexer/CommandInterpolation.h"
#include "indexer/HeaderConditions.h"
#include "indexer/UnitMerge.h"
#include "indexer/WorkerProcess.h"
#include "support/Binary.h"
#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/Language.h"
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


// At most this many made-up units a build: beyond, files keep what the database's units saw.
constexpr size_t kMaxMadeUpUnits = 2000;

// The command line of a `nib-clang index` session over the repository at `root`: the sessions
// buildClangView starts early are ones runUnits could have started (without --keep-bodies).
std::vector<std::string> indexSessionArgs(const fs::path& worker, const std::string& root, bool keepBodies) {
  std::vector<std::string> args = {worker.string(), "index", root};
  if (keepBodies) args.push_back("--keep-bodies");
  return args;
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

// What units report of the header sites and expansions a session reports once (macro
// definitions and prototypes' parameters by their place, a header's macro expansions by their
// set's digest), to find those a unit left out (TuFacts::sitesLeftOut, expansionsLeftOut) that
// no unit of the build reports.
class ReportedPlaces {
 public:
  void addReported(const TuFacts& f) {
    std::vector<uint64_t> paths = pathIds(f);
    for (const ClangOccurrence& o : f.occurrences)
      if (o.role != ClangRole::Reference && o.file < paths.size() && reportedOnce(f, o))
        places_.insert(paths[o.file] << 32 | o.offset);
    std::vector<uint64_t> digests = expansionDigests(f);
    for (size_t k = 0; k < digests.size(); ++k)
      if (digests[k]) expansions_.emplace(paths[k], digests[k]);
  }
  void addLeftOut(const TuFacts& f) {
    std::vector<uint64_t> paths = pathIds(f);
    for (const auto& [file, offset] : f.sitesLeftOut) places_.insert(paths[file] << 32 | offset);
    for (const auto& [file, digest] : f.expansionsLeftOut) expansions_.emplace(paths[file], digest);
  }
  bool cover(const TuFacts& f) {
    if (f.sitesLeftOut.empty() && f.expansionsLeftOut.empty()) return true;
    std::vector<uint64_t> paths = pathIds(f);
    return std::all_of(f.sitesLeftOut.begin(), f.sitesLeftOut.end(),
                       [&](const auto& p) { return places_.count(paths[p.first] << 32 | p.second) > 0; }) &&
           std::all_of(f.expansionsLeftOut.begin(), f.expansionsLeftOut.end(),
                       [&](const auto& e) { return expansions_.count({paths[e.first], e.second}) > 0; });
  }

 private:
  // The unit's files (by index) as numbers shared by every unit's.
  std::vector<uint64_t> pathIds(const TuFacts& f) {
    std::vector<uint64_t> out;
    out.reserve(f.files.size());
    for (const std::string& path : f.files) out.push_back(paths_.emplace(path, paths_.size()).first->second);
    return out;
  }
  std::unordered_map<std::string, uint64_t> paths_;
  std::unordered_set<uint64_t> places_;
  std::set<std::pair<uint64_t, uint64_t>> expansions_;  // (path, digest)
};

// One build of the clang view: the units, their outcomes, the cache, and the worker sessions
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
  // Worker sessions started before the units were known (buildClangView starts them while the
  // compilation database is read): runUnits takes them before starting sessions of its own,
  // until releaseSessions kills those left.
  void adoptSessions(std::vector<std::unique_ptr<WorkerSession>> started) { started_ = std::move(started); }
  void releaseSessions() { started_.clear(); }

  // Indexes units [from, size()): from the cache where every file a unit read is as it was,
  // else by worker sessions (runUnits). With `defer`, made-up units the cache lacks
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
    runUnits(todo, /*keepBodies=*/false);
  }

  // C/C++ files no translation unit read (headers nothing includes, sources the database does
  // not list) become units of their own with the command clangd borrows for such a file when it
  // is opened (CommandInterpolation). So does a source file no command builds that
  // another unit #includes whole (expat's xmltok_impl.c, once per encoding): clangd parses it
  // alone when it is opened, and sees there nothing its includer defined. So, last, does a header
  // whose own `#if` sections test a macro another file defines, and one without an include
  // guard or relying on its includers' #includes, kept only where its parse reports errors
  // (HeaderConditions.h, dropCleanParses). Best
  // effort: their failures are not the database's and are only counted.
  void addInterpolatedUnits() {
    realUnits_ = units_.size();
    std::set<std::string> covered;
    for (size_t i = 0; i < realUnits_; ++i) {
      covered.insert(units_[i].file);  // a TU that failed keeps its own command's verdict
      if (results_[i])
        for (const std::string& f : results_[i]->files)
          if (!isCFamilySourceFile(f)) covered.insert(f);
    }
    // The donors are the database's own units (a copy: units_ grows below).
    const std::vector<CompileCommand> database(units_.begin(), units_.begin() + static_cast<ptrdiff_t>(realUnits_));
    const DonorIndex donors(database);
    std::vector<std::string> files;
    for (const auto& [path, blob] : in_.blobIds)
      if (isClangSource(fs::path(path).extension().string()) && !covered.count(root_ + path)) files.push_back(path);
    // So do source files the index skips as too large (utf8proc's 1.9 MB utf8proc_data.c, which
    // utf8proc.c #includes whole): clangd parses one alone when it is opened all the same.
    for (const std::string& path : in_.tooLargeSources)
      if (isCFamilySourceFile(path) && !covered.count(root_ + path)) files.push_back(path);
    StandaloneHeaders headers = standaloneHeaders();
    for (const std::string& header : headers.configured) {
      logDebug("clang view: " + header + " is parsed alone too (a macro defined elsewhere decides its sections)");
      files.push_back(header);
    }
    size_t headersFrom = files.size() - headers.configured.size(), triedFrom = files.size();
    for (const std::string& header : headers.dependent)
      logDebug("clang view: " + header + " is tried alone too (it names what only its includers declare)");
    for (const auto* list : {&headers.unguarded, &headers.dependent})
      for (const std::string& header : *list)
        if (std::find(files.begin(), files.end(), header) == files.end()) files.push_back(header);
    for (size_t k = 0; k < files.size(); ++k) {
      std::string file = root_ + files[k];
      const CompileCommand* donor = donors.donorFor(file);
      if (!donor) break;
      units_.push_back(interpolatedCommand(*donor, root_, file));
      grow();
      header_.back() = k >= headersFrom;
      keepIfErrors_.back() = k >= triedFrom;
      if (units_.size() - realUnits_ >= kMaxMadeUpUnits) break;
    }
    grow();
  }

  // A header without an include guard (or relying on its includers) parsed alone keeps that
  // parse only where it reports an error (HeaderConditions.h): one that parses cleanly alone
  // stands alone, and its includers' view of it answers as for any header. Runs before
  // coverSessionSkips, which then finds an owner for what only a dropped parse had.
  void dropCleanParses() {
    for (size_t i = realUnits_; i < units_.size(); ++i)
      if (keepIfErrors_[i] && results_[i] && results_[i]->errors.empty()) {
        results_[i].reset();
        dropped_[i] = true;
      }
  }

  // The repository's headers the database's units read that are parsed alone too: those whose
  // own sections a macro another file defines decides, those using a macro such a header defines
  // in alternatives, those without an include guard, and
  // guarded ones that name what only their includers' #includes declare (HeaderConditions.h).
  // Each file under the repository the units read (their main files, the headers, generated ones
  // included) is read and scanned once.
  struct StandaloneHeaders {
    std::vector<std::string> configured, unguarded, dependent;
  };
  StandaloneHeaders standaloneHeaders() const {
    std::set<std::string> files;
    std::map<std::string, size_t> definers;  // how many of the files define each macro
    for (size_t i = 0; i < realUnits_; ++i) {
      files.insert(units_[i].file);
      if (results_[i]) files.insert(results_[i]->files.begin(), results_[i]->files.end());
    }
    std::vector<std::pair<std::string, FileDirectives>> headers;
    std::map<std::string, FileDirectives> directives;  // every repository file read, by absolute path
    std::map<std::string, std::string> texts;          // the headers' texts, by repository path
    std::set<std::string> guarded;
    for (const std::string& f : files) {
      if (f.compare(0, root_.size(), root_) != 0) continue;
      auto text = readFile(f);
      if (!text) continue;
      FileDirectives d = directivesOf(*text);
      for (const std::string& name : d.defined) ++definers[name];
      std::string path = f.substr(root_.size());
      if (!isCFamilySourceFile(f) && in_.blobIds.count(path) && isClangSource(fs::path(path).extension().string())) {
        headers.emplace_back(path, d);
        texts.emplace(path, std::move(*text));
        if (d.guarded) guarded.insert(f);
      }
      directives.emplace(f, std::move(d));
    }
    StandaloneHeaders out;
    out.configured = headersConfiguredElsewhere(headers, definers);
    for (std::string& path : headersUsingConfiguredMacros(headers, out.configured, texts)) out.configured.push_back(std::move(path));
    for (const auto& [path, d] : headers)
      if (!d.guarded) out.unguarded.push_back(path);
    std::vector<const TuFacts*> units;
    for (size_t i = 0; i < realUnits_; ++i)
      if (results_[i]) units.push_back(&*results_[i]);
    // The system headers the closures run through are read as the walks reach them.
    OutsideReader readOutside = [](const std::string& path) -> std::optional<std::string> {
      Expected<std::string> text = readFile(path);
      if (!text) return std::nullopt;
      return std::move(*text);
    };
    for (const std::string& f : headersNamingIncludersNames(units, directives, guarded, readOutside))
      out.dependent.push_back(f.substr(root_.size()));
    return out;
  }

  // What a worker's session leaves to its first unit must reach the view from a unit of this
  // build: every file some unit read must have its function bodies parsed by one unit, and every
  // header site or set of expansions a unit left out (TuFacts::sitesLeftOut, expansionsLeftOut)
  // must be reported by one — by a real unit where a real unit left it out. Where the unit that
  // did is gone (removed, failed, or another order), one unit that needs it is indexed again on
  // its own, in a session that leaves nothing out.
  void coverSessionSkips() {
    std::set<std::string> owned;
    ReportedPlaces real, all;
    for (size_t i = 0; i < results_.size(); ++i)
      if (results_[i]) {
        for (uint32_t k : results_[i]->bodiesParsed) owned.insert(results_[i]->files[k]);
        all.addReported(*results_[i]);
        if (i < realUnits_) real.addReported(*results_[i]);
      }
    std::vector<size_t> again;
    for (size_t i = 0; i < results_.size(); ++i) {
      if (!results_[i]) continue;
      bool needed = !(i < realUnits_ ? real : all).cover(*results_[i]);
      for (const std::string& f : results_[i]->files)
        if (f.compare(0, root_.size(), root_) == 0 && in_.blobIds.count(f.substr(root_.size())) && !owned.count(f)) needed = true;
      if (!needed) continue;
      again.push_back(i);
      for (const std::string& f : results_[i]->files) owned.insert(f);
      all.addLeftOut(*results_[i]);
      if (i < realUnits_) real.addLeftOut(*results_[i]);
    }
    runUnits(again, /*keepBodies=*/true);
  }

  void report(ClangBuildReport& report) const;
  const std::vector<std::optional<TuFacts>>& results() const { return results_; }
  // The numbers of each unit's USRs, taken as its facts came in (MergeOptions::unitNumbers).
  UsrNumbers& usrNumbers() { return usrNumbers_; }
  const std::vector<std::vector<uint32_t>>& unitNumbers() const { return unitNumbers_; }
  std::vector<bool> cplusplus() const {
    std::vector<bool> out;
    for (const CompileCommand& unit : units_) out.push_back(unitLanguage(unit) == UnitLanguage::Cpp);
    return out;
  }
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
    unitNumbers_.resize(units_.size());
    failures_.resize(units_.size());
    seconds_.resize(units_.size(), 0);
    fresh_.resize(units_.size(), false);
    deferred_.resize(units_.size(), false);
    header_.resize(units_.size(), false);
    keepIfErrors_.resize(units_.size(), false);
    dropped_.resize(units_.size(), false);
  }
  void progress() {
    if (in_.progress) in_.progress(++done_, units_.size());
  }
  bool fromCache(size_t i);
  void store(size_t i, const std::string& encoded);
  void runUnits(const std::vector<size_t>& todo, bool keepBodies, bool alone = false);
  struct UnitLine;
  std::optional<size_t> take(UnitLine& line, const std::string& language);
  void workOn(UnitLine& line);
  WorkerSession::Wait sendUnit(WorkerSession& session, size_t i);
  WorkerSession::Wait takeOutcome(WorkerSession& session, UnitOutcome* outcome);
  void accept(size_t i, UnitOutcome&& outcome);
  void fail(size_t i, const WorkerResult& w);

  const ClangBuildInput& in_;
  const std::string root_;
  std::vector<CompileCommand> units_;
  size_t realUnits_ = 0;
  std::unique_ptr<LmdbEnv> cacheEnv_;
  std::mutex cacheMutex_;
  std::string workerDigest_;
  std::vector<std::optional<TuFacts>> results_;
  UsrNumbers usrNumbers_;
  std::vector<std::vector<uint32_t>> unitNumbers_;  // parallel to results_
  std::vector<std::string> failures_;
  std::vector<double> seconds_;
  std::vector<char> fresh_;  // indexed by a worker in this build (not vector<bool>: threads set their own)
  std::vector<char> deferred_;  // a made-up unit left to the follow-up
  std::vector<char> header_;        // a header units read, parsed alone too
  std::vector<char> keepIfErrors_;  // one without an include guard (dropCleanParses)
  std::vector<char> dropped_;       // such a header whose parse reported no error
  std::mutex progressMutex_;
  size_t done_ = 0;
  std::vector<std::unique_ptr<WorkerSession>> started_;  // sessions of `nib-clang index ROOT` no unit has used
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
  unitNumbers_[i] = usrNumbers_.number(results_[i]->usrs);
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

// A unit's outcome from its worker: its facts stored (and cached), or why there are none.
void ClangViewBuild::accept(size_t i, UnitOutcome&& outcome) {
  seconds_[i] = outcome.seconds;
  fresh_[i] = true;
  auto facts = outcome.ok ? decodeTuFacts(outcome.payload) : Expected<TuFacts>(Status(ErrorCode::Internal, outcome.payload));
  if (facts) {
    results_[i] = std::move(*facts);
    // Numbered now, while other units still parse, rather than in the merge that waits for all.
    unitNumbers_[i] = usrNumbers_.number(results_[i]->usrs);
    failures_[i].clear();
    store(i, outcome.payload);
  } else {
    failures_[i] = facts.status().message();
  }
  std::lock_guard<std::mutex> g(progressMutex_);
  progress();
}

// A unit whose worker died or ran out of time on it, alone in its session: the worker's verdict
// is the unit's.
void ClangViewBuild::fail(size_t i, const WorkerResult& w) {
  fresh_[i] = true;
  if (w.timedOut) failures_[i] = "timed out after " + std::to_string(in_.timeout.count()) + " s";
  else if (w.status != 0) failures_[i] = w.err.empty() ? "nib-clang exited with status " + std::to_string(w.status) : w.err;
  else failures_[i] = "nib-clang wrote no facts";
  while (!failures_[i].empty() && (failures_[i].back() == '\n' || failures_[i].back() == ' ')) failures_[i].pop_back();
  std::lock_guard<std::mutex> g(progressMutex_);
  progress();
}

// Sends unit i to the session's worker. Anything but Ready leaves the session unusable.
WorkerSession::Wait ClangViewBuild::sendUnit(WorkerSession& session, size_t i) {
  return session.send(frameCompileCommands({units_[i]}), in_.timeout, in_.cancelled);
}

// Takes the outcome of the unit the session's worker is on. The time limit is per unit: it
// counts from this call, and again from each piece of output. Anything but Ready leaves the
// session unusable.
WorkerSession::Wait ClangViewBuild::takeOutcome(WorkerSession& session, UnitOutcome* outcome) {
  auto whole = [](const std::string& out) { return wholeUnitOutcomeSize(out) > 0; };
  WorkerSession::Wait wait = session.readUntil(whole, in_.timeout, in_.cancelled, /*perOutput=*/true);
  if (wait != WorkerSession::Wait::Ready) return wait;
  size_t size = wholeUnitOutcomeSize(session.out());
  std::vector<UnitOutcome> outcomes = decodeUnitOutcomes(std::string_view(session.out()).substr(0, size));
  session.out().erase(0, size);
  if (outcomes.size() != 1) return WorkerSession::Wait::Exited;
  *outcome = std::move(outcomes.front());
  return WorkerSession::Wait::Ready;
}

// The units in line for runUnits' threads, and those whose session broke under them (run again,
// each alone).
struct ClangViewBuild::UnitLine {
  std::deque<size_t> queue;
  std::vector<size_t> again;
  std::mutex m;
  std::vector<std::string> args;  // a session's command line
  bool keepBodies = false, alone = false;
};

// The next unit in line for a session of `language` (any language where empty), if any.
std::optional<size_t> ClangViewBuild::take(UnitLine& line, const std::string& language) {
  std::lock_guard<std::mutex> lock(line.m);
  if (line.queue.empty() || cancelled() || (!language.empty() && languageOf(units_[line.queue.front()]) != language))
    return std::nullopt;
  size_t i = line.queue.front();
  line.queue.pop_front();
  return i;
}

// One thread's share of runUnits: units from the line, one worker session at a time.
void ClangViewBuild::workOn(UnitLine& line) {
  std::unique_ptr<WorkerSession> session;
  std::string language;
  size_t done = 0;                 // units the session indexed
  std::optional<size_t> sentNext;  // sent to the session while the unit before it was taken in
  // A session for unit i: the one running where it takes i's language, else an early-started
  // one or a new one. False when no worker could start (the unit failed).
  auto sessionFor = [&](size_t i) {
    if (session && (line.alone || languageOf(units_[i]) != language)) session->finish(/*kill=*/true, false), session.reset();
    if (session) return true;
    std::string error;
    if (!line.keepBodies && !line.alone) {
      std::lock_guard<std::mutex> lock(line.m);
      if (!started_.empty()) session = std::move(started_.back()), started_.pop_back();
    }
    if (!session) session = WorkerSession::start(line.args, &error);
    language = languageOf(units_[i]);
    done = 0;
    if (session) return true;
    WorkerResult w;
    w.err = error;
    fail(i, w);
    return false;
  };
  for (;;) {
    std::optional<size_t> next = sentNext ? sentNext : take(line, "");
    if (!next) break;
    const size_t i = *next;
    WorkerSession::Wait wait = WorkerSession::Wait::Ready;
    if (!sentNext) {
      if (!sessionFor(i)) continue;
      wait = sendUnit(*session, i);
    }
    sentNext.reset();
    UnitOutcome outcome;
    if (wait == WorkerSession::Wait::Ready) wait = takeOutcome(*session, &outcome);
    if (wait == WorkerSession::Wait::Ready) {
      ++done;
      // The worker starts on the next unit of its language while this one's facts are decoded
      // and stored, which it used to wait for (a twentieth of the units' time on libxml2, one
      // thread). A unit sent so is the session's like any other: a failure there is its own,
      // found when its outcome is taken.
      if (std::optional<size_t> following = line.alone ? std::nullopt : take(line, language)) {
        if (sendUnit(*session, *following) == WorkerSession::Wait::Ready) {
          sentNext = following;
        } else {
          std::lock_guard<std::mutex> lock(line.m);
          line.queue.push_front(*following);  // the session broke: the unit goes back in line
        }
      }
      accept(i, std::move(outcome));
      continue;
    }
    bool timedOut = wait == WorkerSession::Wait::TimedOut;
    WorkerResult w = session->finish(/*kill=*/wait != WorkerSession::Wait::Exited, timedOut);
    session.reset();
    if (wait == WorkerSession::Wait::Cancelled) break;
    if (done > 0) {
      std::lock_guard<std::mutex> lock(line.m);
      line.again.push_back(i);
    } else {
      fail(i, w);
    }
  }
  if (session) session->finish(/*kill=*/true, false);
}

// Indexes the units, each thread with one worker session at a time that it feeds a unit after
// another from a common queue: a session skips the bodies of headers it parsed for an earlier
// unit, and no thread idles while another still has units in line. The queue holds one
// language after another (a header a C unit parsed — a C++ header a made-up unit guessed
// wrong — must not have its bodies skipped in a C++ unit, so languages never share a session),
// the largest main files first, so that the threads end together. Which session indexes which
// unit, and so which unit parses a header's bodies and reports its macro definitions, depends
// on timing. coverSessionSkips makes sure some unit did each, and a unit that skipped the bodies
// must report the rest of the header as one that did (ClangAstNames' bodySkipped): on leveldb,
// answers at 300 sampled positions were equal between builds, while the order of symbols in the
// view may differ. A worker that dies or hangs costs its session; the unit it was on runs again
// in a session of its own (`alone`), unless it had one already, so that it fails alone.
void ClangViewBuild::runUnits(const std::vector<size_t>& todo, bool keepBodies, bool alone) {
  if (todo.empty()) return;
  std::vector<std::tuple<std::string, uint64_t, size_t>> order;
  for (size_t i : todo) {
    std::error_code ec;
    uint64_t bytes = fs::file_size(units_[i].file, ec);
    order.emplace_back(languageOf(units_[i]), ec ? 0 : bytes, i);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b) : std::get<1>(a) > std::get<1>(b);
  });
  UnitLine line;
  for (const auto& item : order) line.queue.push_back(std::get<2>(item));
  line.args = indexSessionArgs(in_.worker, root_, keepBodies);
  line.keepBodies = keepBodies;
  line.alone = alone;
  size_t threads = std::clamp<size_t>(in_.threads, 1, line.queue.size());
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back([&] { workOn(line); });
  for (auto& t : pool) t.join();
  if (!line.again.empty() && !cancelled()) runUnits(line.again, keepBodies, /*alone=*/true);
}

void ClangViewBuild::report(ClangBuildReport& report) const {
  for (size_t i = 0; i < units_.size(); ++i) {
    if (dropped_[i]) continue;
    // A made-up unit left to the follow-up counts as such; a header's, once parsed.
    if (i >= realUnits_ && !(header_[i] && (deferred_[i] || !results_[i])))
      ++(header_[i] ? report.headersAlone : report.interpolated);
    if (deferred_[i]) {
      ++(header_[i] ? report.deferredHeaders : report.deferred);
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
    if (!fresh_[i]) {
      ++report.cached;
      continue;
    }
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

  // The workers load libclang while the compilation database is read, rather than when their
  // first unit is sent: a `nib-clang` process takes ~70 ms to start on this machine kind (the
  // dynamic loader and the page faults of mapping libLLVM and libclang), on the critical path of
  // each thread's first unit. One per thread for a cold build (no cache yet: every unit runs);
  // one otherwise, where a delta runs the few units that read a changed file and more would be
  // started for nothing.
  std::vector<std::unique_ptr<WorkerSession>> warm;
  const size_t warmCount = fs::exists(in.cacheDir / "data.mdb", ec) ? 1 : std::max<size_t>(in.threads, 1);
  for (size_t t = 0; t < warmCount; ++t) {
    std::string error;  // a worker that cannot start is reported when runUnits starts its own
    if (auto session = WorkerSession::start(indexSessionArgs(in.worker, root, /*keepBodies=*/false), &error)) warm.push_back(std::move(session));
  }
  WorkerResult listed = runWorker({in.worker.string(), "list", in.databaseDir.string()}, "", std::chrono::seconds(120));
  if (listed.status != 0) return failView("broken compilation database: " + (listed.err.empty() ? "nib-clang failed" : listed.err));
  auto commands = decodeCompileCommands(listed.out);
  if (!commands) return failView(commands.status().message());
  // One entry per source file inside the repository (a database may list a file twice).
  std::vector<CompileCommand> units;
  std::set<std::string> seen;
  std::string outside;  // the first entry outside the repository
  for (CompileCommand& c : *commands) {
    std::string file = fs::weakly_canonical(c.file, ec).string();
    if (file.compare(0, root.size(), root) != 0 && outside.empty()) outside = file;
    if (file.compare(0, root.size(), root) != 0 || !seen.insert(file).second) continue;
    c.file = file;
    units.push_back(std::move(c));
  }
  // A database made for another checkout (one copied or moved since) names none of this one's
  // files: the view is empty, and the user should hear why.
  if (units.empty() && !outside.empty())
    logWarn("the compilation database lists " + std::to_string(commands->size()) +
            " entries, none under this repository (the first: " + outside +
            "); was it made for another checkout? Regenerate it here: C and C++ answers come from tree-sitter until then");
  report.units = units.size();
  report.view.profile = "libclang-14;tus=" + std::to_string(units.size());

  // Where the phase's time goes (NIB_LOG=debug): the units against the fixed costs around them.
  std::string steps;
  auto step = [&, last = started](const char* name) mutable {
    auto now = Clock::now();
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%s%s %.3f s", steps.empty() ? "" : ", ", name,
                  std::chrono::duration<double>(now - last).count());
    steps += buffer;
    last = now;
  };
  step("database");
  ClangViewBuild build(in, root, std::move(units));
  build.adoptSessions(std::move(warm));
  build.indexFrom(0);
  if (build.cancelled()) return failView("cancelled");
  step("units");
  size_t realUnits = build.size();
  build.addInterpolatedUnits();
  build.indexFrom(realUnits, in.deferUncompiled);
  build.releaseSessions();
  if (build.cancelled()) return failView("cancelled");
  build.dropCleanParses();
  build.coverSessionSkips();
  if (build.cancelled()) return failView("cancelled");
  step("made-up units and bodies");
  build.collectCache();
  build.report(report);
  step("cache");

  ClangViewContents contents = mergeUnitFacts(root, in.blobIds, build.results(), build.realUnits(),
                                               {.listUnindexed = true,
                                                .findVarying = true,
                                                .cplusplus = build.cplusplus(),
                                                .numbers = &build.usrNumbers(),
                                                .unitNumbers = &build.unitNumbers()});
  step("merge");
  for (const auto& [path, occurrences] : contents.files) report.occurrences += occurrences.size();
  report.shared = contents.sharedMainFiles.size();
  report.symbols = contents.symbols.size();
  report.files = contents.files.size();
  fs::create_directories(in.dir, ec);
  Status s = ec ? Status(ErrorCode::IoError, ec.message()) : writeClangView(in.dir, contents);
  auto digest = s.isOk() ? digestFile(in.dir / "data.mdb") : Expected<std::string>(s);
  if (!digest) return failView(digest.status().message());
  report.view.status = ViewStatus::Complete;
  if (report.deferred || report.deferredHeaders) report.view.capabilities.push_back(ViewRecord::kUncompiledPending);
  report.view.artifacts.push_back({"clang/data.mdb", *digest, fs::file_size(in.dir / "data.mdb")});
  step("write");
  logDebug("clang view: " + steps);
  report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return report;
}

}  // namespace nib
