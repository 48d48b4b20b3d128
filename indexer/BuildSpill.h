// What a full build keeps on disk between its extract phase and the views written from it:
// each text file's encoded search facts (views/SearchFacts.h) and each parsed file's summary
// (views/CommitView.h).
//
// Held in memory, the search facts alone (trigrams with their masks, every unit's terms) took
// about ten times the source's size: 1.2 of the 1.9 GB a build of qemu peaked at, far more than
// a laptop has for a tree the size of Linux's (issue 28). Workers append the encoded records to
// an unnamed temporary file instead; the view writers read them back one file at a time. The
// file has no name (O_TMPFILE, or unlinked at once), so a build that dies leaves nothing
// behind. Internal to indexer/.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "support/Status.h"

namespace nib::build {

// Where one encoded record lies in the spill; size 0 for none.
struct SpillRef {
  uint64_t offset = 0;
  uint32_t size = 0;
};

class BuildSpill {
 public:
  // A temporary file in `dir` (the index's folder: the same file system as what it builds).
  static Expected<std::unique_ptr<BuildSpill>> create(const std::filesystem::path& dir);
  ~BuildSpill();
  BuildSpill(const BuildSpill&) = delete;
  BuildSpill& operator=(const BuildSpill&) = delete;

  // Appends `bytes` (any thread). A failed write (a full disk) returns an empty reference and
  // is remembered: status() reports it once the workers are done.
  SpillRef append(std::string_view bytes);
  // Reads what `ref` names into `out` (any thread).
  Status read(const SpillRef& ref, std::string& out) const;
  Status status() const;
  uint64_t bytes() const { return end_.load(); }

 private:
  explicit BuildSpill(int fd) : fd_(fd) {}
  int fd_;
  std::atomic<uint64_t> end_{0};
  mutable std::mutex statusMutex_;
  Status status_;
};

}  // namespace nib::build
