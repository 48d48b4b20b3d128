// File contents as the fact store keeps them for the trigram route's verification and the
// snippets: behind a tag byte, either an LZ4 block and the original size (the default) or, where
// .nib.conf's index.pack-contents = false asks, the bytes as they are (read in place from the
// memory map). Packed, source text shrinks 2.3-2.8× (redis, tmux, a Linux sample), which is what
// keeps the index under 3× the source; it unpacks at 1.3-1.9 GB/s on one core of the machine nib
// is measured on, which makes searches that verify many files (a broad literal's whole answer)
// 20-40 % slower and leaves those cut at a small k alone. zstd would take a further third off
// the bytes at a quarter of the speed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "support/Status.h"

namespace nib {

// The stored form of `bytes`: with `compress`, an LZ4 block when that saves anything; else
// (or when it saves nothing) the bytes as they are.
std::string packContent(std::string_view bytes, bool compress = true);

// The original bytes of a stored record: a view of the record itself when it was stored as it
// is (no copy), else unpacked into `buffer` (which only ever grows, so that a thread unpacking
// file after file does not clear memory for each) and valid until the buffer's next use. A
// record that is not one packContent wrote is a Corrupt status, never a crash or a huge
// allocation.
Expected<std::string_view> unpackContentInto(std::string_view stored, std::string& buffer);

// Whether `stored` begins with one of packContent's tags (a record of another writer may not).
bool hasContentTag(std::string_view stored);

// The first original byte of a stored record (a format version, for facts), unpacking no more
// than that; nothing when the record is empty or not one packContent wrote.
std::optional<uint8_t> firstContentByte(std::string_view stored);

inline Expected<std::string> unpackContent(std::string_view stored) {
  std::string buffer;
  auto view = unpackContentInto(stored, buffer);
  if (!view) return view.status();
  if (view->data() != buffer.data()) return std::string(*view);  // kept as it was: no copy made yet
  buffer.resize(view->size());
  return buffer;
}

}  // namespace nib
