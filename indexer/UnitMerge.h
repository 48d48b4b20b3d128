// The merge of per-unit facts into one view's contents: one symbol per symbol name (a USR, an
// SCIP symbol), one site per (path, offset, role) however many units saw it. Shared by the clang
// view (a unit is a translation unit) and the precise view (a unit is an SCIP indexer's
// project): one format for every precise source.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "views/ClangFacts.h"
#include "views/ClangView.h"

namespace nib {

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
};

// `root`: the repository, absolute, with a trailing '/'. `blobIds`: the indexed files (others'
// occurrences are left out). `results`: each unit's facts (nullopt: it failed); those from
// `realUnits` on are units nib made up for files no compile command reached.
ClangViewContents mergeUnitFacts(const std::string& root, const std::map<std::string, std::string>& blobIds,
                                 const std::vector<std::optional<TuFacts>>& results, size_t realUnits,
                                 MergeOptions options = {});

}  // namespace nib
