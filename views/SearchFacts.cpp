#include "views/SearchFacts.h"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "support/SearchText.h"

namespace nib {
namespace {

// A file's tokens, found once: units (which nest) count the tokens of their byte range
// instead of tokenizing their text again.
class FileTokens {
 public:
  explicit FileTokens(std::string_view content) {
    forEachTokenAt(content, [&](size_t start, size_t end, std::string_view token) {
      tokens_.push_back({static_cast<uint32_t>(start), static_cast<uint32_t>(end), idOf(token)});
    });
  }

  UnitTerms termsOf(const ByteRange& range, Granularity g, SymbolKind kind, std::string name, std::string_view extra) {
    UnitTerms u;
    u.range = range;
    u.granularity = g;
    u.kind = kind;
    u.name = std::move(name);
    auto first = std::lower_bound(tokens_.begin(), tokens_.end(), range.startByte,
                                  [](const Token& t, uint32_t offset) { return t.start < offset; });
    for (auto it = first; it != tokens_.end() && it->start < range.endByte; ++it)
      if (it->end <= range.endByte) count(it->id);
    forEachToken(extra, [&](std::string_view token) { count(idOf(token)); });
    for (uint32_t id : touched_) {
      u.terms.emplace_back(*names_[id], counts_[id]);
      u.length += counts_[id];
      counts_[id] = 0;
    }
    touched_.clear();
    std::sort(u.terms.begin(), u.terms.end());
    return u;
  }

 private:
  struct Token {
    uint32_t start, end, id;
  };
  uint32_t idOf(std::string_view token) {
    auto it = ids_.find(token);
    if (it != ids_.end()) return it->second;
    names_.push_back(std::make_unique<std::string>(token));
    counts_.push_back(0);
    uint32_t id = static_cast<uint32_t>(names_.size() - 1);
    ids_.emplace(*names_.back(), id);
    return id;
  }
  void count(uint32_t id) {
    if (counts_[id]++ == 0) touched_.push_back(id);
  }
  std::vector<Token> tokens_;
  std::vector<std::unique_ptr<std::string>> names_;  // stable addresses: ids_ keys view them
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::vector<uint32_t> counts_, touched_;
};

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

SearchFacts buildSearchFacts(std::string_view path, std::string_view content, const FileFacts* facts, bool trigrams) {
  SearchFacts s;
  s.contentSize = static_cast<uint32_t>(content.size());
  if (trigrams) trigramMasksOf(content, &s.trigrams, &s.trigramMasks);
  // The file unit: the whole text, plus the path's components (a file is found by its name).
  ByteRange whole;
  whole.endByte = static_cast<uint32_t>(content.size());
  LineTable lines(content);
  whole.end = lines.positionOf(whole.endByte);
  std::string pathWords(path);
  for (char& c : pathWords)
    if (c == '/' || c == '.' || c == '-') c = ' ';
  FileTokens tokens(content);
  s.units.push_back(tokens.termsOf(whole, Granularity::File, SymbolKind::Module, "", pathWords));
  if (facts) {
    for (const SourceUnit& u : facts->units) {
      if (u.granularity == Granularity::File || u.range.endByte > content.size() || u.range.startByte > u.range.endByte)
        continue;
      std::string name = u.definition >= 0 && u.definition < static_cast<int32_t>(facts->definitions.size())
                             ? facts->definitions[u.definition].name
                             : std::string();
      s.units.push_back(tokens.termsOf(u.range, u.granularity, u.kind, name, leadingComment(lines, u.range.start.line)));
    }
  }
  return s;
}

}  // namespace nib
