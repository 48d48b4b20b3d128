// What the search views need of one file: its distinct case-folded trigrams (the trigram
// view) and its units' term frequencies (the lexical view). Built from the file's content at
// index time; queries read contents from the worktree.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/Status.h"
#include "support/Text.h"
#include "views/FileFacts.h"

namespace nib {

struct UnitTerms {
  ByteRange range;
  Granularity granularity = Granularity::File;
  SymbolKind kind = SymbolKind::Unknown;
  std::string name;      // the unit's definition name ("" for a file unit)
  uint32_t length = 0;   // tokens in the unit (BM25's document length)
  std::vector<std::pair<std::string, uint32_t>> terms;  // term -> frequency, sorted by term
};

struct SearchFacts {
  uint32_t contentSize = 0;
  std::vector<uint32_t> trigrams;      // sorted
  std::vector<uint16_t> trigramMasks;  // parallel to trigrams (see trigramMasksOf)
  std::vector<UnitTerms> units;
};

// Builds search facts from a file's content and (for files with a grammar) its source units;
// `path` contributes its components to the file unit. Without `trigrams`, only the units (what
// the ranked routes score a changed file by).
SearchFacts buildSearchFacts(std::string_view path, std::string_view content, const FileFacts* facts,
                             bool trigrams = true);


}  // namespace nib
