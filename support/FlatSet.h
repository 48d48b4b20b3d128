// A set of small fixed-size keys in one array (open addressing, linear probing, a power-of-two
// capacity kept under 7/8 full): for sets that take millions of inserts, where std::set and
// std::unordered_set allocate a node for each and chase a pointer at every step. The clang
// view's merge dedupes a million and a half sites this way (UnitMerge).
#pragma once

#include <cstddef>
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
    if ((size_ + 1) * 8 > slots_.size() * 7) grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = hashOf(key) & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (!slot.used) {
        slot = {key, true};
        ++size_;
        return true;
      }
      if (slot.key == key) return false;
    }
  }
  bool contains(const Key128& key) const {
    if (slots_.empty()) return false;
    size_t mask = slots_.size() - 1;
    for (size_t i = hashOf(key) & mask;; i = (i + 1) & mask) {
      if (!slots_[i].used) return false;
      if (slots_[i].key == key) return true;
    }
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    Key128 key;
    bool used = false;
  };
  static size_t hashOf(const Key128& key) { return static_cast<size_t>(mixBits(key.high ^ mixBits(key.low))); }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(old.empty() ? 1024 : old.size() * 2);
    size_ = 0;
    for (const Slot& slot : old)
      if (slot.used) insert(slot.key);
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace nib
