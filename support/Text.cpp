#include "support/Text.h"

#include <algorithm>

namespace nib {
namespace {
// Length of the UTF-8 sequence starting at s[i], or 0 when malformed.
size_t sequenceLength(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { n = 2; cp = c & 0x1F; }
  else if ((c & 0xF0) == 0xE0) { n = 3; cp = c & 0x0F; }
  else if ((c & 0xF8) == 0xF0) { n = 4; cp = c & 0x07; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  // Reject overlong forms, surrogates and values past U+10FFFF.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return 0;
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}
}  // namespace

bool isValidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t n = sequenceLength(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string validUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t n = sequenceLength(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for each byte that starts no whole sequence
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

bool isAscii(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

LineTable::LineTable(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts_.push_back(static_cast<uint32_t>(i + 1));
}

bool LineTable::offsetOf(Position pos, uint32_t* offset) const {
  if (pos.line >= starts_.size()) return false;
  std::string_view line = lineText(pos.line);
  *offset = starts_[pos.line] + std::min<uint32_t>(pos.column, static_cast<uint32_t>(line.size()));
  return true;
}

Position LineTable::positionOf(uint32_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - starts_.begin()) - 1;
  return Position{line, offset - starts_[line]};
}

std::string_view LineTable::lineText(uint32_t line) const {
  if (line >= starts_.size()) return {};
  uint32_t begin = starts_[line];
  uint32_t end = line + 1 < starts_.size() ? starts_[line + 1] - 1 : static_cast<uint32_t>(text_.size());
  if (end > begin && text_[end - 1] == '\r') --end;
  return text_.substr(begin, end - begin);
}

uint32_t LineTable::toUnits(uint32_t line, uint32_t byteColumn, Encoding enc) const {
  std::string_view t = lineText(line);
  byteColumn = std::min<uint32_t>(byteColumn, static_cast<uint32_t>(t.size()));
  if (enc == Encoding::Utf8) return byteColumn;
  uint32_t units = 0;
  for (size_t i = 0; i < byteColumn;) {
    size_t n = sequenceLength(t, i);
    if (n == 0) n = 1;
    units += (enc == Encoding::Utf16 && n == 4) ? 2 : 1;
    i += n;
  }
  return units;
}

uint32_t LineTable::fromUnits(uint32_t line, uint32_t units, Encoding enc) const {
  std::string_view t = lineText(line);
  if (enc == Encoding::Utf8) return std::min<uint32_t>(units, static_cast<uint32_t>(t.size()));
  uint32_t seen = 0;
  size_t i = 0;
  while (i < t.size() && seen < units) {
    size_t n = sequenceLength(t, i);
    if (n == 0) n = 1;
    seen += (enc == Encoding::Utf16 && n == 4) ? 2 : 1;
    i += n;
  }
  return static_cast<uint32_t>(i);
}

std::optional<std::pair<uint32_t, uint32_t>> identifierAround(std::string_view text, uint32_t offset) {
  if (offset > text.size()) return std::nullopt;
  size_t start = offset, end = offset;
  while (start > 0 && isIdentifierByte(text[start - 1])) --start;
  while (end < text.size() && isIdentifierByte(text[end])) ++end;
  if (start == end || (text[start] >= '0' && text[start] <= '9')) return std::nullopt;
  return std::pair{static_cast<uint32_t>(start), static_cast<uint32_t>(end)};
}

size_t skipCodeTrivia(std::string_view text, size_t at) {
  while (at < text.size()) {
    char c = text[at];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++at;
    } else if (text.compare(at, 2, "//") == 0) {
      size_t end = text.find('\n', at);
      at = end == std::string_view::npos ? text.size() : end + 1;
    } else if (text.compare(at, 2, "/*") == 0) {
      size_t end = text.find("*/", at + 2);
      at = end == std::string_view::npos ? text.size() : end + 2;
    } else {
      break;
    }
  }
  return at;
}

}  // namespace nib
