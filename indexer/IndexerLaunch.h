// How the precise view starts a SCIP indexer (issue: precise indexing time). scip-typescript and
// scip-python spend a third of their time or more writing each symbol's hover text — TypeScript's
// printed type of every declaration, pyright's docstrings looked up through the sources behind
// each standard-library stub — and nib reads none of it: the precise view keeps occurrences,
// symbols and relationships, and `nib export scip` documents symbols from nib's own views. So
// each indexer is started through a small Node launcher that leaves that text out and otherwise
// runs the pinned indexer unchanged. The occurrences, symbols and relationships it writes are
// the same as the plain indexer's (the facts nib-scip read from them byte for byte on eleven
// Python code bases and four TypeScript projects, and tests/IndexerLaunchTests.cpp on fixtures),
// but for what the TypeScript launcher adds: TypeScript's own go-to-definition answer where
// the indexer's symbols cannot say it — at callees whose call resolves elsewhere than the name's
// declarations, members read through an index signature, `export { X }` of an unresolved
// import, names imported from a destructuring export (scip/TypeScriptCalls). An indexer that is
// not such a package (a stand-in, a wrapper script), or a package without the shape the launcher
// expects, runs as it is.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "indexer/WorkerProcess.h"

namespace nib {

// The command line that runs `indexer` (the package's executable: scip-typescript's or
// scip-python's) for `language` ("typescript" or "python") with `arguments`, through Node and
// the launcher for that language.
std::vector<std::string> indexerCommand(const std::string& language, const std::filesystem::path& indexer,
                                        const std::vector<std::string>& arguments);

// The indexer processes of one build. A TypeScript project runs in a warm Node process kept
// from an earlier project of the build (the launcher's session: a project after the first costs
// a third of its time alone less on typebox, from Node's start-up, loading the compiler and V8's
// compiling it again), each project with its own program and caches and its own time limit, as
// alone; several threads each take an idle session or start one. A project the session reports
// failed, or whose session exits, runs again in a process of its own, so that its failure and
// its message are its own; a time-out is the project's. Python (one project) runs alone.
class IndexerSessions {
 public:
  IndexerSessions() = default;
  ~IndexerSessions();
  IndexerSessions(const IndexerSessions&) = delete;
  IndexerSessions& operator=(const IndexerSessions&) = delete;

  // Runs `indexer` with `arguments` (`index --cwd … --output …`) for `language`; as runWorker
  // would have: status 0 when it wrote its output.
  WorkerResult run(const std::string& language, const std::filesystem::path& indexer,
                   const std::vector<std::string>& arguments, std::chrono::seconds timeout,
                   const std::function<bool()>& cancelled);
  // How many projects a session indexed (the rest ran alone).
  size_t inSessions() const { return inSessions_; }

 private:
  struct Session {
    std::unique_ptr<WorkerSession> worker;
    size_t projects = 0;  // indexed by it
  };
  std::mutex m_;
  std::vector<Session> idle_;
  std::atomic<bool> broken_{false};
  std::atomic<size_t> inSessions_{0};
};

}  // namespace nib
