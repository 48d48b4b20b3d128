#include "indexer/PreciseBuilder.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <optional>
#include <unordered_set>

#include "indexer/IndexerLaunch.h"
#include "indexer/TsConfigExtends.h"
#include "indexer/UnitMerge.h"
#include "indexer/WorkerProcess.h"
#include "support/FileIo.h"
#include "support/Hash.h"
#include "support/Log.h"
#include "views/ClangFacts.h"
#include "views/ClangView.h"
#include "views/Lmdb.h"

namespace nib {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

bool endsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string fileName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool underNodeModules(const std::string& path) {
  return path.rfind("node_modules/", 0) == 0 || path.find("/node_modules/") != std::string::npos;
}

// The indexed files a project's indexer reads: its languages' sources and its configuration.
bool isInput(const std::string& language, const std::string& path) {
  static const std::vector<std::string_view> kTypeScript = {".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"};
  static const std::vector<std::string_view> kPython = {".py", ".pyi"};
  std::string name = fileName(path);
  if (language == "typescript") {
    if (name == "package.json" || (name.rfind("tsconfig", 0) == 0 && endsWith(name, ".json")) || name == "jsconfig.json") return true;
    return std::any_of(kTypeScript.begin(), kTypeScript.end(), [&](std::string_view e) { return endsWith(path, e); });
  }
  if (name == "pyproject.toml" || name == "pyrightconfig.json" || name == "setup.cfg") return true;
  return std::any_of(kPython.begin(), kPython.end(), [&](std::string_view e) { return endsWith(path, e); });
}

bool isTypeScriptSource(const std::string& path) {
  return endsWith(path, ".ts") || endsWith(path, ".tsx") || endsWith(path, ".mts") || endsWith(path, ".cts");
}

// JavaScript the inferred project reads, as TypeScript's server does for a JavaScript file no
// project holds. Minified bundles are left out: they are build output, not code anyone edits,
// and one can cost the indexer more than the rest of the project.
bool isJavaScriptSource(const std::string& path) {
  return (endsWith(path, ".js") || endsWith(path, ".jsx") || endsWith(path, ".mjs") || endsWith(path, ".cjs")) &&
         !endsWith(path, ".min.js");
}

bool inFolder(const std::string& path, const std::string& dir) {
  return dir.empty() || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

std::string projectName(const PreciseProject& p) {
  return p.language + ":" + (p.inferred() ? "(inferred)" : p.dir.empty() ? "." : p.dir);
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;  // no control characters in a path nib indexes
    out += c;
  }
  return out + "\"";
}

// The tsconfig.json of an inferred project, written in `dir` (under the cache folder): the files
// no project read, with the options TypeScript's server gives its inferred projects — those
// typescript-language-server sets for them (module ESNext, resolution as a bundler does, target
// ES2024, its default library, JSX) and allowJs, which the server's inferred projects always
// have. Not the repository's tsconfig.json's options: a test it excludes is read without them (a
// `lib` of ES2015.Core alone leaves `Object` and `Array#join` undeclared there, where the
// server's inferred project knows them). Not `strict` either, which the server sets: with
// strictNullChecks an optional type (`[string, Options?]`) makes an object literal's contextual
// type a union with undefined, whose properties scip-typescript names as new symbols of the
// literal's own, where the server finds the type's property.
Status writeInferredConfig(const fs::path& dir, const PreciseProject& p, const std::string& root) {
  std::string config =
      "{\"compilerOptions\": {\"noEmit\": true, \"allowJs\": true, \"module\": \"esnext\", \"moduleResolution\": "
      "\"bundler\", \"target\": \"es2024\", \"jsx\": \"react-jsx\", \"allowImportingTsExtensions\": true}, "
      "\"include\": [], \"files\": [";
  for (size_t i = 0; i < p.files.size(); ++i) config += (i ? ", " : "") + jsonString(root + p.files[i]);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status(ErrorCode::IoError, "cannot create " + dir.string() + ": " + ec.message());
  return writeFileAtomic(dir / "tsconfig.json", config + "]}\n");
}

// The key of a project's cached facts: what ran (the indexer's and nib-scip's digests) and
// everything it read.
std::string cacheKey(const PreciseProject& p, const std::string& tools, const std::map<std::string, std::string>& blobIds) {
  Digester d;
  d.add("precise-project").add(uint64_t{kPreciseViewRevision}).add(tools).add(p.language).add(p.dir);
  d.add(uint64_t{p.ownConfigOnly}).add(uint64_t{p.jsconfig});
  for (const std::string& f : p.files) d.add(f);
  for (const auto& [path, blob] : blobIds)
    if (inFolder(path, p.dir) && isInput(p.language, path)) d.add(path).add(blob);
  return d.hex();
}

// What a program said when it failed: its first line naming an error (Node's "Error: ..." after
// a stack trace's header), else its last non-empty line; at most 300 bytes.
std::string whatItSaid(const std::string& text) {
  std::string chosen;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    size_t lead = line.find_first_not_of(" \t");
    if (lead != std::string::npos) {
      line = line.substr(lead);
      if (line.rfind("Error", 0) == 0 || line.find("Error:") != std::string::npos) {
        chosen = line;
        break;
      }
      chosen = line;
    }
    start = end + 1;
  }
  return chosen.size() > 300 ? chosen.substr(0, 300) + "..." : chosen;
}

// Writes `out`, a tsconfig.json for `config`'s project that can lie under the cache folder: the
// copy names the files and the paths its options hold absolutely. TypeScript (the copy beside the
// indexer) reads the configuration as its server does. A tsconfig.json whose base is missing is
// read without its `extends` — the files its own include, exclude and files select, its own
// options. A jsconfig.json is read whole, with what it extends and the defaults TypeScript gives
// a jsconfig.json (allowJs, maxNodeModuleJsDepth 2, allowSyntheticDefaultImports, skipLibCheck),
// its options written back in a configuration's form. Options that only say where output goes
// are left out; nothing is emitted.
constexpr const char* kOwnConfigScript = R"js(
const [indexer, config, out] = process.argv.slice(1);
const fs = require('fs'), path = require('path');
const ts = require(require.resolve('typescript', {paths: [path.dirname(fs.realpathSync(indexer))]}));
const fail = (d) => { console.error('Error: ' + ts.flattenDiagnosticMessageText(d.messageText, ' ')); process.exit(1); };
let options, parsed;
if (path.basename(config) === 'jsconfig.json') {
  parsed = ts.getParsedCommandLineOfConfigFile(config, undefined, {...ts.sys, onUnRecoverableConfigFileDiagnostic: fail});
  options = ts.convertToTSConfig(parsed, config, {getCurrentDirectory: () => path.dirname(config), useCaseSensitiveFileNames: true}).compilerOptions;
} else {
  const read = ts.readConfigFile(config, ts.sys.readFile);
  if (read.error) fail(read.error);
  const raw = read.config || {};
  delete raw.extends;
  parsed = ts.parseJsonConfigFileContent(raw, ts.sys, path.dirname(config));
  options = Object.assign({}, raw.compilerOptions || {});
}
for (const key of ['rootDir', 'outDir', 'outFile', 'declarationDir', 'tsBuildInfoFile', 'composite', 'incremental']) delete options[key];
for (const key of ['baseUrl', 'rootDirs', 'typeRoots']) if (parsed.options[key] !== undefined) options[key] = parsed.options[key];
if (options.paths && options.baseUrl === undefined) options.baseUrl = path.dirname(config);
fs.writeFileSync(out, JSON.stringify({compilerOptions: options, files: parsed.fileNames}));
)js";

Status writeOwnConfig(const fs::path& dir, const fs::path& indexer, const fs::path& config, std::chrono::seconds timeout,
                      const std::function<bool()>& cancelled) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status(ErrorCode::IoError, "cannot create " + dir.string() + ": " + ec.message());
  WorkerResult w = runWorker({"/usr/bin/env", "node", "-e", kOwnConfigScript, "--", indexer.string(), config.string(),
                              (dir / "tsconfig.json").string()},
                             "", timeout, cancelled);
  if (w.status != 0 || w.timedOut)
    return Status(ErrorCode::Internal, config.filename() == "jsconfig.json"
                                           ? "its jsconfig.json could not be read: " + whatItSaid(w.err)
                                           : "its tsconfig.json could not be read without its extends: " + whatItSaid(w.err));
  return Status::ok();
}

struct ProjectRun {
  std::optional<TuFacts> facts;
  std::string failure;
  std::string encoded;  // what nib-scip printed, for the cache
};

// Runs a project's indexer into a scratch SCIP file (one per project: several run at once), then
// nib-scip on it.
ProjectRun runProject(const PreciseBuildInput& in, const PreciseProject& p, const std::string& root, size_t index,
                      IndexerSessions& sessions) {
  ProjectRun run;
  const fs::path& indexer = in.indexers.at(p.language);
  fs::path scratch = in.cacheDir / ("run-" + std::to_string(::getpid()) + "-" + std::to_string(index) + ".scip");
  std::string cwd = (fs::path(root) / p.dir).lexically_normal().string();
  fs::path inferred;
  if (p.inferred()) {
    inferred = in.cacheDir / ("inferred-" + std::to_string(::getpid()));
    if (Status s = writeInferredConfig(inferred, p, root); !s.isOk()) {
      run.failure = s.message();
      return run;
    }
    cwd = inferred.string();
  } else if (p.ownConfigOnly || p.jsconfig) {
    inferred = in.cacheDir / ("own-" + std::to_string(::getpid()) + "-" + std::to_string(index));
    if (Status s = writeOwnConfig(inferred, indexer, fs::path(cwd) / p.configFile(), in.timeout, in.cancelled); !s.isOk()) {
      run.failure = s.message();
      std::error_code ignored;
      fs::remove_all(inferred, ignored);
      return run;
    }
    cwd = inferred.string();
  }
  std::vector<std::string> args = {"index", "--cwd", cwd, "--output", scratch.string()};
  if (p.language == "typescript") {
    args.push_back("--no-progress-bar");
  } else {
    // An explicit, empty environment: scip-python otherwise asks pip for the installed
    // packages (a program of the machine's, and slow); imports from outside the repository
    // then resolve to nothing, which the view does not need.
    fs::path environment = in.cacheDir / "python-environment.json";
    if (!writeFileAtomic(environment, "[]\n").isOk()) {
      run.failure = "cannot write " + environment.string();
      return run;
    }
    for (const char* a : {"--quiet", "--project-version", "0", "--environment"}) args.push_back(a);
    args.push_back(environment.string());
  }
  WorkerResult w = sessions.run(p.language, indexer, args, in.timeout, in.cancelled);
  std::error_code ec;
  if (w.timedOut) run.failure = "timed out after " + std::to_string(in.timeout.count()) + " s";
  else if (w.status != 0) {
    std::string said = whatItSaid(w.err.empty() ? w.out : w.err);
    run.failure = fileName(indexer.string()) + (w.status < 0 ? " did not run" : " exited with status " + std::to_string(w.status)) +
                  (said.empty() ? "" : ": " + said);
  } else {
    WorkerResult imported = runWorker({in.importer.string(), "import", root, scratch.string()}, "", in.timeout, in.cancelled);
    auto facts = imported.status == 0 ? decodeTuFacts(imported.out) : Expected<TuFacts>(Status(ErrorCode::Internal, ""));
    if (imported.timedOut) run.failure = "reading its SCIP timed out";
    else if (imported.status != 0) run.failure = "its SCIP could not be read: " + whatItSaid(imported.err);
    else if (!facts) run.failure = "nib-scip printed unreadable facts: " + facts.status().message();
    else {
      run.facts = std::move(*facts);
      run.encoded = std::move(imported.out);
    }
  }
  fs::remove(scratch, ec);
  if (!inferred.empty()) fs::remove_all(inferred, ec);
  return run;
}

// The inferred project: the indexed TypeScript and JavaScript files (outside node_modules) no
// project's facts hold (writeInferredConfig gives them the options of the server's inferred
// projects).
std::optional<PreciseProject> inferredProject(const PreciseBuildInput& in, const std::string& root,
                                              const std::vector<std::optional<TuFacts>>& results) {
  if (!in.indexers.count("typescript")) return std::nullopt;
  std::unordered_set<std::string> covered;
  for (const std::optional<TuFacts>& r : results)
    if (r)
      for (const std::string& f : r->files)
        if (f.compare(0, root.size(), root) == 0) covered.insert(f.substr(root.size()));
  PreciseProject p;
  p.language = "typescript";
  for (const auto& [path, blob] : in.blobIds) {
    bool script = isTypeScriptSource(path) || isJavaScriptSource(path);
    if (script && !underNodeModules(path) && !covered.count(path)) p.files.push_back(path);
  }
  if (p.files.empty()) return std::nullopt;
  return p;
}

// Every project's facts: from the cache when everything it reads is unchanged, else from its
// indexer. Projects run side by side, up to `threads` at once (each indexer is one Node
// process); then the inferred TypeScript project, whose files are those no other project read.
// A symbol of a repository file that no project defines under the name a using project gave
// it: scip-typescript names a declaration of a file in another project by that project's rules
// (a test project's use of src/cronParser.ts, tsconfig.json's `references` pointing at src, as
// `npm cronstrue 2.21.0 src/cronParser.ts/CronParser#` where the src project itself says
// `. . cronParser.ts/CronParser#`). Such a symbol is the one defined symbol with the same file
// name and descriptors whose repository path ends with the path the using project spelled;
// where none or several are, it stays as it is (defined outside the repository, as far as the
// view knows).
struct FileSymbol {
  std::vector<std::string_view> path;  // the namespace descriptors up to the source file's
  std::string_view rest;               // the descriptors after it
};
std::optional<FileSymbol> fileSymbolOf(std::string_view usr) {
  static constexpr std::string_view kTool = "scip-typescript ";
  if (usr.substr(0, kTool.size()) != kTool) return std::nullopt;
  size_t at = kTool.size();
  for (int field = 0; field < 3; ++field) {  // the package: manager, name, version
    at = usr.find(' ', at);
    if (at == std::string_view::npos) return std::nullopt;
    ++at;
  }
  FileSymbol f;
  while (at < usr.size()) {
    size_t slash = usr.find('/', at);
    if (slash == std::string_view::npos) return std::nullopt;
    std::string_view name = usr.substr(at, slash - at);
    if (name.size() >= 2 && name.front() == '`' && name.back() == '`') name = name.substr(1, name.size() - 2);
    f.path.push_back(name);
    at = slash + 1;
    if (const std::string file(name); isTypeScriptSource(file) || isJavaScriptSource(file)) {
      f.rest = usr.substr(at);
      return f;
    }
  }
  return std::nullopt;
}

void linkReferencedProjectSymbols(std::vector<std::optional<TuFacts>>& facts) {
  std::unordered_set<std::string> defined;
  for (const auto& f : facts)
    if (f)
      for (const ClangOccurrence& o : f->occurrences)
        if (o.role == ClangRole::Definition) defined.insert(f->usrs[o.usr]);
  // By file name and the descriptors after it: the defined symbols.
  std::unordered_map<std::string, std::vector<std::pair<const std::string*, FileSymbol>>> byKey;
  for (const std::string& usr : defined)
    if (auto f = fileSymbolOf(usr)) byKey[std::string(f->path.back()) + "/" + std::string(f->rest)].emplace_back(&usr, *f);
  for (auto& f : facts) {
    if (!f) continue;
    for (std::string& usr : f->usrs) {
      if (defined.count(usr)) continue;
      auto used = fileSymbolOf(usr);
      // A module's default export or renaming export (scip/TypeScriptExports) is named by its
      // module's own symbol or path, never by another project's: a file of the same name's
      // (deno.ts beside lib/platform-shims/deno.ts) is not it.
      if (!used || used->rest.rfind("`<default>`", 0) == 0 || used->rest.rfind("`<export ", 0) == 0) continue;
      auto it = byKey.find(std::string(used->path.back()) + "/" + std::string(used->rest));
      if (it == byKey.end()) continue;
      const std::string* match = nullptr;
      size_t matches = 0;
      for (const auto& [candidate, file] : it->second)
        if (file.path.size() >= used->path.size() &&
            std::equal(used->path.begin(), used->path.end(), file.path.end() - static_cast<std::ptrdiff_t>(used->path.size()))) {
          match = candidate;
          ++matches;
        }
      if (matches == 1) usr = *match;
    }
  }
}

struct ProjectResults {
  std::vector<PreciseProject> projects;
  std::vector<std::optional<TuFacts>> facts;  // parallel to projects; nullopt: failed
  std::vector<std::string> keys, failures;
  size_t indexed = 0, cached = 0;
};

ProjectResults runProjects(const PreciseBuildInput& in, std::vector<PreciseProject> projects, const std::string& tools,
                           const std::string& root, LmdbEnv* cacheEnv) {
  ProjectResults out;
  size_t n = projects.size();
  out.projects = std::move(projects);
  out.facts.resize(n);
  out.keys.resize(n);
  out.failures.resize(n);
  for (size_t i = 0; i < n; ++i) {
    PreciseProject& p = out.projects[i];
    if (p.configuredTypeScript()) {
      fs::path dir = fs::path(root) / p.dir;
      auto text = readFile(dir / p.configFile());
      std::optional<std::string> extends = text ? tsconfigExtends(*text) : std::nullopt;
      p.ownConfigOnly = !p.jsconfig && extends && !tsconfigExtendsResolves(dir, *extends);
      p.composite = text && tsconfigIsComposite(dir, *text);
    }
    out.keys[i] = cacheKey(p, tools, in.inputs);
  }
  std::mutex cacheMutex;
  std::atomic<size_t> next{0}, done{0}, indexed{0}, cached{0};
  IndexerSessions sessions;
  auto work = [&] {
    for (;;) {
      size_t i = next++;
      if (i >= n || (in.cancelled && in.cancelled())) return;
      if (cacheEnv) {
        std::lock_guard<std::mutex> g(cacheMutex);
        auto txn = LmdbTxn::begin(*cacheEnv, false);
        auto db = txn ? txn->openDb("projects", false) : Expected<MDB_dbi>(Status(ErrorCode::NotFound, ""));
        auto raw = db ? txn->get(*db, out.keys[i]) : Expected<std::string_view>(Status(ErrorCode::NotFound, ""));
        if (raw)
          if (auto facts = decodeTuFacts(*raw)) {
            out.facts[i] = std::move(*facts);
            ++cached;
          }
      }
      if (!out.facts[i]) {
        ProjectRun run = runProject(in, out.projects[i], root, i, sessions);
        if (run.facts) {
          ++indexed;
          out.facts[i] = std::move(run.facts);
          std::lock_guard<std::mutex> g(cacheMutex);
          if (cacheEnv)
            if (auto txn = LmdbTxn::begin(*cacheEnv, true))
              if (auto db = txn->openDb("projects", true); db && txn->put(*db, out.keys[i], run.encoded).isOk())
                (void)txn->commit();
        } else {
          out.failures[i] = run.failure;
        }
      }
      if (in.progress) in.progress(++done, n);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<size_t>(std::max(1u, in.threads), n); ++t) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  if (std::optional<PreciseProject> p = inferredProject(in, root, out.facts); p && !(in.cancelled && in.cancelled())) {
    out.projects.push_back(std::move(*p));
    out.keys.push_back(cacheKey(out.projects.back(), tools, in.inputs));
    out.facts.emplace_back();
    out.failures.emplace_back();
    n = out.projects.size();
    next = n - 1;
    work();
  }
  out.indexed = indexed;
  out.cached = cached;
  return out;
}

}  // namespace

std::vector<PreciseProject> findPreciseProjects(const std::map<std::string, std::string>& blobIds) {
  std::map<std::string, bool> folders;  // folder -> its configuration is a jsconfig.json
  bool python = false;
  for (const auto& [path, blob] : blobIds) {
    std::string name = fileName(path);
    if ((name == "tsconfig.json" || name == "jsconfig.json") && !underNodeModules(path)) {
      size_t slash = path.rfind('/');
      std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
      bool js = name == "jsconfig.json";
      auto [it, added] = folders.emplace(dir, js);
      if (!added && !js) it->second = false;  // a tsconfig.json beside it wins, as in TypeScript's server
    }
    python = python || endsWith(path, ".py") || endsWith(path, ".pyi");
  }
  std::vector<PreciseProject> projects;
  for (const auto& [dir, js] : folders) {
    projects.push_back({.language = "typescript", .dir = dir});
    projects.back().jsconfig = js;
  }
  if (python) projects.push_back({.language = "python", .dir = ""});
  return projects;
}

namespace {

// Each TypeScript and JavaScript file's place among the programs (FileProgram): the configured
// projects that read it as a root file, the nearest tsconfig.json first (TypeScript's server
// opens a file in that one), and the files it imports — the places that name a module
// (scip-typescript writes the module's symbol at `from "./m"` and `require("./m")`), each leading
// to the file that defines that module.
void addPrograms(ClangViewContents& contents, const ProjectResults& ran, size_t realProjects, const std::string& root) {
  for (size_t i = 0; i < realProjects && i < ran.projects.size(); ++i) {
    contents.programs.folders.push_back(ran.projects[i].dir);
    contents.programs.composite.push_back(ran.projects[i].composite);
  }
  for (size_t i = 0; i < realProjects && i < ran.projects.size(); ++i) {
    if (!ran.projects[i].configuredTypeScript() || !ran.facts[i]) continue;
    for (const std::string& file : ran.facts[i]->files) {
      if (file.compare(0, root.size(), root) != 0) continue;
      FileProgram& p = contents.programs.files[file.substr(root.size())];
      p.projects.push_back(static_cast<uint32_t>(i + 1));
    }
  }
  auto depth = [&](uint32_t project) {
    const std::string& dir = ran.projects[project - 1].dir;
    return dir.empty() ? 0 : 1 + std::count(dir.begin(), dir.end(), '/');
  };
  std::map<std::string, FileProgram>& programs = contents.programs.files;
  for (auto& [path, p] : programs)
    std::stable_sort(p.projects.begin(), p.projects.end(), [&](uint32_t a, uint32_t b) { return depth(a) > depth(b); });
  for (const ClangSymbol& s : contents.symbols) {
    if (s.usr.empty() || s.usr.back() != '/') continue;
    const ClangSite* module = nullptr;
    for (const ClangSite& site : s.sites)
      if (site.role == ClangRole::Definition && site.range.startByte == site.range.endByte) module = &site;
    if (!module) continue;
    for (const ClangSite& site : s.sites)
      if (site.role == ClangRole::Reference && site.path != module->path) programs[site.path].imports.push_back(module->path);
  }
  for (auto& [path, p] : programs) {
    std::sort(p.imports.begin(), p.imports.end());
    p.imports.erase(std::unique(p.imports.begin(), p.imports.end()), p.imports.end());
  }
}

}  // namespace

PreciseBuildReport buildPreciseView(const PreciseBuildInput& in) {
  PreciseBuildReport report;
  report.view.name = "precise";
  report.view.capabilities = {"definitions", "references", "implementations", "type-definitions", "scip"};
  auto started = Clock::now();
  std::error_code ec;
  std::string root = fs::weakly_canonical(in.root, ec).string() + "/";
  std::vector<PreciseProject> projects;
  for (PreciseProject& p : findPreciseProjects(in.inputs))
    if (in.indexers.count(p.language)) projects.push_back(std::move(p));
  bool typescriptFiles = in.indexers.count("typescript") && std::any_of(in.blobIds.begin(), in.blobIds.end(), [](const auto& e) {
    return (isTypeScriptSource(e.first) || isJavaScriptSource(e.first)) && !underNodeModules(e.first);
  });
  if (projects.empty() && !typescriptFiles) return report;  // Absent: nothing a precise indexer covers

  fs::create_directories(in.cacheDir, ec);
  LmdbEnv::Options cacheOptions;
  cacheOptions.noSync = true;  // a lost cache entry only costs a re-index
  auto cacheEnv = LmdbEnv::open(in.cacheDir, cacheOptions);
  std::string tools;
  for (const fs::path& exe : {in.importer, in.indexers.count("typescript") ? in.indexers.at("typescript") : fs::path(),
                              in.indexers.count("python") ? in.indexers.at("python") : fs::path()}) {
    auto digest = exe.empty() ? Expected<std::string>(std::string()) : digestFile(fs::canonical(exe, ec));
    tools += (digest ? *digest : std::string("?")) + ";";
  }

  ProjectResults ran = runProjects(in, std::move(projects), tools, root, cacheEnv ? cacheEnv->get() : nullptr);
  report.indexed = ran.indexed;
  report.cached = ran.cached;
  report.projects = ran.projects.size();
  for (size_t i = 0; i < ran.projects.size(); ++i)
    if (!ran.facts[i] && !ran.failures[i].empty()) {
      ++report.failed;
      if (report.failures.size() < 20) report.failures.emplace_back(projectName(ran.projects[i]), ran.failures[i]);
    }
  if (in.cancelled && in.cancelled()) {
    report.view.status = ViewStatus::Failed;
    report.view.error = "cancelled";
    return report;
  }
  // The cache keeps this build's projects only.
  if (cacheEnv) {
    std::unordered_set<std::string_view> used(ran.keys.begin(), ran.keys.end());
    auto swept = retainCacheKeys(**cacheEnv, "projects", used, 1.5);
    Expected<bool> compacted = swept && *swept > 0 ? compactIfSparse(**cacheEnv, in.cacheDir) : Expected<bool>(false);
    if (!swept || !compacted)
      logWarn("the precise cache was not collected: " + (swept ? compacted.status() : swept.status()).message());
  }
  report.view.profile = "scip;projects=" + std::to_string(report.projects);
  if (report.failed == report.projects) {
    report.view.status = ViewStatus::Failed;
    report.view.error = "every project's indexer failed; " + report.failures.front().first + ": " + report.failures.front().second;
    return report;
  }
  linkReferencedProjectSymbols(ran.facts);
  // Files no tsconfig.json includes (tests and demos a configured project leaves out), in the
  // inferred project, which comes last, are like files no compile command builds in the clang
  // view (their sites are marked so; definitions elsewhere use them only when nothing else
  // answers). Where no tsconfig.json exists, the inferred project counts as a real one. Which
  // files a TypeScript file's references come from is decided by the programs (addPrograms).
  bool configured = false;  // a tsconfig.json's project that the indexer could read
  for (size_t i = 0; i < ran.projects.size(); ++i)
    configured = configured || (ran.projects[i].configuredTypeScript() && ran.facts[i]);
  const bool inferredLast = !ran.projects.empty() && ran.projects.back().inferred();
  const size_t realProjects = configured && inferredLast ? ran.projects.size() - 1 : ran.projects.size();
  ClangViewContents contents = mergeUnitFacts(root, in.blobIds, ran.facts, realProjects);
  addPrograms(contents, ran, realProjects, root);
  for (const auto& [path, occurrences] : contents.files) report.occurrences += occurrences.size();
  report.symbols = contents.symbols.size();
  report.files = contents.files.size();
  fs::remove_all(in.dir, ec);
  fs::create_directories(in.dir, ec);
  Status s = ec ? Status(ErrorCode::IoError, ec.message()) : writeClangView(in.dir, contents);
  auto digest = s.isOk() ? digestFile(in.dir / "data.mdb") : Expected<std::string>(s);
  if (!digest) {
    report.view.status = ViewStatus::Failed;
    report.view.error = digest.status().message();
    fs::remove_all(in.dir, ec);
    return report;
  }
  report.view.status = ViewStatus::Complete;
  report.view.artifacts.push_back({"precise/data.mdb", *digest, fs::file_size(in.dir / "data.mdb")});
  report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return report;
}

}  // namespace nib
