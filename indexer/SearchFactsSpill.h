// Search facts kept on disk between a build's extract phase and its search views.
//
// Held in memory, the facts of every text file (trigrams with their masks, every unit's terms)
// took about ten times the source's size: 1.2 of the 1.9 GB a build of qemu peaked at, and
// more than a laptop has for a tree the size of Linux's (issue 28). Workers append each file's
// encoded facts (views/SearchFacts.h) to an unnamed temporary file instead; the view writers read
// them back one document at a time. The file has no name (O_TMPFILE, or unlinked at once), so a
// build that dies leaves nothing behind. Internal to indexer/.
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

// Where one file's encoded facts lie in the spill; size 0 for none.
struct SpillRef {
  uint64_t offset = 0;
  uint32_t size = 0;
};

class SearchFactsSpill {
 public:
  // A temporary file in `dir` (the index's folder: the same file system as what it builds).
  static Expected<std::unique_ptr<SearchFactsSpill>> create(const std::filesystem::path& dir);
  ~SearchFactsSpill();
  SearchFactsSpill(const SearchFactsSpill&) = delete;
  SearchFactsSpill& operator=(const SearchFactsSpill&) = delete;

  // Appends `bytes` (any thread). A failed write (a full disk) returns an empty reference and
  // is remembered: status() reports it once the workers are done.
  SpillRef append(std::string_view bytes);
  // Reads what `ref` names into `out` (any thread).
  Status read(const SpillRef& ref, std::string& out) const;
  Status status() const;
  uint64_t bytes() const { return end_.load(); }

 private:
  explicit SearchFactsSpill(int fd) : fd_(fd) {}
  int fd_;
  std::atomic<uint64_t> end_{0};
  mutable std::mutex statusMutex_;
  Status status_;
};

}  // namespace nib::build
