#include "server/SearchAnswer.h"

#include "protocol/PositionEncoder.h"
#include "protocol/Uri.h"

namespace nib {

lsp::SearchAnswer toSearchAnswer(Engine& engine, const SearchResult& result, Encoding encoding, bool withUris) {
  lsp::SearchAnswer a;
  a.route = searchRouteName(result.route);
  a.truncated = result.truncated;
  a.notes = result.notes;
  for (const SearchHit& h : result.hits) {
    lsp::SearchHitAnswer w;
    w.path = h.path;
    if (withUris) w.uri = pathToUri((engine.root() / h.path).string());
    std::string content;
    if (!h.ascii) {
      auto text = engine.currentText(h.path);
      if (text) content = std::move(*text);
    }
    w.range = PositionEncoder(content, h.ascii || content.empty(), encoding).toWire(h.range);
    w.score = h.score;
    w.route = searchRouteName(h.route);
    w.name = h.name;
    if (h.kind != SymbolKind::Unknown) w.kind = symbolKindName(h.kind);
    w.snippet = h.snippet;
    w.snippetLine = h.snippetLine;
    a.hits.push_back(std::move(w));
  }
  return a;
}

}  // namespace nib
