// Compact binary encoding for persisted records (LEB128 varints and length-prefixed strings).
// Every record format starts with its own version byte so that a reader can reject data written
// by a different nib instead of misreading it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/Text.h"

namespace nib {

class ByteWriter {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void varint(uint64_t v) {
    // One append a number rather than a push_back a byte: a unit's facts are millions of them.
    char bytes[10];
    size_t n = 0;
    while (v >= 0x80) {
      bytes[n++] = static_cast<char>((v & 0x7F) | 0x80);
      v >>= 7;
    }
    bytes[n++] = static_cast<char>(v);
    out_.append(bytes, n);
  }
  void svarint(int64_t v) { varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void str(std::string_view s) {
    varint(s.size());
    out_.append(s);
  }
  void raw(std::string_view s) { out_.append(s); }
  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what ByteWriter wrote. Any overrun sets a sticky failure flag instead of reading past
// the end; callers check ok() once at the end of a record.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  uint8_t u8() {
    if (pos_ >= in_.size()) return fail(), 0;
    return static_cast<uint8_t>(in_[pos_++]);
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) return fail(), 0;
      auto b = static_cast<uint8_t>(in_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    return fail(), 0;
  }
  uint32_t u32() { return static_cast<uint32_t>(varint()); }
  int64_t svarint() {
    uint64_t z = varint();
    return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  std::string_view str() {
    uint64_t n = varint();
    if (n > in_.size() - pos_) return fail(), std::string_view();
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  // The next n bytes as they are (a field of fixed size).
  std::string_view fixed(size_t n) {
    if (n > in_.size() - pos_) return fail(), std::string_view();
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool ok() const { return ok_; }
  bool atEnd() const { return pos_ == in_.size(); }
  size_t remaining() const { return in_.size() - pos_; }
  // Marks the record malformed (a decoder's own check failed); sticky like an overrun.
  void fail() {
    ok_ = false;
    pos_ = in_.size();
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// A range as every store writes it: start byte, length, start line and column, line count,
// end column (deltas keep the varints short).
inline void writeRange(ByteWriter& w, const ByteRange& r) {
  w.varint(r.startByte);
  w.varint(r.endByte - r.startByte);
  w.varint(r.start.line);
  w.varint(r.start.column);
  w.varint(r.end.line - r.start.line);
  w.varint(r.end.column);
}

inline ByteRange readRange(ByteReader& r) {
  ByteRange out;
  out.startByte = r.u32();
  out.endByte = out.startByte + r.u32();
  out.start.line = r.u32();
  out.start.column = r.u32();
  out.end.line = out.start.line + r.u32();
  out.end.column = r.u32();
  return out;
}

// Ranges of one sequence (a file's occurrences, its definitions) written against the previous
// one's start: they lie in order, so a range costs three or four bytes instead of the nine
// writeRange spends. The start column is left out when the range starts on the previous one's
// line (columns count bytes, so it follows from the byte offsets), and the end when the range
// ends on its own line at its length. Decoding checks every sum, so garbage cannot wrap around.
struct RangeCursor {
  uint32_t byte = 0, line = 0, column = 0;
  static RangeCursor at(const ByteRange& r) { return {r.startByte, r.start.line, r.start.column}; }
};

inline void writeRangeAfter(ByteWriter& w, RangeCursor& prev, const ByteRange& r) {
  int64_t byteDelta = int64_t(r.startByte) - prev.byte, lineDelta = int64_t(r.start.line) - prev.line;
  uint64_t length = r.endByte >= r.startByte ? r.endByte - r.startByte : 0;
  bool columnFollows = lineDelta == 0 && int64_t(r.start.column) == int64_t(prev.column) + byteDelta;
  bool endFollows = r.end.line == r.start.line && uint64_t(r.end.column) == uint64_t(r.start.column) + length;
  w.svarint(byteDelta);
  w.varint(length);
  uint64_t zigLine = (static_cast<uint64_t>(lineDelta) << 1) ^ static_cast<uint64_t>(lineDelta >> 63);
  w.varint(zigLine << 2 | (columnFollows ? 0 : 1) | (endFollows ? 0 : 2));
  if (!columnFollows) w.varint(r.start.column);
  if (!endFollows) {
    w.svarint(int64_t(r.end.line) - r.start.line);
    w.varint(r.end.column);
  }
  prev = RangeCursor::at(r);
}

inline ByteRange readRangeAfter(ByteReader& r, RangeCursor& prev) {
  auto fits = [&](int64_t v) {
    if (v >= 0 && v <= int64_t(UINT32_MAX)) return static_cast<uint32_t>(v);
    r.fail();
    return uint32_t(0);
  };
  int64_t byteDelta = r.svarint();
  uint64_t length = r.varint(), head = r.varint();
  uint64_t zigLine = head >> 2;
  int64_t lineDelta = static_cast<int64_t>((zigLine >> 1) ^ (~(zigLine & 1) + 1));
  ByteRange out;
  if (byteDelta > int64_t(UINT32_MAX) || byteDelta < -int64_t(UINT32_MAX) || length > UINT32_MAX ||
      lineDelta > int64_t(UINT32_MAX) || lineDelta < -int64_t(UINT32_MAX)) {
    r.fail();
    return out;
  }
  out.startByte = fits(int64_t(prev.byte) + byteDelta);
  out.endByte = fits(int64_t(out.startByte) + int64_t(length));
  out.start.line = fits(int64_t(prev.line) + lineDelta);
  out.start.column = (head & 1) ? r.u32() : fits(int64_t(prev.column) + byteDelta);
  if ((head & 1) == 0 && lineDelta != 0) r.fail();  // a column follows only on the same line
  if (head & 2) {
    int64_t lines = r.svarint();
    if (lines > int64_t(UINT32_MAX) || lines < -int64_t(UINT32_MAX)) return r.fail(), out;
    out.end.line = fits(int64_t(out.start.line) + lines);
    out.end.column = r.u32();
  } else {
    out.end.line = out.start.line;
    out.end.column = fits(int64_t(out.start.column) + int64_t(length));
  }
  prev = RangeCursor::at(out);
  return out;
}

// A 32-bit id as an LMDB key: big-endian, so that LMDB's byte order is numeric order.
inline std::string idKey(uint32_t id) {
  std::string k(4, '\0');
  for (int i = 0; i < 4; ++i) k[i] = static_cast<char>(id >> (24 - 8 * i));
  return k;
}

}  // namespace nib
