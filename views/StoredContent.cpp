#include "views/StoredContent.h"

#include <lz4.h>

#include "support/Binary.h"

namespace nib {
namespace {

enum Tag : uint8_t { kRaw = 0, kLz4 = 1 };

// LZ4 expands at most 255 to 1: a size above that is a corrupt record, not a reason to allocate.
constexpr uint64_t kMaxRatio = 255;

}  // namespace

std::string packContent(std::string_view bytes, bool compress) {
  if (!compress || bytes.size() < 64 || bytes.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    std::string out(1, static_cast<char>(kRaw));
    out.append(bytes);
    return out;
  }
  ByteWriter head;
  head.u8(kLz4);
  head.varint(bytes.size());
  std::string out = head.take();
  size_t at = out.size();
  out.resize(at + static_cast<size_t>(LZ4_compressBound(static_cast<int>(bytes.size()))));
  int n = LZ4_compress_default(bytes.data(), out.data() + at, static_cast<int>(bytes.size()),
                               static_cast<int>(out.size() - at));
  if (n <= 0 || at + static_cast<size_t>(n) >= bytes.size() + 1) {  // nothing saved
    out.assign(1, static_cast<char>(kRaw));
    out.append(bytes);
    return out;
  }
  out.resize(at + static_cast<size_t>(n));
  return out;
}

Expected<std::string_view> unpackContentInto(std::string_view stored, std::string& buffer) {
  if (stored.empty()) return Status(ErrorCode::Corrupt, "a stored content record is empty");
  if (static_cast<uint8_t>(stored[0]) == kRaw) return stored.substr(1);  // the map's own bytes
  ByteReader r(stored);
  uint8_t tag = r.u8();
  uint64_t size = r.varint();
  size_t at = stored.size() - r.remaining();
  size_t packed = stored.size() - at;
  if (tag != kLz4 || !r.ok() || size > static_cast<uint64_t>(LZ4_MAX_INPUT_SIZE) || size > packed * kMaxRatio)
    return Status(ErrorCode::Corrupt, "a stored content record is not one nib wrote");
  // A buffer too small is replaced, not grown: its old bytes need no copying.
  if (buffer.size() < size) {
    std::string().swap(buffer);
    buffer.resize(size);
  }
  int n = LZ4_decompress_safe(stored.data() + at, buffer.data(), static_cast<int>(packed), static_cast<int>(size));
  if (n < 0 || static_cast<uint64_t>(n) != size) return Status(ErrorCode::Corrupt, "a stored content record does not decompress");
  return std::string_view(buffer.data(), size);
}

bool hasContentTag(std::string_view stored) {
  return !stored.empty() && (static_cast<uint8_t>(stored[0]) == kRaw || static_cast<uint8_t>(stored[0]) == kLz4);
}

std::optional<uint8_t> firstContentByte(std::string_view stored) {
  if (stored.size() < 2) return std::nullopt;
  if (static_cast<uint8_t>(stored[0]) == kRaw) return static_cast<uint8_t>(stored[1]);
  ByteReader r(stored);
  uint8_t tag = r.u8();
  uint64_t size = r.varint();
  size_t at = stored.size() - r.remaining();
  if (tag != kLz4 || !r.ok() || size == 0) return std::nullopt;
  // The block's first sequence only: LZ4 stops once the first byte is out.
  char first[16];
  int n = LZ4_decompress_safe_partial(stored.data() + at, first, static_cast<int>(stored.size() - at), 1, sizeof first);
  if (n < 1) return std::nullopt;
  return static_cast<uint8_t>(first[0]);
}

}  // namespace nib
