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
  Expected<std::string> next();

 private:
  bool fill();
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
