#include "views/IndexLayout.h"
#include "server/LspServer.h"

#include "server/ContextBuilder.h"
#include "server/StructuralAnswer.h"

#include <sys/stat.h>

#include <algorithm>

#include "protocol/PositionEncoder.h"
#include "protocol/Uri.h"
#include "server/SearchAnswer.h"
#include "support/Log.h"
#include "support/FileIo.h"
#include "support/GitLite.h"
#include "support/RepoPath.h"

namespace nib {
namespace fs = std::filesystem;
namespace {

Encoding negotiate(const std::vector<std::string>& offered, std::string* name) {
  // Prefer what costs nothing to convert; UTF-16 is the default when the client offers nothing.
  for (const char* preferred : {"utf-8", "utf-32", "utf-16"})
    if (std::find(offered.begin(), offered.end(), preferred) != offered.end()) {
      *name = preferred;
      return std::string(preferred) == "utf-8" ? Encoding::Utf8 : std::string(preferred) == "utf-32" ? Encoding::Utf32
                                                                                                     : Encoding::Utf16;
    }
  *name = "utf-16";
  return Encoding::Utf16;
}

bool isDocumentMethod(const std::string& m) {
  return m == "textDocument/didOpen" || m == "textDocument/didChange" || m == "textDocument/didClose" ||
         m == "textDocument/didSave";
}

bool isRequestMethod(const std::string& m) {
  static const std::set<std::string> known = {
      "textDocument/definition",     "textDocument/declaration",     "textDocument/references",
      "textDocument/documentSymbol", "workspace/symbol",             "textDocument/hover",
      "textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls", "callHierarchy/outgoingCalls",
      "textDocument/prepareTypeHierarchy", "typeHierarchy/supertypes", "typeHierarchy/subtypes",
      "textDocument/documentHighlight", "textDocument/prepareRename", "textDocument/rename",
      "textDocument/foldingRange", "textDocument/selectionRange", "textDocument/implementation", "textDocument/typeDefinition",
      "nib/locate", "nib/search", "nib/callers", "nib/callees", "nib/impact", "nib/trace", "nib/context",
      "nib/status"};
  return known.count(m) > 0;
}

}  // namespace

LspServer::LspServer(LspServerOptions options) : options_(std::move(options)) {}

LspServer::~LspServer() {
  stop();
  for (auto& t : pool_)
    if (t.joinable()) t.join();
  if (indexThread_.joinable()) indexThread_.join();
}

void LspServer::stop() {
  stopping_ = true;
  { std::lock_guard<std::mutex> g(queueMutex_); }
  queueReady_.notify_all();
  // Waiters check `stopping_` under engineMutex_: take it so that none misses the wakeup.
  { std::lock_guard<std::mutex> g(engineMutex_); }
  engineReady_.notify_all();
}

void LspServer::send(const std::string& body) {
  if (writer_) (void)writer_->write(body);
}

void LspServer::log(int type, const std::string& message) {
  send(lsp::encodeLogMessage(type, message));
  logMessage(type == 1 ? LogLevel::Error : type == 2 ? LogLevel::Warn : LogLevel::Info, message);
}

std::optional<LspServer::Task> LspServer::dispatch(lsp::Incoming& m) {
  using Kind = lsp::Incoming::Kind;
  // Whatever the client sends stops the agreement sampler's request in flight.
  if (sampler_) sampler_->noteActivity();
  if (m.kind == Kind::Response) {
    // Answers to our own requests: only a refused watch registration needs anything.
    if (!watchRegistrationId_.empty() && m.id == watchRegistrationId_ && m.errorCode) watchedFilesRefused(m.error);
    return std::nullopt;
  }
  if (m.kind == Kind::Invalid) {
    send(lsp::encodeError(m.id, m.errorCode ? m.errorCode : lsp::InvalidRequest, m.error));
    return std::nullopt;
  }
  if (m.kind == Kind::Notification) {
    if (m.method == "exit") {
      exit_ = true;
      return std::nullopt;
    }
    if (!initialized_) return std::nullopt;  // notifications before initialize are dropped, per the spec
    if (m.errorCode) {
      // A document change we cannot apply leaves the buffer out of sync: mark it so, and refuse
      // requests on it until the client sends the whole text again.
      if (m.method == "textDocument/didChange") markUnsynced(m.error);
      log(2, m.error);
      return std::nullopt;
    }
    if (m.method == "$/cancelRequest") {
      cancel(std::get<lsp::CancelParams>(m.params).id);
      return std::nullopt;
    }
    if (isDocumentMethod(m.method)) handleDocument(m.method, m.params);
    if (m.method == "initialized" && clientWatches_) registerWatchedFiles();
    if (m.method == "workspace/didChangeWatchedFiles" && !m.errorCode)
      handleWatchedFiles(std::get<lsp::WatchedFilesParams>(m.params));
    return std::nullopt;  // $/setTrace and other notifications need nothing
  }
  // Requests.
  if (m.method == "initialize") {
    if (initialized_) {
      send(lsp::encodeError(m.id, lsp::InvalidRequest, "initialize was already called"));
      return std::nullopt;
    }
    if (m.errorCode) {
      send(lsp::encodeError(m.id, m.errorCode, m.error));
      return std::nullopt;
    }
    handleInitialize(m.id, std::get<lsp::InitializeParams>(m.params));
    return std::nullopt;
  }
  if (!initialized_) {
    send(lsp::encodeError(m.id, lsp::ServerNotInitialized, "the server is not initialized yet"));
    return std::nullopt;
  }
  if (shutdown_) {
    send(lsp::encodeError(m.id, lsp::InvalidRequest, "the server is shutting down"));
    return std::nullopt;
  }
  if (m.method == "shutdown") {
    shutdown_ = true;
    send(lsp::encodeNullResult(m.id));
    return std::nullopt;
  }
  if (!isRequestMethod(m.method)) {
    send(lsp::encodeError(m.id, lsp::MethodNotFound, "unknown method " + m.method));
    return std::nullopt;
  }
  if (m.errorCode) {
    send(lsp::encodeError(m.id, m.errorCode, m.error));
    return std::nullopt;
  }
  Task task{m.id, m.method, std::move(m.params), {}, -1};
  // Remember which version of its document the request was made against.
  std::string uri = documentUriOf(task.params);
  if (!uri.empty()) {
    std::lock_guard<std::mutex> g(docsMutex_);
    if (auto it = documents_.find(uri); it != documents_.end()) {
      task.uri = uri;
      task.version = it->second.version;
    }
  }
  {
    std::lock_guard<std::mutex> g(cancelMutex_);
    active_.insert(task.id);
  }
  return task;
}

std::string LspServer::documentUriOf(const lsp::Params& params) {
  if (auto p = std::get_if<lsp::TextDocumentPosition>(&params)) return p->uri;
  if (auto p = std::get_if<lsp::ReferenceParams>(&params)) return p->at.uri;
  if (auto p = std::get_if<lsp::LocateParams>(&params)) return p->at.uri;
  if (auto p = std::get_if<lsp::DocumentParams>(&params)) return p->uri;
  return {};
}

void LspServer::handleInitialize(const lsp::RequestId& id, const lsp::InitializeParams& params) {
  std::string encodingName;
  encoding_ = negotiate(params.positionEncodings, &encodingName);
  clientProgress_ = params.workDoneProgress;
  clientWatches_ = params.watchedFilesRegistration;
  fs::path root = options_.root;
  if (root.empty() && !params.rootUri.empty()) {
    auto path = uriToPath(params.rootUri);
    if (!path) {
      send(lsp::encodeError(id, lsp::InvalidParams, path.status().message()));
      return;
    }
    root = *path;
  }
  if (root.empty() && !params.rootPath.empty()) root = params.rootPath;
  if (root.empty()) root = fs::current_path();
  // The repository containing the folder is the root (a client may open a subfolder).
  if (auto repo = gitlite::discover(root)) root = repo->worktree;
  root_ = root;
  startLiveProvider();
  if (!params.provider.empty()) {
    if (auto p = parseProviderPolicy(params.provider)) policy_ = *p;
    else log(2, "initializationOptions.provider: " + p.status().message() + "; keeping " + providerPolicyName(policy_));
  }
  startSampler();
  initialized_ = true;
  send(lsp::encodeResult(id, lsp::InitializeResult{encodingName, options_.version}));

  std::lock_guard<std::mutex> g(engineMutex_);
  if (openEngine()) return;
  if ((engineReason_ == Reason::NoIndex || engineReason_ == Reason::OtherFormat) && options_.buildIndex) {
    engineError_.clear();
    startIndexBuild(engineReason_ == Reason::NoIndex ? "no index yet"
                                                    : "the index was written by another version of nib");
    return;
  }
  log(1, "nib cannot serve " + root_.string() + ": " + engineError_);
}

bool LspServer::openEngine() {
  auto engine = Engine::open(root_);
  if (!engine) {
    engineError_ = engine.status().message();
    engineReason_ = engine.status().reason();
    return false;
  }
  if (options_.extractor) (*engine)->setFactsExtractor(options_.extractor);
  if (options_.worktreeProbe) (*engine)->setWorktreeProbe(options_.worktreeProbe);
  if (options_.ignoreRules) (*engine)->setIgnoredPredicate(options_.ignoreRules(root_));
  (*engine)->watchWorktree(clientWatches_);
  (*engine)->setCalibrationSettings(calibrationSettings_);
  engine_ = std::move(*engine);
  engineError_.clear();
  // A fresh engine knows no buffers: every open document must be applied again.
  std::lock_guard<std::mutex> g(docsMutex_);
  for (auto& [uri, doc] : documents_) doc.dirty = true;
  return true;
}

void LspServer::registerWatchedFiles() {
  watchRegistrationId_ = std::to_string(++nextServerRequest_) + "0";
  send(lsp::encodeRegisterWatchedFiles(watchRegistrationId_));
}

void LspServer::handleWatchedFiles(const lsp::WatchedFilesParams& params) {
  std::lock_guard<std::mutex> g(engineMutex_);
  if (!engine_ || !clientWatches_) return;
  std::vector<std::string> paths;
  bool unplaced = false;
  for (const std::string& uri : params.uris) {
    auto path = repoPathOf(*engine_, uri);
    if (path) paths.push_back(*path);
    else unplaced = unplaced || path.status().reason() != Reason::OutsideWorkspace;
  }
  engine_->noteWorktreeChanges(paths, unplaced);
}

void LspServer::watchedFilesRefused(const std::string& why) {
  log(2, "the editor did not take the file watch (" + why + "): nib watches the worktree itself");
  clientWatches_ = false;
  std::lock_guard<std::mutex> g(engineMutex_);
  if (engine_) engine_->watchWorktree(false);
}

void LspServer::startIndexBuild(const std::string& why) {
  // One build at a time; a finished one's thread is joined before the next starts.
  if (building_) return;
  if (indexThread_.joinable()) indexThread_.join();
  building_ = true;
  bool refresh = engine_ != nullptr;  // an engine serves meanwhile; a failure only logs
  std::string token = "nib-index";
  // The token may be used only once the client accepted it; without the capability, or until
  // then, progress goes to the log.
  if (clientProgress_) send(lsp::encodeCreateProgress(std::to_string(++nextServerRequest_) + "0", token));
  log(3, why + ": building the index of " + root_.string());
  indexThread_ = std::thread([this, token, refresh] {
    bool begun = false;
    int lastPercent = -1;
    Status s = options_.buildIndex(
        root_,
        [&](uint64_t done, uint64_t total, const std::string& phase) {
          if (!clientProgress_ || total == 0) return;
          if (!begun) {
            send(lsp::encodeProgress(token, "begin", "nib: indexing", root_.string(), 0));
            begun = true;
          }
          int percent = static_cast<int>(done * 100 / total);
          if (percent <= lastPercent) return;  // never report going backwards
          lastPercent = percent;
          send(lsp::encodeProgress(token, "report", "", phase + " " + std::to_string(done) + "/" + std::to_string(total),
                                   percent));
        },
        [this] { return buildCancelled_.load(); });
    if (clientProgress_) {
      if (!begun) send(lsp::encodeProgress(token, "begin", "nib: indexing", root_.string(), 0));
      send(lsp::encodeProgress(token, "end", "", s.isOk() ? "done" : s.message(), -1));
    }
    std::lock_guard<std::mutex> g(engineMutex_);
    if (!s.isOk() && refresh) {
      if (!buildCancelled_) log(2, "refreshing the index failed: " + s.message() + " (answers stay overlaid)");
    } else if (!s.isOk()) {
      engineError_ = "indexing failed: " + s.message();
    } else {
      openEngine();
    }
    if (!engineError_.empty() && !buildCancelled_) log(1, engineError_);
    building_ = false;
    lastRefresh_ = std::chrono::steady_clock::now();
    engineReady_.notify_all();
  });
}

void LspServer::refreshIfBehind(const Engine::WorktreeOverlay& overlay) {
  // With engineMutex_ held. The overlay keeps answers right between builds; a new version is
  // built in the background when HEAD moved (a commit, a branch switch, a diverged history),
  // the overlay is over budget, or files the precise view read changed, and the server
  // switches to it when it is published.
  if (!options_.buildIndex || building_ || !engine_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - lastRefresh_ < std::chrono::seconds(kRefreshSeconds)) return;
  // HEAD is read at most once a second here: a request stream must not pay for it each time.
  if (now - lastHeadCheck_ < std::chrono::seconds(1)) return;
  lastHeadCheck_ = now;
  auto f = engine_->freshness(false);
  std::string why;
  if (f && !f->headMatches) why = "HEAD moved since the index was built";
  else if (!overlay.complete) why = overlay.reason;
  // Saved edits to files an SCIP indexer read answer from tree-sitter (labelled) until their
  // projects are indexed again: a new version does that, re-running only those projects (the
  // others come from the cache), at most once per kRefreshSeconds.
  else if (overlay.preciseFiles > 0)
    why = std::to_string(overlay.preciseFiles) + " file(s) the precise view read changed: their projects' indexers run again";
  if (!why.empty()) startIndexBuild(why);
}

namespace {
// The byte offset of a wire position in `text`, clamped: a line past the end means the end of
// the text, a column past the end of its line the end of that line.
uint32_t clampedOffset(const std::string& text, const LineTable& lines, const PositionEncoder& enc, lsp::Position p) {
  if (p.line >= lines.lineCount()) return static_cast<uint32_t>(text.size());
  uint32_t offset;
  lines.offsetOf(enc.fromWire(p), &offset);
  return offset;
}
}  // namespace

void LspServer::markUnsynced(const std::string& why) {
  std::lock_guard<std::mutex> g(docsMutex_);
  // Without the params we cannot tell which document missed the change: every open one may
  // have. A label, not a refusal: each keeps answering from its last good text.
  for (auto& [uri, doc] : documents_) doc.unsynced = "possibly an edit nib could not read (" + why + ")";
}

std::string LspServer::unsyncedReason(const std::string& uri) {
  std::lock_guard<std::mutex> g(docsMutex_);
  auto it = documents_.find(uri);
  return it == documents_.end() ? std::string() : it->second.unsynced;
}

void LspServer::handleDocument(const std::string& method, const lsp::Params& params) {
  std::lock_guard<std::mutex> g(docsMutex_);
  if (method == "textDocument/didOpen") {
    const auto& p = std::get<lsp::DidOpenParams>(params);
    auto abs = uriToPath(p.uri);
    if (!abs) return;
    auto rel = RepoPath::fromFilesystem(root_, *abs);
    if (!rel) return;  // a file outside the workspace: nothing of nib's to track
    closed_.erase(rel->str());
    documents_[p.uri] = Document{rel->str(), p.text, p.version, true, {}};
    if (live_) live_->openBuffer(rel->str(), detectLanguage(rel->str(), std::string_view(p.text).substr(0, 4096)), p.text);
    return;
  }
  if (method == "textDocument/didChange") {
    const auto& p = std::get<lsp::DidChangeParams>(params);
    auto it = documents_.find(p.uri);
    if (it == documents_.end()) return;  // not opened: ignore, as clients may race
    Document& doc = it->second;
    if (!p.invalid.empty()) {
      // Rejected for this notification only: the document keeps its last good text and keeps
      // answering (labelled) until the next valid change; a full text makes it whole again.
      doc.unsynced = "an edit nib could not apply (" + p.invalid + ")";
      log(2, "rejected a change to " + doc.path + ": " + p.invalid + "; answers use the last text nib could apply");
      return;
    }
    for (const lsp::ContentChange& c : p.changes) {
      if (!c.range) {
        doc.text = c.text;
        doc.unsynced.clear();  // the whole text: in sync again
        continue;
      }
      // Incremental: the range is in the negotiated encoding, over the text as it is now.
      LineTable lines(doc.text);
      PositionEncoder enc(doc.text, false, encoding_);
      uint32_t start = clampedOffset(doc.text, lines, enc, c.range->start);
      uint32_t end = clampedOffset(doc.text, lines, enc, c.range->end);
      if (end < start) std::swap(start, end);
      doc.text.replace(start, end - start, c.text);
    }
    doc.version = p.version;
    doc.dirty = true;
    if (live_) live_->updateBuffer(doc.path, doc.text);
    return;
  }
  const auto& p = std::get<lsp::DocumentParams>(params);
  if (method == "textDocument/didClose") {
    auto it = documents_.find(p.uri);
    if (it == documents_.end()) return;
    closed_.insert(it->second.path);
    if (live_) live_->closeBuffer(it->second.path);
    documents_.erase(it);
  }
  // didSave: the buffer stays authoritative while open; nothing else to do.
}

void LspServer::syncDocuments() {
  // Called with engineMutex_ held: applies document changes recorded by the reader. Extraction
  // runs here, once per batch of changes, not once per keystroke.
  std::vector<std::pair<std::string, std::string>> updates;
  std::set<std::string> closed;
  {
    std::lock_guard<std::mutex> g(docsMutex_);
    closed.swap(closed_);
    for (auto& [uri, doc] : documents_)
      if (doc.dirty) {
        updates.emplace_back(doc.path, doc.text);
        doc.dirty = false;
      }
  }
  for (const std::string& path : closed) (void)engine_->closeBuffer(path);
  for (const auto& [path, text] : updates) {
    Status s = engine_->updateBuffer(path, text);
    if (!s.isOk()) log(2, "cannot analyse " + path + ": " + s.message());
  }
}

void LspServer::reloadIfIndexChanged() {
  // `nib index` in a terminal (or another server) may publish a newer version: follow it.
  // CURRENT is replaced by a rename, so its inode, size and mtime tell whether to read it: one
  // stat per request instead of an open, two reads and a close.
  // The path is made once: building it per request cost as much as the stat.
  if (currentFile_.empty()) currentFile_ = IndexLayout::forRepository(root_).currentFile().string();
  const std::string& file = currentFile_;
  struct stat st;
  if (::stat(file.c_str(), &st) == 0) {
    std::array<int64_t, 4> seen = {static_cast<int64_t>(st.st_ino), static_cast<int64_t>(st.st_size),
                                   static_cast<int64_t>(st.st_mtim.tv_sec), static_cast<int64_t>(st.st_mtim.tv_nsec)};
    if (seen == currentSeen_ && currentSeenVersion_ == engine_->manifest().versionId) return;
    currentSeen_ = seen;
    currentSeenVersion_ = engine_->manifest().versionId;
  }
  auto current = readFile(file);
  if (!current) return;
  std::string id = *current;
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  if (id != engine_->manifest().versionId) openEngine();
}

void LspServer::runTask(const Task& task) {
  std::string body;
  std::optional<LiveJob> live;
  {
    // A quick request answered on the reading thread must not keep input unread while it
    // waits: for another request's long query, or for the engine to open.
    std::unique_lock<std::mutex> lock(engineMutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      handOffReader();
      lock.lock();
    }
    auto ready = [&] { return engine_ || !engineError_.empty() || stopping_ || isCancelled(task.id); };
    if (!ready()) handOffReader();
    engineReady_.wait(lock, ready);
    if (isCancelled(task.id)) {
      body = lsp::encodeError(task.id, lsp::RequestCancelled, "cancelled");
    } else if (!engine_) {
      body = lsp::encodeError(task.id, lsp::RequestFailed, engineError_.empty() ? "the server is stopping" : engineError_);
    } else {
      reloadIfIndexChanged();
      if (engine_) {
        syncDocuments();
        // Files changed, deleted or added on disk since the index was built answer as they are;
        // a new version is built in the background when that is not enough.
        const Engine::WorktreeOverlay& overlay = engine_->syncWorktreeOverlays();
        overlayComplete_ = overlay.complete;
        refreshIfBehind(overlay);
        std::string stale;
        if (!task.uri.empty()) {
          std::lock_guard<std::mutex> g(docsMutex_);
          auto it = documents_.find(task.uri);
          if (it != documents_.end() && it->second.version != task.version) stale = "the document changed";
        }
        body = !stale.empty() ? lsp::encodeError(task.id, lsp::ContentModified, stale) : answer(task, *engine_, &live);
      } else {
        body = lsp::encodeError(task.id, lsp::RequestFailed, engineError_);
      }
    }
  }
  // The live backend is asked without the engine lock: other requests go on meanwhile, and
  // another thread reads input.
  if (live) {
    handOffReader();
    body = finishLive(task, *live);
  }
  if (isCancelled(task.id)) body = lsp::encodeError(task.id, lsp::RequestCancelled, "cancelled");
  finish(task.id);
  send(body);
  flushTrace();
}

std::string LspServer::uriOf(const std::string& path) const { return pathToUri((root_ / path).string()); }

Expected<std::string> LspServer::repoPathOf(Engine& engine, const std::string& uri) {
  // An open document's path was resolved when it was opened: resolving it again walks every
  // folder of the path for links (a dozen system calls per request).
  {
    std::lock_guard<std::mutex> g(docsMutex_);
    if (auto it = documents_.find(uri); it != documents_.end()) return it->second.path;
  }
  auto abs = uriToPath(uri);
  if (!abs) return abs.status();
  return engine.repoPath(*abs);
}

const LspServer::BufferIndex* LspServer::bufferIndex(Engine& engine, const std::string& path) {
  const Engine::BufferText* buffer = engine.bufferOf(path);
  auto it = bufferIndexes_.find(path);
  if (!buffer) {
    if (it != bufferIndexes_.end()) bufferIndexes_.erase(it);
    return nullptr;
  }
  if (it == bufferIndexes_.end() || it->second->revision != buffer->revision) {
    // Closed buffers' entries go when their path is next asked for; bound the rest.
    if (bufferIndexes_.size() > 256) bufferIndexes_.clear();
    it = bufferIndexes_.insert_or_assign(path, std::make_unique<BufferIndex>(*buffer, encoding_)).first;
  }
  return it->second.get();
}

Expected<uint32_t> LspServer::offsetOf(Engine& engine, const std::string& path, lsp::Position pos) {
  if (const BufferIndex* b = bufferIndex(engine, path)) {
    uint32_t offset;
    if (!b->lines.offsetOf(b->encoder.fromWire(pos), &offset))
      return Status(ErrorCode::InvalidArgument, "line " + std::to_string(pos.line) + " is past the end of " + path);
    return offset;
  }
  auto text = engine.currentText(path);
  if (!text) return text.status();
  PositionEncoder enc(*text, false, encoding_);
  LineTable lines(*text);
  uint32_t offset;
  if (!lines.offsetOf(enc.fromWire(pos), &offset))
    return Status(ErrorCode::InvalidArgument, "line " + std::to_string(pos.line) + " is past the end of " + path);
  return offset;
}

lsp::Range LspServer::wireRange(Engine& engine, const std::string& path, bool ascii, const ByteRange& range) {
  if (ascii && !engine.isOpen(path)) return {{range.start.line, range.start.column}, {range.end.line, range.end.column}};
  if (const BufferIndex* b = bufferIndex(engine, path)) return b->encoder.toWire(range);
  // Each file's text and encoder are built once per answer, not once per location.
  auto it = encoders_.find(path);
  if (it == encoders_.end()) {
    auto text = engine.currentText(path);
    auto entry = std::make_unique<EncodedText>();
    entry->text = text ? std::move(*text) : std::string();
    entry->encoder = std::make_unique<PositionEncoder>(entry->text, entry->text.empty(), encoding_);
    it = encoders_.emplace(path, std::move(entry)).first;
  }
  return it->second->encoder->toWire(range);
}

std::string LspServer::failure(const Task& task, const Status& s) {
  // A position without a symbol, a file nib does not index (no grammar, outside the
  // workspace) is an empty answer, not an error: editors ask on every hover and outline
  // refresh. Malformed requests and broken indexes are errors.
  const std::string& m = task.method;
  bool empty = s.is(Reason::NoSymbol) || s.is(Reason::NotIndexed) || s.is(Reason::OutsideWorkspace);
  if (empty) {
    if (m == "textDocument/documentSymbol" || m == "textDocument/references")
      return lsp::encodeResult(task.id, std::vector<lsp::WireLocation>{});
    return lsp::encodeNullResult(task.id);
  }
  return lsp::encodeError(task.id, s.code() == ErrorCode::InvalidArgument ? lsp::InvalidParams : lsp::RequestFailed,
                          s.message());
}

std::vector<lsp::WireLocation> LspServer::wireLocations(Engine& engine, const std::vector<SymbolLocation>& locs) {
  std::vector<lsp::WireLocation> out;
  for (const SymbolLocation& l : locs) out.push_back({uriOf(l.path), wireRange(engine, l.path, l.ascii, l.range)});
  return out;
}

Expected<std::pair<std::string, uint32_t>> LspServer::positionOf(Engine& engine, const lsp::TextDocumentPosition& p) {
  auto path = repoPathOf(engine, p.uri);
  if (!path) return path.status();
  auto offset = offsetOf(engine, *path, p.position);
  if (!offset) return offset.status();
  return std::make_pair(*path, *offset);
}

}  // namespace nib
