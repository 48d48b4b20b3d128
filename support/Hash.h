// Content digests. XXH3-128 is used for nib's own digests (configuration, unit text, artifact
// files): fast, stable across platforms, and wide enough that collisions are not a concern for
// content addressing inside one repository. Git object ids come from libgit2, not from here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "support/Status.h"

namespace nib {

// 32 lowercase hex digits.
std::string digestHex(std::string_view bytes);
uint64_t digest64(std::string_view bytes);

// Streams a file through XXH3-128; used to record and check artifact digests in the manifest.
Expected<std::string> digestFile(const std::filesystem::path& path);

// Incremental digest over several fields; each field is length-prefixed so ("ab","c") and
// ("a","bc") differ.
class Digester {
 public:
  Digester();
  ~Digester();
  Digester(const Digester&) = delete;
  Digester& operator=(const Digester&) = delete;
  Digester& add(std::string_view field);
  Digester& add(uint64_t value);
  std::string hex();

 private:
  void* state_;
};

}  // namespace nib
