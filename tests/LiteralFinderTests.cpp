// LiteralFinder must agree with std::string_view::find everywhere: at the text's end (where
// the SIMD loop hands over to the tail), with repeated and overlapping candidates, and for
// needles whose filter bytes are common.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "support/LiteralFinder.h"

namespace nib::test {

TEST_CASE("LiteralFinder finds what string_view::find finds", "[search]") {
  std::mt19937 rng(7);
  const std::string alphabet = "aab_e \n(xyzMALLOC";
  auto randomText = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
    return s;
  };
  size_t found = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string hay = randomText(rng() % 300);
    std::string needle;
    if (!hay.empty() && rng() % 2) {
      size_t at = rng() % hay.size();
      needle = hay.substr(at, 1 + rng() % 40);  // often right at the end of the text
    } else {
      needle = randomText(1 + rng() % 6);
    }
    LiteralFinder finder(needle);
    for (size_t from = 0; from <= hay.size(); from += 1 + rng() % 50) {
      size_t expected = std::string_view(hay).find(needle, from);
      REQUIRE(finder.find(hay, from) == expected);
      if (expected != std::string_view::npos) ++found;
    }
  }
  CHECK(found > 1000);
  for (size_t n : {0, 1, 31, 32, 33, 100, 1000}) {
    std::string text = randomText(n);
    REQUIRE(countByte(text, '\n') == static_cast<size_t>(std::count(text.begin(), text.end(), '\n')));
  }  // the rounds really exercised matches, not only misses
  CHECK(LiteralFinder("malloc").find("x = malloc(4); free(p); malloc") == 4);
  CHECK(LiteralFinder("zz").find("short") == std::string_view::npos);
  CHECK(LiteralFinder("abc").find("abc", 4) == std::string_view::npos);
}

}  // namespace nib::test
