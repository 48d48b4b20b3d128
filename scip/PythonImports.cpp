#include "scip/PythonImports.h"

#include <cctype>
#include <set>

namespace nib::python_imports {
namespace {

bool nameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }

}  // namespace

std::optional<RelativeFrom> relativeFromAt(std::string_view text, size_t offset) {
  // Back over the imported names (`a, b as c`; inside parentheses, across lines) to `import`.
  // A line break counts only inside the parentheses (or after a backslash); a keyword is no
  // imported name (`class C(base)` is no import list).
  static const std::set<std::string_view> kKeywords = {
      "False", "None", "True", "and", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
      "else", "except", "finally", "for", "global", "if", "in", "is", "lambda", "nonlocal", "not", "or", "pass",
      "raise", "return", "try", "while", "with", "yield"};
  size_t at = offset;
  bool lineBreak = false, parenthesized = false;
  while (at > 0) {
    const char c = text[at - 1];
    if (c == ' ' || c == '\t' || c == ',') {
      --at;
    } else if (c == '\n' || c == '\r') {
      size_t before = at - 1;
      if (c == '\n' && before > 0 && text[before - 1] == '\r') --before;
      if (!(before > 0 && text[before - 1] == '\\')) lineBreak = true;
      at = before;
    } else if (c == '\\') {
      --at;
    } else if (c == '(') {
      if (parenthesized) return std::nullopt;
      parenthesized = true;
      --at;
      while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
      if (at < 6 || text.compare(at - 6, 6, "import") != 0) return std::nullopt;
    } else if (nameChar(c)) {
      size_t start = at;
      while (start > 0 && nameChar(text[start - 1])) --start;
      std::string_view word = text.substr(start, at - start);
      at = start;
      if (word == "import") break;
      if (word == "from" || kKeywords.count(word)) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  if (lineBreak && !parenthesized) return std::nullopt;
  if (at == 0 || text.compare(at, 6, "import") != 0) return std::nullopt;
  // Then the module: `from <dots><name> ` before `import`.
  while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
  size_t end = at;
  while (at > 0 && (nameChar(text[at - 1]) || text[at - 1] == '.')) --at;
  std::string_view module = text.substr(at, end - at);
  size_t dots = 0;
  while (dots < module.size() && module[dots] == '.') ++dots;
  if (dots == 0) return std::nullopt;
  while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
  if (at < 4 || text.compare(at - 4, 4, "from") != 0 || (at > 4 && nameChar(text[at - 5]))) return std::nullopt;
  return RelativeFrom{dots, std::string(module.substr(dots))};
}

std::vector<AllEntry> allEntries(std::string_view text) {
  std::vector<AllEntry> out;
  for (size_t at = text.find("__all__"); at != std::string_view::npos; at = text.find("__all__", at + 7)) {
    // At a line's start (a module-level assignment), as `__all__ =` or `__all__ +=`.
    if (at > 0 && text[at - 1] != '\n') continue;
    size_t i = at + 7;
    auto skipBlank = [&] {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    };
    skipBlank();
    if (text.compare(i, 2, "+=") == 0) ++i;
    if (i >= text.size() || text[i] != '=' || (i + 1 < text.size() && text[i + 1] == '=')) continue;
    ++i;
    skipBlank();
    if (i >= text.size() || (text[i] != '[' && text[i] != '(')) continue;
    const char close = text[i] == '[' ? ']' : ')';
    for (++i; i < text.size() && text[i] != close;) {
      const char c = text[i];
      if (c == '"' || c == '\'') {
        size_t end = text.find(c, i + 1);
        if (end == std::string_view::npos || text.substr(i + 1, end - i - 1).find('\n') != std::string_view::npos) break;
        std::string_view name = text.substr(i + 1, end - i - 1);
        bool plain = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
        for (char n : name) plain = plain && nameChar(n);
        if (plain) out.push_back({i + 1, name.size()});
        i = end + 1;
      } else if (c == '#') {
        while (i < text.size() && text[i] != '\n') ++i;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
        ++i;
      } else {
        break;  // not a plain list of strings
      }
    }
  }
  return out;
}

std::string packageOf(const std::string& module, bool initFile) {
  if (initFile) return module;
  size_t dot = module.rfind('.');
  return dot == std::string::npos ? std::string() : module.substr(0, dot);
}

std::string resolveRelative(const std::string& package, size_t dots, const std::string& name) {
  std::string base = package;
  for (size_t up = 1; up < dots; ++up) {
    if (base.empty()) return "";
    size_t dot = base.rfind('.');
    base = dot == std::string::npos ? std::string() : base.substr(0, dot);
  }
  if (base.empty()) return name;  // a module at the top: its folder is the root
  return name.empty() ? base : base + "." + name;
}

}  // namespace nib::python_imports
