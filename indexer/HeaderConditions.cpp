#include "indexer/HeaderConditions.h"

#include <algorithm>
#include <cctype>

namespace nib {
namespace {

bool identifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifierPart(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Calls `visit(keyword, rest)` for each preprocessor directive of `text`: the directive's name
// and what follows it up to the end of its logical line (backslash continuations joined by the
// caller's scanning of `rest`, which keeps them).
template <typename Visit>
void forEachDirective(std::string_view text, Visit visit) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = pos;
    // A logical line: a backslash before the newline continues it.
    while (end < text.size()) {
      size_t nl = text.find('\n', end);
      if (nl == std::string_view::npos) {
        end = text.size();
        break;
      }
      size_t last = nl;
      while (last > end && (text[last - 1] == '\r')) --last;
      if (last > end && text[last - 1] == '\\') {
        end = nl + 1;
        continue;
      }
      end = nl;
      break;
    }
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || line[i] != '#') continue;
    ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t k = i;
    while (k < line.size() && identifierPart(line[k])) ++k;
    visit(line.substr(i, k - i), line.substr(k));
  }
}

// The identifiers of a directive's text, comments left out.
template <typename Visit>
void forEachIdentifier(std::string_view s, Visit visit) {
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "//") == 0) return;
    if (s.compare(i, 2, "/*") == 0) {
      size_t close = s.find("*/", i + 2);
      if (close == std::string_view::npos) return;
      i = close + 2;
      continue;
    }
    if (identifierStart(s[i])) {
      size_t k = i;
      while (k < s.size() && identifierPart(s[k])) ++k;
      visit(s.substr(i, k - i));
      i = k;
      continue;
    }
    // A number's letters (`0x10UL`) are no identifier.
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (i < s.size() && identifierPart(s[i])) ++i;
      continue;
    }
    ++i;
  }
}

}  // namespace

FileDirectives directivesOf(std::string_view text) {
  FileDirectives out;
  forEachDirective(text, [&](std::string_view keyword, std::string_view rest) {
    if (keyword == "define") {
      size_t i = 0;
      while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
      size_t k = i;
      while (k < rest.size() && identifierPart(rest[k])) ++k;
      if (k > i && identifierStart(rest[i])) out.defined.emplace(rest.substr(i, k - i));
    } else if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef" || keyword == "elif") {
      forEachIdentifier(rest, [&](std::string_view name) {
        if (name != "defined") out.tested.emplace(name);
      });
    }
  });
  return out;
}

std::vector<std::string> headersConfiguredElsewhere(const std::vector<std::pair<std::string, FileDirectives>>& headers,
                                                    const std::set<std::string>& buildMacros) {
  std::vector<std::string> out;
  for (const auto& [path, d] : headers)
    if (std::any_of(d.tested.begin(), d.tested.end(),
                    [&](const std::string& name) { return buildMacros.count(name) && !d.defined.count(name); }))
      out.push_back(path);
  return out;
}

}  // namespace nib
