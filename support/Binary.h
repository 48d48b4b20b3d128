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
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
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

// A 32-bit id as an LMDB key: big-endian, so that LMDB's byte order is numeric order.
inline std::string idKey(uint32_t id) {
  std::string k(4, '\0');
  for (int i = 0; i < 4; ++i) k[i] = static_cast<char>(id >> (24 - 8 * i));
  return k;
}

}  // namespace nib
