// How a word of a search query is looked for in the lexical view: the index terms it stands
// for, each with a weight (a unit scores a query word by its best-weighted term). Code spells
// one word many ways: inflected ("flags"), cut short ("arg", "buf"), abbreviated without vowels
// ("cmd", "msg"), run together with other words ("clearendofline").
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "views/SearchViews.h"

namespace nib {

inline constexpr double kExactWeight = 1.0;
inline constexpr double kPlainFormWeight = 0.8;   // the word without an English inflection
inline constexpr double kShortFormWeight = 0.6;   // prefixes, abbreviations, extensions, compounds
inline constexpr size_t kCompounds = 8;           // compounds per query word, at most

// The terms a query word stands for: itself (1); its plain forms without an English inflection
// (0.8: "flags" -> "flag", "scrolling" -> "scroll"); the short forms code uses (0.6): prefixes
// ("arguments" -> "arg", "args"; "buffer" -> "buf"; "initialize" -> "init") and the usual
// abbreviations that are not prefixes ("command" -> "cmd", "message" -> "msg", "context" ->
// "ctx"). Whether the index holds them is the caller's to check.
std::vector<std::pair<std::string, double>> variantsOf(const std::string& word);

// The one-run identifiers of `view` that hold `word` or one of its plain forms (the variants
// weighted 0.8 or more), best first: those holding more of the query's words (`queryTerms`),
// then the shorter; at most kCompounds. For a word under three letters (a joining word, "of"),
// only compounds that also hold a longer query word. "clear to end of line": "clearendofline" holds four of
// them, "clearline" two.
std::vector<std::string> compoundsFor(LexicalView& view, const std::string& word,
                                      const std::vector<std::pair<std::string, double>>& variants,
                                      const std::vector<std::string>& queryTerms);

// Whether a query reads as words rather than code: `auto` ranks prose (lexical) and matches code
// exactly (trigram). See the definition for what tells them apart.
bool looksLikeProse(std::string_view query);

}  // namespace nib
