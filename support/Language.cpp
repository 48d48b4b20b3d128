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

const char* languageName(Language lang) { return kNames[static_cast<size_t>(lang)]; }

Language languageFromName(std::string_view name) {
  for (size_t i = 1; i < kNames.size(); ++i)
    if (name == kNames[i]) return static_cast<Language>(i);
  return Language::Unknown;
}

bool looksLikeCpp(std::string_view text) {
  static constexpr std::string_view kMarkers[] = {"namespace", "class",   "template", "public:", "private:",
                                                  "protected:", "virtual", "nullptr",  "this->",  "::",
                                                  "operator"};
  auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::string_view m : kMarkers) {
    for (size_t pos = text.find(m); pos != std::string_view::npos; pos = text.find(m, pos + 1)) {
      // Whole words only, checked at the ends of the marker that are word characters.
      size_t end = pos + m.size();
      bool startOk = !isWord(m.front()) || pos == 0 || !isWord(text[pos - 1]);
      bool endOk = !isWord(m.back()) || end >= text.size() || !isWord(text[end]);
      if (startOk && endOk) return true;
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
