#include "providers/SearchHits.h"

#include <algorithm>
#include <cmath>

#include "support/Text.h"
#include "views/StoredContent.h"

namespace nib {

std::string_view HitTexts::of(const std::string& path) {
  if (auto it = texts_.find(path); it != texts_.end()) return it->second;
  std::optional<std::string_view> text;
  std::string buffer;
  // (An added file has no entry in the view; a changed one's entry holds its old bytes.)
  if (lexical_ && context_.packedContent && !context_.changed.count(path))
    if (auto d = lexical_->byPath(path))
      if (auto packed = context_.packedContent(d->blobOid))
        if (auto bytes = unpackContentInto(*packed, buffer)) text = *bytes;
  if (text && text->data() == buffer.data()) {
    buffer.resize(text->size());
    text = owned_.emplace(path, std::move(buffer)).first->second;
  }
  if (!text) {
    auto content = context_.readCurrent(path);
    text = owned_.emplace(path, content ? std::move(*content) : std::string()).first->second;
  }
  return texts_.emplace(path, *text).first->second;
}

bool snippetAt(std::string_view text, const ByteRange& range, std::string* snippet, bool* ascii) {
  if (range.startByte > text.size() || range.endByte > text.size() || range.startByte > range.endByte ||
      (range.startByte == 0 && range.start.line > 0))
    return false;
  auto lineStart = [&](size_t at) {
    size_t nl = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
    return nl == std::string_view::npos ? size_t{0} : nl + 1;
  };
  auto lineEnd = [&](size_t at) {
    size_t nl = text.find('\n', at);
    return nl == std::string_view::npos ? text.size() : nl;
  };
  uint32_t lines = std::min<uint32_t>(range.end.line - std::min(range.end.line, range.start.line), kSnippetLines - 1) + 1;
  snippet->clear();
  size_t at = lineStart(range.startByte);
  for (uint32_t l = 0; l < lines && at <= text.size(); ++l) {
    size_t end = lineEnd(at);
    std::string_view t = text.substr(at, end - at);
    if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
    if (t.size() > kSearchSnippetLineBytes) t = t.substr(0, kSearchSnippetLineBytes);
    if (l > 0) *snippet += '\n';
    *snippet += t;
    if (end == text.size()) break;
    at = end + 1;
  }
  size_t first = lineStart(range.startByte), last = lineStart(range.endByte);
  *ascii = isAscii(text.substr(first, lineEnd(first) - first)) && isAscii(text.substr(last, lineEnd(last) - last));
  return true;
}

bool kindWanted(const SearchRequest& request, SymbolKind kind) {
  return request.kinds.empty() || std::find(request.kinds.begin(), request.kinds.end(), kind) != request.kinds.end();
}

void forEachCurrentFile(LexicalView& lexical, const SearchRequest& request, const SearchContext& context,
                        const std::function<void(const std::string& path, const std::string& content)>& score) {
  auto visit = [&](const std::string& path) {
    auto d = lexical.byPath(path);
    if (!SearchProvider::passesFilters(request, path, d ? d->language : detectLanguage(path, ""))) return;
    auto content = context.readCurrent(path);
    if (content) score(path, *content);
  };
  for (const std::string& p : context.changed) visit(p);
  for (const std::string& p : context.added) visit(p);
}

SearchHit unitHit(const std::string& path, const UnitTerms& u, SearchRoute route) {
  SearchHit h;
  h.path = path;
  h.range = u.range;
  h.route = route;
  h.name = u.name;
  h.kind = u.granularity == Granularity::File ? SymbolKind::Module : u.kind;
  return h;
}

SearchHit wholeFileHit(const std::string& path, std::string_view content, SearchRoute route) {
  SearchHit h;
  h.path = path;
  h.route = route;
  h.kind = SymbolKind::Module;
  LineTable lines(content);
  h.range.endByte = static_cast<uint32_t>(content.size());
  h.range.end = lines.positionOf(h.range.endByte);
  return h;
}

void rankHits(std::vector<Scored>& best, size_t k, SearchResult* out) {
  auto before = [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.hit.path != b.hit.path) return a.hit.path < b.hit.path;
    if (a.hit.range.startByte != b.hit.range.startByte) return a.hit.range.startByte < b.hit.range.startByte;
    // One declaration may define two names over the same range (`typedef struct {...} A, *PA;`).
    return a.hit.name < b.hit.name;
  };
  // Only the first k are kept: order those (the ranked routes score thousands of units).
  if (best.size() > k) std::partial_sort(best.begin(), best.begin() + k, best.end(), before);
  else std::sort(best.begin(), best.end(), before);
  if (best.size() > k) {
    out->truncated = true;
    best.resize(k);
  }
}


namespace {

// The lines [first, last] of `text`, each cut to a readable length.
std::string linesOf(const LineTable& lines, uint32_t first, uint32_t last) {
  std::string out;
  for (uint32_t l = first; l <= last && l < lines.lineCount(); ++l) {
    std::string_view t = lines.lineText(l);
    if (t.size() > kSearchSnippetLineBytes) t = t.substr(0, kSearchSnippetLineBytes);
    if (l > first) out += '\n';
    out += t;
  }
  return out;
}

}  // namespace

void rankAndAttachSnippets(std::vector<Scored> best, const SearchRequest& request, HitTexts& texts,
                           SearchResult* result, bool snippets) {
  SearchResult& out = *result;
  rankHits(best, request.k, &out);
  if (!snippets) {
    for (Scored& s : best) {
      s.hit.score = s.score;
      out.hits.push_back(std::move(s.hit));
    }
    return;
  }
  std::map<std::string, LineTable> tables;  // for hits without byte offsets only
  for (Scored& s : best) {
    std::string_view text = texts.of(s.hit.path);
    if (s.wholeFile) s.hit = wholeFileHit(s.hit.path, text, s.hit.route);
    s.hit.score = std::round(s.score * 1000) / 1000;
    s.hit.snippetLine = s.hit.range.start.line;
    if (!snippetAt(text, s.hit.range, &s.hit.snippet, &s.hit.ascii)) {
      const LineTable& lines = tables.try_emplace(s.hit.path, text).first->second;
      uint32_t first = s.hit.range.start.line;
      uint32_t last = std::min<uint32_t>(s.hit.range.end.line, first + kSnippetLines - 1);
      s.hit.snippet = linesOf(lines, first, last);
      s.hit.ascii = isAscii(text);
    }
    out.hits.push_back(std::move(s.hit));
  }
}


}  // namespace nib
