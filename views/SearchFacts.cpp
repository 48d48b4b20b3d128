#include "views/SearchFacts.h"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "support/Binary.h"
#include "support/SearchText.h"

namespace nib {
namespace {

constexpr uint32_t kLeadingCommentLines = 40;  // a unit's documentation, at most

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
    // Sorted by the ids' ranks in the file's vocabulary: integers, not strings, are compared
    // and moved (sorting the terms themselves was two thirds of this function's time).
    if (rank_.size() != names_.size()) rankVocabulary();
    std::sort(touched_.begin(), touched_.end(), [&](uint32_t a, uint32_t b) { return rank_[a] < rank_[b]; });
    u.terms.reserve(touched_.size());
    for (uint32_t id : touched_) {
      u.terms.emplace_back(*names_[id], counts_[id]);
      u.length += counts_[id];
      counts_[id] = 0;
    }
    touched_.clear();
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
  // Each id's place in the sorted vocabulary. Computed again only when words outside the file's
  // text (a path's, mostly) joined the vocabulary since.
  void rankVocabulary() {
    std::vector<uint32_t> byName(names_.size());
    for (uint32_t i = 0; i < byName.size(); ++i) byName[i] = i;
    std::sort(byName.begin(), byName.end(), [&](uint32_t a, uint32_t b) { return *names_[a] < *names_[b]; });
    rank_.resize(names_.size());
    for (uint32_t r = 0; r < byName.size(); ++r) rank_[byName[r]] = r;
  }
  std::vector<Token> tokens_;
  std::vector<std::unique_ptr<std::string>> names_;  // stable addresses: ids_ keys view them
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::vector<uint32_t> counts_, touched_, rank_;
};

// Whether a line, indentation removed, belongs to the comment block that documents the unit
// below it (a preprocessor line does not).
bool isDocCommentLine(std::string_view t) {
  bool comment = t.rfind("//", 0) == 0 || t.rfind("#", 0) == 0 || t.rfind("/*", 0) == 0 || t.rfind("*", 0) == 0 ||
                 t.rfind("--", 0) == 0;
  return comment && t.rfind("#include", 0) != 0 && t.rfind("#define", 0) != 0;
}

}  // namespace

uint32_t leadingCommentStart(std::string_view content, uint32_t unitStart) {
  size_t pos = std::min<size_t>(unitStart, content.size());
  // The start of the unit's line, then each line above it while it is a comment line.
  auto startOfLineBefore = [&](size_t end) {  // `end`: one past the line's last byte
    if (end == 0) return size_t{0};
    size_t nl = content.rfind('\n', end - 1);
    return nl == std::string_view::npos ? size_t{0} : nl + 1;
  };
  size_t lineStart = startOfLineBefore(pos);
  size_t start = pos;
  for (uint32_t n = 0; n < kLeadingCommentLines && lineStart > 0; ++n) {
    size_t prevEnd = lineStart - 1;  // the '\n' ending the line above
    size_t prevStart = startOfLineBefore(prevEnd);
    std::string_view t = content.substr(prevStart, prevEnd - prevStart);
    size_t i = t.find_first_not_of(" \t\r");
    if (i == std::string_view::npos || !isDocCommentLine(t.substr(i))) break;
    start = prevStart;
    lineStart = prevStart;
  }
  return static_cast<uint32_t>(start);
}

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
      // The comment block right above a unit documents it: its words count for the unit.
      uint32_t lineStart = u.range.startByte;
      (void)lines.offsetOf(Position{u.range.start.line, 0}, &lineStart);
      uint32_t comment = leadingCommentStart(content, u.range.startByte);
      std::string_view doc = content.substr(comment, comment < lineStart ? lineStart - comment : 0);
      s.units.push_back(tokens.termsOf(u.range, u.granularity, u.kind, name, doc));
    }
  }
  return s;
}

// Layout: content size; the trigram section's byte length, then each trigram as a delta from
// the previous one and its mask (two bytes, low first); the unit count, then each unit's range,
// granularity, kind, name, length and terms (term, frequency). The section length lets a reader
// that wants units only skip the trigrams without decoding them.
std::string encodeSearchFacts(const SearchFacts& facts) {
  ByteWriter trigrams;
  uint32_t previous = 0;
  for (size_t k = 0; k < facts.trigrams.size(); ++k) {
    trigrams.varint(facts.trigrams[k] - previous);
    previous = facts.trigrams[k];
    uint16_t mask = k < facts.trigramMasks.size() ? facts.trigramMasks[k] : 0xFFFF;
    trigrams.u8(static_cast<uint8_t>(mask & 0xFF));
    trigrams.u8(static_cast<uint8_t>(mask >> 8));
  }
  ByteWriter w;
  w.varint(facts.contentSize);
  w.varint(facts.trigrams.size());
  w.str(trigrams.data());
  w.varint(facts.units.size());
  for (const UnitTerms& u : facts.units) {
    writeRange(w, u.range);
    w.u8(static_cast<uint8_t>(u.granularity));
    w.u8(static_cast<uint8_t>(u.kind));
    w.str(u.name);
    w.varint(u.length);
    w.varint(u.terms.size());
    for (const auto& [term, tf] : u.terms) {
      w.str(term);
      w.varint(tf);
    }
  }
  return w.take();
}

namespace {

bool decodeTrigrams(std::string_view bytes, uint64_t count, SearchFacts& out) {
  // Each trigram takes at least three bytes: a count beyond that is a corrupt record, refused
  // before it sizes an allocation.
  if (count > bytes.size() / 3) return false;
  out.trigrams.resize(count);
  out.trigramMasks.resize(count);
  ByteReader r(bytes);
  uint32_t t = 0;
  for (uint64_t k = 0; k < count; ++k) {
    t += r.u32();
    out.trigrams[k] = t;
    uint16_t mask = r.u8();
    mask |= static_cast<uint16_t>(r.u8() << 8);
    out.trigramMasks[k] = mask;
  }
  return r.ok() && r.atEnd();
}

bool decodeUnits(ByteReader& r, SearchFacts& out) {
  uint64_t count = r.varint();
  if (count > r.remaining()) return false;  // a unit takes bytes: a larger count is corrupt
  out.units.resize(count);
  for (UnitTerms& u : out.units) {
    u.range = readRange(r);
    u.granularity = static_cast<Granularity>(r.u8());
    u.kind = static_cast<SymbolKind>(r.u8());
    u.name.assign(r.str());
    u.length = r.u32();
    uint64_t terms = r.varint();
    if (!r.ok() || terms > r.remaining()) return false;
    u.terms.resize(terms);
    for (auto& [term, tf] : u.terms) {
      term.assign(r.str());  // reuses the string's storage when it is large enough
      tf = r.u32();
    }
    if (!r.ok()) return false;
  }
  return r.ok() && r.atEnd();
}

}  // namespace

bool decodeSearchFacts(std::string_view bytes, SearchFacts& out, unsigned parts) {
  ByteReader r(bytes);
  out.contentSize = r.u32();
  uint64_t trigramCount = r.varint();
  std::string_view trigrams = r.str();
  if (!r.ok()) return false;
  out.trigrams.clear();
  out.trigramMasks.clear();
  if ((parts & kSearchTrigrams) && !decodeTrigrams(trigrams, trigramCount, out)) return false;
  if (!(parts & kSearchUnits)) {
    out.units.clear();
    return true;
  }
  return decodeUnits(r, out);
}

Status SearchFactsInMemory::load(size_t i, SearchFacts& out, unsigned parts) const {
  if (i >= facts_.size()) return Status(ErrorCode::InvalidArgument, "no search facts for document " + std::to_string(i));
  out = facts_[i] ? *facts_[i] : SearchFacts();
  if (!(parts & kSearchTrigrams)) {
    out.trigrams.clear();
    out.trigramMasks.clear();
  }
  if (!(parts & kSearchUnits)) out.units.clear();
  return Status::ok();
}

}  // namespace nib
