// The merge of per-unit facts into one view's contents: one symbol per symbol name (a USR, an
// SCIP symbol), one site per (path, offset, role) however many units saw it. Shared by the clang
// view (a unit is a translation unit) and the precise view (a unit is an SCIP indexer's
// project): one format for every precise source.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "support/FlatSet.h"
#include "views/ClangFacts.h"
#include "views/ClangView.h"

namespace nib {

// Numbers for symbol names (USRs), shared by every unit of a build, and safe to use from several
// threads while units are still being parsed: the builder numbers a unit's names as its facts
// arrive, so that the merge, which starts once every unit is in, finds each unit's symbols by
// number instead of hashing their text one unit after another.
class UsrNumbers {
 public:
  // The number of each of `usrs` (one per distinct text), numbering those met the first time.
  std::vector<uint32_t> number(const std::vector<std::string>& usrs);
  // std::hash of the text numbered `n`. Read once no thread numbers any more.
  uint64_t textHash(uint32_t n) const { return hashes_[n]; }
  size_t size() const { return hashes_.size(); }

 private:
  std::mutex mutex_;
  std::vector<std::string> texts_;  // by number
  StringIndex index_;               // over texts_
  std::vector<uint64_t> hashes_;    // by number: StringIndex::hashOf
};

struct MergeOptions {
  // The occurrences in other files under the root (headers a build generated, which git
  // ignores) are kept too, each file with its stat signature (ClangViewContents::unindexed).
  bool listUnindexed = false;
  // The code the compilation database's units see differently is found (UnitViews.h,
  // ClangViewContents::varying): a clang view's, where the live server keeps one unit's view.
  bool findVarying = false;
  // Per unit (parallel to the results): whether it compiles as C++. With it, a symbol only one
  // language's units name keeps its sites in a header where that language's units are the
  // fewer, as a live server's index likely does not (ClangViewContents::minorityLanguage).
  std::vector<bool> cplusplus;
  // The numbers of each unit's USRs (parallel to the results; an empty one, or one that does not
  // match its unit's USRs, is numbered by the merge), all from `numbers`. Without them the merge
  // numbers every unit itself.
  UsrNumbers* numbers = nullptr;
  const std::vector<std::vector<uint32_t>>* unitNumbers = nullptr;
};

// `root`: the repository, absolute, with a trailing '/'. `blobIds`: the indexed files (others'
// occurrences are left out). `results`: each unit's facts (nullopt: it failed); those from
// `realUnits` on are units nib made up for files no compile command reached.
ClangViewContents mergeUnitFacts(const std::string& root, const std::map<std::string, std::string>& blobIds,
                                 const std::vector<std::optional<TuFacts>>& results, size_t realUnits,
                                 MergeOptions options = {});

}  // namespace nib
