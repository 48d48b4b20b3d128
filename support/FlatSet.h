// Sets and maps of small fixed-size keys in one array (open addressing, linear probing, a
// power-of-two capacity kept under 7/8 full): for tables that take millions of inserts or
// lookups, where std::set and std::unordered_set allocate a node for each and chase a pointer at
// every step. The clang view's merge dedupes a million and a half sites this way (UnitMerge), and
// the clang worker keeps its per-unit memos so (ClangCollector).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
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

// An index by text of a table of strings that only grows at its end (a unit's USRs, which the
// worker looks up at every declaration and reference it reports): open addressing over (hash,
// position) slots, the text itself compared in the table, so that a lookup costs a probe and a
// comparison, and no string is kept twice nor allocated a node (std::unordered_map<std::string>
// did both, and hashed modulo a prime).
class StringIndex {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;
  static uint64_t hashOf(std::string_view text) { return std::hash<std::string_view>{}(text); }
  // The position of `text` (whose hashOf is `hash`) in `table`, which this index covers; kAbsent
  // where it is not there.
  uint32_t find(std::string_view text, uint64_t hash, const std::vector<std::string>& table) const {
    if (slots_.empty()) return kAbsent;
    const size_t mask = slots_.size() - 1;
    for (size_t i = mixBits(hash) & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.position == kAbsent) return kAbsent;
      if (slot.hash == hash && table[slot.position] == text) return slot.position;
    }
  }
  // Indexes the string at `position` of the table (absent from it until now), whose hashOf is
  // `hash`.
  void add(uint64_t hash, uint32_t position) {
    if ((size_ + 1) * 8 > slots_.size() * 7) grow();
    place({hash, position});
    ++size_;
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t position = kAbsent;
  };
  void place(const Slot& entry) {
    const size_t mask = slots_.size() - 1;
    size_t i = mixBits(entry.hash) & mask;
    while (slots_[i].position != kAbsent) i = (i + 1) & mask;
    slots_[i] = entry;
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(old.empty() ? 1024 : old.size() * 2);
    for (const Slot& slot : old)
      if (slot.position != kAbsent) place(slot);
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace nib
