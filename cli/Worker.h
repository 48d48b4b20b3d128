// The heavy half of the command line. `nib` itself links no libgit2 and no tree-sitter, so
// that query commands start in milliseconds; indexing and worktree scans run in the
// `nib-indexer` executable next to it.
#pragma once

#include <string>
#include <vector>

#include "support/Status.h"

namespace nib::cli {

// The nib-indexer executable: $NIB_INDEXER, else next to the running `nib`.
Expected<std::string> workerPath();
// Replaces this process with the worker (never returns on success).
Status execWorker(const std::vector<std::string>& args);
// Runs the worker and returns its standard output; its stderr passes through.
Expected<std::string> runWorker(const std::vector<std::string>& args);

}  // namespace nib::cli
