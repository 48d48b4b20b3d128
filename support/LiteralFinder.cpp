#include "support/LiteralFinder.h"

#include <immintrin.h>
#include <string.h>

#include <algorithm>
#include <cstdint>

namespace nib {
namespace {

// How common a byte is in source code and prose, roughly: higher is more common. Bytes not
// listed (upper case, digits, most punctuation, non-ASCII) count as rare, which is what makes
// them good filter bytes.
int commonness(unsigned char c) {
  static constexpr std::string_view kByFrequency = " etaionsrlcdu\n_p()m;hf.,=g*b\"y/v>-kw\tx{}0:1";
  size_t i = kByFrequency.find(static_cast<char>(c));
  return i == std::string_view::npos ? 0 : static_cast<int>(kByFrequency.size() - i);
}

__attribute__((target("avx2"))) size_t findAvx2(const char* hay, size_t n, const std::string& needle, size_t r1,
                                                size_t r2, size_t r3) {
  const size_t m = needle.size();
  const __m256i b1 = _mm256_set1_epi8(needle[r1]);
  const __m256i b2 = _mm256_set1_epi8(needle[r2]);
  const __m256i b3 = _mm256_set1_epi8(needle[r3]);
  size_t p = 0;
  // Candidate starts p..p+31 need bytes up to p + 31 + (m - 1): stay inside the text.
  for (; p + m + 31 <= n; p += 32) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hay + p + r1));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hay + p + r2));
    __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hay + p + r3));
    __m256i hit = _mm256_and_si256(_mm256_cmpeq_epi8(a, b1), _mm256_cmpeq_epi8(b, b2));
    uint32_t mask = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_and_si256(hit, _mm256_cmpeq_epi8(c, b3))));
    while (mask) {
      size_t at = p + static_cast<size_t>(__builtin_ctz(mask));
      if (memcmp(hay + at, needle.data(), m) == 0) return at;
      mask &= mask - 1;
    }
  }
  if (p + m > n) return std::string_view::npos;
  const void* at = ::memmem(hay + p, n - p, needle.data(), m);
  return at ? static_cast<size_t>(static_cast<const char*>(at) - hay) : std::string_view::npos;
}

__attribute__((target("avx2"))) size_t countAvx2(const char* p, size_t n, char byte) {
  const __m256i b = _mm256_set1_epi8(byte);
  size_t count = 0, i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    count += static_cast<size_t>(__builtin_popcount(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, b)))));
  }
  for (; i < n; ++i) count += p[i] == byte;
  return count;
}

}  // namespace

size_t countByte(std::string_view text, char byte) {
  static const bool simd = __builtin_cpu_supports("avx2");
  if (simd) return countAvx2(text.data(), text.size(), byte);
  size_t count = 0;
  for (char c : text) count += c == byte;
  return count;
}

LiteralFinder::LiteralFinder(std::string needle) : needle_(std::move(needle)) {
  simd_ = __builtin_cpu_supports("avx2") && needle_.size() >= 2;
  if (needle_.size() < 2) return;
  // The rarest byte, then the rarest at another index (preferring one far from the first, so
  // the two compare independent stretches of text).
  for (size_t i = 1; i < needle_.size(); ++i)
    if (commonness(static_cast<unsigned char>(needle_[i])) < commonness(static_cast<unsigned char>(needle_[rare1_])))
      rare1_ = i;
  rare2_ = rare1_ == 0 ? 1 : 0;
  for (size_t i = 0; i < needle_.size(); ++i) {
    if (i == rare1_) continue;
    int ci = commonness(static_cast<unsigned char>(needle_[i]));
    int cb = commonness(static_cast<unsigned char>(needle_[rare2_]));
    if (ci < cb) rare2_ = i;
  }
  // Rare bytes of one word are often rare together ('C' and 'm' in every "Command"); a third
  // byte at the needle's far end breaks that correlation for a third compare per block.
  size_t lo = std::min(rare1_, rare2_), hi = std::max(rare1_, rare2_);
  far_ = lo >= needle_.size() - 1 - hi ? 0 : needle_.size() - 1;
}

size_t LiteralFinder::find(std::string_view hay, size_t from) const {
  if (from > hay.size()) return std::string_view::npos;
  if (needle_.empty()) return from;
  const char* start = hay.data() + from;
  size_t n = hay.size() - from;
  size_t at;
  if (simd_) {
    at = findAvx2(start, n, needle_, rare1_, rare2_, far_);
  } else {
    const void* p = ::memmem(start, n, needle_.data(), needle_.size());
    at = p ? static_cast<size_t>(static_cast<const char*>(p) - start) : std::string_view::npos;
  }
  return at == std::string_view::npos ? at : at + from;
}

}  // namespace nib
