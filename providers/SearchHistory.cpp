#include "providers/SearchHistory.h"

#include <algorithm>
#include <cmath>
#include <map>
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

std::vector<std::pair<std::string, double>> historyTranslations(HistoryView& view, const std::vector<std::string>& terms,
                                                                size_t most) {
  // A term's weight is the best over the query's words of its probability given the word: the
  // model's own confidence. A word most messages say ("fix", "for") spreads its probability over
  // many terms and brings each in lightly; a word a few commits share brings their common names
  // in strongly. Chosen on the tuning code bases of bench/localization_bench.py with --history
  // (mean MRR of sed, gawk, parted, libgcrypt, gpgme: 0.6384 without translations): 0.648 so,
  // at or above it on each of the five; the probability relative to the word's best
  // translation gave 0.648 at its best weight (0.3, SearchProvider's kTranslationWeight) but fell
  // on parted, the same scaled by the word's idf over the messages 0.6423, the probabilities
  // averaged over the query's words 0.6423.
  std::map<std::string, double> weight;  // term -> its best probability over the query's words
  for (const std::string& word : terms)
    for (const HistoryTranslation& t : view.translations(word)) {
      if (std::binary_search(terms.begin(), terms.end(), t.term)) continue;
      double& w = weight[t.term];
      w = std::max(w, t.probability);
    }
  std::vector<std::pair<std::string, double>> out(weight.begin(), weight.end());
  // Heaviest first, ties in term order (the map's): the same terms whatever the words' order.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (out.size() > most) out.resize(most);
  return out;
}

}  // namespace nib
