#include "providers/SearchSnippets.h"

#include <algorithm>

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

}  // namespace nib
