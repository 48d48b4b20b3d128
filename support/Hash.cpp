#include "support/Hash.h"

#include <xxhash.h>

#include <cstdio>
#include <vector>

namespace nib {
namespace {
std::string toHex(XXH128_hash_t h) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return std::string(buf, 32);
}
}  // namespace

std::string digestHex(std::string_view bytes) { return toHex(XXH3_128bits(bytes.data(), bytes.size())); }

uint64_t digest64(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

Expected<std::string> digestFile(const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status(ErrorCode::IoError, "cannot open " + path.string() + " for digest");
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  std::vector<char> buf(1 << 20);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) XXH3_128bits_update(state, buf.data(), n);
  bool failed = std::ferror(f);
  std::fclose(f);
  XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  if (failed) return Status(ErrorCode::IoError, "read error while digesting " + path.string());
  return toHex(h);
}

Digester::Digester() : state_(XXH3_createState()) {
  XXH3_128bits_reset(static_cast<XXH3_state_t*>(state_));
}
Digester::~Digester() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

Digester& Digester::add(std::string_view field) {
  add(static_cast<uint64_t>(field.size()));
  XXH3_128bits_update(static_cast<XXH3_state_t*>(state_), field.data(), field.size());
  return *this;
}

Digester& Digester::add(uint64_t value) {
  unsigned char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(value >> (8 * i));
  XXH3_128bits_update(static_cast<XXH3_state_t*>(state_), le, 8);
  return *this;
}

std::string Digester::hex() { return toHex(XXH3_128bits_digest(static_cast<XXH3_state_t*>(state_))); }

}  // namespace nib
