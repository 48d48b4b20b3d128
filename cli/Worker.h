// The heavy half of the command line. `nib` itself links no libgit2 and no tree-sitter, so
// that query commands start in milliseconds; indexing runs in the `nib-indexer` executable next
// to it, and the language server in `nib-server`.
#pragma once

#include <string>
#include <vector>

#include "support/Status.h"

namespace nib::cli {

// A helper executable next to the running `nib` ("nib-indexer", "nib-server", "nib-scip"); the
// variable NIB_INDEXER / NIB_SERVER / NIB_SCIP_WORKER overrides where it is.
Expected<std::string> workerPath(const std::string& name = "nib-indexer");
// Runs the helper with this process's standard streams and waits for it; its exit status, or
// an error when it could not run or was killed by a signal.
Expected<int> runWorker(const std::vector<std::string>& args, const std::string& name = "nib-indexer");
// Replaces this process with the helper (never returns on success).
Status execWorker(const std::vector<std::string>& args, const std::string& name = "nib-indexer");

}  // namespace nib::cli
