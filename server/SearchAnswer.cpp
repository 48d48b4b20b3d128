#include "server/SearchAnswer.h"

#include "protocol/PositionEncoder.h"
#include "protocol/Uri.h"

#include <map>
#include <memory>

namespace nib {

lsp::SearchAnswer toSearchAnswer(Engine& engine, const SearchResult& result, Encoding encoding, bool withUris) {
  lsp::SearchAnswer a;
  a.route = searchRouteName(result.route);
  a.truncated = result.truncated;
  a.notes = result.notes;
  // What the answer reflects: hits in files changed since the index was built come from the
  // files as they are now, so `fresh` speaks only of the commit the index was built from.
  if (auto f = engine.freshness(false))
    a.freshness = {{"indexCommit", f->indexCommit}, {"headCommit", f->headCommit}, {"indexVersion", f->indexVersion},
                   {"fresh", f->fresh ? "true" : "false"},
                   {"partial", (result.partial || !f->fresh) ? "true" : "false"}};
  // Non-ASCII files need their text to count UTF-16 units: read and index each once.
  std::map<std::string, std::pair<std::string, std::unique_ptr<PositionEncoder>>> encoders;
  std::string uriPath, uri;  // hits come grouped by file: one URI per file
  for (const SearchHit& h : result.hits) {
    lsp::SearchHitAnswer w;
    w.path = h.path;
    if (withUris) {
      if (h.path != uriPath) {
        uriPath = h.path;
        uri = pathToUri((engine.root() / h.path).string());
      }
      w.uri = uri;
    }
    if (h.ascii || encoding == Encoding::Utf8) {
      w.range = {{h.range.start.line, h.range.start.column}, {h.range.end.line, h.range.end.column}};
    } else {
      auto it = encoders.find(h.path);
      if (it == encoders.end()) {
        auto text = engine.currentText(h.path);
        it = encoders.emplace(h.path, std::make_pair(text ? std::move(*text) : std::string(), nullptr)).first;
        it->second.second = std::make_unique<PositionEncoder>(it->second.first, it->second.first.empty(), encoding);
      }
      w.range = it->second.second->toWire(h.range);
    }
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
