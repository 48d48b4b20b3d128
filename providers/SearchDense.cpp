// `nib/search`'s semantic and hybrid routes: the dense view's nearest units to the query's
// vector, and the lexical ranking re-scored with them (SearchProvider.h says the fusion rule).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "providers/SearchHits.h"
#include "providers/SearchProvider.h"
#include "views/DenseView.h"
#include "views/SearchFacts.h"

namespace nib {

Status SearchProvider::openDense() {
  if (dense_) return Status::ok();
  if (denseDir_.empty()) return Status(ErrorCode::Unsupported, denseError_);
  if (!denseTried_) {
    denseTried_ = true;
    auto d = DenseView::open(denseDir_);
    if (d) dense_ = std::move(*d);
    else denseError_ = "the dense view cannot be opened: " + d.status().message();
  }
  return dense_ ? Status::ok() : Status(ErrorCode::Unsupported, denseError_);
}

Expected<SearchResult> SearchProvider::searchSemantic(const SearchRequest& request, const SearchContext& context,
                                                      bool snippets, const std::vector<float>* embedded) {
  NIB_RETURN_IF_ERROR(openDense());
  if (!lexical_) return Status(ErrorCode::Unsupported, lexicalError_);
  SearchResult out;
  out.route = SearchRoute::Semantic;
  std::vector<float> query;
  if (embedded) {
    query = *embedded;
  } else {
    auto q = dense_->embed(request.query);
    if (!q) return q.status();
    query = std::move(*q);
  }
  if (query.empty()) {
    out.notes.push_back("no word of the query has a vector in this repository's embedding model");
    return out;
  }
  // Filters are applied to the neighbours, so a filtered query looks further.
  bool filtered = !request.paths.empty() || !request.languages.empty() || !request.kinds.empty() ||
                  !context.changed.empty() || !context.deleted.empty();
  size_t want = filtered ? std::max<size_t>(request.k * 50, 2000) : std::max<size_t>(request.k * 2, 50);
  auto near = dense_->nearest(query.data(), want);
  out.candidates = near.size();
  std::vector<Scored> best;
  for (const auto& [id, similarity] : near) {
    auto u = lexical_->unit(id);
    if (!u) continue;
    auto d = lexical_->byId(u->doc);
    if (!d || context.changed.count(d->path) || context.deleted.count(d->path)) continue;
    if (!passesFilters(request, d->path, d->language)) continue;
    bool fileUnit = u->granularity == Granularity::File;
    SymbolKind kind = fileUnit ? SymbolKind::Module : u->kind;
    if (!request.kinds.empty() && std::find(request.kinds.begin(), request.kinds.end(), kind) == request.kinds.end())
      continue;
    SearchHit h;
    h.path = d->path;
    h.range = u->range;
    h.route = SearchRoute::Semantic;
    h.name = u->name;
    h.kind = kind;
    h.unit = id;
    best.push_back({similarity, std::move(h)});
  }
  // Changed and added files: their units' vectors as the build would compute them (from the
  // facts of their current content, when the caller has them), else one vector per file.
  forEachCurrentFile(*lexical_, request, context, [&](const std::string& path, const std::string& content) {
    auto cosine = [&](const std::vector<float>& v) {
      double similarity = 0;
      for (size_t i = 0; i < v.size(); ++i) similarity += static_cast<double>(v[i]) * query[i];
      return similarity;
    };
    std::optional<FileFacts> facts;
    if (context.currentFacts) facts = context.currentFacts(path, content);
    SearchFacts sf = buildSearchFacts(path, content, facts ? &*facts : nullptr, /*trigrams=*/false);
    bool perUnit = !sf.units.empty() && dense_->embedUnit({}).has_value();
    if (!perUnit) {
      if (!kindWanted(request, SymbolKind::Module)) return;
      auto embedded = dense_->embed(content);
      if (embedded && !embedded->empty()) best.push_back({cosine(*embedded), wholeFileHit(path, content, SearchRoute::Semantic)});
      return;
    }
    for (const UnitTerms& u : sf.units) {
      bool fileUnit = u.granularity == Granularity::File;
      if (!kindWanted(request, fileUnit ? SymbolKind::Module : u.kind)) continue;
      auto v = dense_->embedUnit(u.terms);
      if (!v || v->empty()) continue;
      best.push_back({cosine(*v), unitHit(path, u, SearchRoute::Semantic)});
    }
  });
  HitTexts texts(lexical_.get(), context);
  rankAndAttachSnippets(std::move(best), request, texts, &out, snippets);
  return out;
}

double hybridScore(const HybridFusion& fusion, size_t lexicalRank, double bm25, std::optional<double> cosine) {
  // A kept hit scores above any other (bm25 <= 1 and cosine <= 1), and the kept ones among
  // themselves by BM25 alone: their lexical order.
  if (lexicalRank < fusion.kept) return bm25 + 1 + fusion.semanticWeight;
  return bm25 + (cosine ? fusion.semanticWeight * *cosine : 0.0);
}

Expected<SearchResult> SearchProvider::searchHybrid(const SearchRequest& request, const SearchContext& context) {
  // Both rankings deeper than k, without snippets (see kHybridModelFusion for the rule).
  SearchRequest deep = request;
  deep.k = std::max<size_t>(request.k, kHybridDepth);
  auto lexical = searchLexical(deep, context, /*snippets=*/false);
  if (!lexical) return lexical.status();
  SearchResult out;
  out.route = SearchRoute::Hybrid;
  out.partial = lexical->partial;
  out.notes = lexical->notes;
  out.candidates = lexical->candidates;
  Status dense = openDense();
  std::vector<float> query;
  if (dense.isOk()) {
    auto q = dense_->embed(request.query);
    if (q) query = std::move(*q);
    else dense = q.status();
  }
  if (!dense.isOk())  // without the dense view, hybrid is lexical: said, not hidden
    out.notes.push_back("semantic ranking unavailable (" + dense.message() + "): lexical ranking only");
  else if (query.empty())
    out.notes.push_back("no word of the query has a vector in this repository's embedding model: lexical ranking only");
  double top = 0;
  for (const SearchHit& h : lexical->hits) top = std::max(top, h.score);
  std::vector<Scored> best;
  std::set<std::tuple<std::string, uint32_t, uint32_t>> seen;
  auto keyOf = [](const SearchHit& h) { return std::make_tuple(h.path, h.range.startByte, h.range.endByte); };
  // Units of changed files have no stored vector: theirs are computed as the semantic route
  // computes them (once per file, for the files among the lexical hits).
  std::map<std::tuple<std::string, uint32_t, uint32_t>, double> changedCosine;
  if (!query.empty() && dense_->embedUnit({}).has_value()) {
    std::set<std::string> paths;
    for (const SearchHit& h : lexical->hits)
      if (h.unit == UINT32_MAX) paths.insert(h.path);
    for (const std::string& path : paths) {
      auto content = context.readCurrent(path);
      if (!content) continue;
      std::optional<FileFacts> facts;
      if (context.currentFacts) facts = context.currentFacts(path, *content);
      for (const UnitTerms& u : buildSearchFacts(path, *content, facts ? &*facts : nullptr, /*trigrams=*/false).units) {
        auto v = dense_->embedUnit(u.terms);
        if (!v || v->empty()) continue;
        double cosine = 0;
        for (size_t i = 0; i < v->size(); ++i) cosine += static_cast<double>((*v)[i]) * query[i];
        changedCosine[std::make_tuple(path, u.range.startByte, u.range.endByte)] = cosine;
      }
    }
  }
  // The fusion rule follows the vectors' source (see kHybridModelFusion).
  const HybridFusion& fusion = denseExternal_ ? kHybridEncoderFusion : kHybridModelFusion;
  size_t rank = 0;
  for (SearchHit& h : lexical->hits) {
    std::optional<double> cosine;
    if (!query.empty() && h.unit != UINT32_MAX) cosine = dense_->similarity(query.data(), h.unit);
    else if (auto it = changedCosine.find(keyOf(h)); it != changedCosine.end()) cosine = it->second;
    double score = hybridScore(fusion, rank++, top > 0 ? h.score / top : 0, cosine);
    seen.insert(keyOf(h));
    h.route = SearchRoute::Hybrid;
    best.push_back({score, std::move(h)});
  }
  if (!query.empty()) {
    auto semantic = searchSemantic(deep, context, /*snippets=*/false, &query);
    if (semantic) {
      out.candidates += semantic->candidates;
      for (SearchHit& h : semantic->hits) {
        if (seen.count(keyOf(h))) continue;
        double score = fusion.semanticWeight * h.score;
        h.route = SearchRoute::Hybrid;
        best.push_back({score, std::move(h)});
      }
    }
  }
  HitTexts texts(lexical_.get(), context);
  rankAndAttachSnippets(std::move(best), request, texts, &out);
  return out;
}


}  // namespace nib
