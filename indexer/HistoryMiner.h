// The history phase's miner: the commits behind the indexed commit, each as its message's terms
// and the files it changed (views/HistoryView.h says what they are for).
//
// Each mined commit is a single-parent commit that added or modified at most kMaxPaths paths —
// a merge's change is its branches' own commits, and a sweeping commit (a licence header, a
// reformatting, an import) says nothing about any one file — of which at least one is still a
// file of the version. Its message is tokenized as the lexical view tokenizes code, trailers
// such as `Signed-off-by:` left out. Deterministic: the same commit and cap give the same view.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "indexer/GitRepository.h"
#include "views/HistoryView.h"

namespace nib {

class HistoryMiner {
 public:
  static constexpr size_t kMaxPaths = 30;            // a commit changing more sweeps
  static constexpr size_t kMaxMessageBytes = 4096;   // of a message, the start is read
  static constexpr size_t kDefaultMaxCommits = 5000;  // .nib.conf's index.history-commits

  // The view's contents from a walk of the history, for the files in `currentPaths` (sorted).
  static HistoryData mine(const HistoryWalk& walk, const std::vector<std::string>& currentPaths);
  // A message's distinct terms, sorted.
  static std::vector<std::string> messageTerms(std::string_view message);
};

}  // namespace nib
