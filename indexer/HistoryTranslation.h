// The history's translation model: which code terms the words of commit messages stand for.
// People describe a change in their own words ("time to live"), the code they change spells
// other ones (`expire`, `ttl`); each mined commit pairs the two — its message's words and the
// names in the files it changed. IBM Model 1 (Brown et al. 1993; for retrieval, Berger and
// Lafferty 1999) learns from those pairs p(code term | message word): each code term of a commit
// is explained by one of its message's words or by none (the empty word, which absorbs what
// every change touches), and expectation maximization shares each term out among the words
// that explain it best across the whole history. A query word then brings the code terms it
// stands for into the lexical route (SearchHistory.h), with the weight the model gives them.
//
// Deterministic: the same commits, files and names give the same table (one thread, fixed
// orders). Bounded: a commit's words and code terms are capped (the rarest words, the heaviest
// terms), the model's tables hold only the pairs that meet in some commit.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "views/HistoryView.h"

namespace nib {

class LexicalView;

// A file's code terms and their weights (summing to 1), heaviest first.
using CodeTerms = std::vector<std::pair<std::string, double>>;

// Per path of `files` (sorted), its code terms: the words of the names of the units the lexical
// view holds for it (functions, types, …; a whole identifier and its parts), weighted by how many of its units' names hold each (1 + log) and by how few of the files do
// (idf over `files`), the kTermsPerFile heaviest kept. A path the view does not hold gets none.
std::vector<CodeTerms> fileCodeTerms(LexicalView& lexical, const std::vector<std::string>& files);

struct TranslationOptions {
  size_t iterations = 5;          // EM rounds
  size_t minCommits = 3;          // a word in fewer commits says too little to learn from
  size_t maxWordsPerCommit = 32;  // the rarest of a message's words
  size_t maxTermsPerCommit = 48;  // the heaviest of its files' terms
  size_t keep = 4;                // translations kept per word, best first
  double minShare = 0.25;         // of the word's best translation's probability
};

// p(term | word) for the words of `data`'s commits, learned from the commits and `code` (per
// file id of `data.files`): per word (in word order), its best translations other than itself,
// each with its probability. Words no commit pairs with a code term have none.
std::vector<HistoryData::Translations> learnTranslations(const HistoryData& data, const std::vector<CodeTerms>& code,
                                                        const TranslationOptions& options = {});

}  // namespace nib
