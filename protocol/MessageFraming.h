// JSON-RPC framing over a byte stream (LSP's base protocol): "Content-Length: N\r\n\r\n" then
// N bytes. Knows bytes only; the JSON inside is LspCodec's business.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "support/Status.h"

namespace nib {

class MessageReader {
 public:
  explicit MessageReader(int fd) : fd_(fd) {}
  // The next message body. NotFound at end of input; InvalidArgument for a malformed header
  // (the reader then skips to the next header, so one bad frame does not end the session).
  // A header that cannot be used (no or a malformed Content-Length, a line that is no header)
  // drops the frame: everything up to the next "Content-Length:" is skipped, so the next valid
  // message is read and never swallowed. LF-only line ends are accepted.
  Expected<std::string> next();
  // After a dropped frame: the bytes that followed its header (its body, most likely), at most
  // 64 KiB, so that a caller can answer a request whose header was broken.
  const std::string& dropped() const { return dropped_; }
  // Whether more input is waiting: bytes already buffered, or readable (or ended) without
  // blocking.
  bool pending();
  // Gives back the buffer's memory after a large frame (its capacity stays otherwise).
  void releaseBuffer();

 private:
  bool fill();
  Status resync(const std::string& why);
  std::string dropped_;
  int fd_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
};

// Serialized writes of whole frames (responses come from several threads).
class MessageWriter {
 public:
  explicit MessageWriter(int fd) : fd_(fd) {}
  Status write(std::string_view body);

 private:
  int fd_;
  std::mutex mutex_;
};

}  // namespace nib
