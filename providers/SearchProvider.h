// Ranked search over an index version's search views: the `trigram` route (literal or regex,
// exact: candidates from trigram postings, verified against the current contents) and the
// `lexical` route (BM25 over source units). Files that changed since the index was built are
// searched as they are now; the caller says which (SearchContext).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/Language.h"
#include "views/DenseView.h"
#include "views/HistoryView.h"
#include "support/Status.h"
#include "views/FileFacts.h"
#include "views/Manifest.h"
#include "views/SearchViews.h"

namespace nib {

// The most bytes of one source line a hit's snippet shows, on every route.
inline constexpr size_t kSearchSnippetLineBytes = 240;

// Structural is served by the Engine (lexical seeds expanded along the call graph); the
// provider itself answers Lexical, Trigram, Semantic (nearest units in the dense view) and
// Hybrid (reciprocal-rank fusion of lexical and semantic), and Auto by choosing among them.
enum class SearchRoute { Auto, Lexical, Trigram, Structural, Semantic, Hybrid };
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
  double score = 0;     // BM25 for lexical; 1 for trigram matches; cosine for semantic; RRF for hybrid
  SearchRoute route = SearchRoute::Trigram;
  std::string name;     // the unit's definition, when it has one
  SymbolKind kind = SymbolKind::Unknown;
  uint32_t snippetLine = 0;  // 0-based line of the snippet's first line
  std::string snippet;       // source lines, newline-separated
  bool ascii = true;         // the range's first and last lines are ASCII: its columns are the same in every encoding
  uint32_t unit = UINT32_MAX;  // the unit's id in the lexical view (ranked routes, indexed files)
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
  // The indexed bytes of an unchanged file, by blob id, in their stored form (views/
  // StoredContent: zero-copy from the index, unpacked by whoever reads them, on any thread);
  // called on the searching thread only. When it has nothing, readCurrent is used.
  std::function<std::optional<std::string_view>(const std::string& blobOid)> packedContent;
  // The facts of a changed or added file's current content, when the caller has them (an
  // overlay, a delta version's entry): its units are then scored as the index's are. nullopt:
  // the file is scored as one unit.
  std::function<std::optional<FileFacts>(const std::string& path, std::string_view content)> currentFacts;
  std::set<std::string> changed;  // indexed files whose content differs now: searched as they are
  std::set<std::string> deleted;  // indexed files that are gone
  std::vector<std::string> added; // files the index does not have that should be searched
  std::vector<std::string> notSearched;  // new files that could not be judged (reported in notes)
  size_t skippedTooLarge = 0;  // files the index left out for their size: not searched (noted)
};

// Reciprocal-rank fusion's constant (Cormack et al. 2009: score = sum of 1 / (k + rank)), used
// by the structural route to merge lexical seeds with their call-graph neighbours.
inline constexpr double kRrfK = 60;
// Hybrid: the lexical route's kHybridDepth best units, scored BM25 / (the top BM25) + weight *
// cosine(query, unit) in the dense view, and units only the semantic route found with weight *
// cosine alone; the lexical route's first `kept` hits stay first, in lexical order. Score fusion
// rather than rank fusion (RRF), because on bench/dense_bench.py's tasks (doc comments as queries)
// the query's own words are the stronger signal with either source of vectors, and RRF (k = 60)
// gives the weaker list's ranks as much say as the stronger's: with semantic at half weight it cut
// lexical's MRR from 0.44 to 0.23 on tmux with the repository's vectors, and with a neural
// sentence encoder from 0.437 to 0.366 (tmux), 0.563 to 0.425 (jq) and 0.336 to 0.260 (libuv)
// (the two routes' top 100 re-fused offline).
//
// The weight depends on where the vectors come from:
// - The repository-trained fastText model: weight 0.05, lexical's first three kept. With vectors
//   learned from one repository's text the cosine is a tie-breaker: it reordered lexical's first
//   hits for the worse (tmux MRR 0.437 -> 0.427), and at 0.1 still pushed two of 80 tmux targets
//   out of the top 10, at 0.05 none (hybrid equals lexical's Recall@1 and @10 on tmux, jq, libuv
//   and git, MRR within 0.001; 0.2 and 0.3 lose more).
// - An external encoder: weight 0.3, nothing kept. Measured with Universal Sentence Encoder Lite
//   (bench/dense_bench.py --encoder use-lite), a weak encoder for code: MRR jq 0.570 (lexical
//   0.563), tmux 0.437 (0.437), libuv 0.358 (0.332), where the repository model's rule gave 0.563,
//   0.436 and 0.335. Re-fused offline, weights 0.5 and 1.0 gained more on libuv (0.360, 0.370) but
//   lost on tmux and jq. A stronger encoder would deserve more.
struct HybridFusion {
  double semanticWeight;
  size_t kept;  // lexical's first hits that keep their places
};
inline constexpr HybridFusion kHybridModelFusion{0.05, 3};
inline constexpr HybridFusion kHybridEncoderFusion{0.3, 0};
inline constexpr size_t kHybridDepth = 100;
// A lexical hit's fused score: `lexicalRank` counts from 0, `bm25` is divided by the top BM25,
// `cosine` is absent when the unit has no vector. Units only the semantic route found score
// fusion.semanticWeight * cosine.
double hybridScore(const HybridFusion& fusion, size_t lexicalRank, double bm25, std::optional<double> cosine);

class SearchProvider {
 public:
  // Opens the version's complete search views (either may be absent or failed).
  static std::unique_ptr<SearchProvider> open(const std::filesystem::path& versionDir, const Manifest& manifest);
  Expected<SearchResult> search(const SearchRequest& request, const SearchContext& context);
  // The request's path and language filters.
  static bool passesFilters(const SearchRequest& request, const std::string& path, Language language);

 private:
  Expected<SearchResult> searchTrigram(const SearchRequest& request, const SearchContext& context);
  // Without snippets, hits carry their raw scores (for fusion).
  // The chosen route (not auto, not structural).
  Expected<SearchResult> searchRoute(const SearchRequest& request, const SearchContext& context, SearchRoute route);
  Expected<SearchResult> searchLexical(const SearchRequest& request, const SearchContext& context, bool snippets = true);
  // `query`: the request's vector when the caller has it already (an external encoder is a
  // network round trip).
  Expected<SearchResult> searchSemantic(const SearchRequest& request, const SearchContext& context, bool snippets = true,
                                        const std::vector<float>* query = nullptr);
  Expected<SearchResult> searchHybrid(const SearchRequest& request, const SearchContext& context);
  // The dense view is opened on its first use: its model is the largest file a query reads.
  Status openDense();

  std::unique_ptr<TrigramView> trigram_;
  std::unique_ptr<LexicalView> lexical_;
  std::unique_ptr<HistoryView> history_;  // absent: no history field in the lexical route
  std::unique_ptr<DenseView> dense_;
  std::filesystem::path denseDir_;
  bool denseTried_ = false;
  bool denseExternal_ = false;  // the dense view's vectors come from an external encoder
  std::string trigramError_, lexicalError_, denseError_;
};

}  // namespace nib
