// What the units of one worker session share (libclang only: the `nib-clang` worker): the files
// they read, and what earlier units reported of the repository's headers so that later ones
// leave it out (TuFacts::sitesLeftOut, expansionsLeftOut). Internal to indexer/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace nib::clangindex {

// Each unit has CXFiles of its own, and resolving a system header's path again (a readlink and a
// stat per component) for each of the ~100 headers of each unit, and reading the repository's
// headers again, were ~5 % of a worker's time on a C code base whose ~80 units read the same
// configuration headers (LZO). The files do not change for nib while one build's session lasts.
struct SessionFiles {
  std::unordered_map<std::string, std::string> canonical;  // by the path libclang names
  std::unordered_map<std::string, std::string> texts;      // by canonical path
  // By canonical path: the offsets of a repository header's sites the session's earlier units
  // reported (TuFacts::sitesLeftOut).
  std::unordered_map<std::string, std::unordered_set<uint32_t>> reportedSites;
  // By canonical path: the digests of the sets of a header's macro expansions the session's
  // earlier units reported (TuFacts::expansionsLeftOut).
  std::unordered_map<std::string, std::unordered_set<uint64_t>> reportedExpansions;
  // By canonical path, then by range (start << 32 | end): the words of code the preprocessor
  // left out there (noteSkippedWords), each once, viewing `texts`. Units reading a header
  // skip the same sections of it (libxml2's 670 KB elfgcchack.h, read by 44 units, is half
  // sections left out).
  std::unordered_map<std::string, std::unordered_map<uint64_t, std::vector<std::string_view>>> skippedWords;
  // By canonical path: the offsets a file's lines start at (Collector::lineStartsOf; empty for
  // a file holding a '\r').
  std::unordered_map<std::string, std::vector<uint32_t>> lineStarts;
};

}  // namespace nib::clangindex
