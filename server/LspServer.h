// The LSP server (stdio JSON-RPC, LSP 3.17): lifecycle, document sync, navigation requests and
// nib's extensions, over the Engine. A reader thread decodes messages in order; document
// changes apply before any later request; requests run on a small worker pool and can be
// cancelled; responses go out through one serialized writer. JSON stays in protocol/.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "protocol/LspMessages.h"
#include "protocol/MessageFraming.h"
#include "protocol/PositionEncoder.h"
#include "providers/LiveProvider.h"
#include "server/AgreementSampler.h"
#include "server/Engine.h"
#include "server/LiveSetup.h"

namespace nib {

struct LspServerOptions {
  std::filesystem::path root;  // when empty, the client's rootUri decides
  std::string version = "0.0.0";
  unsigned workers = 4;
  FactsExtractor extractor;  // re-extracts open buffers (overlays)
  WorktreeProbe worktreeProbe;
  // Git's ignore rules for a repository (new files are overlaid only when not ignored).
  std::function<std::function<bool(const std::string& path)>(const std::filesystem::path& root)> ignoreRules;
  // Builds the index when none exists, reporting (done, total, phase). Runs in the background.
  // `cancelled` turns true when the server exits: the build should stop early.
  std::function<Status(const std::filesystem::path& root,
                       const std::function<void(uint64_t, uint64_t, const std::string&)>& progress,
                       const std::function<bool()>& cancelled)>
      buildIndex;
  // Navigation providers (docs/live-backends.md): the policy ("" = .nib.conf's `provider`,
  // else auto; a client's initializationOptions.provider and nib/locate's `provider` override
  // it) and the live backends' commands, timeout, trace log and trust of .nib.conf's commands.
  LiveSetupOptions live;
};

class LspServer {
 public:
  explicit LspServer(LspServerOptions options);
  ~LspServer();
  // Serves until `exit` or end of input. Returns the process exit status: 0 after an orderly
  // shutdown + exit, 1 otherwise (as the specification asks).
  int run(int inFd, int outFd);

 private:
  struct Document {
    std::string path;  // repository path
    std::string text;
    int version = 0;
    bool dirty = true;     // changed since the engine last saw it
    std::string unsynced;  // why the text may differ from the client's (a change we could not apply)
  };
  struct Task {
    lsp::RequestId id;
    std::string method;
    lsp::Params params;
    std::string uri;   // the document the request is about, when it is open
    int version = -1;  // its version when the request arrived
  };
  // A navigation request that goes to a live backend: prepared under the engine lock (the static
  // answer included), finished without it, so a slow backend never stalls other requests.
  struct LiveJob {
    bool locate = false;
    PolicyRequest request;
    PolicyOutcome outcome;      // the policy's decision, with the index's answer
    std::string staticBody;     // the static answer as a response (plain LSP methods)
    lsp::LocateResult located;  // the static answer with its freshness (nib/locate)
    std::string syncNote;       // the document missed an edit: said whoever answers
  };
  struct EncodedText {
    std::string text;
    std::unique_ptr<PositionEncoder> encoder;
  };

  void serve(MessageReader& reader);
  // Requests an editor sends at every click, answered from the open file's facts in well under a
  // millisecond: the reading thread answers them itself, without first handing its role to a
  // sleeping thread (waking one cost more than the answer). One that turns slow hands the role
  // on then: handOffReader, before it waits for a busy engine or asks a live backend.
  static bool answersQuickly(const std::string& method);
  void handOffReader();
  std::optional<Task> readRequest(MessageReader& reader);
  static constexpr size_t kLargeMessage = 1u << 20;  // bodies past this give their memory back
  // Handles a message on the reader's thread; returns the request to answer, if it is one.
  std::optional<Task> dispatch(lsp::Incoming& message);
  void handleInitialize(const lsp::RequestId& id, const lsp::InitializeParams& params);
  void handleDocument(const std::string& method, const lsp::Params& params);
  void markUnsynced(const std::string& why);
  // Why an open document's text may differ from the client's ("" when it should not).
  std::string unsyncedReason(const std::string& uri);
  static std::string documentUriOf(const lsp::Params& params);
  void runTask(const Task& task);
  // With engineMutex_ held:
  bool openEngine();
  void syncDocuments();
  void reloadIfIndexChanged();
  void stop();
  void cancel(const lsp::RequestId& id);
  bool isCancelled(const lsp::RequestId& id);
  void finish(const lsp::RequestId& id);
  // Produces the response body for a request; called with engineMutex_ held and the engine ready.
  std::string answer(const Task& task, Engine& engine, std::optional<LiveJob>* live);
  std::string failure(const Task& task, const Status& s);
  std::vector<lsp::WireLocation> wireLocations(Engine& engine, const std::vector<SymbolLocation>& locs);
  Expected<std::pair<std::string, uint32_t>> positionOf(Engine& engine, const lsp::TextDocumentPosition& p);
  std::string answerNavigation(const Task& task, Engine& engine, std::optional<LiveJob>* live);
  // The other requests, one handler each (LspServerAnswers.cpp).
  std::string answerDeclaration(const Task& task, Engine& engine);
  std::string answerStatus(const Task& task, Engine& engine);
  std::string answerSearch(const Task& task, Engine& engine);
  std::string answerStructural(const Task& task, Engine& engine);
  std::string answerContext(const Task& task, Engine& engine);
  std::string answerDocumentSymbol(const Task& task, Engine& engine);
  std::string answerWorkspaceSymbol(const Task& task, Engine& engine);
  std::string answerHover(const Task& task, Engine& engine);
  std::string answerHighlights(const Task& task, Engine& engine);
  std::string answerPrepareRename(const Task& task, Engine& engine);
  std::string answerFoldingRanges(const Task& task, Engine& engine);
  std::string answerSelectionRanges(const Task& task, Engine& engine);
  // workspace/didChangeWatchedFiles, and the registration that asks for it.
  void registerWatchedFiles();
  void handleWatchedFiles(const lsp::WatchedFilesParams& params);
  void watchedFilesRefused(const std::string& why);
  std::string answerRename(const Task& task, Engine& engine);
  std::string renameFailure(const Task& task, const Status& s);
  std::string answerPrepareCallHierarchy(const Task& task, Engine& engine);
  std::string answerCalls(const Task& task, Engine& engine);
  std::string answerPrepareTypeHierarchy(const Task& task, Engine& engine);
  std::string answerTypes(const Task& task, Engine& engine);
  lsp::CallHierarchyItem callItem(Engine& engine, const CallNode& node);
  std::string typeItems(const Task& task, Engine& engine, const Expected<std::vector<TypeNode>>& nodes);
  // Asks the live backend (no lock held) and chooses, falls back or compares.
  std::string finishLive(const Task& task, LiveJob& job);
  void startLiveProvider();
  void startSampler();  // the idle agreement sampler, when the policy follows measurements
  // Queues one line of the provenance log on this thread; flushTrace writes what this thread
  // queued. A request's line is written after its response is sent: the log is not on the
  // request's path.
  void trace(const std::string& line);
  void flushTrace();
  void startIndexBuild(const std::string& why);
  void refreshIfBehind(const Engine::WorktreeOverlay& overlay);
  void send(const std::string& body);
  void log(int type, const std::string& message);
  Expected<std::string> repoPathOf(Engine& engine, const std::string& uri);
  Expected<uint32_t> offsetOf(Engine& engine, const std::string& path, lsp::Position pos);
  lsp::Range wireRange(Engine& engine, const std::string& path, bool ascii, const ByteRange& range);
  std::string uriOf(const std::string& path) const;

  LspServerOptions options_;
  std::unique_ptr<MessageWriter> writer_;
  Encoding encoding_ = Encoding::Utf16;
  std::filesystem::path root_;
  bool initialized_ = false;
  bool shutdown_ = false;
  bool exit_ = false;

  std::mutex engineMutex_;  // guards engine_, engineError_, encoders_ and every engine call
  std::condition_variable engineReady_;
  std::unique_ptr<Engine> engine_;
  std::string engineError_;  // why there is no engine (a failed build)
  Reason engineReason_ = Reason::None;  // the typed part of it
  // The stat data of .nib/CURRENT when it last named the engine's version (reloadIfIndexChanged).
  std::array<int64_t, 4> currentSeen_{};
  std::string currentSeenVersion_;
  std::string currentFile_;  // .nib/CURRENT of root_, made on first use
  std::map<std::string, std::unique_ptr<EncodedText>> encoders_;  // per answer
  // Open buffers' line tables and encoders, kept across requests while the buffer's revision
  // stands: building them per request (three times: the position, the encoder, the answer's
  // ranges) was the largest cost of a definition request on an open file.
  struct BufferIndex {
    uint64_t revision = 0;
    LineTable lines;
    PositionEncoder encoder;
    BufferIndex(const Engine::BufferText& b, Encoding e) : revision(b.revision), lines(b.text), encoder(b.text, false, e) {}
  };
  std::map<std::string, std::unique_ptr<BufferIndex>> bufferIndexes_;  // guarded by engineMutex_
  const BufferIndex* bufferIndex(Engine& engine, const std::string& path);
  bool clientProgress_ = false;
  std::thread indexThread_;
  std::atomic<bool> buildCancelled_{false};
  bool building_ = false;  // guarded by engineMutex_
  std::chrono::steady_clock::time_point lastRefresh_{};
  std::chrono::steady_clock::time_point lastHeadCheck_{};
  static constexpr int kRefreshSeconds = 10;  // between background builds, at least

  std::mutex docsMutex_;  // guards documents_ and closed_ (the reader never takes engineMutex_)
  std::map<std::string, Document> documents_;  // by URI
  std::set<std::string> closed_;               // paths closed since the engine last synced

  std::mutex queueMutex_;
  std::condition_variable queueReady_;
  std::deque<Task> queue_;
  bool readerTaken_ = false;  // a thread is reading input (guarded by queueMutex_)
  unsigned idle_ = 0;         // threads waiting for work or the reader's role
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> pool_;

  std::mutex cancelMutex_;
  std::set<lsp::RequestId> active_;     // queued or running
  std::set<lsp::RequestId> cancelled_;  // a subset of active_
  std::atomic<int> nextServerRequest_{0};  // ids of our requests to the client (any thread)
  // The editor watches files for us (workspace/didChangeWatchedFiles with dynamic registration):
  // the engine takes its changes instead of its own inotify watches.
  std::atomic<bool> clientWatches_{false};
  std::string watchRegistrationId_;  // our client/registerCapability request, reader thread only

  std::unique_ptr<LiveProvider> live_;  // created at initialize; thread-safe on its own
  ProviderPolicy policy_ = ProviderPolicy::Auto;
  CalibrationSettings calibrationSettings_;  // from .nib.conf, for every engine opened
  SamplerSettings samplerSettings_;
  bool overlayComplete_ = true;  // the last worktree overlay's state (guarded by engineMutex_)
  std::mutex traceMutex_;
  std::filesystem::path tracePath_;
  std::ofstream traceOut_;   // guarded by traceMutex_
  uint64_t traceBytes_ = 0;  // the trace file's size
  // Declared last: stopped (and its counts saved) before the backends and the engine go.
  std::unique_ptr<AgreementSampler> sampler_;
};

}  // namespace nib
