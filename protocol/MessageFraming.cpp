#include "protocol/MessageFraming.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace nib {
namespace {
constexpr size_t kMaxMessage = 64u << 20;  // a larger frame is refused rather than buffered
constexpr size_t kCompactAt = 1u << 20;     // drop consumed bytes once this many accumulate
}

bool MessageReader::pending() {
  if (pos_ < buf_.size()) return true;
  if (eof_) return false;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
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

namespace {

constexpr std::string_view kLengthName = "content-length:";

bool startsWithLength(std::string_view s) {
  if (s.size() < kLengthName.size()) return false;
  for (size_t i = 0; i < kLengthName.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != kLengthName[i]) return false;
  return true;
}

// Where the next "Content-Length:" (any case) starts in `s` at or after `from`; npos if none.
size_t findLength(std::string_view s, size_t from) {
  for (size_t i = from; i + kLengthName.size() <= s.size(); ++i) {
    i = s.find_first_of("cC", i);
    if (i == std::string_view::npos) return i;
    if (startsWithLength(s.substr(i))) return i;
  }
  return std::string_view::npos;
}

// A header line is `Name: value` with a token for a name (RFC 7230's tchar, roughly).
bool isHeaderLine(std::string_view line) {
  size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  for (size_t i = 0; i < colon; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (c <= ' ' || c >= 127 || std::strchr("()<>@,;\\\"/[]?={}", c)) return false;
  }
  return true;
}

// The Content-Length of a header block: the length, -1 when absent, -2 when malformed (not
// digits, or over `max`), -3 when a line is not a header at all.
long long lengthOf(std::string_view headers, size_t max) {
  long long length = -1;
  size_t start = 0;
  while (start < headers.size()) {
    size_t end = headers.find('\n', start);
    if (end == std::string_view::npos) end = headers.size();
    std::string_view line = headers.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = end + 1;
    if (!isHeaderLine(line)) return -3;
    if (!startsWithLength(line)) continue;
    std::string_view value = line.substr(kLengthName.size());
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (value.empty() || value.size() > 12 || value.find_first_not_of("0123456789") != std::string_view::npos) return -2;
    length = std::strtoll(std::string(value).c_str(), nullptr, 10);
    if (static_cast<unsigned long long>(length) > max) return -2;
  }
  return length;
}

}  // namespace

Expected<std::string> MessageReader::next() {
  dropped_.clear();
  // Frames rarely end where reads do: drop what was consumed before parsing the next frame, or
  // the buffer would hold the whole session. (Not inside fill(): offsets into the frame being
  // parsed must stay valid.)
  if (pos_ > 0 && (pos_ >= kCompactAt || pos_ * 2 >= buf_.size())) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  // Headers end at the first blank line; LF-only line ends are accepted as many clients send them.
  size_t end, bodyStart;
  for (;;) {
    size_t crlf = buf_.find("\r\n\r\n", pos_), lf = buf_.find("\n\n", pos_);
    end = std::min(crlf, lf);
    if (end != std::string::npos) {
      bodyStart = end + (end == crlf ? 4 : 2);
      break;
    }
    if (buf_.size() - pos_ > 65536) return resync("malformed message header (no blank line)");
    if (!fill()) return Status(ErrorCode::NotFound, "end of input");
  }
  long long length = lengthOf(std::string_view(buf_).substr(pos_, end - pos_), kMaxMessage);
  if (length < 0) {
    // The header is unusable. A "Content-Length:" inside the block after its start is where the
    // next frame begins (the rest of a body cut short ran into it); else what follows the
    // block up to the next header (its body, most likely) is dropped with it, so that the next
    // valid message is read, not swallowed.
    size_t inside = findLength(buf_, pos_ + 1);
    if (inside != std::string::npos && inside < end) {
      dropped_ = buf_.substr(pos_, std::min<size_t>(inside - pos_, 1u << 16));
      pos_ = inside;
      return Status(ErrorCode::InvalidArgument, "malformed message header");
    }
    size_t next = findLength(buf_, bodyStart);
    size_t stop = next == std::string::npos ? buf_.size() : next;
    dropped_ = buf_.substr(bodyStart, std::min<size_t>(stop - bodyStart, 1u << 16));
    pos_ = next == std::string::npos ? buf_.size() : next;
    return Status(ErrorCode::InvalidArgument, length == -1   ? "message header has no Content-Length"
                                              : length == -3 ? "malformed message header"
                                                             : "message header has an invalid Content-Length");
  }
  while (buf_.size() - bodyStart < static_cast<size_t>(length))
    if (!fill()) return Status(ErrorCode::NotFound, "end of input inside a message");
  std::string body = buf_.substr(bodyStart, static_cast<size_t>(length));
  pos_ = bodyStart + static_cast<size_t>(length);
  // Whatever separates this frame from the next one (a stray newline) is skipped; anything
  // else is a broken frame, reported by the next call.
  while (pos_ < buf_.size() && (buf_[pos_] == '\r' || buf_[pos_] == '\n')) ++pos_;
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  return body;
}

void MessageReader::releaseBuffer() {
  std::string rest = buf_.substr(pos_);
  buf_.swap(rest);
  buf_.shrink_to_fit();
  pos_ = 0;
  std::string().swap(dropped_);
}

Status MessageReader::resync(const std::string& why) {
  // Skip to the next "Content-Length:" after the start of the bad block; keep the last bytes
  // when there is none yet (the name may be split across reads).
  size_t next = findLength(buf_, pos_ + 1);
  if (next == std::string::npos) next = buf_.size() > kLengthName.size() ? buf_.size() - kLengthName.size() : pos_;
  pos_ = std::max(next, pos_ + 1);
  return Status(ErrorCode::InvalidArgument, why);
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
