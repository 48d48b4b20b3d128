#include "server/SearchAnswer.h"

#include "protocol/PositionEncoder.h"
#include "protocol/Uri.h"
#include "server/StructuralAnswer.h"

#include <cstdio>
#include <map>
#include <memory>

namespace nib {

lsp::SearchAnswer toSearchAnswer(Engine& engine, const SearchResult& result, Encoding encoding, bool withUris) {
  lsp::SearchAnswer a;
  a.route = searchRouteName(result.route);
  a.truncated = result.truncated;
  a.notes = result.notes;
  // What the answer reflects: hits in files changed since the index was built come from the
  // files as they are now.
  // Changed files are searched as they are on disk, so a search is complete for the worktree
  // unless files were left out (result.partial says so, and the notes say which).
  if (auto f = engine.freshness(true)) {
    a.freshness = freshnessFields(*f, true);
    a.freshness["partial"] = result.partial ? "true" : "false";
  }
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

Expected<SearchRequest> searchRequestOf(const std::string& query, const std::string& route, bool regex, bool ignoreCase,
                                        size_t k, const std::vector<std::string>& paths,
                                        const std::vector<std::string>& languages,
                                        const std::vector<std::string>& kinds) {
  SearchRequest request;
  request.query = query;
  if (!route.empty() && !parseSearchRoute(route, &request.route))
    return Status(ErrorCode::InvalidArgument, "unknown route '" + route + "' (use auto, lexical, trigram, semantic, hybrid or structural)");
  request.regex = regex;
  request.caseSensitive = !ignoreCase;
  request.k = k;
  request.paths = paths;
  for (const std::string& l : languages) {
    Language lang = languageFromName(l);
    if (lang == Language::Unknown)
      return Status(ErrorCode::InvalidArgument,
                    "unknown language '" + l + "' (use one of c, cpp, python, javascript, typescript, tsx, go, rust, java)");
    request.languages.push_back(lang);
  }
  for (const std::string& name : kinds) {
    SymbolKind kind = symbolKindFromName(name);
    if (kind == SymbolKind::Unknown) return Status(ErrorCode::InvalidArgument, "unknown symbol kind '" + name + "'");
    request.kinds.push_back(kind);
  }
  return request;
}

std::string searchResultText(const SearchResult& result) {
  std::string out;
  char buf[128];
  for (const SearchHit& h : result.hits) {
    if (h.route == SearchRoute::Trigram) {
      // grep's shape: path:line:column: text (1-based).
      std::snprintf(buf, sizeof buf, ":%u:%u: ", toDisplayLine(h.range.start.line), h.range.start.column + 1);
      out.append(h.path).append(buf).append(h.snippet).append("\n");
      continue;
    }
    std::string what = h.kind == SymbolKind::Module ? "file" : symbolKindName(h.kind);
    std::snprintf(buf, sizeof buf, ":%u-%u  ", toDisplayLine(h.range.start.line), toDisplayLine(h.range.end.line));
    out.append(h.path).append(buf).append(what).append(" ").append(h.name);
    std::snprintf(buf, sizeof buf, "  (score %.3f)\n", h.score);
    out.append(buf);
    // The snippet with 1-based line gutters.
    uint32_t line = h.snippetLine;
    size_t start = 0;
    while (start <= h.snippet.size()) {
      size_t end = h.snippet.find('\n', start);
      if (end == std::string::npos) end = h.snippet.size();
      std::snprintf(buf, sizeof buf, "%6u | ", toDisplayLine(line++));
      out.append(buf).append(h.snippet, start, end - start).append("\n");
      start = end + 1;
    }
    out.append("\n");
  }
  return out;
}

}  // namespace nib
