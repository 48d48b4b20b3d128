// How well a definition's name matches a workspace-symbol query: exact (100), the same but for
// ASCII case (90), a prefix (70-80) or a substring (50-60) ignoring ASCII case, else the query's
// characters in order, as "gcd" matches getCommitDigest (20-30); 0 when none. The longer the
// name beyond the query, the lower within a tier.
//
// `nib symbols` scores every definition name of the index (1.1 M definitions on qemu), so this
// allocates nothing per name and folds case with a comparison instead of std::tolower, whose
// locale lookup per character was most of the command's time (44 ms on qemu).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace nib {

class SymbolMatcher {
 public:
  explicit SymbolMatcher(std::string_view query) : query_(query), lowered_(query) {
    for (char& c : lowered_) c = lower(c);
    queryBytes_ = byteClasses(lowered_);
  }

  double score(std::string_view name) {
    const size_t m = lowered_.size();
    // Every tier needs the query's characters within the name.
    if (m == 0 || name.size() < m) return 0.0;
    if (name == query_) return 100.0;
    const double shorter = 10.0 * static_cast<double>(m) / static_cast<double>(name.size());
    // Every tier below needs every byte of the query in the name: most names fail here,
    // before any folding.
    uint64_t bytes = 0;
    for (char c : name) bytes |= byteClass(c);
    if (queryBytes_ & ~bytes) return 0.0;
    folded_.resize(name.size());
    for (size_t i = 0; i < name.size(); ++i) folded_[i] = lower(name[i]);
    std::string_view ln(folded_);
    if (ln.compare(0, m, lowered_) == 0) return name.size() == m ? 90.0 : 70.0 + shorter;
    if (ln.find(lowered_, 1) != std::string_view::npos) return 50.0 + shorter;
    size_t i = 0;
    for (char c : ln)
      if (c == lowered_[i] && ++i == m) return 20.0 + shorter;
    return 0.0;
  }

  // Calls visit(line) for each '\n'-terminated line of `lines` (each a kind byte, then a name)
  // whose name may match: every tier needs each of the query's bytes, so only lines holding
  // the query's rarest byte (in either case) are visited, found with memchr rather than by
  // looking at every name (qemu's 355k names: 6 MiB).
  // The byte classes (byteClass) a name must all hold to score: a quick test per name.
  uint64_t queryClasses() const { return queryBytes_; }
  static uint64_t byteClasses(std::string_view s) {
    uint64_t bits = 0;
    for (char c : s) bits |= byteClass(c);
    return bits;
  }

  template <typename Visit>
  void forEachCandidate(std::string_view lines, Visit&& visit) const {
    char a = anchor(), b = a >= 'a' && a <= 'z' ? static_cast<char>(a - ('a' - 'A')) : a;
    const char* data = lines.data();
    const char* end = data + lines.size();
    auto find = [&](char c, const char* from) {
      const void* p = std::memchr(from, c, static_cast<size_t>(end - from));
      return p ? static_cast<const char*>(p) : end;
    };
    const char *at = data, *nextA = find(a, data), *nextB = b == a ? end : find(b, data);
    while (at < end) {
      if (nextA < at) nextA = find(a, at);
      if (nextB < at && b != a) nextB = find(b, at);
      const char* hit = std::min(nextA, nextB);
      if (hit >= end) return;
      const char* start = hit;
      while (start > at && start[-1] != '\n') --start;
      const char* stop = static_cast<const char*>(std::memchr(hit, '\n', static_cast<size_t>(end - hit)));
      if (!stop) stop = end;
      // A hit on the kind byte alone says nothing of the name: the line is still looked at.
      visit(std::string_view(start, static_cast<size_t>(stop - start)));
      at = stop + 1;
    }
  }

 private:
  // The query byte least likely to be in a name (digits, then rare letters; 'g' and 'm' last,
  // as the kind bytes 'G' and 'M' start every line).
  char anchor() const {
    static constexpr std::string_view kRarestFirst = "0123456789qjzxvkwyfbhpdlucrsontiae_gm";
    size_t best = std::string_view::npos;
    char pick = lowered_.empty() ? '\n' : lowered_[0];
    for (char c : lowered_) {
      size_t rank = kRarestFirst.find(c);
      if (rank == std::string_view::npos) return c;  // punctuation, non-ASCII: rarer still
      if (rank < best) best = rank, pick = c;
    }
    return pick;
  }
  static char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }
  // One of 64 bits per byte value, the same for both cases of a letter (c | 0x20 folds them;
  // other values share bits too, which only lets more names through): a name whose set lacks a
  // bit of the query's cannot hold the query's bytes in any case.
  static uint64_t byteClass(char c) { return uint64_t{1} << ((static_cast<unsigned char>(c) | 0x20) & 63); }
  std::string query_, lowered_, folded_;
  uint64_t queryBytes_ = 0;
};

}  // namespace nib
