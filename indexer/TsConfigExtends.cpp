#include "indexer/TsConfigExtends.h"

namespace nib {
namespace fs = std::filesystem;

namespace {

// Past white space and comments from `i`.
size_t skipTrivia(std::string_view t, size_t i) {
  while (i < t.size()) {
    if (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
      ++i;
    } else if (t.compare(i, 2, "//") == 0) {
      size_t end = t.find('\n', i);
      i = end == std::string_view::npos ? t.size() : end + 1;
    } else if (t.compare(i, 2, "/*") == 0) {
      size_t end = t.find("*/", i + 2);
      i = end == std::string_view::npos ? t.size() : end + 2;
    } else {
      break;
    }
  }
  return i;
}

// The string literal starting at `i` (a quote), its escapes decoded for the common cases; `end`
// is set past its closing quote. nullopt when it does not close.
std::optional<std::string> stringAt(std::string_view t, size_t i, size_t* end) {
  std::string out;
  for (size_t j = i + 1; j < t.size(); ++j) {
    if (t[j] == '"') {
      *end = j + 1;
      return out;
    }
    if (t[j] == '\\' && j + 1 < t.size()) {
      char c = t[++j];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c;  // `\/`, `\\`, `\"` stand for themselves
    } else {
      out += t[j];
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> tsconfigExtends(std::string_view t) {
  int depth = 0;
  size_t i = skipTrivia(t, 0);
  while (i < t.size()) {
    char c = t[i];
    if (c == '{' || c == '[') {
      ++depth;
      ++i;
    } else if (c == '}' || c == ']') {
      --depth;
      ++i;
    } else if (c == '"') {
      size_t end = 0;
      std::optional<std::string> s = stringAt(t, i, &end);
      if (!s) return std::nullopt;
      i = skipTrivia(t, end);
      if (depth == 1 && *s == "extends" && i < t.size() && t[i] == ':') {
        i = skipTrivia(t, i + 1);
        if (i >= t.size() || t[i] != '"') return std::nullopt;
        return stringAt(t, i, &end);
      }
      continue;
    } else {
      ++i;
    }
    i = skipTrivia(t, i);
  }
  return std::nullopt;
}

bool tsconfigExtendsResolves(const fs::path& configDir, const std::string& extends) {
  std::error_code ec;
  auto exists = [&](const fs::path& p) { return fs::exists(p, ec) || fs::exists(p.string() + ".json", ec); };
  if (extends.empty()) return true;
  if (extends[0] == '/' || extends.rfind("./", 0) == 0 || extends.rfind("../", 0) == 0 || extends == "." || extends == "..")
    return exists(configDir / extends);
  for (fs::path dir = configDir;; dir = dir.parent_path()) {
    if (exists(dir / "node_modules" / extends)) return true;
    if (dir == dir.root_path() || dir.parent_path() == dir) return false;
  }
}

}  // namespace nib
