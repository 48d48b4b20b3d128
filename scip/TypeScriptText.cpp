#include "scip/TypeScriptText.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "support/Text.h"

namespace nib::typescript_text {

bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool identifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Whether `word` ends right before `at` as a whole word.
bool wordBefore(std::string_view text, size_t at, std::string_view word) {
  return at >= word.size() && text.compare(at - word.size(), word.size(), word) == 0 &&
         (at == word.size() || !identifierChar(text[at - word.size() - 1]));
}

}  // namespace

bool namespaceImportAt(std::string_view text, size_t offset) {
  size_t at = offset;
  auto skipSpace = [&] {
    while (at > 0 && std::isspace(static_cast<unsigned char>(text[at - 1]))) --at;
  };
  skipSpace();
  if (!wordBefore(text, at, "as")) return false;
  at -= 2;
  skipSpace();
  if (at < 1 || text[at - 1] != '*') return false;
  --at;
  skipSpace();
  return wordBefore(text, at, "import");
}

bool requireAliasAt(std::string_view text, size_t end) {
  size_t at = end;
  if (at > text.size()) return false;
  auto skipSpace = [&] {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  };
  skipSpace();
  if (at + 1 >= text.size() || text[at] != '=' || text[at + 1] == '=') return false;
  ++at;
  skipSpace();
  if (text.compare(at, 7, "require") != 0) return false;
  at += 7;
  skipSpace();
  return at < text.size() && text[at] == '(';
}

bool afterNew(std::string_view text, size_t offset) {
  size_t at = offset;
  while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '\n')) --at;
  return at != offset && wordBefore(text, at, "new");
}

bool inImportClause(std::string_view text, size_t offset) {
  // Back from the name over what an import clause holds before it — names, `type`, `as`,
  // commas, white space, the opening brace and a namespace import's `*` — to the `import`
  // keyword. A `from`, a string, a semicolon or anything else first means the name is not
  // declared by an import clause.
  size_t at = offset;
  bool braced = false, star = false;
  while (at > 0) {
    char c = text[at - 1];
    if (space(c) || c == ',') {
      --at;
    } else if (c == '{' || c == '*') {
      bool& seen = c == '{' ? braced : star;
      if (seen) return false;
      seen = true;
      --at;
    } else if (identifierChar(c)) {
      size_t start = at;
      while (start > 0 && identifierChar(text[start - 1])) --start;
      std::string_view word = text.substr(start, at - start);
      if (word == "import") return start == 0 || !identifierChar(text[start - 1]);
      if (word == "from" || word == "export") return false;
      at = start;
    } else {
      return false;
    }
  }
  return false;
}

bool inSpecifierList(std::string_view text, size_t offset) {
  // Back over names, `type`, `as`, commas and white space to the opening brace, then over
  // `type` to `import` or `export`.
  size_t at = offset;
  while (at > 0) {
    const char c = text[at - 1];
    if (space(c) || c == ',') {
      --at;
    } else if (identifierChar(c)) {
      while (at > 0 && identifierChar(text[at - 1])) --at;
    } else if (c == '{') {
      --at;
      while (at > 0 && space(text[at - 1])) --at;
      if (wordBefore(text, at, "type")) {
        at -= 4;
        while (at > 0 && space(text[at - 1])) --at;
      }
      return wordBefore(text, at, "import") || wordBefore(text, at, "export");
    } else {
      return false;
    }
  }
  return false;
}

size_t aliasAfter(std::string_view text, size_t end) {
  size_t at = end;
  while (at < text.size() && space(text[at])) ++at;
  if (text.compare(at, 2, "as") != 0 || at + 2 >= text.size() || identifierChar(text[at + 2])) return std::string_view::npos;
  at += 2;
  while (at < text.size() && space(text[at])) ++at;
  return at < text.size() && identifierChar(text[at]) ? at : std::string_view::npos;
}

size_t moduleStart(std::string_view text) {
  size_t at = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") at = 3;
  if (text.compare(at, 2, "#!") == 0) {
    at = text.find('\n', at);
    if (at == std::string_view::npos) return text.size();
  }
  return skipCodeTrivia(text, at);
}

bool staticMemberAt(std::string_view text, size_t offset) {
  if (offset > text.size()) return false;
  size_t start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  start = start == std::string_view::npos || offset == 0 ? 0 : start + 1;
  std::string_view before = text.substr(start, offset - start);
  static const std::string_view kModifiers[] = {"public", "private", "protected", "static", "async", "readonly",
                                                "abstract", "override", "declare", "get", "set", "*"};
  bool isStatic = false;
  for (size_t at = 0; at < before.size();) {
    if (space(before[at])) {
      ++at;
      continue;
    }
    size_t end = before[at] == '*' ? at + 1 : at;
    while (end < before.size() && identifierChar(before[end])) ++end;
    std::string_view word = before.substr(at, end - at);
    if (word.empty() || std::find(std::begin(kModifiers), std::end(kModifiers), word) == std::end(kModifiers)) return false;
    isStatic = isStatic || word == "static";
    at = end;
  }
  return isStatic;
}

std::string_view stringAt(std::string_view text, size_t offset) {
  if (offset >= text.size() || (text[offset] != '\'' && text[offset] != '"')) return {};
  size_t end = text.find(text[offset], offset + 1);
  if (end == std::string_view::npos || text.substr(offset, end - offset).find('\n') != std::string_view::npos) return {};
  return text.substr(offset + 1, end - offset - 1);
}

std::string resolveRelativeModule(const std::string& from, std::string_view specifier) {
  if (specifier != "." && specifier != ".." && specifier.rfind("./", 0) != 0 && specifier.rfind("../", 0) != 0) return "";
  namespace fs = std::filesystem;
  static const char* const kExtensions[] = {".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"};
  std::error_code ec;
  auto file = [&](const fs::path& p) { return fs::is_regular_file(p, ec) ? fs::weakly_canonical(p, ec).string() : std::string(); };
  // Lexically, as TypeScript joins paths: `test/../src` names src/ whether or not test/ exists.
  const fs::path base = (fs::path(from).parent_path() / std::string(specifier)).lexically_normal();
  // `./m.js` in TypeScript names m.ts (the file it compiles to m.js): its own extension last.
  const std::string written = base.extension().string();
  for (const auto& [js, ts] : {std::pair{".js", ".ts"}, {".js", ".tsx"}, {".jsx", ".tsx"}, {".mjs", ".mts"}, {".cjs", ".cts"}})
    if (written == js)
      if (std::string found = file(fs::path(base).replace_extension(ts)); !found.empty()) return found;
  if (!written.empty())
    if (std::string found = file(base); !found.empty()) return found;
  for (const char* e : kExtensions)
    if (std::string found = file(base.string() + e); !found.empty()) return found;
  for (const char* e : kExtensions)
    if (std::string found = file(base / (std::string("index") + e)); !found.empty()) return found;
  return "";
}

}  // namespace nib::typescript_text
