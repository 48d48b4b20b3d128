#include "support/SearchText.h"


#include <algorithm>
#include <array>
#include <cctype>

namespace nib {
namespace {

bool isUpper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool isLower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }

// Sorts keys holding a trigram (24 bits) above a 16-bit mask; trigrams are distinct. Large sets
// go by three counting passes over the trigram's bytes (sorting pairs by comparison was about a
// quarter of the time spent finding a file's trigrams, in a profile of a cold build).
void sortTrigramKeys(std::vector<uint64_t>& keys) {
  if (keys.size() < 2048) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  std::vector<uint64_t> other(keys.size());
  for (unsigned shift = 16; shift < 40; shift += 8) {
    std::array<size_t, 257> start{};
    for (uint64_t k : keys) ++start[((k >> shift) & 0xFF) + 1];
    for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    for (uint64_t k : keys) other[start[(k >> shift) & 0xFF]++] = k;
    keys.swap(other);
  }
}

}  // namespace

size_t token_detail::wordParts(std::string_view word, PartSpans* spans) {
  // Boundaries at '_', lower->Upper, letter<->digit, and before the last capital of an acronym
  // followed by lower case ("HTTPRequest" -> HTTP | Request).
  size_t partStart = 0, count = 0;
  auto flush = [&](size_t end) {
    if (end > partStart && count < spans->size())
      (*spans)[count++] = {static_cast<uint8_t>(partStart), static_cast<uint8_t>(end)};
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
  return count;
}

void trigramMasksOf(std::string_view text, std::vector<uint32_t>* trigrams, std::vector<uint16_t>* masks) {
  trigrams->clear();
  masks->clear();
  if (text.size() < 3) return;
  // An open-addressing table sized to the file (a file of n bytes has at most n trigrams), so
  // that a small file's table stays in cache; reused per thread and reset slot by slot.
  constexpr uint32_t kEmpty = 0xFFFFFFFF;  // not a trigram: those are 24 bits
  size_t capacity = 1024;
  while (capacity < 2 * std::min(text.size(), size_t(1) << 24)) capacity <<= 1;  // 2^24 trigrams at most
  thread_local std::vector<uint32_t> keys;
  thread_local std::vector<uint16_t> values;
  if (keys.size() < capacity) {
    keys.assign(capacity, kEmpty);
    values.assign(capacity, 0);
  }
  const size_t slotMask = capacity - 1;
  std::vector<uint32_t> slots;  // in first-seen order
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    uint32_t t = packTrigram(bytes[i], bytes[i + 1], bytes[i + 2]);
    size_t h = (static_cast<uint64_t>(t) * 0x9E3779B97F4A7C15ull >> 32) & slotMask;
    while (keys[h] != t && keys[h] != kEmpty) h = (h + 1) & slotMask;
    if (keys[h] == kEmpty) {
      keys[h] = t;
      slots.push_back(static_cast<uint32_t>(h));
    }
    uint16_t bits = trigramLocationBit(i);
    if (i + 3 < text.size()) bits |= trigramNextBit(bytes[i + 3]);
    values[h] |= bits;
  }
  // Each trigram with its mask in one integer (trigram above the mask's 16 bits), sorted.
  std::vector<uint64_t> found;
  found.reserve(slots.size());
  for (uint32_t slot : slots) {
    found.push_back(static_cast<uint64_t>(keys[slot]) << 16 | values[slot]);
    keys[slot] = kEmpty;
    values[slot] = 0;
  }
  sortTrigramKeys(found);
  trigrams->reserve(found.size());
  masks->reserve(found.size());
  for (uint64_t k : found) {
    trigrams->push_back(static_cast<uint32_t>(k >> 16));
    masks->push_back(static_cast<uint16_t>(k));
  }
}

}  // namespace nib
