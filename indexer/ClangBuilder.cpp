#include "indexer/ClangBuilder.h"

#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <atomic>
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
  struct stat st;
  if (::stat(absolute.c_str(), &st) != 0) return "-";
  return "s" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

// `worker` identifies the nib-clang executable (its digest): facts from another build of the
// worker are never reused.
std::string cacheKey(const CompileCommand& c, const std::string& worker) {
  Digester d;
  d.add("clang-tu").add(worker).add(c.directory).add(c.file);
  for (const std::string& a : c.arguments) d.add(a);
  return d.hex();
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

  LmdbEnv::Options cacheOptions;
  cacheOptions.noSync = true;  // a lost cache entry only costs a re-index
  fs::create_directories(in.cacheDir, ec);
  auto cacheEnv = LmdbEnv::open(in.cacheDir, cacheOptions);
  std::mutex cacheMutex;

  auto workerDigestOr = digestFile(in.worker);
  std::string workerDigest = workerDigestOr ? *workerDigestOr : std::string();
  std::vector<std::optional<TuFacts>> results(units.size());
  std::vector<std::string> failures(units.size());
  std::vector<double> seconds(units.size(), 0);
  std::atomic<size_t> next{0}, done{0}, cached{0};
  auto work = [&] {
    for (;;) {
      size_t i = next++;
      if (i >= units.size() || (in.cancelled && in.cancelled())) return;
      const CompileCommand& c = units[i];
      std::string key = cacheKey(c, workerDigest);
      // A cached TU is reused when every file it read is as it was.
      if (cacheEnv) {
        std::lock_guard<std::mutex> g(cacheMutex);
        auto txn = LmdbTxn::begin(**cacheEnv, false);
        auto db = txn ? txn->openDb("tus", false) : Expected<MDB_dbi>(Status(ErrorCode::NotFound, ""));
        auto raw = db ? txn->get(*db, key) : Expected<std::string_view>(Status(ErrorCode::NotFound, ""));
        if (raw) {
          ByteReader r(*raw);
          uint64_t n = r.varint();
          bool valid = r.ok() && n < raw->size();
          for (uint64_t k = 0; k < n && valid && r.ok(); ++k) {
            std::string path(r.str());
            std::string sig(r.str());
            valid = signatureOf(path, root, in.blobIds) == sig;
          }
          if (valid && r.ok())
            if (auto facts = decodeTuFacts(r.str()); facts && r.ok()) {
              results[i] = std::move(*facts);
              ++cached;
            }
        }
      }
      if (!results[i]) {
        auto t = Clock::now();
        WorkerResult w = runWorker({in.worker.string(), "index", root}, encodeCompileCommands({c}), in.timeout, in.cancelled);
        seconds[i] = std::chrono::duration<double>(Clock::now() - t).count();
        auto facts = w.status == 0 ? decodeTuFacts(w.out) : Expected<TuFacts>(Status(ErrorCode::Internal, ""));
        if (w.timedOut) failures[i] = "timed out after " + std::to_string(in.timeout.count()) + " s";
        else if (w.status != 0) failures[i] = w.err.empty() ? "nib-clang exited with status " + std::to_string(w.status) : w.err;
        else if (!facts) failures[i] = facts.status().message();
        else {
          // Every file the TU read, with its signature now, keys the cached facts.
          ByteWriter rec;
          rec.varint(facts->files.size());
          for (const std::string& f : facts->files) {
            rec.str(f);
            rec.str(signatureOf(f, root, in.blobIds));
          }
          rec.str(w.out);
          if (cacheEnv) {
            std::lock_guard<std::mutex> g(cacheMutex);
            if (auto txn = LmdbTxn::begin(**cacheEnv, true))
              if (auto db = txn->openDb("tus", true); db && txn->put(*db, key, rec.data()).isOk()) (void)txn->commit();
          }
          results[i] = std::move(*facts);
        }
        while (!failures[i].empty() && (failures[i].back() == '\n' || failures[i].back() == ' ')) failures[i].pop_back();
      }
      size_t d = ++done;
      if (in.progress) in.progress(d, units.size());
    }
  };
  auto runPool = [&] {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < std::max(1u, in.threads); ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
  };
  runPool();
  if (in.cancelled && in.cancelled()) return failView("cancelled");

  // C/C++ files no translation unit read (headers nothing includes, sources the database does
  // not list): indexed on their own with the command of the nearest TU, the way clangd
  // interpolates one when such a file is opened. Best effort: their failures are not the
  // database's and are only counted.
  const size_t realUnits = units.size();
  std::set<std::string> covered;
  for (size_t i = 0; i < realUnits; ++i) {
    covered.insert(units[i].file);  // a TU that failed keeps its own command's verdict
    if (results[i])
      for (const std::string& f : results[i]->files) covered.insert(f);
  }
  for (const auto& [path, blob] : in.blobIds) {
    std::string ext = fs::path(path).extension().string();
    static const std::set<std::string> kExts = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp"};
    if (!kExts.count(ext) || covered.count(root + path)) continue;
    // The donor: the TU sharing the longest folder prefix with the file.
    const CompileCommand* donor = nullptr;
    size_t best = 0;
    for (size_t i = 0; i < realUnits; ++i) {
      const std::string& f = units[i].file;
      size_t n = 0;
      while (n < f.size() && n < root.size() + path.size() && f[n] == (root + path)[n]) ++n;
      if (!donor || n > best) donor = &units[i], best = n;
    }
    if (!donor) break;
    CompileCommand c = *donor;
    c.file = root + path;
    bool isHeader = ext[1] == 'h' || ext == ".inl" || ext == ".ipp";
    bool cDonor = fs::path(donor->file).extension() == ".c";
    std::string language = cDonor && ext != ".cc" && ext != ".cpp" && ext != ".cxx" && ext != ".hpp" && ext != ".hh" && ext != ".hxx"
                               ? (isHeader ? "c-header" : "c")
                               : (isHeader ? "c++-header" : "c++");
    std::vector<std::string> args;
    std::string donorRel = donor->file.substr(root.size());
    for (size_t a = 0; a < c.arguments.size(); ++a) {
      const std::string& arg = c.arguments[a];
      bool isSource = arg == donor->file || arg == donorRel || (fs::path(c.directory) / arg).lexically_normal().string() == donor->file;
      if (a > 0 && isSource) {
        args.push_back("-x");
        args.push_back(language);
        args.push_back(c.file);
      } else {
        args.push_back(arg);
      }
    }
    c.arguments = std::move(args);
    units.push_back(std::move(c));
    if (units.size() - realUnits >= 2000) break;
  }
  report.interpolated = units.size() - realUnits;
  results.resize(units.size());
  failures.resize(units.size());
  seconds.resize(units.size(), 0);
  next = realUnits;
  runPool();
  if (in.cancelled && in.cancelled()) return failView("cancelled");
  report.cached = cached;
  // The cache keeps the units this build has (a changed command, a removed file or a new
  // nib-clang would otherwise leave their facts behind for good).
  if (cacheEnv) {
    std::vector<std::string> keys;
    for (const CompileCommand& c : units) keys.push_back(cacheKey(c, workerDigest));
    std::unordered_set<std::string_view> used(keys.begin(), keys.end());
    auto swept = retainCacheKeys(**cacheEnv, "tus", used, 1.5);
    Expected<bool> compacted = swept && *swept > 0 ? compactIfSparse(**cacheEnv, in.cacheDir) : Expected<bool>(false);
    if (!swept || !compacted)
      logWarn("the clang cache was not collected: " + (swept ? compacted.status() : swept.status()).message());
  }

  for (size_t i = 0; i < units.size(); ++i) {
    if (!results[i]) {
      if (i >= realUnits) {
        ++report.interpolatedFailed;
        continue;
      }
      ++report.failed;
      if (report.failures.size() < 20) report.failures.emplace_back(units[i].file.substr(root.size()), failures[i]);
      continue;
    }
    report.maxUnitSeconds = std::max(report.maxUnitSeconds, seconds[i]);
    report.unitSeconds += seconds[i];
    report.indexed += seconds[i] > 0;
  }
  ClangViewContents contents = mergeUnitFacts(root, in.blobIds, results, realUnits);
  for (const auto& [path, occurrences] : contents.files) report.occurrences += occurrences.size();
  report.shared = contents.sharedMainFiles.size();
  report.symbols = contents.symbols.size();
  report.files = contents.files.size();
  fs::create_directories(in.dir, ec);
  Status s = ec ? Status(ErrorCode::IoError, ec.message()) : writeClangView(in.dir, contents);
  auto digest = s.isOk() ? digestFile(in.dir / "data.mdb") : Expected<std::string>(s);
  if (!digest) return failView(digest.status().message());
  report.view.status = ViewStatus::Complete;
  report.view.artifacts.push_back({"clang/data.mdb", *digest, fs::file_size(in.dir / "data.mdb")});
  report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return report;
}

}  // namespace nib
