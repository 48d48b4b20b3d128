// Code the compilation database's units see differently (ClangViewContents::varying). clangd's
// background index keeps one unit's view of each header: it indexes the units in a shuffled
// order and skips a header whose shard it already holds, so what it lists in a header that units
// see differently depends on which of them came first. nib's view merges every unit's sites, and
// an answer listing a site in such code is labelled (facet `includer-dependent`) so that its
// agreement with the live server is measured apart — a choice said, not a difference chased.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "views/ClangFacts.h"

namespace nib {

using ByteRanges = std::vector<std::pair<uint32_t, uint32_t>>;  // sorted, disjoint [start, end)

// The ranges in both `a` and `b` (both sorted and disjoint).
ByteRanges intersectRanges(const ByteRanges& a, const ByteRanges& b);
// The ranges in `a` that are not in `b` (both sorted and disjoint).
ByteRanges subtractRanges(const ByteRanges& a, const ByteRanges& b);
// The ranges in either (both sorted and disjoint).
ByteRanges uniteRanges(const ByteRanges& a, const ByteRanges& b);

class UnitViews {
 public:
  // One unit of the compilation database: `paths` are its files as repository paths ("" for a
  // file nib lists nothing of), parallel to `facts.files`; `mainFiles` the database's units'
  // main files, `own` this unit's (a repository path, "" if none); `usrHashes` std::hash of each
  // of `facts.usrs`. A main file is compared site by site between its own unit and the units
  // that #include it whole (finish); the sections and whole-file views below are the headers'.
  void add(const TuFacts& facts, const std::vector<std::string>& paths, const std::set<std::string>& mainFiles,
           const std::vector<uint64_t>& usrHashes, const std::string& own);
  // Per file (sorted): the sections some units' preprocessor left out and others did not; and the
  // whole file, as [0, UINT32_MAX), for one without an include guard (read under `root`) that
  // units read with different sites, macro definitions aside. Sites are compared between units
  // that parsed the file's function bodies, and between units that skipped them (a worker's
  // session parses a header's bodies once, and reports its macro definitions once,
  // ClangSession): that difference says nothing of what a unit's preprocessor made of the file.
  // For a main file another unit #includes whole (a test that includes the source it tests,
  // with macros standing in for what it calls), the places where that unit's sites or sections
  // differ from the file's own unit's: clangd's index holds the file as whichever of the two it
  // indexed first.
  std::vector<std::pair<std::string, ByteRanges>> finish(const std::string& root) const;
  // The main files to compare site by site (those another unit #includes), before any add.
  void compareMainFiles(const std::set<std::string>& paths) { compared_ = paths; }
  // Per file (sorted): the sections that fewer than half of the units reading the file keep, the
  // others' preprocessor leaving them out (socat's xio-streams.h, whose declarations two of its
  // fifty units reach). clangd's background index keeps the view of the unit its shuffled queue
  // indexed first, most likely one without them (ClangViewContents::minority).
  std::vector<std::pair<std::string, ByteRanges>> minority() const;

 private:
  struct File {
    ByteRanges skippedByAll, skippedBySome;
    std::set<uint64_t> sites[2];  // one digest of its sites per distinct view: [bodies parsed]
    bool seen = false;
    uint32_t readers = 0;                     // the units that read the file
    std::map<uint32_t, int32_t> skipEdges;  // +1 where a unit's skipped range starts, -1 where it ends
  };
  std::map<std::string, File> files_;
  // A main file's views: its own unit's and those of the units #including it whole (with their
  // function bodies parsed: a view that skipped them says nothing of the bodies' sites).
  struct MainFileView {
    std::vector<std::pair<uint32_t, uint64_t>> sites;  // (offset, site digest), sorted
    ByteRanges skipped;
  };
  struct MainFile {
    std::optional<MainFileView> own;
    std::vector<MainFileView> includers;
  };
  std::map<std::string, MainFile> mainFiles_;
  std::set<std::string> compared_;
};

}  // namespace nib
