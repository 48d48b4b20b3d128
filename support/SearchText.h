// The text analysis shared by the search views' builders and their queries, so both sides
// always agree: identifier sub-tokens for the lexical (BM25) view and case-folded trigrams for
// the trigram view.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace nib {

// Calls `emit` for every token of `text`: each identifier-like run ([A-Za-z0-9_], plus bytes of
// multi-byte UTF-8 characters) lowercased as a whole, and, when it has several parts, its
// camelCase / snake_case / digit-boundary parts lowercased. Tokens shorter than 2 bytes and
// longer than 64 are dropped. "parseHTTPRequest_v2" -> parsehttprequest_v2, parse, http,
// request, v, 2 (single characters dropped).
void forEachToken(std::string_view text, const std::function<void(std::string_view token)>& emit);
// The same tokens, each with the byte range of the word it comes from.
void forEachTokenAt(std::string_view text,
                    const std::function<void(size_t wordStart, size_t wordEnd, std::string_view token)>& emit);

// A trigram is three bytes, ASCII letters folded to lower case, packed into 24 bits.
inline uint32_t foldByte(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }
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
