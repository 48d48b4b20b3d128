#include "protocol/MessageFraming.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace nib {
namespace {
constexpr size_t kMaxMessage = 64u << 20;  // a larger frame is refused rather than buffered
constexpr size_t kCompactAt = 1u << 20;     // drop consumed bytes once this many accumulate
}

bool MessageReader::fill() {
  if (eof_) return false;
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  char tmp[65536];
  for (;;) {
    ssize_t n = ::read(fd_, tmp, sizeof tmp);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }
}

Expected<std::string> MessageReader::next() {
  // Frames rarely end where reads do: drop what was consumed before parsing the next frame, or
  // the buffer would hold the whole session. (Not inside fill(): offsets into the frame being
  // parsed must stay valid.)
  if (pos_ > 0 && (pos_ >= kCompactAt || pos_ * 2 >= buf_.size())) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  // Headers end at the first blank line.
  size_t end;
  while ((end = buf_.find("\r\n\r\n", pos_)) == std::string::npos) {
    if (buf_.size() - pos_ > 65536) {  // no header end in sight: drop the garbage
      pos_ = buf_.size();
      return Status(ErrorCode::InvalidArgument, "malformed message header (no blank line)");
    }
    if (!fill()) return Status(ErrorCode::NotFound, "end of input");
  }
  std::string_view headers(buf_.data() + pos_, end - pos_);
  size_t bodyStart = end + 4;
  long long length = -1;
  size_t lineStart = 0;
  while (lineStart <= headers.size()) {
    size_t lineEnd = headers.find("\r\n", lineStart);
    if (lineEnd == std::string_view::npos) lineEnd = headers.size();
    std::string_view line = headers.substr(lineStart, lineEnd - lineStart);
    constexpr std::string_view kLength = "content-length:";
    if (line.size() > kLength.size()) {
      bool match = true;
      for (size_t i = 0; i < kLength.size() && match; ++i)
        match = std::tolower(static_cast<unsigned char>(line[i])) == kLength[i];
      if (match) {
        std::string value(line.substr(kLength.size()));
        char* stop = nullptr;
        length = std::strtoll(value.c_str(), &stop, 10);
        while (stop && *stop == ' ') ++stop;
        if (!stop || *stop != '\0' || value.find_first_not_of(' ') == std::string::npos) length = -2;
      }
    }
    lineStart = lineEnd + 2;
  }
  if (length < 0 || static_cast<size_t>(length) > kMaxMessage) {
    pos_ = bodyStart;
    return Status(ErrorCode::InvalidArgument, length == -1 ? "message header has no Content-Length"
                                                            : "message header has an invalid Content-Length");
  }
  while (buf_.size() - bodyStart < static_cast<size_t>(length))
    if (!fill()) return Status(ErrorCode::NotFound, "end of input inside a message");
  std::string body = buf_.substr(bodyStart, static_cast<size_t>(length));
  pos_ = bodyStart + static_cast<size_t>(length);
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  return body;
}

Status MessageWriter::write(std::string_view body) {
  std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  frame += body;
  std::lock_guard<std::mutex> g(mutex_);
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t n = ::write(fd_, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status(ErrorCode::IoError, std::string("cannot write to the client: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::ok();
}

}  // namespace nib
