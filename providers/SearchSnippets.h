// Where a search hit's text comes from, and its snippet: the first lines of the unit, cut from
// the file's bytes at the unit's offset (the index's own bytes for an unchanged file).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "providers/SearchProvider.h"

namespace nib {

// The snippet's lines at most (the unit's first ones).
inline constexpr size_t kSnippetLines = 12;

// The text of the files hits are in, each read once: an unchanged file's is the index's own
// (mapped, no copy, unless stored packed), a changed or added one's is read as it is now.
// Lives for one query.
class HitTexts {
 public:
  HitTexts(LexicalView* lexical, const SearchContext& context) : lexical_(lexical), context_(context) {}
  std::string_view of(const std::string& path);

 private:
  LexicalView* lexical_;  // may be null (no lexical view): every text is read
  const SearchContext& context_;
  std::map<std::string, std::string> owned_;
  std::map<std::string, std::string_view> texts_;
};

// A hit's snippet from its file's text: the unit's first lines (kSnippetLines at most, not past
// its last line) from the start of its first line, each cut to kSearchSnippetLineBytes, found
// from the unit's byte offset without a line table of the whole file; and whether its first and
// last lines are ASCII (then its columns are the same in every encoding). False when the range
// carries no byte offsets that fit the text.
bool snippetAt(std::string_view text, const ByteRange& range, std::string* snippet, bool* ascii);

}  // namespace nib
