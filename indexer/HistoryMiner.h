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
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <string>
#include <vector>

#include "indexer/GitRepository.h"
#include "views/HistoryView.h"
#include "views/Lmdb.h"

namespace nib {

// The walk's memo between builds (`.nib/history-cache`, LMDB): each walked commit's summary by
// its id, in one write transaction per walk. finish() keeps only the commits this walk visited
// — the cache holds one walk's window, whatever the history's length — and commits.
class HistoryCache final : public CommitMemo {
 public:
  static constexpr const char* kDirectory = "history-cache";  // in `.nib`
  static Expected<std::unique_ptr<HistoryCache>> open(const std::filesystem::path& dir);
  std::optional<CommitSummary> recall(const std::string& oid) override;
  void remember(const std::string& oid, const CommitSummary& summary) override;
  Status finish();

  // A summary's bytes and back (nullopt for damaged bytes).
  static std::string encode(const CommitSummary& summary);
  static std::optional<CommitSummary> decode(std::string_view bytes);

 private:
  HistoryCache(std::unique_ptr<LmdbEnv> env, LmdbTxn txn, MDB_dbi db)
      : env_(std::move(env)), txn_(std::move(txn)), db_(db) {}
  std::unique_ptr<LmdbEnv> env_;
  LmdbTxn txn_;
  MDB_dbi db_;
  std::unordered_set<std::string> visited_;
  Status status_;  // the first failed write: the walk goes on, the cache is not committed
};

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
