// Identifiers written as one lower-case run ("clearendofline", "cursormove", "getline") hide
// their words from a tokenizer that splits at '_' and case changes only, so a prose query
// ("clear to end of line") cannot reach them. The splitter finds such words' parts in the
// repository's own vocabulary: the segmentation a unigram model of that vocabulary finds most
// likely, every part a word the repository also uses on its own.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace nib {

struct VocabularyTerm {
  std::string_view term;
  uint32_t frequency = 0;  // units that hold it (document frequency)
};

// Per compound term of `vocabulary` (all ASCII lower-case letters, at least kMinCompound bytes),
// its parts: the pieces of its best segmentation, and, where a piece is itself a compound,
// that piece's parts too (each once, in order of first appearance). A part is a vocabulary term
// of letters used by at least two units, at least three bytes long or one of a few two-letter
// English words ("of", "to", "up"). Terms that no segmentation covers, and terms used by as
// many units as one of their pieces (a word of its own: "append", not "app" + "end"), are left
// out.
// Deterministic: the result depends on the vocabulary's contents, not its order.
inline constexpr size_t kMinCompound = 6;
std::vector<std::pair<std::string_view, std::vector<std::string_view>>> splitCompounds(
    const std::vector<VocabularyTerm>& vocabulary);

}  // namespace nib
