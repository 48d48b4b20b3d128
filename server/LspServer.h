// The LSP server (stdio JSON-RPC, LSP 3.17): lifecycle, document sync, navigation requests and
// nib's extensions, over the Engine. A reader thread decodes messages in order; document
// changes apply before any later request; requests run on a small worker pool and can be
// cancelled; responses go out through one serialized writer. JSON stays in protocol/.
#pragma once

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "protocol/LspMessages.h"
#include "protocol/MessageFraming.h"
#include "server/Engine.h"

namespace nib {

struct LspServerOptions {
  std::filesystem::path root;  // when empty, the client's rootUri decides
  std::string version = "0.0.0";
  unsigned workers = 4;
  FactsExtractor extractor;  // re-extracts open buffers (overlays)
  WorktreeProbe worktreeProbe;
  // Builds the index when none exists, reporting (done, total, phase). Runs in the background.
  std::function<Status(const std::filesystem::path& root,
                       const std::function<void(uint64_t, uint64_t, const std::string&)>& progress)>
      buildIndex;
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
  };
  struct Task {
    lsp::RequestId id;
    std::string method;
    lsp::Params params;
  };

  void dispatch(lsp::Incoming& message);
  void handleInitialize(const lsp::RequestId& id, const lsp::InitializeParams& params);
  void handleDocument(const std::string& method, const lsp::Params& params);
  void runTask(const Task& task);
  // Produces the response body for a request; called with engineMutex_ held and the engine ready.
  std::string answer(const Task& task, Engine& engine);
  void startIndexBuild();
  Engine* waitForEngine(const lsp::RequestId& id, std::string* error);
  void send(const std::string& body);
  void log(int type, const std::string& message);
  bool takeCancelled(const lsp::RequestId& id);
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

  std::mutex engineMutex_;  // guards engine_, documents_ and engine calls
  std::condition_variable engineReady_;
  std::unique_ptr<Engine> engine_;
  std::string engineError_;  // why there is no engine (a failed build)
  bool clientProgress_ = false;
  std::map<std::string, Document> documents_;  // by URI
  std::thread indexThread_;

  std::mutex queueMutex_;
  std::condition_variable queueReady_;
  std::deque<Task> queue_;
  bool stopping_ = false;
  std::vector<std::thread> pool_;

  std::mutex cancelMutex_;
  std::set<lsp::RequestId> cancelled_;
  int nextServerRequest_ = 0;
};

}  // namespace nib
