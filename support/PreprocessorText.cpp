#include "support/PreprocessorText.h"

#include <algorithm>
#include <cctype>

namespace nib {

std::string_view directiveAt(std::string_view text, uint32_t offset) {
  if (offset > text.size()) return {};
  size_t start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  start = start == std::string_view::npos ? 0 : start + 1;
  // Back over continued lines: the line before ends with a backslash.
  while (start >= 2 && text[start - 1] == '\n' && (text[start - 2] == '\\' || (text[start - 2] == '\r' && start >= 3 && text[start - 3] == '\\'))) {
    size_t previous = text.rfind('\n', start - 2);
    start = previous == std::string_view::npos ? 0 : previous + 1;
  }
  size_t i = start;
  auto blanks = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  blanks();
  if (i >= text.size() || text[i] != '#') return {};
  ++i;
  blanks();
  size_t keyword = i;
  while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
  if (offset < i) return {};
  return text.substr(keyword, i - keyword);
}

uint32_t preambleEnd(std::string_view text) {
  size_t i = 0, n = text.size();
  auto blockComment = [&] {
    size_t close = text.find("*/", i + 2);
    i = close == std::string_view::npos ? n : close + 2;
  };
  while (i < n) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      size_t eol = text.find('\n', i);
      i = eol == std::string_view::npos ? n : eol + 1;
    } else if (text.compare(i, 2, "/*") == 0) {
      blockComment();
    } else if (c == '#') {
      while (i < n && text[i] != '\n') {
        if (text.compare(i, 2, "/*") == 0) blockComment();
        else if (text[i] == '\\' && i + 1 < n && (text[i + 1] == '\n' || text[i + 1] == '\r')) i += text[i + 1] == '\r' ? 3 : 2;
        else ++i;
      }
    } else {
      break;
    }
  }
  return static_cast<uint32_t>(std::min(i, n));
}

}  // namespace nib
