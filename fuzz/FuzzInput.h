// Shared by the fuzz targets: the input as a string view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace nib::fuzz {

inline std::string_view bytes(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace nib::fuzz
