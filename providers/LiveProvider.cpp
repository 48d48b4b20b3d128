#include "providers/LiveProvider.h"

#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>

#include "protocol/LspBackend.h"
#include "protocol/PositionEncoder.h"
#include "protocol/Uri.h"
#include "support/FileIo.h"
#include "support/RepoPath.h"

namespace nib {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Expected<ProviderPolicy> parseProviderPolicy(std::string_view name) {
  if (name == "auto") return ProviderPolicy::Auto;
  if (name == "static") return ProviderPolicy::Static;
  if (name == "live") return ProviderPolicy::Live;
  if (name == "compare") return ProviderPolicy::Compare;
  return Status(ErrorCode::InvalidArgument,
                "unknown provider policy '" + std::string(name) + "' (expected auto, static, live or compare)");
}

const char* providerPolicyName(ProviderPolicy policy) {
  switch (policy) {
    case ProviderPolicy::Auto: return "auto";
    case ProviderPolicy::Static: return "static";
    case ProviderPolicy::Live: return "live";
    case ProviderPolicy::Compare: return "compare";
  }
  return "auto";
}

LineKeys linesOnlyIn(const LineKeys& a, const LineKeys& b) {
  LineKeys out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

std::string describeLines(const LineKeys& keys, size_t limit, const std::string& empty) {
  std::string out;
  size_t n = 0;
  for (const auto& [path, line] : keys) {
    if (n++ == limit) return out + " …";
    out += (out.empty() ? "" : " ") + path + ":" + std::to_string(toDisplayLine(line));
  }
  return out.empty() ? empty : out;
}

bool staticCanBeExact(Language language) { return language != Language::Cpp && language != Language::Unknown; }

const char* lspLanguageId(Language language) {
  switch (language) {
    case Language::C: return "c";
    case Language::Cpp: return "cpp";
    case Language::Python: return "python";
    case Language::JavaScript: return "javascript";
    case Language::TypeScript: return "typescript";
    case Language::Tsx: return "typescriptreact";
    default: return languageName(language);
  }
}

namespace {
bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

bool onPath(const std::string& name) { return findExecutable(name).has_value(); }

// The tsserver typescript-language-server is to run: the TypeScript installed beside it (its
// own node_modules, or the one it sits in). Left to itself it prefers the workspace's
// node_modules/typescript — code from the repository, run by opening it — so nib always names
// one, and never one inside the repository.
std::optional<fs::path> trustedTsserver(const std::string& command, const fs::path& root) {
  auto program = findExecutable(command);
  if (!program) return std::nullopt;
  std::error_code ec;
  fs::path real = fs::canonical(*program, ec);
  if (ec) return std::nullopt;
  const fs::path repo = fs::weakly_canonical(root, ec);
  for (fs::path dir = real.parent_path(); !dir.empty() && dir != dir.parent_path(); dir = dir.parent_path()) {
    std::vector<fs::path> candidates{dir / "node_modules" / "typescript" / "lib" / "tsserver.js"};
    if (dir.filename() == "node_modules") candidates.push_back(dir / "typescript" / "lib" / "tsserver.js");
    for (const fs::path& candidate : candidates) {
      if (!fs::is_regular_file(candidate, ec)) continue;
      fs::path found = fs::canonical(candidate, ec);
      if (ec) continue;
      auto [r, f] = std::mismatch(repo.begin(), repo.end(), found.begin(), found.end());
      if (r == repo.end()) return std::nullopt;  // inside the repository: not to be run
      return found;
    }
  }
  return std::nullopt;
}
}  // namespace

bool buildsIndex(const std::vector<std::string>& argv) {
  return std::find(argv.begin(), argv.end(), "--background-index") != argv.end();
}

std::map<Language, std::vector<std::string>> defaultLiveCommands(const fs::path& backendsBin) {
  std::map<Language, std::vector<std::string>> out;
  // Without its background index clangd answers references from the files it has open (and
  // their headers) only; with it, clangd 14 writes .cache/clangd/ into the repository, which
  // would show up as worktree changes in nib's own freshness checks. nib's index is the
  // cross-file index; clangd is asked where exact compiler semantics matter.
  std::vector<std::string> clangd = {"clangd", "--background-index=false", "--log=error"};
  out[Language::C] = clangd;
  out[Language::Cpp] = clangd;
  // The python3 first on PATH may not be the one pylsp was installed for.
  out[Language::Python] = {executable("/usr/bin/pylsp") ? "/usr/bin/pylsp" : "pylsp"};
  std::string tsls = "typescript-language-server";
  if (!onPath(tsls) && !backendsBin.empty() && executable(backendsBin / tsls)) tsls = (backendsBin / tsls).string();
  for (Language l : {Language::JavaScript, Language::TypeScript, Language::Tsx}) out[l] = {tsls, "--stdio"};
  return out;
}

Status parseLiveCommand(std::string_view spec, std::map<Language, std::vector<std::string>>* commands,
                        const fs::path& backendsBin) {
  size_t eq = spec.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return Status(ErrorCode::InvalidArgument, "a live command is LANGUAGE=COMMAND, got '" + std::string(spec) + "'");
  std::string lang(spec.substr(0, eq));
  std::vector<Language> languages;
  if (lang == "c") languages = {Language::C};
  else if (lang == "cpp" || lang == "c++") languages = {Language::Cpp};
  else if (lang == "python") languages = {Language::Python};
  else if (lang == "javascript" || lang == "js") languages = {Language::JavaScript};
  else if (lang == "typescript" || lang == "ts") languages = {Language::TypeScript, Language::Tsx};
  else
    return Status(ErrorCode::InvalidArgument,
                  "no live backend can be configured for '" + lang + "' (c, cpp, python, javascript, typescript)");
  std::vector<std::string> argv;
  std::stringstream words{std::string(spec.substr(eq + 1))};
  std::string w;
  while (words >> w) argv.push_back(w);
  // `python=pyright`: pyright's language server, from PATH, else the pinned copy.
  if (argv == std::vector<std::string>{"pyright"}) {
    std::string server = "pyright-langserver";
    if (!onPath(server) && !backendsBin.empty() && executable(backendsBin / server)) server = (backendsBin / server).string();
    argv = {server, "--stdio"};
  }
  for (Language l : languages) {
    if (argv.empty()) commands->erase(l);  // "python=": no live backend for the language
    else (*commands)[l] = argv;
  }
  return Status::ok();
}

LiveProvider::LiveProvider(LiveSettings settings, std::function<Expected<std::string>(const std::string&)> readFile,
                           std::function<void(const std::string&)> log)
    : settings_(std::move(settings)), readFile_(std::move(readFile)), log_(std::move(log)) {}

LiveProvider::~LiveProvider() {
  // Backends stop in parallel: each waits up to half a second for an orderly exit.
  std::vector<std::thread> stops;
  for (auto& [key, b] : backends_)
    if (b.process) stops.emplace_back([p = std::move(b.process)]() mutable { p.reset(); });
  for (auto& t : stops) t.join();
}

void LiveProvider::logOnce(const std::string& message) {
  {
    std::lock_guard<std::mutex> g(logMutex_);
    if (std::find(logged_.begin(), logged_.end(), message) != logged_.end()) return;
    logged_.push_back(message);
  }
  if (log_) log_(message);
}

LiveProvider::Backend* LiveProvider::backendFor(Language language) {
  auto it = settings_.commands.find(language);
  if (it == settings_.commands.end()) return nullptr;
  std::string key;
  for (const std::string& a : it->second) key += (key.empty() ? "" : " ") + a;
  Backend& b = backends_[key];
  b.key = key;
  b.argv = it->second;
  return &b;
}

// Editor buffers only touch editorMutex_, which nothing holds across I/O: the LSP server
// records them from its reader thread, which must never wait for a backend.
void LiveProvider::openBuffer(const std::string& path, Language language, const std::string& text) {
  std::lock_guard<std::mutex> g(editorMutex_);
  editor_[path] = {language, text};
}

void LiveProvider::updateBuffer(const std::string& path, const std::string& text) {
  std::lock_guard<std::mutex> g(editorMutex_);
  if (auto it = editor_.find(path); it != editor_.end()) it->second.second = text;
}

void LiveProvider::closeBuffer(const std::string& path) {
  std::lock_guard<std::mutex> g(editorMutex_);
  editor_.erase(path);
}

void LiveProvider::reconcileEditor(Backend& b) {
  // With mutex_ held: the backend's documents take the editor's text; a buffer the editor
  // closed goes back to the disk's text (read again before the next request on it).
  std::map<std::string, std::pair<Language, std::string>> editor;
  {
    std::lock_guard<std::mutex> g(editorMutex_);
    editor = editor_;
  }
  for (const auto& [path, buffer] : editor) {
    if (backendFor(buffer.first) != &b) continue;
    Document& d = b.documents[path];
    if (!d.fromEditor || d.text != buffer.second) {
      d.text = buffer.second;
      d.sent = false;
    }
    d.fromEditor = true;
    d.language = buffer.first;
  }
  for (auto& [path, d] : b.documents)
    if (d.fromEditor && !editor.count(path)) d.fromEditor = false;
}

Expected<std::shared_ptr<LspBackend>> LiveProvider::ensureStarted(Backend& b, bool* started) {
  // Called with b.startMutex held (not mutex_): starting takes seconds and must not stall
  // document updates, which the LSP server records from its reader thread.
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (b.process && b.process->alive()) return b.process;
    auto now = Clock::now();
    if (b.process) {
      logOnce("the live backend `" + b.key + "` stopped: " + b.process->deathReason());
      b.process.reset();
    }
    b.starts.erase(std::remove_if(b.starts.begin(), b.starts.end(),
                                  [&](Clock::time_point t) { return now - t > std::chrono::minutes(1); }),
                   b.starts.end());
    if (static_cast<int>(b.starts.size()) >= kMaxRestarts)
      return Status(ErrorCode::Unavailable, "the live backend `" + b.key + "` was started " +
                                                std::to_string(kMaxRestarts) + " times in the last minute; not again yet");
    // A command that could not start is tried again after a pause, not on every request.
    if (!b.failure.empty() && now - b.failedAt < std::chrono::seconds(30)) return Status(ErrorCode::Unavailable, b.failure);
    b.starts.push_back(now);
  }
  BackendOptions options;
  options.argv = b.argv;
  options.root = settings_.root;
  options.stderrPath = settings_.stderrPath;
  options.startTimeout = settings_.startTimeout;
  // typescript-language-server answers from a syntax-only server until the project is loaded:
  // answers would change from one run to the next. nib asks for the full server only, names
  // the tsserver it runs (trustedTsserver), and turns off automatic type acquisition, which
  // would run npm against the registry for a JavaScript repository.
  if (fs::path(b.argv[0]).filename() == "typescript-language-server") {
    auto tsserver = trustedTsserver(b.argv[0], settings_.root);
    if (!tsserver) {
      std::lock_guard<std::mutex> g(mutex_);
      b.failure = "no TypeScript installed beside `" + b.argv[0] +
                  "` (nib does not let it run the repository's own node_modules/typescript)";
      b.failedAt = Clock::now();
      logOnce("the live backend is unavailable: " + b.failure);
      return Status(ErrorCode::Unavailable, b.failure);
    }
    options.initializationOptions = typescriptInitializationOptions(tsserver->string());
  }
  auto process = LspBackend::start(options);
  std::lock_guard<std::mutex> g(mutex_);
  if (!process) {
    b.failure = process.status().message();
    b.failedAt = Clock::now();
    logOnce("the live backend is unavailable: " + b.failure);
    return process.status();
  }
  b.failure.clear();
  b.timeouts = 0;
  b.process = std::move(*process);
  // A new process knows no documents: everything is sent again before the next request.
  for (auto& [path, d] : b.documents) {
    d.sent = d.everOpened = false;
    d.version = 1;
  }
  *started = true;
  return b.process;
}

Expected<LiveLocation> LiveProvider::mapLocation(const BackendLocation& l, TextCache& texts) {
  LiveLocation out;
  out.uri = l.uri;
  out.wire = l.range;
  auto abs = uriToPath(l.uri);
  if (!abs) return abs.status();
  auto rel = RepoPath::fromFilesystem(settings_.root, *abs);
  auto utf16 = [&] {
    out.range.start = {l.range.start.line, l.range.start.character};
    out.range.end = {l.range.end.line, l.range.end.character};
  };
  if (!rel) {
    // Outside the workspace (system headers, node_modules of the platform): nib never reads it.
    out.inWorkspace = false;
    out.path = *abs;
    utf16();
    return out;
  }
  out.path = rel->str();
  const CachedText& text = cachedText(out.path, texts);
  if (!text.encoder) {
    utf16();
    return out;
  }
  out.range.start = text.encoder->fromWire(l.range.start);
  out.range.end = text.encoder->fromWire(l.range.end);
  return out;
}

// Each file is read and indexed once per answer (references can list hundreds of lines of it):
// the editor's buffer, else the disk.
const LiveProvider::CachedText& LiveProvider::cachedText(const std::string& path, TextCache& texts) {
  auto it = texts.find(path);
  if (it != texts.end()) return *it->second;
  auto entry = std::make_unique<CachedText>();
  {
    std::lock_guard<std::mutex> g(editorMutex_);
    if (auto e = editor_.find(path); e != editor_.end()) entry->text = e->second.second;
  }
  if (entry->text.empty() && readFile_)
    if (auto disk = readFile_(path)) entry->text = std::move(*disk);
  if (!entry->text.empty()) entry->encoder.emplace(entry->text, false, Encoding::Utf16);
  return *texts.emplace(path, std::move(entry)).first->second;
}

size_t LiveProvider::addIndexReferences(LiveAnswer& answer, const std::vector<SymbolLocation>& index) {
  std::set<std::string> listed;
  for (const LiveLocation& l : answer.locations)
    if (l.inWorkspace) listed.insert(l.path);
  TextCache texts;
  size_t added = 0;
  for (const SymbolLocation& s : index) {
    if (listed.count(s.path)) continue;
    LiveLocation l;
    l.path = s.path;
    l.range = s.range;
    l.uri = pathToUri((settings_.root / s.path).string());
    if (s.ascii) {
      l.wire = {{s.range.start.line, s.range.start.column}, {s.range.end.line, s.range.end.column}};
    } else {
      const CachedText& text = cachedText(s.path, texts);
      if (!text.encoder) continue;  // gone since the index was built: no place to give
      l.wire = text.encoder->toWire(s.range);
    }
    answer.locations.push_back(std::move(l));
    ++added;
  }
  answer.fromIndex += added;
  answer.indexMerged = true;
  return added;
}

Expected<LiveAnswer> LiveProvider::request(const std::string& method, const std::string& path, Language language,
                                           Position position, bool includeDeclaration,
                                           const std::function<bool()>& cancelled) {
  auto begin = Clock::now();
  auto found = lookup(language);
  if (!found) return found.status();
  Backend* b = *found;
  std::shared_ptr<std::mutex> startMutex = b->startMutex;
  LiveAnswer answer;
  std::shared_ptr<LspBackend> process;
  {
    std::lock_guard<std::mutex> s(*startMutex);
    auto p = ensureStarted(*b, &answer.started);
    if (!p) return p.status();
    process = *p;
  }
  answer.backend = process->serverName();
  if (!process->answers(method))
    return Status(ErrorCode::Unsupported, answer.backend + " does not answer " + method);

  // Bring the backend's documents up to date: the editor's buffers, and this file from disk
  // when the editor does not have it open.
  std::string uri = pathToUri((settings_.root / path).string());
  std::string text;
  {
    std::lock_guard<std::mutex> g(mutex_);
    // The backend may have been replaced since it was fetched (a restart after timeouts):
    // documents recorded against the old process would never reach the new one.
    if (b->process != process) return Status(ErrorCode::Unavailable, "the live backend `" + b->key + "` restarted meanwhile");
    reconcileEditor(*b);
    if (!b->documents.count(path) || !b->documents[path].fromEditor) {
      auto disk = readFile_(path);
      if (!disk) return disk.status();
      Document& d = b->documents[path];
      if (d.text != *disk || !d.everOpened) {
        d.text = std::move(*disk);
        d.sent = false;
      }
      d.fromEditor = false;
      d.language = language;
    }
    Document& target = b->documents[path];
    answer.cold = !target.everOpened;
    for (auto& [p, d] : b->documents) {
      if (d.sent) continue;
      std::string u = pathToUri((settings_.root / p).string());
      Status s = !d.everOpened ? process->didOpen(u, lspLanguageId(d.language), d.version, d.text)
                               : process->didChange(u, ++d.version, d.text);
      if (!s.isOk()) return s;
      d.sent = d.everOpened = true;
    }
    target.lastUse = ++useClock_;
    text = target.text;
    // Files nib opened itself are closed again, least recently used first.
    size_t own = 0;
    for (auto& [p, d] : b->documents) own += !d.fromEditor;
    while (own > settings_.maxOpenFiles) {
      auto victim = b->documents.end();
      for (auto it = b->documents.begin(); it != b->documents.end(); ++it)
        if (!it->second.fromEditor && it->first != path &&
            (victim == b->documents.end() || it->second.lastUse < victim->second.lastUse))
          victim = it;
      if (victim == b->documents.end()) break;
      (void)process->didClose(pathToUri((settings_.root / victim->first).string()));
      b->documents.erase(victim);
      --own;
    }
  }

  PositionEncoder enc(text, false, Encoding::Utf16);
  // A backend that builds an index reports it as work-done progress; until its first index has
  // ended (clangd announces it only after it has loaded the compilation database), its answers
  // may miss the files it has not read.
  bool busy = process->activeProgress() > 0 || (buildsIndex(b->argv) && process->endedProgress() == 0);
  auto result = process->locations(method, uri, enc.toWire(position), includeDeclaration, settings_.timeout, cancelled);
  answer.indexing = busy || process->activeProgress() > 0;
  if (!result) {
    std::lock_guard<std::mutex> g(mutex_);
    if (result.status().code() == ErrorCode::TimedOut && ++b->timeouts >= kTimeoutsBeforeRestart && b->process == process) {
      // A backend that keeps missing its deadline is started afresh (its answers would come
      // too late for every request meanwhile).
      logOnce("the live backend `" + b->key + "` timed out " + std::to_string(b->timeouts) + " times in a row: restarting it");
      std::thread([p = std::move(b->process)]() mutable { p.reset(); }).detach();
      b->timeouts = 0;
      for (auto& [p, d] : b->documents) {
        d.sent = d.everOpened = false;
        d.version = 1;
      }
    }
    if (result.status().code() == ErrorCode::Unavailable) logOnce("the live backend `" + b->key + "` failed: " + result.status().message());
    return result.status();
  }
  {
    std::lock_guard<std::mutex> g(mutex_);
    b->timeouts = 0;
    // A backend that answered is healthy: the restart limit counts starts that never led to an
    // answer (a command that crashes on every request), not deaths from outside after good
    // service (the OOM killer, a user's kill), which are restarted however many there are.
    if (b->process == process) b->starts.clear();
  }
  TextCache texts;
  for (const BackendLocation& l : *result) {
    auto loc = mapLocation(l, texts);
    if (!loc) continue;  // a URI that is not a file: nothing nib can show
    answer.locations.push_back(std::move(*loc));
  }
  answer.milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
  return answer;
}

Expected<LiveAnswer> LiveProvider::definition(const std::string& path, Language language, Position position,
                                              const std::function<bool()>& cancelled) {
  return request("textDocument/definition", path, language, position, false, cancelled);
}

Expected<LiveAnswer> LiveProvider::references(const std::string& path, Language language, Position position,
                                              bool includeDeclaration, const std::function<bool()>& cancelled) {
  return request("textDocument/references", path, language, position, includeDeclaration, cancelled);
}

Expected<LiveAnswer> LiveProvider::locate(NavigationKind kind, const std::string& path, Language language,
                                          Position position, bool includeDeclaration,
                                          const std::function<bool()>& cancelled) {
  return request(std::string("textDocument/") + navigationKindName(kind), path, language, position, includeDeclaration,
                 cancelled);
}

Expected<LiveProvider::Backend*> LiveProvider::lookup(Language language) {
  std::lock_guard<std::mutex> g(mutex_);
  Backend* b = backendFor(language);
  if (!b) return Status(ErrorCode::Unsupported, std::string("no live backend is configured for ") + languageName(language));
  return b;
}

Status LiveProvider::warmUp(Language language) {
  auto b = lookup(language);
  if (!b) return b.status();
  std::lock_guard<std::mutex> s(*(*b)->startMutex);
  bool started = false;
  auto p = ensureStarted(**b, &started);
  return p ? Status::ok() : p.status();
}

bool LiveProvider::waitForQuiet(Language language, std::chrono::milliseconds quiet, std::chrono::milliseconds timeout) {
  std::shared_ptr<LspBackend> process;
  {
    std::lock_guard<std::mutex> g(mutex_);
    Backend* b = backendFor(language);
    if (!b || !b->process) return false;
    process = b->process;
  }
  return process->waitForQuiet(quiet, timeout);
}

Status LiveProvider::awaitReady(Language language, std::chrono::milliseconds quiet, std::chrono::milliseconds timeout,
                                const std::function<bool()>& cancelled) {
  if (Status s = warmUp(language); !s.isOk()) return s;
  std::shared_ptr<LspBackend> process;
  bool indexes = false;
  {
    std::lock_guard<std::mutex> g(mutex_);
    Backend* b = backendFor(language);
    if (!b || !b->process) return Status(ErrorCode::Unavailable, "the live backend stopped");
    process = b->process;
    indexes = buildsIndex(b->argv);
  }
  // Polled in short waits, so that a cancellation is seen within a tenth of a second.
  auto deadline = std::chrono::steady_clock::now() + timeout;
  constexpr auto kSlice = std::chrono::milliseconds(100);
  while (!process->waitForQuiet(quiet, kSlice) || (indexes && process->endedProgress() == 0)) {
    if (!process->alive()) return Status(ErrorCode::Unavailable, "the live backend stopped");
    if (cancelled && cancelled()) return Status(ErrorCode::Cancelled, "cancelled");
    if (std::chrono::steady_clock::now() >= deadline)
      return Status(ErrorCode::TimedOut, "the live backend was still indexing the workspace");
  }
  return Status::ok();
}

uint64_t LiveProvider::peakRssKiB() const {
  std::lock_guard<std::mutex> g(mutex_);
  uint64_t total = 0;
  for (const auto& [key, b] : backends_)
    if (b.process) total += b.process->peakRssKiB();
  return total;
}

bool LiveProvider::isOpen(const std::string& path, Language language) {
  std::lock_guard<std::mutex> g(mutex_);
  Backend* b = backendFor(language);
  if (!b || !b->process || !b->process->alive()) return false;
  auto it = b->documents.find(path);
  return it != b->documents.end() && it->second.sent;
}

}  // namespace nib
