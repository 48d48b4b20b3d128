#include "support/Language.h"

#include <array>
#include <cctype>
#include <utility>

namespace nib {
namespace {
constexpr std::array<const char*, kLanguageCount> kNames = {
    "unknown", "c", "cpp", "python", "javascript", "typescript", "tsx", "go", "rust", "java"};

constexpr std::pair<std::string_view, Language> kExtensions[] = {
    {".c", Language::C},           {".h", Language::C},
    {".cc", Language::Cpp},        {".cpp", Language::Cpp},       {".cxx", Language::Cpp},
    {".c++", Language::Cpp},       {".hh", Language::Cpp},        {".hpp", Language::Cpp},
    {".hxx", Language::Cpp},       {".h++", Language::Cpp},       {".ipp", Language::Cpp},
    {".inl", Language::Cpp},       {".tcc", Language::Cpp},
    {".py", Language::Python},     {".pyi", Language::Python},    {".pyw", Language::Python},
    {".js", Language::JavaScript}, {".mjs", Language::JavaScript}, {".cjs", Language::JavaScript},
    {".jsx", Language::JavaScript},
    {".ts", Language::TypeScript}, {".mts", Language::TypeScript}, {".cts", Language::TypeScript},
    {".tsx", Language::Tsx},
    {".go", Language::Go},         {".rs", Language::Rust},       {".java", Language::Java},
};

// Interpreter names as they appear in "#!/usr/bin/env python3" or "#!/usr/bin/node".
constexpr std::pair<std::string_view, Language> kInterpreters[] = {
    {"python", Language::Python}, {"node", Language::JavaScript}, {"deno", Language::TypeScript},
    {"ts-node", Language::TypeScript}, {"tsx", Language::TypeScript},
};
}  // namespace

const char* languageName(Language lang) {
  auto i = static_cast<size_t>(lang);
  return i < kNames.size() ? kNames[i] : "unknown";
}

bool isCFamilySourceFile(std::string_view path) {
  size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || path.find('/', dot) != std::string_view::npos) return false;
  std::string_view ext = path.substr(dot);
  return ext == ".c" || ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".c++";
}

Language languageFromName(std::string_view name) {
  for (size_t i = 1; i < kNames.size(); ++i)
    if (name == kNames[i]) return static_cast<Language>(i);
  return Language::Unknown;
}

bool looksLikeCpp(std::string_view text) {
  // Strong signals only: words like "class" or "operator" are common in C comments. A marker
  // counts only outside comments and string literals.
  static constexpr std::string_view kMarkers[] = {"namespace ", "template<", "template <", "public:", "private:",
                                                  "protected:", "nullptr", "this->", "std::", "class "};
  auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string_view::npos) return false;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i = text.find("*/", i + 2);
      if (i == std::string_view::npos) return false;
      ++i;
      continue;
    }
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (i > 0 && isWord(text[i - 1])) continue;
    for (std::string_view m : kMarkers) {
      if (text.compare(i, m.size(), m) != 0) continue;
      if (m == "class ") {
        // `class Name {`, `class Name :` or `class Name;` — not "class" in prose.
        size_t j = i + m.size();
        while (j < text.size() && isWord(text[j])) ++j;
        if (j == i + m.size()) continue;
        while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
        if (j < text.size() && (text[j] == '{' || text[j] == ':' || text[j] == ';')) return true;
        continue;
      }
      return true;
    }
  }
  return false;
}

Language detectLanguage(std::string_view path, std::string_view head) {
  std::string_view firstLine = head;
  std::string_view name = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  size_t dot = name.rfind('.');
  if (dot != std::string_view::npos && dot > 0) {
    std::string_view ext = name.substr(dot);
    for (const auto& [e, lang] : kExtensions)
      if (ext.size() == e.size()) {
        bool same = true;
        for (size_t i = 0; i < e.size() && same; ++i)
          same = (ext[i] | 0x20) == e[i] || ext[i] == e[i];
        if (same) return lang == Language::C && (ext[1] | 0x20) == 'h' && looksLikeCpp(head) ? Language::Cpp : lang;
      }
    return Language::Unknown;  // an extension we do not handle wins over a shebang
  }
  if (firstLine.substr(0, 2) != "#!") return Language::Unknown;
  // The interpreter is the last path component of the first word, or the word after "env".
  std::string_view rest = firstLine.substr(2);
  size_t nl = rest.find('\n');
  if (nl != std::string_view::npos) rest = rest.substr(0, nl);
  std::string_view interp;
  size_t pos = 0;
  while (pos < rest.size()) {
    while (pos < rest.size() && (rest[pos] == ' ' || rest[pos] == '\t')) ++pos;
    size_t end = rest.find_first_of(" \t", pos);
    if (end == std::string_view::npos) end = rest.size();
    std::string_view word = rest.substr(pos, end - pos);
    pos = end;
    if (word.empty()) break;
    std::string_view base = word.substr(word.rfind('/') == std::string_view::npos ? 0 : word.rfind('/') + 1);
    if (base == "env" || (!base.empty() && base[0] == '-')) continue;
    interp = base;
    break;
  }
  for (const auto& [prefix, lang] : kInterpreters)
    if (interp.substr(0, prefix.size()) == prefix) return lang;
  return Language::Unknown;
}

}  // namespace nib
