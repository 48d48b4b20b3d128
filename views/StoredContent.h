// File contents as the fact store keeps them for the trigram route's verification and the
// snippets: an LZ4 block behind a tag byte and the original size. Source text shrinks 2.3-2.8×
// (redis, tmux) and decompresses at 1.3-1.9 GB/s on one core of the machine nib is measured on,
// so verifying a candidate costs little next to reading it; zstd would halve the bytes again
// at a quarter of that speed, which the trigram route would feel on every broad literal.
#pragma once

#include <string>
#include <string_view>

#include "support/Status.h"

namespace nib {

// The stored form of `bytes`: compressed when that saves anything, else kept as it is.
std::string packContent(std::string_view bytes);

// The original bytes of a stored record, in `buffer` (which only ever grows, so that a thread
// unpacking file after file does not clear memory for each): the view is valid until the
// buffer's next use. A record that is not one packContent wrote is a Corrupt status, never a
// crash or a huge allocation.
Expected<std::string_view> unpackContentInto(std::string_view stored, std::string& buffer);

inline Expected<std::string> unpackContent(std::string_view stored) {
  std::string buffer;
  auto view = unpackContentInto(stored, buffer);
  if (!view) return view.status();
  if (view->data() != buffer.data()) return std::string(*view);  // kept as it was: no copy made yet
  buffer.resize(view->size());
  return buffer;
}

}  // namespace nib
