// A hash map keyed by std::string that is looked up by std::string_view without making a string:
// transparent hashing (C++20's heterogeneous lookup), for maps probed far more often than they
// grow — names read into reused buffers, USRs libclang hands over as C strings.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace nib {

struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <typename V>
using StringMap = std::unordered_map<std::string, V, StringViewHash, std::equal_to<>>;

}  // namespace nib
