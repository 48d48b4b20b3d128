#include "views/ClangPreambleMacros.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include "views/FileFacts.h"

namespace nib {
namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// The end of the logical line starting at `pos` (its newline, or the text's end): a backslash
// before the newline continues it.
size_t lineEnd(std::string_view text, size_t pos) {
  for (;;) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) return text.size();
    size_t last = nl;
    while (last > pos && text[last - 1] == '\r') --last;
    if (last > pos && text[last - 1] == '\\') {
      pos = nl + 1;
      continue;
    }
    return nl;
  }
}

// The directive's keyword at `pos` (just past the `#`): `if`, `ifdef`, `endif`, ...
std::string_view keywordAt(std::string_view text, size_t pos) {
  while (pos < text.size() && space(text[pos])) ++pos;
  size_t k = pos;
  while (k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_')) ++k;
  return text.substr(pos, k - pos);
}

// Whether the occurrence at `offset` is the name of an `#undef`.
bool inUndef(std::string_view text, size_t offset) {
  size_t start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  start = start == std::string_view::npos ? 0 : start + 1;
  while (start < offset && space(text[start])) ++start;
  return start < offset && text[start] == '#' && keywordAt(text, start + 1) == "undef";
}

}  // namespace

size_t preambleEnd(std::string_view text) {
  std::vector<size_t> open;  // starts of the #if directives still open
  size_t pos = 0;
  while (pos < text.size()) {
    char c = text[pos];
    if (space(c) || c == '\n') {
      ++pos;
    } else if (text.compare(pos, 2, "//") == 0) {
      pos = lineEnd(text, pos);
    } else if (text.compare(pos, 2, "/*") == 0) {
      size_t close = text.find("*/", pos + 2);
      pos = close == std::string_view::npos ? text.size() : close + 2;
    } else if (c == '#') {
      std::string_view keyword = keywordAt(text, pos + 1);
      if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef") open.push_back(pos);
      else if (keyword == "endif" && !open.empty()) open.pop_back();
      pos = lineEnd(text, pos);
    } else {
      return open.empty() ? pos : open.front();
    }
  }
  return open.empty() ? text.size() : open.front();
}

void answerPreambleMacrosAsClangd(TuFacts& facts, uint32_t main, std::string_view mainText) {
  const size_t end = preambleEnd(mainText);
  // The main file's macro occurrences in the preamble, by name, in offset order.
  std::map<std::string_view, std::vector<ClangOccurrence*>> byName;
  for (ClangOccurrence& o : facts.occurrences)
    if (o.file == main && o.offset < end && static_cast<SymbolKind>(o.kind) == SymbolKind::Macro && !o.expanded &&
        o.usr < facts.names.size())
      byName[facts.names[o.usr]].push_back(&o);
  for (auto& [name, occurrences] : byName) {
    std::sort(occurrences.begin(), occurrences.end(), [](const ClangOccurrence* a, const ClangOccurrence* b) { return a->offset < b->offset; });
    const ClangOccurrence* last = nullptr;  // the definition in effect at the preamble's end
    size_t definitions = 0, undefs = 0;
    bool undefined = false;
    for (const ClangOccurrence* o : occurrences) {
      if (o->role == ClangRole::Definition) {
        last = o, ++definitions, undefined = false;
      } else if (o->role == ClangRole::Reference && inUndef(mainText, o->offset)) {
        ++undefs, undefined = true;
      }
    }
    // One definition the preamble never #undefs answers there as anywhere.
    if (!last || undefined || (definitions < 2 && undefs == 0)) continue;
    const uint32_t usr = last->usr;
    for (ClangOccurrence* o : occurrences) {
      if (o == last) continue;
      o->usr = usr;
      o->role = ClangRole::Reference;
      o->unlisted = true;
    }
  }
}

}  // namespace nib
