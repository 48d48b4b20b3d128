// Runs a worker process (nib-clang, nib-scip) with its input on stdin, collecting stdout and
// stderr, killed after a time limit or when the build is cancelled. The worker gets a process
// group of its own and the whole group is killed: a worker that starts programs of its own (an
// SCIP indexer under Node) leaves none of them behind.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace nib {

struct WorkerResult {
  int status = -1;  // exit status; -1: killed (timeout) or could not start
  std::string out, err;
  bool timedOut = false;
};

// With `timeoutPerOutput`, the limit counts from the worker's last output instead of its start: a
// worker that writes one record per unit of a batch gets `timeout` per unit.
WorkerResult runWorker(const std::vector<std::string>& args, const std::string& input, std::chrono::seconds timeout,
                       const std::function<bool()>& cancelled = {}, bool timeoutPerOutput = false);

}  // namespace nib
