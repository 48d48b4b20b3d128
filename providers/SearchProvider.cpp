#include "providers/SearchProvider.h"
#include "providers/SearchHistory.h"
#include "providers/SearchProximity.h"
#include "providers/SearchHits.h"
#include "views/SearchFacts.h"

#include "providers/QueryWords.h"

#include <fnmatch.h>
#include <string.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "support/SearchText.h"

namespace nib {
namespace {

// BM25 constants (the usual ones; the lexical view's units are short, b keeps length in play).
constexpr double kK1 = 1.2;
constexpr double kB = 0.75;
constexpr double kFileUnitWeight = 0.5;
constexpr size_t kProximityCandidates = 100;  // the best-scored units proximity may reorder
// Chosen on the tuning code bases of bench/localization_bench.py (sed, diffutils, gawk, m4; mean
// MRR 0.514 without, 0.538 / 0.546 / 0.548 / 0.544 at 1 / 3 / 6 / 10): the middle of the plateau.
constexpr double kProximityWeight = 4.0;
// A query word that is part of a unit's own name adds this many times its idf (BM25 caps a
// term's body contribution at (k1 + 1) × idf = 2.2 × idf).
constexpr double kNameWeight = 2.0;
constexpr size_t kExtensions = 8;      // index terms extending a query word, at most
// The share of its file's score a unit inherits. Chosen on the tuning code bases of
// bench/localization_bench.py with lengths normalized per kind of unit (mean MRR 0.530 / 0.546 /
// 0.549 / 0.553 / 0.555 / 0.553 / 0.540 at 0.75 / 1 / 1.5 / 2 / 2.5 / 3 / 5; with one average
// length for every unit, 1.5 gave 0.550 and 2.5 0.542).
constexpr double kFileContext = 2.5;
constexpr size_t kMaxQueryWords = 32;  // the most specific words of a long query
// The history's weight in a file's score (SearchHistory.h), and how many of the past commits
// most like the query vote. Chosen on the tuning code bases of bench/localization_bench.py with
// --history, those with a history before their queries (sed 38 commits, gawk 167, parted 677,
// libgcrypt 1,516, gpgme 1,519; mean MRR 0.600 without): with 20 commits, each file's share
// the commit's score / sqrt(files it changed), 0.639 at 0.5 and 0.633 at 1; the share / files:
// 0.633 / 0.627 / 0.607 at 0.5 / 1 / 2, with 50 commits 0.633 / 0.636 / 0.631 at 0.25 / 0.5 / 1,
// with 5 commits 0.626 at 1. A per-file field of all its commits' words instead (BM25 over it,
// weight 1 / 2 / 4) gave 0.633 / 0.643 / 0.617, below the plain route on gpgme from weight 2 on;
// the chosen setting is at or above it on each of the five.
// Votes for functions as well were tried (6b3c42d, 2026-12-04): each mined commit kept the
// functions its hunks fell in (git's hunk-function heuristic on the two blobs), the same 20
// commits voted for them, and the bench's replay edited inside the functions each ChangeLog
// item names. Function-level MRR, mean of the five: 0.368 without the votes, 0.369 with the
// voted functions only added as candidates, 0.361 / 0.356 / 0.344 with votes weighted 0.5 / 1 /
// 2 (scaling a unit's text score by them instead: 0.361 / 0.355 at 0.5 / 1): past commits like a
// query changed the query's file, seldom its function. Not kept; the walk reads no blob.
constexpr double kHistoryWeight = 0.5;
constexpr size_t kHistoryCommits = 20;
// The translation model's terms (SearchHistory.h's historyTranslations): at most this many per
// query, each a group weighing kTranslationWeight times its probability against a query word's
// 1. Chosen on the same tuning code bases (mean MRR 0.6384 without): 0.643 / 0.648 / 0.6476 /
// 0.6484 / 0.6396 at 0.5 / 1 / 1.5 / 2 / 4, at 1 at or above it on each of the five (1.5 and 2
// fall on libgcrypt). Translations learned from the functions each commit changed (its hunks'
// functions, as the function-level history above) instead of the names in its files gave no more
// (0.6484 against 0.6423 from files, both weighted as SearchHistory.cpp's idf-scaled relative
// probability) for a history walk 28 times as long (libgcrypt: 8.4 s against 0.3 s, every blob
// diffed).
constexpr size_t kTranslations = 8;
constexpr double kTranslationWeight = 1.0;

// BM25's saturation of a term's count: tf (k1 + 1) / (tf + k1 (1 - b + b length / average)), times
// the term's idf by the caller.
double saturated(uint32_t tf, double length, double average) {
  return tf * (kK1 + 1) / (tf + kK1 * (1 - kB + kB * length / average));
}

}  // namespace

const char* searchRouteName(SearchRoute route) {
  switch (route) {
    case SearchRoute::Auto: return "auto";
    case SearchRoute::Lexical: return "lexical";
    case SearchRoute::Trigram: return "trigram";
    case SearchRoute::Structural: return "structural";
    case SearchRoute::Semantic: return "semantic";
    case SearchRoute::Hybrid: return "hybrid";
  }
  return "auto";
}

bool parseSearchRoute(std::string_view name, SearchRoute* route) {
  if (name == "auto") *route = SearchRoute::Auto;
  else if (name == "lexical") *route = SearchRoute::Lexical;
  else if (name == "trigram") *route = SearchRoute::Trigram;
  else if (name == "structural") *route = SearchRoute::Structural;
  else if (name == "semantic") *route = SearchRoute::Semantic;
  else if (name == "hybrid") *route = SearchRoute::Hybrid;
  else return false;
  return true;
}

std::unique_ptr<SearchProvider> SearchProvider::open(const std::filesystem::path& versionDir, const Manifest& manifest) {
  auto p = std::unique_ptr<SearchProvider>(new SearchProvider());
  auto complete = [&](const char* name, std::string* error) {
    const ViewRecord* v = manifest.view(name);
    if (v && v->status == ViewStatus::Absent && !v->error.empty())
      *error = std::string("the ") + name + " view was " + v->error;
    else if (!v || v->status == ViewStatus::Absent)
      *error = std::string("this index has no ") + name + " view; run `nib index`";
    else if (v->status == ViewStatus::Failed) *error = std::string("the ") + name + " view failed to build: " + v->error;
    else if (v->status == ViewStatus::Pending)
      *error = std::string("the ") + name + " view is being built in the background (`nib status` shows when it is " +
               "ready; `nib index --wait-dense` waits for it); lexical and trigram search answer meanwhile";
    return error->empty();
  };
  if (complete("trigram", &p->trigramError_)) {
    auto t = TrigramView::open(versionDir / "trigram");
    if (t) p->trigram_ = std::move(*t);
    else p->trigramError_ = t.status().message();
  }
  if (complete("dense", &p->denseError_)) {
    const std::string& profile = manifest.view("dense")->profile;
    p->denseExternal_ = EncoderSettings::madeProfile(profile);
    // Vectors made with other training settings or another embedding rule (an index from an
    // earlier nib) are not comparable with the queries this build embeds: refused, not mixed.
    if (!denseVectorsComparable(profile))
      p->denseError_ = "the dense view was built with other embedding settings (" + profile.substr(0, profile.find(";model=")) +
                       "); run `nib index` to rebuild it";
    else
      p->denseDir_ = versionDir / "dense";
  }
  // The history view is optional: without it the lexical route scores the files' text alone.
  if (const ViewRecord* h = manifest.view(HistoryView::kDirectory); h && h->status == ViewStatus::Complete)
    if (auto v = HistoryView::open(versionDir / HistoryView::kDirectory)) p->history_ = std::move(*v);
  if (complete("lexical", &p->lexicalError_)) {
    auto l = LexicalView::open(versionDir / "lexical");
    if (l) p->lexical_ = std::move(*l);
    else p->lexicalError_ = l.status().message();
  }
  return p;
}

bool SearchProvider::passesFilters(const SearchRequest& r, const std::string& path, Language language) {
  if (!r.languages.empty() && std::find(r.languages.begin(), r.languages.end(), language) == r.languages.end())
    return false;
  if (r.paths.empty()) return true;
  for (std::string_view g : r.paths) {
    // Filters are repository paths; "./src" is "src", and "." or "./" the whole repository.
    while (g.rfind("./", 0) == 0) g.remove_prefix(2);
    if (g.empty() || g == ".") return true;
    if (g.find_first_of("*?[") == std::string_view::npos) {
      std::string prefix(g);
      while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
      if (path == prefix || path.rfind(prefix + "/", 0) == 0) return true;
    } else if (fnmatch(std::string(g).c_str(), path.c_str(), 0) == 0) {  // '*' crosses '/', as in rg -g
      return true;
    }
  }
  return false;
}

Expected<SearchResult> SearchProvider::search(const SearchRequest& request, const SearchContext& context) {
  if (request.query.empty()) return Status(ErrorCode::InvalidArgument, "the search query is empty");
  // Matching is line by line (as grep's): a query spanning lines could never match.
  if (request.query.find('\n') != std::string::npos)
    return Status(ErrorCode::InvalidArgument, "the query holds a line break; nib searches line by line (run one search per line)");
  SearchRoute route = request.route;
  // Prose goes to a ranked route, code to the exact one. Hybrid only when the vectors come from
  // an external (neural) encoder: the repository-trained model measured no gain over lexical on
  // bench/dense_bench.py's tasks (hybrid within 0.01 of lexical's MRR, below it as often as above).
  if (route == SearchRoute::Auto) {
    route = SearchRoute::Trigram;
    if (!request.regex && looksLikeProse(request.query) && lexical_)
      route = denseExternal_ ? SearchRoute::Hybrid : SearchRoute::Lexical;
  }
  if (route == SearchRoute::Structural)
    return Status(ErrorCode::Unsupported, "the structural route needs the call graph: ask the Engine");
  auto routed = searchRoute(request, context, route);
  // Words that no line holds literally are ranked instead, when `auto` chose: a pasted sentence
  // with code-like punctuation is still a question, and an empty answer would say "not here".
  if (request.route == SearchRoute::Auto && route == SearchRoute::Trigram && routed && routed->hits.empty() &&
      !request.regex && lexical_ && request.query.find(' ') != std::string::npos) {
    auto ranked = searchLexical(request, context);
    if (ranked && !ranked->hits.empty()) {
      ranked->notes.push_back("no line holds the query literally: ranked by its words instead (`-r trigram` for exact lines only)");
      routed = std::move(ranked);
    }
  }
  Expected<SearchResult> result = std::move(routed);
  if (result && (context.skippedTooLarge > 0 || !context.notSearched.empty())) result->partial = true;
  if (result && context.skippedTooLarge > 0)
    result->notes.push_back(std::to_string(context.skippedTooLarge) +
                            " file(s) over the index's size limit were not searched (`nib index` names them; raise --max-file-size to include them)");
  if (result && !context.notSearched.empty())
    result->notes.push_back(std::to_string(context.notSearched.size()) +
                            " new file(s) since the index was built were not searched (e.g. " +
                            context.notSearched.front() + "); run `nib index`");
  return result;
}

Expected<SearchResult> SearchProvider::searchRoute(const SearchRequest& request, const SearchContext& context,
                                                   SearchRoute route) {
  switch (route) {
    case SearchRoute::Lexical: return searchLexical(request, context);
    case SearchRoute::Semantic: return searchSemantic(request, context);
    case SearchRoute::Hybrid: return searchHybrid(request, context);
    default: return searchTrigram(request, context);
  }
}

namespace {

constexpr size_t kExactlyScored = 2000;  // lexical: units scored exactly (at least)

// The files only the history names (`history`: path -> its score, unweighted; none of their
// units scored): each a whole-file hit, scored as a unit of it with nothing of its own would be
// — its file's share, the history alone.
void addHistoryOnlyFiles(LexicalView& lexical, const std::unordered_map<std::string, double>& history,
                         const std::set<std::string>& reached, const SearchRequest& request,
                         const SearchContext& context, std::vector<Scored>* best) {
  if (!kindWanted(request, SymbolKind::Module)) return;
  for (const auto& [path, score] : history) {
    if (reached.count(path) || context.changed.count(path) || context.deleted.count(path)) continue;
    auto d = lexical.byPath(path);
    if (!d || !SearchProvider::passesFilters(request, path, d->language)) continue;
    SearchHit h;
    h.path = path;
    h.route = SearchRoute::Lexical;
    h.kind = SymbolKind::Module;
    best->push_back({kFileContext * kHistoryWeight * score, std::move(h), /*wholeFile=*/true});
  }
}

// A query word's index terms, each with its weight, idf and postings (see searchLexical).
struct Variant {
  std::string term;
  double weight;
  double idf;
  std::vector<std::pair<uint32_t, uint32_t>> postings;
};

// Pass 1 of the lexical route: a length-free score per unit over all postings (an upper bound
// of BM25 up to the length factor), and the best `wanted` units by it, best first (ties by unit
// id); `candidates` gets how many units any query word reached. Dense per-unit arrays and lists
// of the units touched keep this pass free of per-unit allocations: a query's words reach
// thousands of units.
std::vector<std::pair<double, uint32_t>> roughlyRanked(const std::vector<std::vector<Variant>>& groups, size_t units,
                                                       size_t wanted, size_t* candidates) {
  std::vector<double> rough(units, 0.0), groupBest(units, 0.0);
  std::vector<uint32_t> touched, groupTouched;
  for (const std::vector<Variant>& group : groups) {
    groupTouched.clear();
    for (const Variant& v : group)
      for (const auto& [unit, tf] : v.postings) {
        double x = v.weight * v.idf * tf / (tf + kK1);
        if (groupBest[unit] == 0) groupTouched.push_back(unit);
        groupBest[unit] = std::max(groupBest[unit], x);
      }
    for (uint32_t unit : groupTouched) {
      if (rough[unit] == 0) touched.push_back(unit);
      rough[unit] += groupBest[unit];
      groupBest[unit] = 0;
    }
  }
  *candidates = touched.size();
  std::vector<std::pair<double, uint32_t>> ranked;
  ranked.reserve(touched.size());
  for (uint32_t unit : touched) ranked.emplace_back(rough[unit], unit);
  // The rough score leaves out the length factor, the name bonus and the file context, so a
  // unit's exact rank can be far below its rough one: on git's 20k units, keeping 400 lost the
  // target of 3 in 10 prose queries that keeping 2000 finds (bench/dense_bench.py, lexical).
  // The best `wanted` are selected in linear time, then ordered (a total order: the same as
  // sorting them all).
  size_t keep = std::min(ranked.size(), wanted);
  auto before = [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; };
  if (keep < ranked.size()) std::nth_element(ranked.begin(), ranked.begin() + keep, ranked.end(), before);
  ranked.resize(keep);
  std::sort(ranked.begin(), ranked.end(), before);
  return ranked;
}

// Proximity on top of BM25 for the best-scored units (not whole files, whose text is too long
// to read per query and which rank below their units anyway): query words close together and
// in order in a unit's text, with its leading comment, add kProximityWeight times their
// proximity score.
void addProximity(const std::string& query, const std::map<std::string, double>& idf, HitTexts& texts,
                  std::vector<Scored>* best) {
  ProximityQuery q = proximityQuery(query, idf);
  if (q.words.size() < 2 || best->empty()) return;
  std::vector<size_t> order(best->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  size_t top = std::min(order.size(), kProximityCandidates);
  std::partial_sort(order.begin(), order.begin() + top, order.end(),
                    [&](size_t a, size_t b) { return (*best)[a].score > (*best)[b].score; });
  for (size_t n = 0; n < top; ++n) {
    Scored& s = (*best)[order[n]];
    if (s.hit.kind == SymbolKind::Module) continue;
    std::string_view text = texts.of(s.hit.path);
    if (s.hit.range.endByte > text.size() || s.hit.range.startByte > s.hit.range.endByte) continue;
    // With the comment above it, whose words are the unit's too.
    uint32_t from = leadingCommentStart(text, s.hit.range.startByte);
    s.score += kProximityWeight * proximityScore(text.substr(from, s.hit.range.endByte - from), q);
  }
}

// The query's words as groups of index terms (see searchLexical), with every variant's idf and
// the idf of words no indexed unit holds (for changed and added files).
struct QueryGroups {
  std::vector<std::vector<Variant>> groups;
  std::map<std::string, double> idf;     // every variant's idf, for changed files
  std::map<std::string, double> unseen;  // query words no indexed unit holds: their idf
};
QueryGroups queryGroups(LexicalView& lexical, const std::vector<std::string>& terms, const SearchContext& context,
                        double n) {
  // Each query word is a group of index terms: itself, and the forms code spells it in (see
  // variantsOf). A unit scores a group by its best variant, so two spellings of one word in a
  // unit do not count twice.
  QueryGroups out;
  auto& groups = out.groups;
  auto& idf = out.idf;
  auto& unseen = out.unseen;
  for (const std::string& word : terms) {
    std::vector<Variant> g;
    auto variants = variantsOf(word);
    // Longer index terms that start with the word: "line" -> "lineno", "lines"; "alloc" ->
    // "allocate" (0.6, as abbreviations are).
    // The shortest are the closest forms ("lines", "lineno" before "linearize").
    if (word.size() >= 4) {
      std::vector<std::string> longer = lexical.termsExtending(word, 256);
      std::stable_sort(longer.begin(), longer.end(), [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
      if (longer.size() > kExtensions) longer.resize(kExtensions);
      for (std::string& t : longer)
        if (std::none_of(variants.begin(), variants.end(), [&](const auto& v) { return v.first == t; }))
          variants.emplace_back(std::move(t), kShortFormWeight);
    }
    // Identifiers written as one run of letters that hold the word ("line" ->
    // "clearendofline"), those holding more of the query's words first (0.6, as extensions
    // are). Their idf is the word's at most: the evidence is that the unit says this word.
    size_t plainForms = variants.size();
    std::vector<std::string> compounds = compoundsFor(lexical, word, variants, terms);
    for (std::string& t : compounds)
      if (std::none_of(variants.begin(), variants.end(), [&](const auto& v) { return v.first == t; }))
        variants.emplace_back(std::move(t), kShortFormWeight);
    double wordIdf = std::numeric_limits<double>::infinity();
    for (size_t vi = 0; vi < variants.size(); ++vi) {
      const auto& [term, weight] = variants[vi];
      auto postings = lexical.postings(term);
      if (postings.empty()) {
        // A word no indexed unit holds may still be in a changed or added file (scored below
        // from its content): it is as rare as a word can be.
        if (weight == kExactWeight && (!context.changed.empty() || !context.added.empty()))
          unseen.emplace(term, std::log(1 + (n + 0.5) / 0.5));
        continue;
      }
      double df = static_cast<double>(postings.size());
      double i = std::log(1 + (n - df + 0.5) / (df + 0.5));
      if (vi == 0) wordIdf = i;
      if (vi >= plainForms) i = std::min(i, wordIdf);
      idf[term] = i;
      g.push_back({term, weight, i, std::move(postings)});
    }
    if (!g.empty()) groups.push_back(std::move(g));
  }
  // A long query (a pasted paragraph) is scored by its most specific words: the rest add cost,
  // not ranking.
  if (groups.size() > kMaxQueryWords) {
    auto specificity = [](const std::vector<Variant>& g) {
      double best = 0;
      for (const Variant& v : g) best = std::max(best, v.weight * v.idf);
      return best;
    };
    std::stable_sort(groups.begin(), groups.end(),
                     [&](const auto& a, const auto& b) { return specificity(a) > specificity(b); });
    groups.resize(kMaxQueryWords);
  }
  return out;
}

// The code terms the query's words stand for in the history (historyTranslations), each a
// group of its own weighted by kTranslationWeight times its probability; a term the
// query's groups hold already, or no indexed unit holds, is left out.
void addTranslationGroups(LexicalView& lexical, const std::vector<std::pair<std::string, double>>& translations,
                          double n, std::vector<std::vector<Variant>>* groups) {
  for (const auto& [term, weight] : translations) {
    bool held = std::any_of(groups->begin(), groups->end(), [&](const std::vector<Variant>& g) {
      return std::any_of(g.begin(), g.end(), [&](const Variant& v) { return v.term == term; });
    });
    if (held) continue;
    auto postings = lexical.postings(term);
    if (postings.empty()) continue;
    double df = static_cast<double>(postings.size());
    double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
    groups->push_back({{term, kTranslationWeight * weight, idf, std::move(postings)}});
  }
}

// A variant a kept unit holds, and its count there.
struct Held {
  uint32_t group, variant, tf;
};
struct KeptCounts {
  std::vector<uint32_t> row;       // unit -> its row, if kept
  std::vector<uint32_t> rowStart;  // a row's entries are held[rowStart[r], rowStart[r + 1])
  std::vector<Held> held;
  // Working space of keptCounts, kept with the rest for its capacity.
  std::vector<uint32_t> filled;
  std::vector<std::pair<uint32_t, Held>> found;
};
const KeptCounts& keptCounts(const std::vector<std::vector<Variant>>& groups,
                             const std::vector<std::pair<double, uint32_t>>& ranked, size_t units) {
  // Pass 2: the kept units' term frequencies, for exact BM25 once their lengths are known: per
  // kept unit (a row), the variants it holds and their counts, rows side by side (a unit's are
  // at [rowStart[r], rowStart[r + 1])). Sparse: a long query has hundreds of variants and each
  // unit holds few of them — a dense table (rows × variants) cleared a few megabytes per query
  // and was a third of a long query's time.
  // The tables live per thread and keep their capacity from query to query: allocated afresh,
  // their megabytes were page faults on every query of a server.
  thread_local KeptCounts scratch;
  std::vector<uint32_t>& row = scratch.row;  // unit -> its row, if kept
  row.assign(units, UINT32_MAX);
  for (size_t r = 0; r < ranked.size(); ++r) row[ranked[r].second] = static_cast<uint32_t>(r);
  // One pass over the postings (long for common words) collects the kept units' entries; a
  // second over those few puts each row's together.
  std::vector<uint32_t>& rowStart = scratch.rowStart;
  rowStart.assign(ranked.size() + 1, 0);
  auto& found = scratch.found;  // (row, entry), in postings order
  found.clear();
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (size_t vi = 0; vi < groups[gi].size(); ++vi)
      for (const auto& [unit, tf] : groups[gi][vi].postings)
        if (uint32_t r = row[unit]; r != UINT32_MAX) {
          found.push_back({r, {static_cast<uint32_t>(gi), static_cast<uint32_t>(vi), tf}});
          ++rowStart[r + 1];
        }
  for (size_t r = 0; r < ranked.size(); ++r) rowStart[r + 1] += rowStart[r];
  std::vector<Held>& held = scratch.held;
  held.resize(found.size());
  scratch.filled.assign(rowStart.begin(), rowStart.end() - 1);
  for (const auto& [r, e] : found) held[scratch.filled[r]++] = e;
  return scratch;
}

}  // namespace

Expected<SearchResult> SearchProvider::searchLexical(const SearchRequest& request, const SearchContext& context,
                                                     bool snippets) {
  if (!lexical_) return Status(ErrorCode::Unsupported, lexicalError_);
  SearchResult out;
  out.route = SearchRoute::Lexical;
  std::vector<std::string> terms;
  forEachToken(request.query, [&](std::string_view t) { terms.emplace_back(t); });
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  if (terms.empty()) return out;

  const double n = lexical_->unitCount();
  // BM25 normalizes a unit's length by the average of its own kind: whole files against files,
  // functions and types against those. One average over both made a file without a grammar (a
  // grammar file, a skeleton, a script: its only unit) score as a function many times too long,
  // and gave every file a smaller share in its units' context than its words deserve.
  const double avgFile = lexical_->averageFileLength(), avgPart = lexical_->averagePartLength();
  auto avgOf = [&](Granularity g) { return g == Granularity::File ? avgFile : avgPart; };
  // Each query word is a group of index terms: itself, and the forms code spells it in (see
  // variantsOf). A unit scores a group by its best variant, so two spellings of one word in a
  // unit do not count twice.
  QueryGroups query = queryGroups(*lexical_, terms, context, n);
  std::vector<std::vector<Variant>>& groups = query.groups;
  const std::map<std::string, double>& idf = query.idf;
  const std::map<std::string, double>& unseen = query.unseen;
  if (history_) addTranslationGroups(*lexical_, historyTranslations(*history_, terms, kTranslations), n, &groups);
  // Pass 1: the candidates worth exact scoring.
  std::vector<std::pair<double, uint32_t>> ranked =
      roughlyRanked(groups, static_cast<size_t>(n), std::max<size_t>(request.k * 20, kExactlyScored), &out.candidates);
  // Pass 2: the kept units' term counts (keptCounts), for exact BM25 once their lengths are known.
  const KeptCounts& kept = keptCounts(groups, ranked, static_cast<size_t>(n));
  const std::vector<uint32_t>& rowStart = kept.rowStart;
  const std::vector<Held>& held = kept.held;
  // Which groups a unit's own name speaks to: each variant's term, with its group and weight.
  std::unordered_map<std::string_view, std::vector<std::pair<size_t, double>>> variantsByTerm;
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (const Variant& v : groups[gi]) variantsByTerm[v.term].emplace_back(gi, v.weight * v.idf);
  std::vector<double> named(groups.size());
  std::vector<double> groupBest(groups.size());  // per unit scored below: its best variant's score
  auto nameBonus = [&](std::string_view name) {
    std::fill(named.begin(), named.end(), 0.0);
    forEachToken(name, [&](std::string_view t) {
      if (auto it = variantsByTerm.find(t); it != variantsByTerm.end())
        for (const auto& [gi, value] : it->second) named[gi] = std::max(named[gi], value);
    });
  };

  // The files the past commits most like the query changed (the history view), part of the
  // file's score.
  std::unordered_map<std::string, double> history;
  if (history_) history = historyScores(*history_, terms, kHistoryCommits);
  auto historyOf = [&](const std::string& path) {
    auto it = history.find(path);
    return it == history.end() ? 0.0 : kHistoryWeight * it->second;
  };

  std::vector<Scored> best;
  std::vector<uint32_t> bestDoc;              // per entry of `best`: its doc, for units inside a file
  std::unordered_map<uint32_t, double> fileScore;  // doc -> its whole-file unit's score
  for (size_t r = 0; r < ranked.size(); ++r) {
    const uint32_t id = ranked[r].second;
    auto u = lexical_->unit(id);
    if (!u) continue;
    auto d = lexical_->byId(u->doc);
    if (!d || context.changed.count(d->path) || context.deleted.count(d->path)) continue;
    if (!passesFilters(request, d->path, d->language)) continue;
    if (!request.kinds.empty() && std::find(request.kinds.begin(), request.kinds.end(), u->kind) == request.kinds.end())
      continue;
    // Exact BM25 now that the length is known, plus a bonus for query words in the unit's own
    // name: `args_find` is about finding args more than a function that merely calls it.
    nameBonus(u->name);
    // Each group by its best variant the unit holds.
    std::fill(groupBest.begin(), groupBest.end(), 0.0);
    for (uint32_t e = rowStart[r]; e < rowStart[r + 1]; ++e) {
      const Variant& v = groups[held[e].group][held[e].variant];
      double& g = groupBest[held[e].group];
      g = std::max(g, v.weight * v.idf * saturated(held[e].tf, u->length, avgOf(u->granularity)));
    }
    double s = 0;
    for (size_t gi = 0; gi < groups.size(); ++gi) s += groupBest[gi] + kNameWeight * named[gi];
    bool fileUnit = u->granularity == Granularity::File;
    if (fileUnit) fileScore[u->doc] = s += historyOf(d->path);
    // A whole source file holds every term of its functions: rank the functions first. (Files
    // without a grammar have no smaller units and keep their score.)
    if (fileUnit && d->language != Language::Unknown) s *= kFileUnitWeight;
    SearchHit h;
    h.path = d->path;
    h.range = u->range;
    h.route = SearchRoute::Lexical;
    h.name = u->name;
    h.kind = fileUnit ? SymbolKind::Module : u->kind;
    h.unit = id;
    best.push_back({s, std::move(h)});
    bestDoc.push_back(fileUnit ? UINT32_MAX : u->doc);
  }
  // A unit inherits part of its file's score: the words a query uses are spread over a file's
  // functions, comments and names, and the file that holds most of them is where a grep-and-read
  // agent would look first.
  // (A file whose whole-file unit was not scored still passes on its history.)
  std::set<std::string> reached;  // files with a scored unit
  for (size_t i = 0; i < bestDoc.size(); ++i) {
    reached.insert(best[i].hit.path);
    if (bestDoc[i] == UINT32_MAX) continue;
    auto it = fileScore.find(bestDoc[i]);
    best[i].score += kFileContext * (it != fileScore.end() ? it->second : historyOf(best[i].hit.path));
  }
  addHistoryOnlyFiles(*lexical_, history, reached, request, context, &best);
  // Changed and added files: their units as the index would cut them (from the facts of the
  // content as it is, when the caller has them; else the whole file), scored as indexed units
  // are, with the version's collection statistics.
  forEachCurrentFile(*lexical_, request, context, [&](const std::string& path, const std::string& content) {
    std::optional<FileFacts> facts;
    if (context.currentFacts) facts = context.currentFacts(path, content);
    SearchFacts sf = buildSearchFacts(path, content, facts ? &*facts : nullptr, /*trigrams=*/false);
    Language language = facts ? detectLanguage(path, std::string_view(content).substr(0, 16384)) : Language::Unknown;
    std::vector<Scored> units;
    std::optional<double> fileScoreNow;
    for (const UnitTerms& u : sf.units) {
      bool fileUnit = u.granularity == Granularity::File;
      // A file unit is scored even when files are not wanted: its score is its units' context.
      bool wanted = kindWanted(request, fileUnit ? SymbolKind::Module : u.kind);
      if (!wanted && !fileUnit) continue;
      nameBonus(u.name);
      auto tfOf = [&](const std::string& term) -> uint32_t {
        auto it = std::lower_bound(u.terms.begin(), u.terms.end(), term,
                                   [](const auto& p, const std::string& t) { return p.first < t; });
        return it != u.terms.end() && it->first == term ? it->second : 0;
      };
      double sc = 0;
      for (size_t gi = 0; gi < groups.size(); ++gi) {
        double gs = 0;
        for (const Variant& v : groups[gi]) {
          if (uint32_t tf = tfOf(v.term))
            gs = std::max(gs, v.weight * v.idf * saturated(tf, u.length, avgOf(u.granularity)));
        }
        sc += gs + kNameWeight * named[gi];
      }
      // Words the version's units lack (no group): as rare as a word can be.
      for (const auto& [term, i] : unseen) {
        if (uint32_t tf = tfOf(term)) sc += i * saturated(tf, u.length, avgOf(u.granularity));
      }
      // (A unit none of the query's words reach is no hit, as an indexed one is no candidate.)
      const bool saysAWord = sc > 0;
      if (fileUnit) {
        fileScoreNow = sc += historyOf(path);
        if (language != Language::Unknown) sc *= kFileUnitWeight;
      }
      if (!saysAWord || !wanted) continue;
      units.push_back({sc, unitHit(path, u, SearchRoute::Lexical)});
    }
    // A file only its history names: the whole file, as for an indexed file (addHistoryOnlyFiles).
    if (units.empty() && historyOf(path) > 0 && kindWanted(request, SymbolKind::Module))
      units.push_back({kFileContext * historyOf(path), wholeFileHit(path, content, SearchRoute::Lexical)});
    for (Scored& u : units) {
      if (fileScoreNow && u.hit.kind != SymbolKind::Module) u.score += kFileContext * *fileScoreNow;
      best.push_back(std::move(u));
    }
  });
  // One reading of each file for proximity and snippets.
  HitTexts texts(lexical_.get(), context);
  addProximity(request.query, idf, texts, &best);
  rankAndAttachSnippets(std::move(best), request, texts, &out, snippets);
  return out;
}

}  // namespace nib
