// The clang view of a version (issue: clang-precise C/C++ index). When the repository has a
// compilation database, every translation unit in it is indexed by `nib-clang` workers — one
// long-lived session per thread, fed a unit at a time from a common queue (units of one
// language per session), each unit with a time limit; a worker's session skips the C++ function bodies of headers an earlier unit of it parsed,
// as clangd's background index does — and the results merged into versions/<id>/clang. A TU's
// facts are cached in .nib/clang-cache by its compile command and the contents of every file it
// read (blob ids inside the repository, size and mtime outside), so an update indexes only TUs
// whose inputs changed; where no unit's facts hold a header's bodies any more, one unit reading
// it is indexed again with bodies kept. A TU that crashes or hangs libclang is recorded as
// failed (after running again alone; the other units go on in a new session); its files keep
// their tree-sitter facts.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "support/Status.h"
#include "views/Manifest.h"

namespace nib {

struct ClangBuildInput {
  std::filesystem::path root;       // the repository
  std::filesystem::path dir;        // versions/<id>/clang
  std::filesystem::path cacheDir;   // .nib/clang-cache
  std::filesystem::path worker;     // the nib-clang executable
  std::filesystem::path databaseDir;  // where compile_commands.json is
  std::map<std::string, std::string> blobIds;  // repository path -> blob id (the indexed files)
  std::vector<std::string> tooLargeSources;      // files the index skips as too large (repository paths)
  unsigned threads = 1;
  // Made-up units (files no compile command reaches) the cache lacks are left out and counted
  // as deferred — a follow-up builds the view with them (indexer/DenseFollowUp). clangd's
  // background index never parses such files; leaving them out keeps the first version as
  // quick as its index.
  bool deferUncompiled = false;
  std::chrono::seconds timeout{120};  // per TU
  std::function<bool()> cancelled;
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct ClangBuildReport {
  ViewRecord view;  // "clang": Complete, Failed (with the reason) or Absent
  size_t units = 0, indexed = 0, cached = 0, failed = 0;
  size_t interpolated = 0, interpolatedFailed = 0;  // files no TU read, indexed with a neighbour's command
  size_t deferred = 0;  // of those, left to the follow-up (deferUncompiled)
  // Headers units read that are parsed alone as well (HeaderConditions.h): kept (a header
  // without an include guard only where that parse reported errors), and left to the follow-up.
  size_t headersAlone = 0, deferredHeaders = 0;
  size_t shared = 0;  // main files another unit #includes
  size_t symbols = 0, occurrences = 0, files = 0;
  double seconds = 0;
  double maxUnitSeconds = 0;  // the slowest TU indexed this time
  double unitSeconds = 0;     // the TUs indexed this time, summed (workers run in parallel)
  std::vector<std::pair<std::string, std::string>> failures;  // (file, why), first 20
};

ClangBuildReport buildClangView(const ClangBuildInput& input);

}  // namespace nib
