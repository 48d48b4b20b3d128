#include "views/SearchFacts.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "support/SearchText.h"

namespace nib {
namespace {

UnitTerms termsOf(std::string_view text, const ByteRange& range, Granularity g, SymbolKind kind, std::string name,
                  std::string_view extra) {
  std::unordered_map<std::string, uint32_t> tf;
  uint32_t length = 0;
  auto add = [&](std::string_view t) {
    ++tf[std::string(t)];
    ++length;
  };
  forEachToken(text, add);
  forEachToken(extra, add);
  UnitTerms u;
  u.range = range;
  u.granularity = g;
  u.kind = kind;
  u.name = std::move(name);
  u.length = length;
  u.terms.assign(tf.begin(), tf.end());
  std::sort(u.terms.begin(), u.terms.end());
  return u;
}

// The comment block right above a unit documents it: its words count for the unit.
std::string leadingComment(const LineTable& lines, uint32_t line) {
  std::string out;
  for (int64_t l = static_cast<int64_t>(line) - 1; l >= 0 && line - l <= 40; --l) {
    std::string_view t = lines.lineText(static_cast<uint32_t>(l));
    size_t i = t.find_first_not_of(" \t");
    if (i == std::string_view::npos) break;
    t = t.substr(i);
    bool comment = t.rfind("//", 0) == 0 || t.rfind("#", 0) == 0 || t.rfind("/*", 0) == 0 || t.rfind("*", 0) == 0 ||
                   t.rfind("--", 0) == 0;
    if (!comment || t.rfind("#include", 0) == 0 || t.rfind("#define", 0) == 0) break;
    out += ' ';
    out += t;
  }
  return out;
}

}  // namespace

SearchFacts buildSearchFacts(std::string_view path, std::string_view content, const FileFacts* facts) {
  SearchFacts s;
  s.contentSize = static_cast<uint32_t>(content.size());
  trigramMasksOf(content, &s.trigrams, &s.trigramMasks);
  // The file unit: the whole text, plus the path's components (a file is found by its name).
  ByteRange whole;
  whole.endByte = static_cast<uint32_t>(content.size());
  LineTable lines(content);
  whole.end = lines.positionOf(whole.endByte);
  std::string pathWords(path);
  for (char& c : pathWords)
    if (c == '/' || c == '.' || c == '-') c = ' ';
  s.units.push_back(termsOf(content, whole, Granularity::File, SymbolKind::Module, "", pathWords));
  if (facts) {
    for (const SourceUnit& u : facts->units) {
      if (u.granularity == Granularity::File || u.range.endByte > content.size() || u.range.startByte > u.range.endByte)
        continue;
      std::string name = u.definition >= 0 && u.definition < static_cast<int32_t>(facts->definitions.size())
                             ? facts->definitions[u.definition].name
                             : std::string();
      std::string_view text = content.substr(u.range.startByte, u.range.endByte - u.range.startByte);
      s.units.push_back(termsOf(text, u.range, u.granularity, u.kind, name, leadingComment(lines, u.range.start.line)));
    }
  }
  return s;
}

}  // namespace nib
