// The history part of the lexical route (views/HistoryView.h): the past commits whose messages
// are most like the query, found by BM25 over the messages, vote for the files they changed.
// A file that commits like the query changed is likely where such a change goes now, though its
// text may never use the query's words ("time to live" for the file that implements expiry).
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "views/HistoryView.h"

namespace nib {

// Per file path, the summed scores of the `commits` best-scoring past commits that changed it
// (BM25 of the query's distinct `terms` over the messages, k1 1.2, b 0.75), each commit's score
// shared among the files it changed.
std::unordered_map<std::string, double> historyScores(HistoryView& view, const std::vector<std::string>& terms,
                                                      size_t commits);

// The code terms the query's words stand for in the history's messages (the translation model,
// indexer/HistoryTranslation.h), at most `most`, each with its weight: the best over the query's
// (sorted) words of its probability given the word, heaviest first. Terms in `terms` themselves
// are left out: the query has them already.
std::vector<std::pair<std::string, double>> historyTranslations(HistoryView& view, const std::vector<std::string>& terms,
                                                                size_t most);

}  // namespace nib
