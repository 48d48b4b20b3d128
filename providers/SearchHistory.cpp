#include "providers/SearchHistory.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace nib {

std::unordered_map<std::string, double> historyScores(HistoryView& view, const std::vector<std::string>& terms,
                                                      size_t commits) {
  constexpr double kK1 = 1.2, kB = 0.75;
  const double n = view.commitCount();
  // Terms occur once per message: BM25's count is 1, only the message's length varies.
  std::unordered_map<uint32_t, double> byCommit;
  for (const std::string& term : terms) {
    std::vector<uint32_t> postings = view.postings(term);
    if (postings.empty()) continue;
    const double df = static_cast<double>(postings.size());
    const double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
    for (uint32_t c : postings) byCommit[c] += idf;
  }
  std::vector<std::pair<double, uint32_t>> ranked;
  ranked.reserve(byCommit.size());
  for (const auto& [c, idfs] : byCommit) ranked.emplace_back(idfs, c);
  // BM25 with a count of one: each candidate's idf sum times its length factor.
  for (auto& [idfs, c] : ranked)
    idfs *= (kK1 + 1) / (1 + kK1 * (1 - kB + kB * view.commitLength(c) / view.averageLength()));
  // Best first, ties by id (the newer commit): the same commits whatever the hash order.
  auto better = [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; };
  if (ranked.size() > commits) {
    std::nth_element(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(commits), ranked.end(), better);
    ranked.resize(commits);
  }
  std::sort(ranked.begin(), ranked.end(), better);
  std::unordered_map<uint32_t, double> byFile;
  for (size_t i = 0; i < ranked.size(); ++i) {
    auto record = view.commit(ranked[i].second);
    if (!record || record->files.empty()) continue;
    // A commit that changed n files gives each its score / sqrt(n): one that changed a single
    // file speaks for it alone, one that changed many for each a little (SearchProvider's
    // kHistoryWeight says what else was measured).
    const double each = ranked[i].first / std::sqrt(static_cast<double>(record->files.size()));
    for (uint32_t f : record->files) byFile[f] += each;
  }
  std::unordered_map<std::string, double> out;
  for (const auto& [f, score] : byFile)
    if (auto path = view.path(f)) out.emplace(std::move(*path), score);
  return out;
}

}  // namespace nib
