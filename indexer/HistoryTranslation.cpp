#include "indexer/HistoryTranslation.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "support/SearchText.h"
#include "views/SearchViews.h"

namespace nib {
namespace {

constexpr size_t kTermsPerFile = 24;

// Terms in first-seen order with their ids: the ids, and so the model, follow the input's order
// alone, never a hash's.
class Vocabulary {
 public:
  uint32_t id(std::string_view s) {
    auto [it, added] = ids_.emplace(s, static_cast<uint32_t>(names_.size()));
    if (added) names_.emplace_back(s);
    return it->second;
  }
  const std::string& name(uint32_t id) const { return names_[id]; }
  size_t size() const { return names_.size(); }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> names_;
};

// The distinct tokens of `text`, appended to `out` (a unit's name counts each of its words once).
void distinctTokens(std::string_view text, std::vector<std::string>* out) {
  size_t from = out->size();
  forEachToken(text, [&](std::string_view t) { out->emplace_back(t); });
  std::sort(out->begin() + static_cast<std::ptrdiff_t>(from), out->end());
  out->erase(std::unique(out->begin() + static_cast<std::ptrdiff_t>(from), out->end()), out->end());
}

// One commit as the model sees it: its words (ids, the empty word last) and its code terms (ids
// and weights summing to 1), each term's slots (one per word) at slots[slotStart + k * words].
struct Pair {
  std::vector<uint32_t> words;
  std::vector<uint32_t> terms;
  std::vector<double> weights;
  size_t slotStart = 0;
};

// The commit's files' terms summed (ids into `terms`; `code` per file, interned), before the
// commit-level idf.
std::vector<std::pair<uint32_t, double>> summedTerms(const HistoryData::Commit& c,
                                                     const std::vector<std::vector<std::pair<uint32_t, double>>>& code) {
  std::unordered_map<uint32_t, double> summed;
  for (uint32_t f : c.files)
    if (f < code.size())
      for (const auto& [term, weight] : code[f]) summed[term] += weight;
  std::vector<std::pair<uint32_t, double>> out(summed.begin(), summed.end());
  std::sort(out.begin(), out.end());
  return out;
}

// The commit's code side: its summed terms weighted by how few commits' files hold them (a
// file most commits touch names what every change is near, not what this one is about), the
// heaviest `cap` kept, scaled to sum to 1.
void codeSide(const std::vector<std::pair<uint32_t, double>>& summed, const std::vector<uint32_t>& commitsWith,
              size_t commits, size_t cap, Pair* pair) {
  std::vector<std::pair<double, uint32_t>> ranked;
  for (const auto& [t, w] : summed)
    ranked.emplace_back(w * std::log(1 + static_cast<double>(commits) / commitsWith[t]), t);
  std::sort(ranked.begin(), ranked.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (ranked.size() > cap) ranked.resize(cap);
  double total = 0;
  for (const auto& r : ranked) total += r.first;
  if (total <= 0) return;
  for (const auto& [w, t] : ranked) {
    pair->terms.push_back(t);
    pair->weights.push_back(w / total);
  }
}

}  // namespace

std::vector<CodeTerms> fileCodeTerms(LexicalView& lexical, const std::vector<std::string>& files) {
  std::unordered_map<uint32_t, size_t> fileOfDoc;
  for (size_t i = 0; i < files.size(); ++i)
    if (auto d = lexical.byPath(files[i])) fileOfDoc.emplace(d->id, i);
  // Per file, how many of its units' names hold each word. (Its path's words are left out: a
  // file without units, a grammar or a build script, would have only them, and a query word
  // brought to a file's name finds its units seldom; the history's votes find the file.)
  std::vector<std::unordered_map<std::string, uint32_t>> counts(files.size());
  std::vector<std::string> words;
  if (!fileOfDoc.empty())
    lexical.forEachUnit([&](uint32_t, const LexUnit& u) {
      if (u.granularity == Granularity::File || u.name.empty()) return true;
      auto it = fileOfDoc.find(u.doc);
      if (it == fileOfDoc.end()) return true;
      words.clear();
      distinctTokens(u.name, &words);
      for (const std::string& w : words) ++counts[it->second][w];
      return true;
    });
  std::unordered_map<std::string_view, uint32_t> filesHolding;
  for (const auto& c : counts)
    for (const auto& [w, n] : c) ++filesHolding[w];
  const double n = static_cast<double>(fileOfDoc.size());
  std::vector<CodeTerms> out(files.size());
  for (size_t f = 0; f < files.size(); ++f) {
    CodeTerms& terms = out[f];
    for (const auto& [w, tf] : counts[f]) {
      double idf = std::log(1 + n / filesHolding[w]);
      terms.emplace_back(w, (1 + std::log(static_cast<double>(tf))) * idf);
    }
    std::sort(terms.begin(), terms.end(),
              [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    if (terms.size() > kTermsPerFile) terms.resize(kTermsPerFile);
    double total = 0;
    for (const auto& t : terms) total += t.second;
    for (auto& t : terms) t.second /= total;
  }
  return out;
}

namespace {

// The model's input: every commit as a Pair, and the (word, term) pairs that meet in some
// commit, keyed word-major (word << 32 | term, ascending) so that a word's pairs are
// neighbours; each Pair's slots index `keys`.
struct Corpus {
  Vocabulary words, terms;
  std::vector<uint32_t> commitsOf;  // per word id: the commits whose message holds it
  uint32_t empty = 0;               // the empty word's id
  std::vector<Pair> pairs;
  std::vector<uint64_t> keys;
  std::vector<uint32_t> slot;
};

// The (word, term) pair of each slot as keys, and each slot's index into the keys: the
// occurrences grouped by word (a counting sort) and each word's sorted by term, so that no
// key is searched for — a long history has millions of slots.
void assignSlots(const std::vector<uint64_t>& occurrences, size_t words, Corpus* c) {
  std::vector<uint32_t> start(words + 1, 0);
  for (uint64_t key : occurrences) ++start[(key >> 32) + 1];
  for (size_t w = 0; w < words; ++w) start[w + 1] += start[w];
  std::vector<uint32_t> order(occurrences.size());
  std::vector<uint32_t> next(start.begin(), start.end() - 1);
  for (uint32_t i = 0; i < occurrences.size(); ++i) order[next[occurrences[i] >> 32]++] = i;
  c->slot.resize(occurrences.size());
  c->keys.clear();
  for (size_t w = 0; w < words; ++w) {
    auto from = order.begin() + start[w], to = order.begin() + start[w + 1];
    std::sort(from, to, [&](uint32_t a, uint32_t b) { return occurrences[a] < occurrences[b]; });
    for (auto it = from; it != to; ++it) {
      if (c->keys.empty() || c->keys.back() != occurrences[*it]) c->keys.push_back(occurrences[*it]);
      c->slot[*it] = static_cast<uint32_t>(c->keys.size() - 1);
    }
  }
}

void readCommits(const HistoryData& data, const std::vector<CodeTerms>& code, const TranslationOptions& options,
                 Corpus* corpus) {
  Corpus& c = *corpus;
  // Words and terms interned once: a commit's words, each file's terms.
  std::vector<std::vector<uint32_t>> wordsOf(data.commits.size());
  for (size_t ci = 0; ci < data.commits.size(); ++ci)
    for (const std::string& w : data.commits[ci].terms) {
      uint32_t id = c.words.id(w);
      if (id >= c.commitsOf.size()) c.commitsOf.resize(id + 1, 0);
      ++c.commitsOf[id];
      wordsOf[ci].push_back(id);
    }
  c.empty = static_cast<uint32_t>(c.words.size());
  std::vector<std::vector<std::pair<uint32_t, double>>> fileTerms(code.size());
  for (size_t f = 0; f < code.size(); ++f)
    for (const auto& [term, weight] : code[f]) fileTerms[f].emplace_back(c.terms.id(term), weight);
  std::vector<std::vector<std::pair<uint32_t, double>>> summed;
  summed.reserve(data.commits.size());
  for (const HistoryData::Commit& commit : data.commits) summed.push_back(summedTerms(commit, fileTerms));
  std::vector<uint32_t> commitsWith(c.terms.size(), 0);  // per term: the commits whose files hold it
  for (const auto& s : summed)
    for (const auto& [t, w] : s) ++commitsWith[t];
  std::vector<uint64_t> occurrences;  // per slot, its pair's key
  for (size_t ci = 0; ci < data.commits.size(); ++ci) {
    Pair p;
    // The message's rarest words: they say most about the commit.
    p.words = std::move(wordsOf[ci]);
    std::stable_sort(p.words.begin(), p.words.end(), [&](uint32_t a, uint32_t b) { return c.commitsOf[a] < c.commitsOf[b]; });
    if (p.words.size() > options.maxWordsPerCommit) p.words.resize(options.maxWordsPerCommit);
    p.words.push_back(c.empty);
    codeSide(summed[ci], commitsWith, data.commits.size(), options.maxTermsPerCommit, &p);
    if (p.terms.empty()) continue;
    p.slotStart = occurrences.size();
    for (uint32_t t : p.terms)
      for (uint32_t w : p.words) occurrences.push_back(static_cast<uint64_t>(w) << 32 | t);
    c.pairs.push_back(std::move(p));
  }
  assignSlots(occurrences, c.empty + 1, &c);
}

// Expectation maximization from uniform probabilities: each term of a commit is shared among
// its words in proportion to p(term | word); p(term | word) is then each word's shares,
// normalized over the terms it explains. Per key of the corpus, its probability.
std::vector<double> maximize(const Corpus& c, size_t iterations) {
  std::vector<float> p(c.keys.size(), 1.0f), count(c.keys.size());
  std::vector<double> total(c.empty + 1);
  for (size_t round = 0; round < iterations; ++round) {
    std::fill(count.begin(), count.end(), 0.0);
    std::fill(total.begin(), total.end(), 0.0);
    for (const Pair& commit : c.pairs) {
      const size_t n = commit.words.size();
      for (size_t k = 0; k < commit.terms.size(); ++k) {
        const uint32_t* s = &c.slot[commit.slotStart + k * n];
        float sum = 0;
        for (size_t j = 0; j < n; ++j) sum += p[s[j]];
        const float scale = static_cast<float>(commit.weights[k]) / sum;
        for (size_t j = 0; j < n; ++j) {
          float share = scale * p[s[j]];
          count[s[j]] += share;
          total[commit.words[j]] += share;
        }
      }
    }
    for (size_t i = 0; i < c.keys.size(); ++i) {
      double t = total[c.keys[i] >> 32];
      p[i] = t > 0 ? static_cast<float>(count[i] / t) : 0.0f;
    }
  }
  return std::vector<double>(p.begin(), p.end());
}

// A word's best terms other than itself, within a share of its best one (keys [from, to) are
// the word's).
HistoryData::Translations bestTerms(const Corpus& c, const std::vector<double>& p, size_t from, size_t to,
                                    const TranslationOptions& options) {
  const uint32_t w = static_cast<uint32_t>(c.keys[from] >> 32);
  std::vector<std::pair<double, uint32_t>> ranked;
  for (size_t j = from; j < to; ++j) {
    uint32_t t = static_cast<uint32_t>(c.keys[j] & 0xFFFFFFFFu);
    if (c.terms.name(t) != c.words.name(w)) ranked.emplace_back(p[j], t);
  }
  // The best `keep`, in order (a word of many commits pairs with thousands of terms).
  auto top = ranked.begin() + static_cast<std::ptrdiff_t>(std::min(ranked.size(), options.keep));
  std::partial_sort(ranked.begin(), top, ranked.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : c.terms.name(a.second) < c.terms.name(b.second);
  });
  ranked.erase(top, ranked.end());
  HistoryData::Translations out{c.words.name(w), {}};
  for (const auto& [prob, term] : ranked) {
    if (out.to.size() == options.keep || prob < options.minShare * ranked.front().first || prob <= 0) break;
    out.to.push_back({c.terms.name(term), prob});
  }
  return out;
}

}  // namespace

std::vector<HistoryData::Translations> learnTranslations(const HistoryData& data, const std::vector<CodeTerms>& code,
                                                        const TranslationOptions& options) {
  Corpus c;
  readCommits(data, code, options, &c);
  std::vector<double> p = maximize(c, options.iterations);
  std::vector<HistoryData::Translations> out;
  for (size_t i = 0; i < c.keys.size();) {
    const uint32_t w = static_cast<uint32_t>(c.keys[i] >> 32);
    size_t end = i;
    while (end < c.keys.size() && c.keys[end] >> 32 == w) ++end;
    // Only words learned from enough commits.
    if (w != c.empty && c.commitsOf[w] >= options.minCommits)
      if (auto t = bestTerms(c, p, i, end, options); !t.to.empty()) out.push_back(std::move(t));
    i = end;
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.word < b.word; });
  return out;
}

}  // namespace nib
