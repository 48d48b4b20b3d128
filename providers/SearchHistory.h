// The history part of the lexical route (views/HistoryView.h): the past commits whose messages
// are most like the query, found by BM25 over the messages, vote for the files they changed and
// for the functions they changed in them. A file that commits like the query changed is likely
// where such a change goes now, though its text may never use the query's words ("time to live"
// for the file that implements expiry); a function they changed, likelier still.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "views/HistoryView.h"

namespace nib {

class LexicalView;

struct HistoryScores {
  // Per file path, the summed scores of the voting commits that changed it.
  std::unordered_map<std::string, double> files;
  // Per file path and function name, the summed scores of the voting commits that changed it.
  std::unordered_map<std::string, std::unordered_map<std::string, double>> functions;

  double file(const std::string& path) const;
  double function(const std::string& path, const std::string& name) const;
};

// The votes of the `commits` best-scoring past commits (BM25 of the query's distinct `terms`
// over the messages, k1 1.2, b 0.75), each commit's score shared among the files it changed,
// and among the functions it changed.
HistoryScores historyScores(HistoryView& view, const std::vector<std::string>& terms, size_t commits);

// The lexical view's units the votes name (unit id -> the function's score): a function of that
// name in that file. Found through the postings of the name's own term, so a function none of
// the query's words reach can still be ranked.
std::unordered_map<uint32_t, double> historyUnits(LexicalView& lexical, const HistoryScores& scores);

}  // namespace nib
