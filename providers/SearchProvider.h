// Ranked search over an index version's search views: the `trigram` route (literal or regex,
// exact: candidates from trigram postings, verified against the current contents) and the
// `lexical` route (BM25 over source units). Files that changed since the index was built are
// searched as they are now; the caller says which (SearchContext).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "support/Language.h"
#include "support/Status.h"
#include "views/FileFacts.h"
#include "views/Manifest.h"
#include "views/SearchViews.h"

namespace nib {

// Structural is served by the Engine (lexical seeds expanded along the call graph); the
// provider itself answers Lexical and Trigram, and Auto by choosing between them.
enum class SearchRoute { Auto, Lexical, Trigram, Structural };
const char* searchRouteName(SearchRoute route);
bool parseSearchRoute(std::string_view name, SearchRoute* route);

struct SearchRequest {
  std::string query;
  SearchRoute route = SearchRoute::Auto;
  bool regex = false;          // trigram route: RE2 syntax, matched per line
  bool caseSensitive = true;   // trigram route; the lexical route always folds case
  size_t k = 20;               // at most this many hits
  std::vector<std::string> paths;      // globs (fnmatch, '*' also crosses '/'); a plain path is a prefix
  std::vector<Language> languages;
  std::vector<SymbolKind> kinds;       // lexical route: the kinds of units to return
};

struct SearchHit {
  std::string path;
  ByteRange range;      // the match (trigram) or the unit (lexical)
  double score = 0;     // BM25 for lexical; 1 for trigram matches
  SearchRoute route = SearchRoute::Trigram;
  std::string name;     // the unit's definition, when it has one
  SymbolKind kind = SymbolKind::Unknown;
  uint32_t snippetLine = 0;  // 0-based line of the snippet's first line
  std::string snippet;       // source lines, newline-separated
  bool ascii = true;
};

struct SearchResult {
  SearchRoute route = SearchRoute::Trigram;
  std::vector<SearchHit> hits;
  size_t candidates = 0;    // files verified (trigram) or units scored (lexical)
  bool truncated = false;   // more hits exist beyond k
  bool partial = false;     // files a full scan would read were not searched (see notes)
  std::vector<std::string> notes;
};

// What the caller knows about the worktree now.
struct SearchContext {
  std::function<Expected<std::string>(const std::string& path)> readCurrent;
  // The indexed bytes of an unchanged file, by blob id (zero-copy from the index); called on
  // the searching thread only. When it has nothing, readCurrent is used.
  std::function<std::optional<std::string_view>(const std::string& blobOid)> storedContent;
  std::set<std::string> changed;  // indexed files whose content differs now: searched as they are
  std::set<std::string> deleted;  // indexed files that are gone
  std::vector<std::string> added; // files the index does not have that should be searched
  std::vector<std::string> notSearched;  // new files that could not be judged (reported in notes)
  size_t skippedTooLarge = 0;  // files the index left out for their size: not searched (noted)
};

class SearchProvider {
 public:
  // Opens the version's complete search views (either may be absent or failed).
  static std::unique_ptr<SearchProvider> open(const std::filesystem::path& versionDir, const Manifest& manifest);
  Expected<SearchResult> search(const SearchRequest& request, const SearchContext& context);
  // The request's path and language filters.
  static bool passesFilters(const SearchRequest& request, const std::string& path, Language language);

 private:
  Expected<SearchResult> searchTrigram(const SearchRequest& request, const SearchContext& context);
  Expected<SearchResult> searchLexical(const SearchRequest& request, const SearchContext& context);

  std::unique_ptr<TrigramView> trigram_;
  std::unique_ptr<LexicalView> lexical_;
  std::string trigramError_, lexicalError_;
};

}  // namespace nib
