#include "providers/SearchHistory.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "support/SearchText.h"
#include "views/SearchViews.h"

namespace nib {

double HistoryScores::file(const std::string& path) const {
  auto it = files.find(path);
  return it == files.end() ? 0.0 : it->second;
}

double HistoryScores::function(const std::string& path, const std::string& name) const {
  auto it = functions.find(path);
  if (it == functions.end()) return 0.0;
  auto f = it->second.find(name);
  return f == it->second.end() ? 0.0 : f->second;
}

namespace {

// The `commits` best-scoring commits for `terms`, best first: (score, commit id).
std::vector<std::pair<double, uint32_t>> similarCommits(HistoryView& view, const std::vector<std::string>& terms,
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
  return ranked;
}

}  // namespace

HistoryScores historyScores(HistoryView& view, const std::vector<std::string>& terms, size_t commits) {
  std::unordered_map<uint32_t, double> byFile;
  std::unordered_map<uint32_t, std::unordered_map<std::string, double>> byFunction;
  for (const auto& [score, id] : similarCommits(view, terms, commits)) {
    auto record = view.commit(id);
    if (!record || record->files.empty()) continue;
    // A commit that changed n files gives each its score / sqrt(n): one that changed a single
    // file speaks for it alone, one that changed many for each a little (SearchProvider's
    // kHistoryWeight says what else was measured). Its functions share its score the same way.
    const double each = score / std::sqrt(static_cast<double>(record->files.size()));
    for (uint32_t f : record->files) byFile[f] += each;
    if (record->units.empty()) continue;
    const double eachFunction = score / std::sqrt(static_cast<double>(record->units.size()));
    for (const auto& [f, name] : record->units) byFunction[f][name] += eachFunction;
  }
  HistoryScores out;
  for (const auto& [f, score] : byFile)
    if (auto path = view.path(f)) out.files.emplace(std::move(*path), score);
  for (auto& [f, names] : byFunction)
    if (auto path = view.path(f)) out.functions.emplace(std::move(*path), std::move(names));
  return out;
}

std::unordered_map<uint32_t, double> historyUnits(LexicalView& lexical, const HistoryScores& scores) {
  // A common name's postings are long (every caller): past this many, the name is left out.
  constexpr size_t kMaxPostings = 4096;
  std::unordered_map<uint32_t, double> out;
  for (const auto& [path, names] : scores.functions) {
    auto doc = lexical.byPath(path);
    if (!doc) continue;
    for (const auto& [name, score] : names) {
      // The name's own term: the whole identifier, lowercased, as the tokenizer emits it.
      std::string term;
      forEachToken(name, [&](std::string_view t) {
        if (term.empty()) term = t;
      });
      if (term.empty()) continue;
      auto postings = lexical.postings(term);
      if (postings.size() > kMaxPostings) continue;
      for (const auto& [unit, tf] : postings) {
        auto u = lexical.unit(unit);
        if (u && u->doc == doc->id && u->name == name && u->granularity != Granularity::File) out[unit] += score;
      }
    }
  }
  return out;
}

}  // namespace nib
