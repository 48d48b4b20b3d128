// `nib search`: the lexical and trigram routes from the command line.
#include <cstdio>

#include "cli/Commands.h"
#include "protocol/LspTypes.h"
#include "server/Engine.h"
#include "server/SearchAnswer.h"

namespace nib::cli {

int runSearch(const SearchArgs& args) {
  SearchRequest request;
  request.query = args.query;
  if (!parseSearchRoute(args.route, &request.route)) return fail("unknown route '" + args.route + "'");
  request.regex = args.regex;
  request.caseSensitive = !args.ignoreCase;
  request.k = args.k;
  request.paths = args.paths;
  for (const std::string& l : args.languages) {
    Language lang = languageFromName(l);
    if (lang == Language::Unknown) return fail("unknown language '" + l + "'", "use one of c, cpp, python, javascript, typescript, tsx, go, rust, java");
    request.languages.push_back(lang);
  }
  for (const std::string& k : args.kinds) {
    SymbolKind kind = symbolKindFromName(k);
    if (kind == SymbolKind::Unknown) return fail("unknown symbol kind '" + k + "'");
    request.kinds.push_back(kind);
  }
  auto engine = Engine::open(args.root);
  if (!engine) return fail(engine.status().message());  // the message says what to do
  auto result = (*engine)->search(request);
  if (!result) return fail(result.status().message());
  if (args.json) {
    lsp::SearchAnswer a = toSearchAnswer(**engine, *result, Encoding::Utf16, /*withUris=*/false);
    std::printf("%s\n", lsp::toJson(a).c_str());
    return result->hits.empty() ? 1 : 0;  // like the text output, and grep
  }
  for (const SearchHit& h : result->hits) {
    if (h.route == SearchRoute::Trigram) {
      // grep's shape: path:line:column: text (1-based).
      std::printf("%s:%u:%u: %s\n", h.path.c_str(), toDisplayLine(h.range.start.line), h.range.start.column + 1,
                  h.snippet.c_str());
      continue;
    }
    std::string what = h.kind == SymbolKind::Module ? "file" : symbolKindName(h.kind);
    std::printf("%s:%u-%u  %s %s  (score %.3f)\n", h.path.c_str(), toDisplayLine(h.range.start.line),
                toDisplayLine(h.range.end.line), what.c_str(), h.name.c_str(), h.score);
    // The snippet with 1-based line gutters.
    uint32_t line = h.snippetLine;
    size_t start = 0;
    while (start <= h.snippet.size()) {
      size_t end = h.snippet.find('\n', start);
      if (end == std::string::npos) end = h.snippet.size();
      std::printf("%6u | %.*s\n", toDisplayLine(line++), static_cast<int>(end - start), h.snippet.c_str() + start);
      start = end + 1;
    }
    std::printf("\n");
  }
  for (const std::string& n : result->notes) std::fprintf(stderr, "nib: note: %s\n", n.c_str());
  if (result->truncated)
    std::fprintf(stderr, "nib: note: more results exist; raise -k (now %zu)\n", request.k);
  if (result->hits.empty()) std::fprintf(stderr, "nib: no matches\n");
  return result->hits.empty() ? 1 : 0;
}

}  // namespace nib::cli
