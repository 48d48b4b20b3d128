// A set of small fixed-size keys in one array (open addressing, linear probing, a power-of-two
// capacity kept under 7/8 full): for sets that take millions of inserts, where std::set and
// std::unordered_set allocate a node for each and chase a pointer at every step. The clang
// view's merge dedupes a million and a half sites this way (UnitMerge).
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <vector>

namespace nib {

// A 64-bit mix (splitmix64's finalizer): keys made of small numbers (file, offset, symbol)
// would cluster in a power-of-two table without it.
inline uint64_t mixBits(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// A key of two 64-bit words, hashed by mixBits.
struct Key128 {
  uint64_t high = 0, low = 0;
  bool operator==(const Key128&) const = default;
};

class FlatSet128 {
 public:
  // Adds `key`; whether it was not there before.
  bool insert(const Key128& key) {
    if (key.high == kEmpty) return insertEmptyKey(key.low);
    if ((size_ + 1) * 8 > slots_.size() * 7) grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = hashOf(key) & mask;; i = (i + 1) & mask) {
      Key128& slot = slots_[i];
      if (slot.high == kEmpty) {
        slot = key;
        ++size_;
        return true;
      }
      if (slot == key) return false;
    }
  }
  bool contains(const Key128& key) const {
    if (key.high == kEmpty) return std::find(emptyKeys_.begin(), emptyKeys_.end(), key.low) != emptyKeys_.end();
    if (slots_.empty()) return false;
    size_t mask = slots_.size() - 1;
    for (size_t i = hashOf(key) & mask;; i = (i + 1) & mask) {
      if (slots_[i].high == kEmpty) return false;
      if (slots_[i] == key) return true;
    }
  }
  size_t size() const { return size_ + emptyKeys_.size(); }

 private:
  // A free slot's first word: 16 bytes a slot rather than 24 with a flag, so that more of the
  // table stays in the cache. Keys with that first word, which the merge never makes, are kept
  // aside.
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  static size_t hashOf(const Key128& key) { return static_cast<size_t>(mixBits(key.high ^ mixBits(key.low))); }
  bool insertEmptyKey(uint64_t low) {
    if (std::find(emptyKeys_.begin(), emptyKeys_.end(), low) != emptyKeys_.end()) return false;
    emptyKeys_.push_back(low);
    return true;
  }
  void grow() {
    std::vector<Key128> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Key128{kEmpty, 0});
    size_ = 0;
    for (const Key128& slot : old)
      if (slot.high != kEmpty) insert(slot);
  }
  std::vector<Key128> slots_;
  size_t size_ = 0;              // in slots_
  std::vector<uint64_t> emptyKeys_;  // the second words of keys whose first is kEmpty
};

}  // namespace nib
