#include "indexer/ClangBuilder.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

#include "support/Binary.h"
#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/Log.h"
#include "support/RepoPath.h"
#include "views/ClangFacts.h"
#include "views/ClangView.h"
#include "views/FileFacts.h"
#include "views/Lmdb.h"

extern char** environ;

namespace nib {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct WorkerResult {
  int status = -1;  // exit status; -1: killed (timeout) or could not start
  std::string out, err;
  bool timedOut = false;
};

// Runs `argv` with `input` on stdin, collecting stdout and stderr, killed after `timeout`.
WorkerResult runWorker(const std::vector<std::string>& args, const std::string& input, std::chrono::seconds timeout,
                       const std::function<bool()>& cancelled = {}) {
  WorkerResult r;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
    r.err = std::string("pipe: ") + std::strerror(errno);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
      if (fd >= 0) close(fd);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    r.err = "cannot start " + args[0] + ": " + std::strerror(rc);
    return r;
  }
  // The command is small: one write before reading (a pipe holds 64 KiB).
  (void)!::write(in[1], input.data(), input.size());
  close(in[1]);
  auto deadline = Clock::now() + timeout;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || (cancelled && cancelled())) {
      // Past its time, or the build was cancelled (a server shutting down must not wait).
      r.timedOut = left <= 0;
      if (!r.timedOut) r.err = "cancelled";
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000))) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (pollfd& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!r.timedOut) r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (!r.timedOut && WIFSIGNALED(status)) r.err += "killed by signal " + std::to_string(WTERMSIG(status));
  return r;
}

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

// One entity can reach the view under two USRs: a class in an anonymous namespace of a test
// file is `c:file.cc@aN@S@X` when the file is the TU's main file and `c:@aN@S@X` when another
// TU includes the file (googlemock's gmock_all_test.cc includes every test). Symbols of one name
// defined at the very same place are one entity: merged into the first, so that its references
// do not depend on which of the USRs the cursor's occurrence carries. The merged-away ids stay,
// empty, so that ids remain stable.
void mergeAliasedSymbols(ClangViewContents& contents, std::map<std::string, std::vector<ClangFileOccurrence>>& byFile) {
  std::vector<uint32_t> root(contents.symbols.size());
  for (uint32_t i = 0; i < root.size(); ++i) root[i] = i;
  auto find = [&](uint32_t x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
  };
  std::map<std::tuple<std::string, uint32_t, std::string>, uint32_t> definedAt;
  bool any = false;
  for (uint32_t id = 0; id < contents.symbols.size(); ++id)
    for (const ClangSite& s : contents.symbols[id].sites) {
      // A macro's text is shared by every expansion (a FIELDS macro's field in each struct):
      // only places the source spells once count.
      // A macro's two names (from a header read through -isystem, `c:@macro@TEST`, and through
      // -I, `c:gtest.h@84867@macro@TEST`) are two symbols for clangd too: never merged.
      if (s.role != ClangRole::Definition || s.expanded || s.macroBody ||
          static_cast<SymbolKind>(contents.symbols[id].kind) == SymbolKind::Macro)
        continue;
      auto [it, added] = definedAt.emplace(std::make_tuple(s.path, s.range.startByte, contents.symbols[id].name), id);
      if (added) continue;
      uint32_t a = find(it->second), b = find(id);
      if (a == b) continue;
      root[std::max(a, b)] = std::min(a, b);
      any = true;
    }
  if (!any) return;
  for (uint32_t id = 0; id < contents.symbols.size(); ++id) {
    uint32_t r = find(id);
    if (r == id) continue;
    ClangSymbol& from = contents.symbols[id];
    ClangSymbol& to = contents.symbols[r];
    bool toCanonical = std::any_of(to.sites.begin(), to.sites.end(), [](const ClangSite& s) { return s.canonical; });
    for (ClangSite& s : from.sites) {
      bool duplicate = std::any_of(to.sites.begin(), to.sites.end(), [&](const ClangSite& t) {
        return t.path == s.path && t.range.startByte == s.range.startByte && t.role == s.role;
      });
      if (duplicate) continue;
      if (toCanonical) s.canonical = false;
      to.sites.push_back(std::move(s));
    }
    from.sites.clear();
    for (auto [fromIds, toIds] : {std::pair{&from.overrides, &to.overrides}, std::pair{&from.overriddenBy, &to.overriddenBy},
                                  std::pair{&from.bases, &to.bases}, std::pair{&from.derived, &to.derived},
                                  std::pair{&from.types, &to.types}}) {
      toIds->insert(toIds->end(), fromIds->begin(), fromIds->end());
      fromIds->clear();
    }
  }
  // Edges point at the merged symbols; one merged into its own neighbour loses that edge.
  for (uint32_t id = 0; id < contents.symbols.size(); ++id) {
    ClangSymbol& s = contents.symbols[id];
    for (std::vector<uint32_t>* ids : {&s.overrides, &s.overriddenBy, &s.bases, &s.derived, &s.types}) {
      for (uint32_t& x : *ids) x = find(x);
      ids->erase(std::remove(ids->begin(), ids->end(), id), ids->end());
    }
  }
  for (auto& [path, occurrences] : byFile)
    for (ClangFileOccurrence& o : occurrences) o.symbol = find(o.symbol);
}

// The stretches both sorted lists of [start, end) ranges cover.
std::vector<std::pair<uint32_t, uint32_t>> intersectRanges(const std::vector<std::pair<uint32_t, uint32_t>>& a,
                                                           const std::vector<std::pair<uint32_t, uint32_t>>& b) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint32_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo < hi) out.emplace_back(lo, hi);
    (a[i].second < b[j].second ? i : j)++;
  }
  return out;
}

}  // namespace

fs::path findCompilationDatabase(const fs::path& root, const fs::path& configured) {
  std::error_code ec;
  if (!configured.empty()) return configured.is_absolute() ? configured : root / configured;
  if (fs::exists(root / "compile_commands.json", ec)) return root;
  std::vector<fs::path> builds;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory(ec) && e.path().filename().string().rfind("build", 0) == 0 &&
        fs::exists(e.path() / "compile_commands.json", ec))
      builds.push_back(e.path());
  std::sort(builds.begin(), builds.end());
  return builds.empty() ? fs::path() : builds.front();
}

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

  // Merge: one symbol per USR, one site per (path, offset, role) however many TUs saw it.
  ClangViewContents contents;
  std::unordered_map<std::string, uint32_t> symbolIds;
  std::map<std::string, std::vector<ClangFileOccurrence>> byFile;
  std::set<std::tuple<std::string, uint32_t, uint32_t, uint8_t>> sites;
  std::set<std::tuple<std::string, uint32_t, uint32_t>> astOnlySites;
  // By symbol id: where its canonical declaration came from (see the merge below).
  enum class CanonicalFrom : uint8_t { None, Declaring, Defining };
  std::vector<CanonicalFrom> canonicalFrom;
  std::set<std::string> compiled, interpolatedOnly;  // files real units saw; files only made-up ones saw
  std::set<std::string> shared;                     // main files another unit #includes
  // Per file, what every unit that read it left out (intersected unit by unit).
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> skipped;
  // Files that are some unit's main file: another unit that #includes one sees it in its own
  // configuration (`foreign` occurrences).
  std::vector<std::string> mainFileOf(units.size());
  std::set<std::string> mainFiles, compiledMainFiles;  // of every unit; of the database's units
  for (size_t i = 0; i < units.size(); ++i) {
    if (!results[i]) continue;
    std::string main = fs::weakly_canonical(results[i]->mainFile, ec).string();
    if (ec || main.compare(0, root.size(), root) != 0) continue;
    mainFiles.insert(mainFileOf[i] = main.substr(root.size()));
    if (i < realUnits) compiledMainFiles.insert(mainFileOf[i]);
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
    const TuFacts& f = *results[i];
    std::vector<std::string> paths(f.files.size());
    for (size_t k = 0; k < f.files.size(); ++k)
      if (f.files[k].compare(0, root.size(), root) == 0) {
        auto rel = RepoPath::parse(f.files[k].substr(root.size()));
        if (rel && in.blobIds.count(rel->str())) paths[k] = rel->str();  // indexed files only
      }
    const std::string& own = mainFileOf[i];
    if (i < realUnits)
      for (const std::string& path : paths)
        if (!path.empty() && path != own && compiledMainFiles.count(path)) shared.insert(path);
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> leftOut(f.files.size());
    for (const ClangSkipped& k : f.skipped) leftOut[k.file].emplace_back(k.start, k.end);
    for (size_t k = 0; k < f.files.size(); ++k) {
      if (paths[k].empty()) continue;
      std::sort(leftOut[k].begin(), leftOut[k].end());
      auto [it, first] = skipped.emplace(paths[k], leftOut[k]);
      if (!first) it->second = intersectRanges(it->second, leftOut[k]);
    }
    std::vector<int64_t> ids(f.usrs.size(), -1);
    // Which entities this unit defines, and which of their declarations it has met.
    std::vector<bool> definedHere(f.usrs.size()), declaredHere(f.usrs.size());
    for (const ClangOccurrence& o : f.occurrences)
      if (o.role == ClangRole::Definition && !o.expanded && !o.guessed && !o.unlisted) definedHere[o.usr] = true;
    for (const ClangOccurrence& o : f.occurrences) {
      const std::string& path = paths[o.file];
      if (path.empty()) continue;
      if (ids[o.usr] < 0) {
        auto [it, added] = symbolIds.emplace(f.usrs[o.usr], static_cast<uint32_t>(contents.symbols.size()));
        if (added) {
          contents.symbols.push_back({f.usrs[o.usr], f.names[o.usr], o.kind, {}, {}, {}, {}, {}});
          canonicalFrom.push_back(CanonicalFrom::None);
        }
        ids[o.usr] = it->second;
      }
      uint32_t id = static_cast<uint32_t>(ids[o.usr]);
      const bool foreign = path != own && mainFiles.count(path) > 0;
      // A name only the AST resolves (a dependent member guessed by lookup, a name in a
      // template parameter's type) answers at its own place only: it is no site of the
      // entity's, as clangd's index has none there. (An unlisted macro is a site: see below.)
      const bool macro = static_cast<SymbolKind>(o.kind) == SymbolKind::Macro;
      if (o.guessed || (o.unlisted && o.role == ClangRole::Reference && !macro)) {
        if (astOnlySites.insert({path, o.offset, id}).second)
          byFile[path].push_back({o.offset, o.offset + o.length, id, o.role, false, o.guessed, o.unlisted, foreign});
        continue;
      }
      // The canonical declaration, as clangd's index merges it: the first declaration of the
      // first unit that saw the entity's definition (a function defined in a file that does not
      // include its header is its own canonical declaration there), else of the first unit.
      ClangSymbol& symbol = contents.symbols[id];
      bool canonical = false;
      if (o.role != ClangRole::Reference && !o.expanded && !declaredHere[o.usr]) {
        declaredHere[o.usr] = true;
        if (canonicalFrom[id] == CanonicalFrom::None ||
            (canonicalFrom[id] == CanonicalFrom::Declaring && definedHere[o.usr] && i < realUnits)) {
          for (ClangSite& other : symbol.sites) other.canonical = false;
          canonical = true;
          canonicalFrom[id] = definedHere[o.usr] && i < realUnits ? CanonicalFrom::Defining : CanonicalFrom::Declaring;
        }
      }
      if (!sites.insert({path, o.offset, id, static_cast<uint8_t>(o.role)}).second) {
        if (canonical)
          for (ClangSite& other : symbol.sites)
            if (other.path == path && other.range.startByte == o.offset && other.role == o.role) other.canonical = true;
        continue;
      }
      ByteRange r;
      r.startByte = o.offset;
      r.endByte = o.offset + o.length;
      r.start = {o.line, o.column};
      r.end = {o.line, o.column + o.length};
      // Real units come first: a site seen by one of them is never marked interpolated.
      symbol.sites.push_back({path, r, o.role, o.call, i >= realUnits, canonical, o.expanded, o.macroBody, o.unlisted});
      byFile[path].push_back({o.offset, o.offset + o.length, id, o.role, o.expanded, false, o.unlisted, foreign});
      (i >= realUnits ? interpolatedOnly : compiled).insert(path);
    }
    // Override and base-class edges between entities the repository declares.
    auto link = [&](const std::vector<std::pair<uint32_t, uint32_t>>& edges, std::vector<uint32_t> ClangSymbol::*up,
                    std::vector<uint32_t> ClangSymbol::*down) {
      for (const auto& [from, to] : edges) {
        auto a = symbolIds.find(f.usrs[from]), b = symbolIds.find(f.usrs[to]);
        if (a == symbolIds.end() || b == symbolIds.end() || a->second == b->second) continue;
        (contents.symbols[a->second].*up).push_back(b->second);
        if (down) (contents.symbols[b->second].*down).push_back(a->second);
      }
    };
    link(f.overrides, &ClangSymbol::overrides, &ClangSymbol::overriddenBy);
    link(f.bases, &ClangSymbol::bases, &ClangSymbol::derived);
    link(f.types, &ClangSymbol::types, nullptr);
  }
  mergeAliasedSymbols(contents, byFile);
  // A header's own macro is unlisted under the name a unit reading the header as a system header
  // gives it, because the header's own parse names it with its place (see the worker). Where no
  // unit read the header as a user header, nothing lists its #define and uses there under that
  // other name, so they stay among the place-less macro's sites. (The place-less name's own
  // occurrences in the header are all unlisted, so a listed one there is the other name's.)
  auto isMacro = [&](uint32_t id) { return static_cast<SymbolKind>(contents.symbols[id].kind) == SymbolKind::Macro; };
  std::set<std::tuple<std::string, uint32_t, ClangRole>> locatedMacros;
  for (const auto& [path, occurrences] : byFile)
    for (const ClangFileOccurrence& o : occurrences)
      if (!o.unlisted && isMacro(o.symbol)) locatedMacros.emplace(path, o.start, o.role);
  for (uint32_t id = 0; id < contents.symbols.size(); ++id) {
    if (!isMacro(id)) continue;
    for (ClangSite& site : contents.symbols[id].sites)
      if (site.unlisted && !locatedMacros.count({site.path, site.range.startByte, site.role})) site.unlisted = false;
  }
  for (ClangSymbol& s : contents.symbols) {
    for (std::vector<uint32_t>* ids : {&s.overrides, &s.overriddenBy, &s.bases, &s.derived, &s.types}) {
      std::sort(ids->begin(), ids->end());
      ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
    }
    std::sort(s.sites.begin(), s.sites.end(), [](const ClangSite& a, const ClangSite& b) {
      return a.path != b.path ? a.path < b.path : a.range.startByte != b.range.startByte ? a.range.startByte < b.range.startByte
                                                                                        : a.role < b.role;
    });
  }
  for (auto& [path, occurrences] : byFile) {
    std::sort(occurrences.begin(), occurrences.end(), [&](const ClangFileOccurrence& a, const ClangFileOccurrence& b) {
      // At one offset: the file's own unit's first; an unlisted reference (where clang's
      // indexer reports nothing, or a name a using-declaration brought in) ahead of what the
      // indexer reports, an unlisted declaration and a header's own macro as a unit reading the
      // header as a system header names it after (the header's own parse names it otherwise);
      // a guessed one last.
      auto key = [&](const ClangFileOccurrence& o) {
        bool macro = static_cast<SymbolKind>(contents.symbols[o.symbol].kind) == SymbolKind::Macro;
        bool unlistedFirst = o.unlisted && o.role == ClangRole::Reference && !macro;
        bool unlistedAfter = o.unlisted && !unlistedFirst;
        return std::make_tuple(o.start, o.foreign, o.guessed, !unlistedFirst, unlistedAfter, o.expanded, o.role, o.symbol, o.end);
      };
      return key(a) < key(b);
    });
    occurrences.erase(std::unique(occurrences.begin(), occurrences.end(),
                                  [](const ClangFileOccurrence& a, const ClangFileOccurrence& b) {
                                    return a.start == b.start && a.symbol == b.symbol && a.role == b.role &&
                                           a.expanded == b.expanded && a.guessed == b.guessed && a.unlisted == b.unlisted &&
                                           a.foreign == b.foreign;
                                  }),
                      occurrences.end());
    report.occurrences += occurrences.size();
    contents.files.emplace_back(path, std::move(occurrences));
  }
  for (const std::string& path : interpolatedOnly)
    if (!compiled.count(path)) contents.interpolatedFiles.push_back(path);
  contents.sharedMainFiles.assign(shared.begin(), shared.end());
  report.shared = shared.size();
  for (auto& [path, ranges] : skipped)
    if (!ranges.empty()) contents.skipped.emplace_back(path, std::move(ranges));
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
