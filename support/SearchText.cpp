#include "support/SearchText.h"

#include <cstdlib>

#include <algorithm>
#include <array>

namespace nib {
namespace {

bool isWordByte(unsigned char c) {
  // A table: std::isalnum is a locale-aware call, and this runs for every byte indexed.
  static const auto table = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c) t[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
    return t;
  }();
  return table[c];
}
bool isUpper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool isLower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }

constexpr size_t kMinToken = 2;
constexpr size_t kMaxToken = 64;

}  // namespace

void forEachToken(std::string_view text, const std::function<void(std::string_view)>& emit) {
  forEachTokenAt(text, [&](size_t, size_t, std::string_view token) { emit(token); });
}

void forEachTokenAt(std::string_view text,
                    const std::function<void(size_t wordStart, size_t wordEnd, std::string_view token)>& emit) {
  std::string lower;
  std::vector<std::pair<size_t, size_t>> spans;  // one word's parts; reused, words are many
  size_t i = 0, n = text.size();
  while (i < n) {
    while (i < n && !isWordByte(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < n && isWordByte(static_cast<unsigned char>(text[i]))) ++i;
    std::string_view word = text.substr(start, i - start);
    if (word.size() < kMinToken || word.size() > kMaxToken) continue;
    lower.assign(word);
    for (char& c : lower) c = static_cast<char>(foldByte(static_cast<unsigned char>(c)));
    emit(start, i, lower);
    // Parts: boundaries at '_', lower->Upper, letter<->digit, and before the last capital of
    // an acronym followed by lower case ("HTTPRequest" -> HTTP | Request).
    size_t partStart = 0;
    size_t parts = 0;
    spans.clear();
    auto flush = [&](size_t end) {
      if (end > partStart) spans.emplace_back(partStart, end);
    };
    for (size_t k = 0; k < word.size(); ++k) {
      auto c = static_cast<unsigned char>(word[k]);
      if (c == '_') {
        flush(k);
        partStart = k + 1;
        continue;
      }
      if (k == partStart) continue;
      auto p = static_cast<unsigned char>(word[k - 1]);
      bool boundary = (isLower(p) && isUpper(c)) || (isDigit(p) != isDigit(c) && (std::isalpha(p) || std::isalpha(c))) ||
                      (isUpper(p) && isUpper(c) && k + 1 < word.size() && isLower(static_cast<unsigned char>(word[k + 1])));
      if (boundary) {
        flush(k);
        partStart = k;
      }
    }
    flush(word.size());
    parts = spans.size();
    if (parts < 2) continue;
    for (auto [a, b] : spans) {
      if (b - a < kMinToken) continue;
      emit(start, i, std::string_view(lower).substr(a, b - a));
    }
  }
}

void trigramMasksOf(std::string_view text, std::vector<uint32_t>* trigrams, std::vector<uint16_t>* masks) {
  trigrams->clear();
  masks->clear();
  if (text.size() < 3) return;
  // A mask per possible trigram, indexed directly (32 MiB of address space per thread, from
  // calloc so that only the pages a file touches become memory); reset after each file.
  struct Table {
    uint16_t* masks = static_cast<uint16_t*>(std::calloc(size_t(1) << 24, sizeof(uint16_t)));
    ~Table() { std::free(masks); }
  };
  thread_local Table table;
  if (!table.masks) {  // no memory for the table: every mask says "maybe", which stays exact
    *trigrams = trigramsOf(text);
    masks->assign(trigrams->size(), 0xFFFF);
    return;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    uint32_t t = packTrigram(bytes[i], bytes[i + 1], bytes[i + 2]);
    uint16_t& m = table.masks[t];
    if (!m) trigrams->push_back(t);
    m |= trigramLocationBit(i);
    if (i + 3 < text.size()) m |= trigramNextBit(bytes[i + 3]);
  }
  std::sort(trigrams->begin(), trigrams->end());
  masks->reserve(trigrams->size());
  for (uint32_t t : *trigrams) {
    masks->push_back(table.masks[t]);
    table.masks[t] = 0;
  }
}

std::vector<uint32_t> trigramsOf(std::string_view text) {
  std::vector<uint32_t> out;
  if (text.size() < 3) return out;
  // A bitmap over all 2^24 trigrams beats hashing for files of any size; it is reused per thread.
  thread_local std::vector<uint64_t> seen(1u << 18, 0);
  out.reserve(std::min<size_t>(text.size(), 1 << 16));
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    uint32_t t = packTrigram(static_cast<unsigned char>(text[i]), static_cast<unsigned char>(text[i + 1]),
                             static_cast<unsigned char>(text[i + 2]));
    uint64_t bit = uint64_t(1) << (t & 63);
    uint64_t& word = seen[t >> 6];
    if (!(word & bit)) {
      word |= bit;
      out.push_back(t);
    }
  }
  for (uint32_t t : out) seen[t >> 6] = 0;  // reset only what was touched
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace nib
