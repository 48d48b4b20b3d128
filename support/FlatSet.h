// Sets and maps of small fixed-size keys in one array (open addressing, linear probing, a
// power-of-two capacity kept under 7/8 full): for tables that take millions of inserts or
// lookups, where std::set and std::unordered_set allocate a node for each and chase a pointer at
// every step. The clang view's merge dedupes a million and a half sites this way (UnitMerge), and
// the clang worker keeps its per-unit memos so (ClangCollector).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
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

// A map from Key128 to V in one array; V* handed out stays valid until the next insertion.
template <typename V>
class FlatMap128 {
 public:
  // The value of `key`, default-constructed where it was absent; whether it was.
  std::pair<V*, bool> tryEmplace(const Key128& key) {
    if (key.high == kEmpty) return tryEmplaceAside(key.low);
    if ((size_ + 1) * 8 > slots_.size() * 7) grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = hashOf(key) & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.key.high == kEmpty) {
        slot.key = key;
        ++size_;
        return {&slot.value, true};
      }
      if (slot.key == key) return {&slot.value, false};
    }
  }
  // The value of `key`, or null.
  const V* find(const Key128& key) const {
    if (key.high == kEmpty) {
      for (const auto& [low, value] : aside_)
        if (low == key.low) return &value;
      return nullptr;
    }
    if (slots_.empty()) return nullptr;
    size_t mask = slots_.size() - 1;
    for (size_t i = hashOf(key) & mask;; i = (i + 1) & mask) {
      if (slots_[i].key.high == kEmpty) return nullptr;
      if (slots_[i].key == key) return &slots_[i].value;
    }
  }
  size_t size() const { return size_ + aside_.size(); }

 private:
  // A free slot's first word, so that a slot needs no flag (a set's takes 16 bytes rather than
  // 24, and more of the table stays in the cache). Keys with that first word, which nib never
  // makes, are kept aside.
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    Key128 key{kEmpty, 0};
    [[no_unique_address]] V value{};
  };
  static size_t hashOf(const Key128& key) { return static_cast<size_t>(mixBits(key.high ^ mixBits(key.low))); }
  std::pair<V*, bool> tryEmplaceAside(uint64_t low) {
    for (auto& [other, value] : aside_)
      if (other == low) return {&value, false};
    aside_.emplace_back(low, V{});
    return {&aside_.back().second, true};
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(old.empty() ? 1024 : old.size() * 2);
    size_ = 0;
    for (Slot& slot : old)
      if (slot.key.high != kEmpty) *tryEmplace(slot.key).first = std::move(slot.value);
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;  // in slots_
  std::vector<std::pair<uint64_t, V>> aside_;  // keys whose first word is kEmpty, by their second
};

// A set of Key128.
class FlatSet128 {
 public:
  // Adds `key`; whether it was not there before.
  bool insert(const Key128& key) { return map_.tryEmplace(key).second; }
  bool contains(const Key128& key) const { return map_.find(key) != nullptr; }
  size_t size() const { return map_.size(); }

 private:
  struct Nothing {};
  FlatMap128<Nothing> map_;
};

}  // namespace nib
