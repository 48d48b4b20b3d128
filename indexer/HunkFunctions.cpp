#include "indexer/HunkFunctions.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace nib {
namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool identChar(char c) { return identStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

// git's default function line: one that starts with a letter, `_` or `$` (xdiff's
// def_ff: no indentation, no comment, no preprocessor directive, no brace).
bool isFunctionLine(std::string_view line) { return !line.empty() && identStart(line[0]); }

// Words that stand before a parenthesis without naming a function.
bool isKeyword(std::string_view w) {
  static constexpr std::array<std::string_view, 14> kWords = {
      "if", "for", "while", "switch", "return", "sizeof", "function", "catch",
      "elif", "with", "assert", "print", "typeof", "async"};
  return std::find(kWords.begin(), kWords.end(), w) != kWords.end();
}

// The lines of `text`, as views.
std::vector<std::string_view> linesOf(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string HunkFunctions::nameOf(std::string_view line) {
  size_t paren = line.find('(');
  if (paren != std::string_view::npos) {
    size_t end = paren;
    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
    size_t begin = end;
    while (begin > 0 && identChar(line[begin - 1])) --begin;
    if (begin == end || !identStart(line[begin])) return "";
    std::string_view name = line.substr(begin, end - begin);
    return isKeyword(name) ? "" : std::string(name);
  }
  static constexpr std::array<std::string_view, 7> kTypeWords = {"class", "struct", "union", "enum",
                                                                 "interface", "trait", "impl"};
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && !identStart(line[i])) ++i;
    size_t begin = i;
    while (i < line.size() && identChar(line[i])) ++i;
    std::string_view word = line.substr(begin, i - begin);
    if (std::find(kTypeWords.begin(), kTypeWords.end(), word) == kTypeWords.end()) continue;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t nameBegin = i;
    while (i < line.size() && identChar(line[i])) ++i;
    if (i > nameBegin && identStart(line[nameBegin])) return std::string(line.substr(nameBegin, i - nameBegin));
    return "";
  }
  return "";
}

std::vector<std::string> HunkFunctions::touched(std::string_view text, const std::vector<ChangedLines>& changes) {
  std::vector<std::string_view> lines = linesOf(text);
  std::vector<std::string> names;
  auto add = [&](std::string_view line) {
    if (std::string n = nameOf(line); !n.empty()) names.push_back(std::move(n));
  };
  for (const ChangedLines& c : changes) {
    if (lines.empty()) break;
    // The change's first line (for a deletion, the line before it), 0-based, within the text.
    size_t first = c.first == 0 ? 0 : std::min<size_t>(c.first - 1, lines.size() - 1);
    for (size_t l = first + 1; l-- > 0;)
      if (isFunctionLine(lines[l])) {
        add(lines[l]);
        break;
      }
    size_t last = std::min<size_t>(first + c.count, lines.size());
    for (size_t l = first + 1; l < last; ++l)
      if (isFunctionLine(lines[l])) add(lines[l]);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (names.size() > kMaxNames) names.clear();  // a rewrite of the file names no function in particular
  return names;
}

}  // namespace nib
