#include "indexer/HeaderConditions.h"

#include <algorithm>
#include <cctype>
#include <utility>

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

// The first identifier of a directive's text ("" when it starts otherwise).
std::string_view firstIdentifier(std::string_view rest) {
  size_t i = 0;
  while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
  size_t k = i;
  while (k < rest.size() && identifierPart(rest[k])) ++k;
  return k > i && identifierStart(rest[i]) ? rest.substr(i, k - i) : std::string_view();
}

// The macro an include guard's opening directive tests: `#ifndef X`, `#if !defined(X)` or
// `#if !defined X`; "" for any other directive.
std::string_view guardTestedBy(std::string_view keyword, std::string_view rest) {
  if (keyword == "ifndef") return firstIdentifier(rest);
  if (keyword != "if") return {};
  size_t i = rest.find_first_not_of(" \t");
  if (i == std::string_view::npos || rest[i] != '!') return {};
  rest.remove_prefix(i + 1);
  if (firstIdentifier(rest) != "defined") return {};
  rest.remove_prefix(rest.find("defined") + 7);
  i = rest.find_first_not_of(" \t(");
  return i == std::string_view::npos ? std::string_view() : firstIdentifier(rest.substr(i));
}

}  // namespace

FileDirectives directivesOf(std::string_view text) {
  FileDirectives out;
  size_t index = 0;
  std::string_view guard;  // the macro the first directive tests for an include guard
  std::string_view unset;  // the macro the directive before tests is not defined
  forEachDirective(text, [&](std::string_view keyword, std::string_view rest) {
    size_t n = index++;
    if (n == 0) guard = guardTestedBy(keyword, rest);
    if (n == 1 && keyword == "define" && !guard.empty() && firstIdentifier(rest) == guard) out.guarded = true;
    if (keyword == "pragma" && firstIdentifier(rest) == "once") out.guarded = true;
    std::string_view tested = std::exchange(unset, guardTestedBy(keyword, rest));
    if (keyword == "define") {
      std::string_view name = firstIdentifier(rest);
      if (!name.empty()) out.defined.emplace(name);
      if (!name.empty() && name == tested && n != 1) out.defaulted.emplace(name);
    } else if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef" || keyword == "elif") {
      forEachIdentifier(rest, [&](std::string_view name) {
        if (name != "defined") out.tested.emplace(name);
      });
    }
  });
  return out;
}

std::vector<std::string> headersConfiguredElsewhere(const std::vector<std::pair<std::string, FileDirectives>>& headers,
                                                    const std::map<std::string, size_t>& definers) {
  std::vector<std::string> out;
  for (const auto& [path, d] : headers)
    if (std::any_of(d.tested.begin(), d.tested.end(), [&](const std::string& name) {
          auto it = definers.find(name);
          size_t others = it == definers.end() ? 0 : it->second - (d.defined.count(name) ? 1 : 0);
          return others > 0 && (!d.defined.count(name) || d.defaulted.count(name));
        }))
      out.push_back(path);
  return out;
}

}  // namespace nib
