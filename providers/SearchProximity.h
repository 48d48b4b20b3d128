// Proximity for the lexical route: query words that occur close together and in their order in
// a unit's text (a comment's phrase, an identifier's parts) say more than the same words
// scattered over it, which BM25 alone cannot tell apart.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace nib {

// The query's words in their order, as the lexical view spells them, each with its idf; words
// under three letters ("to", "of") are left out, so "time to live" pairs `time` with `live`.
struct ProximityQuery {
  std::vector<std::string> words;
  std::vector<double> idf;
};
ProximityQuery proximityQuery(std::string_view query, const std::map<std::string, double>& idf);

// For each pair of consecutive query words, the closest in-order occurrence in `text` of the
// second after the first within a few words (parts of one identifier count as adjacent): the
// smaller idf of the two over the distance in words. Their sum; 0 when no pair is close.
double proximityScore(std::string_view text, const ProximityQuery& query);

}  // namespace nib
