#include "providers/SearchProximity.h"

#include <algorithm>
#include <cstdint>

#include "support/SearchText.h"

namespace nib {
namespace {

constexpr uint32_t kWindow = 4;  // words between a pair's two, at most, to count as close

}  // namespace

ProximityQuery proximityQuery(std::string_view query, const std::map<std::string, double>& idf) {
  ProximityQuery q;
  forEachTokenAt(query, [&](size_t, size_t, std::string_view token) {
    if (token.size() < 3) return;
    auto it = idf.find(std::string(token));
    if (it == idf.end()) return;
    if (!q.words.empty() && q.words.back() == token) return;
    q.words.emplace_back(token);
    q.idf.push_back(it->second);
  });
  return q;
}

double proximityScore(std::string_view text, const ProximityQuery& query) {
  if (query.words.size() < 2) return 0;
  // Each query word's positions in the text, a position being the index of the word (an
  // identifier's parts share their identifier's).
  std::vector<std::vector<uint32_t>> positions(query.words.size());
  // Most tokens are none of the query's words: a token's first byte and length rule them out
  // before any comparison.
  bool first[256] = {};
  size_t shortest = SIZE_MAX, longest = 0;
  for (const std::string& w : query.words) {
    first[static_cast<unsigned char>(w[0])] = true;
    shortest = std::min(shortest, w.size());
    longest = std::max(longest, w.size());
  }
  uint32_t position = 0;
  size_t lastStart = std::string_view::npos;
  forEachTokenAt(text, [&](size_t start, size_t, std::string_view token) {
    if (start != lastStart) {
      if (lastStart != std::string_view::npos) ++position;
      lastStart = start;
    }
    if (token.size() < shortest || token.size() > longest || !first[static_cast<unsigned char>(token[0])]) return;
    for (size_t i = 0; i < query.words.size(); ++i)
      if (query.words[i] == token) positions[i].push_back(position);
  });
  double score = 0;
  for (size_t i = 0; i + 1 < query.words.size(); ++i) {
    const auto& a = positions[i];
    const auto& b = positions[i + 1];
    if (a.empty() || b.empty()) continue;
    uint32_t best = kWindow + 1;
    for (uint32_t p : a) {
      auto next = std::lower_bound(b.begin(), b.end(), p);  // the first of b at or after p
      if (next != b.end()) best = std::min(best, *next - p);
    }
    if (best <= kWindow) score += std::min(query.idf[i], query.idf[i + 1]) / std::max<uint32_t>(1, best);
  }
  return score;
}

}  // namespace nib
