// Runs a worker process (nib-clang, nib-scip) with its input on stdin, collecting stdout and
// stderr, killed after a time limit or when the build is cancelled. The worker gets a process
// group of its own and the whole group is killed: a worker that starts programs of its own (an
// SCIP indexer under Node) leaves none of them behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nib {

struct WorkerResult {
  int status = -1;  // exit status; -1: killed (timeout) or could not start
  std::string out, err;
  bool timedOut = false;
};

// With `timeoutPerOutput`, the limit counts from the worker's last output instead of its start: a
// worker that writes one record per unit it was given gets `timeout` per unit.
WorkerResult runWorker(const std::vector<std::string>& args, const std::string& input, std::chrono::seconds timeout,
                       const std::function<bool()>& cancelled = {}, bool timeoutPerOutput = false);

// A worker kept running across requests: the builder writes one request, reads until its answer
// is whole, and writes the next, so that the worker keeps what it learnt (libclang's record of
// parsed bodies) and the builder always knows which request a dying worker was on. Writing and
// reading never block on each other: while a request is written, what the worker writes is
// read.
class WorkerSession {
 public:
  enum class Wait { Ready, Exited, TimedOut, Cancelled };

  // The running worker, or nullptr with `*error` saying why it could not start.
  static std::unique_ptr<WorkerSession> start(const std::vector<std::string>& args, std::string* error);
  ~WorkerSession();
  WorkerSession(const WorkerSession&) = delete;
  WorkerSession& operator=(const WorkerSession&) = delete;

  // Writes `bytes` to the worker's stdin, reading its output meanwhile; Exited when it is gone.
  Wait send(std::string_view bytes, std::chrono::seconds timeout, const std::function<bool()>& cancelled);
  // Reads until `whole(out())` holds, the worker exits, the time (counted from the last output
  // with `perOutput`, else from the call) runs out, or `cancelled()`.
  Wait readUntil(const std::function<bool(const std::string&)>& whole, std::chrono::seconds timeout,
                 const std::function<bool()>& cancelled, bool perOutput);
  void closeInput();  // the worker reads the end of its input
  std::string& out() { return out_; }  // stdout not yet consumed by the caller
  // Closes stdin, waits for the worker to exit (killing it when `kill`) and returns its status,
  // what is left of stdout and all of stderr. The session is over.
  WorkerResult finish(bool kill, bool timedOut);

 private:
  WorkerSession() = default;
  bool pump(int timeoutMs, bool wantWrite);  // one poll round; false when the worker closed both outputs

  pid_t pid_ = -1;
  int in_ = -1, outFd_ = -1, errFd_ = -1;
  std::string out_, err_;
  bool finished_ = false;
};

}  // namespace nib
