// Compares two index versions by what they declare: every entry of every table of each view's
// LMDB environment (file records and name tables, skipped files, the worktree snapshot, BM25
// units and postings, trigram postings), the dense view's model and vectors files byte for byte,
// and the facts of every file (definitions,
// occurrences, imports, calls) as each version's fact store holds them. `nib verify` uses it to
// check a version against a rebuild from scratch; a build is deterministic, so the two must
// be identical entry for entry.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "support/Status.h"

namespace nib {

struct VersionDifference {
  std::string where;  // "structural/files", "facts", ...
  std::string key;    // printable (bytes outside ASCII escaped)
  std::string what;   // "only in the index", "only in the rebuild", "values differ"
};

struct VersionComparisonResult {
  bool identical = true;
  size_t entries = 0;  // compared (table entries + files' facts)
  size_t files = 0;    // files whose facts were compared
  bool delta = false;  // the index is a delta version: its state by path was compared (see .cpp)
  std::vector<VersionDifference> differences;  // the first ones, at most the limit asked
};

// `versionA`/`versionB`: version folders (holding structural/, lexical/, trigram/);
// `factsA`/`factsB`: their fact stores.
Expected<VersionComparisonResult> compareVersions(const std::filesystem::path& versionA,
                                                  const std::filesystem::path& factsA,
                                                  const std::filesystem::path& versionB,
                                                  const std::filesystem::path& factsB, size_t maxDifferences);

}  // namespace nib
