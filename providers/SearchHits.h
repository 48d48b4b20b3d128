// The ranked routes' hits (lexical, semantic, hybrid): scored hits and their order, hits on the
// units of changed files, where a hit's text comes from, and its snippet — the first lines of the
// unit, cut from the file's bytes at the unit's offset (the index's own bytes for an unchanged
// file).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "providers/SearchProvider.h"
#include "views/SearchFacts.h"

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

struct Scored {
  double score;
  SearchHit hit;
  bool wholeFile = false;  // a whole file's hit whose range is found from its text once kept
};

// Whether the request's kind filter keeps a unit of this kind (files are units of kind Module).
bool kindWanted(const SearchRequest& request, SymbolKind kind);

// The ranked routes score changed and added files from their current content: calls `score` for
// each that passes the request's path and language filters and can be read (the kind filter is
// the caller's, per unit).
void forEachCurrentFile(LexicalView& lexical, const SearchRequest& request, const SearchContext& context,
                        const std::function<void(const std::string& path, const std::string& content)>& score);

// A hit on a unit of a changed file (not in the index: no unit id).
SearchHit unitHit(const std::string& path, const UnitTerms& u, SearchRoute route);
// A hit on the whole of a file's `content`.
SearchHit wholeFileHit(const std::string& path, std::string_view content, SearchRoute route);

// Orders the ranked routes' hits (score, then path and position) and keeps k.
void rankHits(std::vector<Scored>& best, size_t k, SearchResult* out);

// Ranks and keeps k, then (unless the caller only fuses ranks) gives each hit its snippet: the
// unit's first lines, from the current content (`texts`: each file read once per query).
void rankAndAttachSnippets(std::vector<Scored> best, const SearchRequest& request, HitTexts& texts,
                           SearchResult* result, bool snippets = true);

}  // namespace nib
