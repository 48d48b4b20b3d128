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

// Where the comment block documenting a unit that starts at byte `unitStart` begins (the lines
// right above it that are comments, as its terms count them); `unitStart` when there is none.
uint32_t leadingCommentStart(std::string_view content, uint32_t unitStart);

// The parts of a file's search facts a reader asks for: the trigram writer needs no units and
// the lexical writer no trigrams, so each decodes only its own.
enum SearchFactsParts : unsigned { kSearchTrigrams = 1, kSearchUnits = 2, kSearchAll = 3 };

// The compact form a build keeps the facts in between the extract phase and the search views
// (on disk, so that the build's memory does not grow with the repository).
std::string encodeSearchFacts(const SearchFacts& facts);
// Decodes `parts` of encoded facts into `out`, reusing its storage (the parts not asked for are
// left empty); false when the bytes are not what encodeSearchFacts wrote.
bool decodeSearchFacts(std::string_view bytes, SearchFacts& out, unsigned parts = kSearchAll);

// The search facts of a corpus's documents, which the view writers visit in document order
// one at a time: a build reads them back from disk, tests and the dense follow-up hold them.
class SearchFactsSource {
 public:
  virtual ~SearchFactsSource() = default;
  virtual size_t size() const = 0;
  // The `parts` of document `i`'s facts into `out` (reusing its storage).
  virtual Status load(size_t i, SearchFacts& out, unsigned parts) const = 0;
};

// Facts already in memory, in document order (a null entry stands for empty facts).
class SearchFactsInMemory final : public SearchFactsSource {
 public:
  explicit SearchFactsInMemory(std::vector<const SearchFacts*> facts) : facts_(std::move(facts)) {}
  size_t size() const override { return facts_.size(); }
  Status load(size_t i, SearchFacts& out, unsigned parts) const override;

 private:
  std::vector<const SearchFacts*> facts_;
};


}  // namespace nib
