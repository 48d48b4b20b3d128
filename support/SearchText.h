// The text analysis shared by the search views' builders and their queries, so both sides
// always agree: identifier sub-tokens for the lexical (BM25) view and case-folded trigrams for
// the trigram view.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nib {

inline uint32_t foldByte(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

namespace token_detail {
inline constexpr size_t kMinToken = 2;
inline constexpr size_t kMaxToken = 64;
// A table: std::isalnum is a locale-aware call, and this runs for every byte indexed.
inline constexpr auto kWordByte = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
  return t;
}();
// The spans [first, second) of a word's parts (see forEachToken), at most kMaxToken of them;
// their count.
using PartSpans = std::array<std::pair<uint8_t, uint8_t>, kMaxToken>;
size_t wordParts(std::string_view word, PartSpans* spans);
}  // namespace token_detail

// Calls `emit(wordStart, wordEnd, token)` for every token of `text` (see forEachToken), with
// the byte range of the word it comes from. A template, so that the call per token inlines:
// this runs over every byte the search views index and every unit a query reranks.
template <class Emit>
void forEachTokenAt(std::string_view text, Emit&& emit) {
  using namespace token_detail;
  char lower[kMaxToken];
  PartSpans spans;
  size_t i = 0, n = text.size();
  while (i < n) {
    while (i < n && !kWordByte[static_cast<unsigned char>(text[i])]) ++i;
    size_t start = i;
    while (i < n && kWordByte[static_cast<unsigned char>(text[i])]) ++i;
    size_t size = i - start;
    if (size < kMinToken || size > kMaxToken) continue;
    for (size_t k = 0; k < size; ++k) lower[k] = static_cast<char>(foldByte(static_cast<unsigned char>(text[start + k])));
    std::string_view token(lower, size);
    emit(start, i, token);
    size_t parts = wordParts(text.substr(start, size), &spans);
    if (parts < 2) continue;
    for (size_t p = 0; p < parts; ++p)
      if (static_cast<size_t>(spans[p].second - spans[p].first) >= kMinToken)
        emit(start, i, token.substr(spans[p].first, spans[p].second - spans[p].first));
  }
}

// Calls `emit` for every token of `text`: each identifier-like run ([A-Za-z0-9_], plus bytes of
// multi-byte UTF-8 characters) lowercased as a whole, and, when it has several parts, its
// camelCase / snake_case / digit-boundary parts lowercased. Tokens shorter than 2 bytes and
// longer than 64 are dropped. "parseHTTPRequest_v2" -> parsehttprequest_v2, parse, http,
// request, v, 2 (single characters dropped).
template <class Emit>
void forEachToken(std::string_view text, Emit&& emit) {
  forEachTokenAt(text, [&](size_t, size_t, std::string_view token) { emit(token); });
}

// A trigram is three bytes, ASCII letters folded to lower case, packed into 24 bits.
inline uint32_t packTrigram(unsigned char a, unsigned char b, unsigned char c) {
  return (foldByte(a) << 16) | (foldByte(b) << 8) | foldByte(c);
}
// Per distinct trigram of a text, a 16-bit mask that lets a query rule out most files holding
// all of a literal's trigrams but not the literal itself: the low byte has bit (position mod 8)
// of every occurrence, the high byte bit (folded next byte mod 8) of the byte after every
// occurrence. Both are necessary conditions, so filtering with them never loses a match.
inline uint16_t trigramLocationBit(size_t position) { return static_cast<uint16_t>(1u << (position & 7)); }
inline uint16_t trigramNextBit(unsigned char next) { return static_cast<uint16_t>(0x100u << (foldByte(next) & 7)); }
// The distinct trigrams of `text`, sorted, and their masks (parallel).
void trigramMasksOf(std::string_view text, std::vector<uint32_t>* trigrams, std::vector<uint16_t>* masks);

}  // namespace nib
