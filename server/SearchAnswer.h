// Converts a search result into its wire shape (paths or URIs, ranges in the negotiated
// encoding, 0-based lines). Shared by `nib search --json` and the server's nib/search.
#pragma once

#include "protocol/LspTypes.h"
#include "server/Engine.h"

namespace nib {

lsp::SearchAnswer toSearchAnswer(Engine& engine, const SearchResult& result, Encoding encoding, bool withUris);

// A search request from the names front ends receive (route, languages, kinds as strings);
// InvalidArgument names the first unknown one.
Expected<SearchRequest> searchRequestOf(const std::string& query, const std::string& route, bool regex, bool ignoreCase,
                                        size_t k, const std::vector<std::string>& paths,
                                        const std::vector<std::string>& languages,
                                        const std::vector<std::string>& kinds);

// The hits as people and agents read them: `path:line:col: text` for trigram matches, and
// `path:first-last  kind name  (score N)` with the unit's lines in a 1-based gutter otherwise.
std::string searchResultText(const SearchResult& result);

}  // namespace nib
