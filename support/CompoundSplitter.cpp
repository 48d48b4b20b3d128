#include "support/CompoundSplitter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>

namespace nib {
namespace {

constexpr size_t kMaxCompound = 40;    // longer runs are data (hex, base64), not names
constexpr size_t kMaxPart = 16;
constexpr uint32_t kMinPartFrequency = 2;  // a word used once is as likely a typo or a fragment

bool lowerLetters(std::string_view t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

// Two-letter words that join the parts of names ("endofline", "cursorup", "setbyname"); other
// two-letter pieces ("re", "fd") split too many words wrongly.
bool joiningWord(std::string_view t) {
  static constexpr std::string_view kWords[] = {"as", "at", "by", "in", "is", "no", "of", "on", "or", "to", "up"};
  return std::find(std::begin(kWords), std::end(kWords), t) != std::end(kWords);
}

}  // namespace

std::vector<std::pair<std::string_view, std::vector<std::string_view>>> splitCompounds(
    const std::vector<VocabularyTerm>& vocabulary) {
  std::unordered_map<std::string_view, uint32_t> parts;
  double total = 0;
  std::vector<std::string_view> candidates;
  std::unordered_map<std::string_view, uint32_t> frequency;
  for (const VocabularyTerm& v : vocabulary) {
    if (!lowerLetters(v.term)) continue;
    if (v.frequency >= kMinPartFrequency && v.term.size() <= kMaxPart && (v.term.size() >= 3 || joiningWord(v.term))) {
      parts.emplace(v.term, v.frequency);
      total += v.frequency;
    }
    if (v.term.size() >= kMinCompound && v.term.size() <= kMaxCompound) {
      candidates.push_back(v.term);
      frequency[v.term] = std::max(frequency[v.term], v.frequency);
    }
  }
  // Shorter compounds first, so that a longer one's pieces already have their own parts.
  std::sort(candidates.begin(), candidates.end(), [](std::string_view a, std::string_view b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());

  std::unordered_map<std::string_view, std::vector<std::string_view>> split;
  std::vector<double> cost;
  std::vector<size_t> from;
  for (std::string_view term : candidates) {
    // The most likely segmentation under a unigram model of the vocabulary: the least total
    // -log(frequency / total) over pieces; the whole term is not a piece of itself.
    const size_t n = term.size();
    cost.assign(n + 1, std::numeric_limits<double>::infinity());
    from.assign(n + 1, 0);
    cost[0] = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(cost[i])) continue;
      for (size_t len = 2; len <= kMaxPart && i + len <= n; ++len) {
        if (len == n) break;
        auto it = parts.find(term.substr(i, len));
        if (it == parts.end()) continue;
        double c = cost[i] + std::log(total / it->second);
        if (c < cost[i + len]) {
          cost[i + len] = c;
          from[i + len] = i;
        }
      }
    }
    if (!std::isfinite(cost[n])) continue;
    std::vector<std::string_view> pieces;
    for (size_t end = n; end > 0; end = from[end]) pieces.push_back(term.substr(from[end], end - from[end]));
    std::reverse(pieces.begin(), pieces.end());
    // A compound is rarer than each of its words. A word used more often than one of its
    // pieces is a word of its own that merely spells them ("append" is not "app" + "end",
    // "protocol" not "pro" + "to" + "col").
    const uint32_t own = frequency[term];
    if (std::any_of(pieces.begin(), pieces.end(), [&](std::string_view p) { return parts.at(p) <= own; })) continue;
    std::vector<std::string_view> out;
    auto add = [&](std::string_view p) {
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    };
    for (std::string_view p : pieces) {
      add(p);
      if (auto it = split.find(p); it != split.end())
        for (std::string_view q : it->second) add(q);
    }
    split.emplace(term, std::move(out));
  }
  std::vector<std::pair<std::string_view, std::vector<std::string_view>>> result(split.begin(), split.end());
  std::sort(result.begin(), result.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return result;
}

}  // namespace nib
