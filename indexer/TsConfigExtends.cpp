#include "indexer/TsConfigExtends.h"

#include <vector>

#include "support/FileIo.h"
#include "support/Text.h"

namespace nib {
namespace fs = std::filesystem;

namespace {

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

// Where the value of the member at `path` (keys from the top-level object down) starts, past
// the colon and trivia; npos when there is none. Each open brace or bracket remembers the key
// it is the value of ("" inside an array), so only the path's own objects match.
size_t memberValue(std::string_view t, const std::vector<std::string_view>& path) {
  std::vector<std::string> open;  // per nesting level: the key whose value it is
  std::string key;                // the last key read at the current level
  size_t i = skipCodeTrivia(t, 0);
  while (i < t.size()) {
    char c = t[i];
    if (c == '{' || c == '[') {
      open.push_back(c == '[' ? "" : key);
      key.clear();
      ++i;
    } else if (c == '}' || c == ']') {
      if (open.empty()) return std::string_view::npos;
      open.pop_back();
      ++i;
    } else if (c == '"') {
      size_t end = 0;
      std::optional<std::string> s = stringAt(t, i, &end);
      if (!s) return std::string_view::npos;
      i = skipCodeTrivia(t, end);
      if (i < t.size() && t[i] == ':') {
        key = *s;
        i = skipCodeTrivia(t, i + 1);
        bool here = open.size() == path.size() && key == path.back();
        for (size_t d = 1; here && d < open.size(); ++d) here = open[d] == path[d - 1];
        if (here) return i;
      }
      continue;
    } else {
      if (c == ',') key.clear();  // the next member's key, or an array's next element
      ++i;
    }
    i = skipCodeTrivia(t, i);
  }
  return std::string_view::npos;
}

// The configuration file `extends` names from `configDir`, when it can be found.
std::optional<fs::path> extendedFile(const fs::path& configDir, const std::string& extends) {
  std::error_code ec;
  auto file = [&](const fs::path& p) -> std::optional<fs::path> {
    if (fs::is_regular_file(p, ec)) return p;
    if (fs::is_regular_file(p.string() + ".json", ec)) return fs::path(p.string() + ".json");
    if (fs::is_regular_file(p / "tsconfig.json", ec)) return p / "tsconfig.json";
    return std::nullopt;
  };
  if (extends.empty()) return std::nullopt;
  if (extends[0] == '/' || extends.rfind("./", 0) == 0 || extends.rfind("../", 0) == 0) return file(configDir / extends);
  for (fs::path dir = configDir;; dir = dir.parent_path()) {
    if (auto f = file(dir / "node_modules" / extends)) return f;
    if (dir == dir.root_path() || dir.parent_path() == dir) return std::nullopt;
  }
}

}  // namespace

std::optional<std::string> tsconfigExtends(std::string_view t) {
  size_t at = memberValue(t, {"extends"});
  if (at == std::string_view::npos || at >= t.size() || t[at] != '"') return std::nullopt;
  size_t end = 0;
  return stringAt(t, at, &end);
}

std::optional<bool> tsconfigComposite(std::string_view t) {
  size_t at = memberValue(t, {"compilerOptions", "composite"});
  if (at == std::string_view::npos) return std::nullopt;
  if (t.compare(at, 4, "true") == 0) return true;
  if (t.compare(at, 5, "false") == 0) return false;
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

bool tsconfigIsComposite(const fs::path& configDir, std::string_view text) {
  fs::path dir = configDir;
  std::string read;  // the text of an extended configuration
  for (int depth = 0; depth < 8; ++depth) {
    if (std::optional<bool> own = tsconfigComposite(text)) return *own;
    std::optional<std::string> extends = tsconfigExtends(text);
    std::optional<fs::path> next = extends ? extendedFile(dir, *extends) : std::nullopt;
    auto content = next ? readFile(*next) : Expected<std::string>(Status(ErrorCode::NotFound, ""));
    if (!content) return false;
    read = std::move(*content);
    text = read;
    dir = next->parent_path();
  }
  return false;
}

}  // namespace nib
