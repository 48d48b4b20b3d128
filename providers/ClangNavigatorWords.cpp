// The clang view's answers where the compiler saw no name under the cursor — code the
// preprocessor left out, a macro's replacement text — found by the bare word as clangd 14 finds
// them (ClangNavigator.h: wordAnswer, skippedMacroReferences, definitionMacroReferences).
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "providers/ClangNavigator.h"
#include "providers/ClangNavigatorSites.h"
#include "support/Language.h"

namespace nib {

using namespace clangnav;

namespace {

constexpr size_t kMostWordMatches = 5;  // clangd 14 answers nothing when more symbols match

// Whether `offset` lies in a #define directive (its continuation lines included): a macro's
// text is not compiled where it is written.
bool inMacroDefinition(std::string_view text, uint32_t offset) {
  if (offset > text.size()) return false;
  size_t start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  start = start == std::string_view::npos ? 0 : start + 1;
  // Back over continued lines: the line before ends with a backslash.
  while (start >= 2 && text[start - 1] == '\n' && (text[start - 2] == '\\' || (text[start - 2] == '\r' && start >= 3 && text[start - 3] == '\\'))) {
    size_t previous = text.rfind('\n', start - 2);
    start = previous == std::string_view::npos ? 0 : previous + 1;
  }
  size_t i = start;
  auto blanks = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  blanks();
  if (i >= text.size() || text[i] != '#') return false;
  ++i;
  blanks();
  return text.compare(i, 6, "define") == 0 && offset >= i + 6;
}

// The identifier touching `offset`, as an editor's cursor gives it: [start, end), or nothing
// (no word there, or a number).
std::optional<std::pair<uint32_t, uint32_t>> wordAround(std::string_view text, uint32_t offset) {
  if (offset > text.size()) return std::nullopt;
  auto wordByte = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  size_t start = offset, end = offset;
  while (start > 0 && wordByte(text[start - 1])) --start;
  while (end < text.size() && wordByte(text[end])) ++end;
  if (start == end || std::isdigit(static_cast<unsigned char>(text[start]))) return std::nullopt;
  return std::pair{static_cast<uint32_t>(start), static_cast<uint32_t>(end)};
}

unsigned floorLog2(uint32_t x) {
  unsigned n = 0;
  while (x >>= 1) ++n;
  return n;
}

// The same word written nearby as a name the compiler saw, as clangd 14 finds it
// (findNearbyIdentifier): the closest by lines, at most 2^(length) lines away, after the word
// preferred (cost 1 + log2 of the distance; before it 2 + log2), the first found on ties. `live`
// holds the offsets where libclang recorded a name.
const Occurrence* nearestCompiledSpelling(const FileFacts& facts, const std::string& word, uint32_t startByte,
                                          uint32_t line, const std::set<uint32_t>& live) {
  std::vector<const Occurrence*> same;
  for (const Occurrence& o : facts.occurrences)
    if (o.range.startByte != startByte && facts.nameOf(o) == word) same.push_back(&o);
  std::sort(same.begin(), same.end(),
            [](const Occurrence* a, const Occurrence* b) { return a->range.startByte < b->range.startByte; });
  unsigned best = static_cast<unsigned>(word.size()) + 1;
  const Occurrence* nearest = nullptr;
  auto consider = [&](const Occurrence* o) {
    uint32_t l = o->range.start.line;
    unsigned cost = l > line ? 1 + floorLog2(l - line) : l < line ? 2 + floorLog2(line - l) : 0;
    if (cost >= best) return false;  // farther ones cost more: stop
    if (live.count(o->range.startByte)) best = cost, nearest = o;
    return true;
  };
  auto split = std::partition_point(same.begin(), same.end(), [&](const Occurrence* o) {
    return o->range.startByte < startByte;
  });
  for (auto it = split; it != same.end() && consider(*it); ++it) {
  }
  for (auto it = split; it != same.begin() && consider(*(it - 1)); --it) {
  }
  return nearest;
}

// Where clangd's index holds a symbol: its definition (not the expansion twin of one a macro
// writes), else its canonical declaration; nullptr when the repository has neither.
const ClangSite* indexedPlace(const ClangSymbol& symbol) {
  bool bodyTwins = std::any_of(symbol.sites.begin(), symbol.sites.end(), [](const ClangSite& s) { return s.macroBody; });
  for (const ClangSite& s : symbol.sites)
    if (s.role == ClangRole::Definition && !(s.expanded && bodyTwins)) return &s;
  return declarationSite(symbol);
}

}  // namespace

Expected<NavigationResult> ClangNavigator::wordAnswer(const std::string& path, const AskedFile& f,
                                                                          const Occurrence& at) {
  return wordAnswer(path, f, f.facts.nameOf(at), at.range.startByte, at.range.start.line);
}

Expected<NavigationResult> ClangNavigator::wordAnswerAt(const std::string& path, const AskedFile& f,
                                                                            uint32_t offset) {
  // Only where tree-sitter saw no name: the replacement text of a macro (one preprocessor
  // token run to tree-sitter). The word touching the offset, as an editor's cursor gives it.
  if (changed_(path)) return declined();
  auto text = f.text();
  auto word = text ? wordAround(*text, offset) : std::nullopt;
  if (!word) return declined();
  auto [start, end] = *word;
  uint32_t line = static_cast<uint32_t>(std::count(text->begin(), text->begin() + start, '\n'));
  return wordAnswer(path, f, std::string(text->substr(start, end - start)), start, line);
}

Expected<NavigationResult> ClangNavigator::wordAnswer(const std::string& path, const AskedFile& f,
                                                                          const std::string& word, uint32_t startByte,
                                                                          uint32_t line) {
  // Only in code no unit compiled (what the preprocessor left out, a macro's definition):
  // elsewhere a name without a clang occurrence is compiled code the AST walk found nothing for
  // either, which clangd answers from its AST, not by the bare word.
  // Cheap checks first: this runs for every definition tree-sitter answers.
  if (word.empty() || changed_(path) ||
      (f.language != Language::C && f.language != Language::Cpp))
    return declined();
  const bool skipped = view_->skippedAt(path, startByte);
  if (!skipped) {
    // A macro's definition, in a file the build compiled: its words are compiled only where
    // the macro is expanded.
    auto text = f.text();
    if (!text || !inMacroDefinition(*text, startByte)) return declined();
  }
  auto occurrences = view_->occurrences(path);
  if (!occurrences) return occurrences.status();
  // A name libclang reported there (the macro's own) answers as it is.
  if (!skipped && (occurrences->empty() || occurrenceAt(*occurrences, startByte))) return declined();

  std::set<uint32_t> live;
  for (const ClangFileOccurrence& o : *occurrences)
    if (!o.expanded) live.insert(o.start);
  const Occurrence* nearest = nearestCompiledSpelling(f.facts, word, startByte, line, live);
  NavigationResult out;
  out.symbol = word;
  out.source = source_;
  out.confidence = Confidence::Name;
  // A symbol answers as clangd's index holds it: at its definition, else at its canonical
  // declaration (one place either way). False when it has neither in the repository.
  auto add = [&](const ClangSymbol& symbol) {
    const ClangSite* chosen = indexedPlace(symbol);
    if (!chosen || changed_(chosen->path)) return false;
    out.locations.push_back(siteLocation(symbol, *chosen));
    return true;
  };
  if (nearest)
    if (const ClangFileOccurrence* named = occurrenceAt(*occurrences, nearest->range.startByte)) {
      auto symbol = view_->symbol(named->symbol);
      if (!symbol) return symbol.status();
      if (add(*symbol)) {
        out.note = "'" + word + "' is not a name the compiler saw here; answered for the same name at line " +
                   std::to_string(toDisplayLine(nearest->range.start.line));
        return std::move(out);
      }
    }

  // Then the index by the bare word (locateSymbolTextually): every symbol of exactly that
  // name but constructors and function-local ones, at its definition (else its canonical
  // declaration); nothing when more than five match.
  auto ids = view_->symbolsNamed(word);
  if (!ids) return ids.status();
  size_t matched = 0;
  for (uint32_t id : *ids) {
    auto symbol = view_->symbol(id);
    if (!symbol) return symbol.status();
    if (isFunctionLocalUsr(symbol->usr) || static_cast<SymbolKind>(symbol->kind) == SymbolKind::Constructor) continue;
    // One declared only outside the repository (a system header's) counts, as clangd's index
    // holds it too, but has no place here to answer with.
    if (++matched > kMostWordMatches) return declined();
    add(*symbol);
  }
  if (out.locations.empty()) return declined();
  uniqueSites(out.locations);
  out.note = "'" + word + "' is not a name the compiler saw here (code the preprocessor left out, or a macro's "
             "definition): " + std::to_string(out.locations.size()) + " symbol(s) of that name";
  return std::move(out);
}

Expected<NavigationResult> ClangNavigator::skippedMacroReferences(const std::string& path,
                                                                                      const Occurrence& at,
                                                                                      const std::string& word,
                                                                                      bool includeDeclaration) {
  if (changed_(path) || !view_->skippedAt(path, at.range.startByte)) return declined();
  auto answer = macroReferences(path, word, at.range.startByte, at.range.endByte, includeDeclaration);
  if (answer)
    answer->note = "'" + word + "' is in code the preprocessor left out: the references of the macro in effect there";
  return answer;
}

Expected<NavigationResult> ClangNavigator::definitionMacroReferences(const std::string& path, const AskedFile& f,
                                                                    uint32_t offset, bool includeDeclaration) {
  if (changed_(path) || (f.language != Language::C && f.language != Language::Cpp)) return declined();
  auto text = f.text();
  auto around = text ? wordAround(*text, offset) : std::nullopt;
  if (!around || !inMacroDefinition(*text, around->first)) return declined();
  auto [start, end] = *around;
  // The macro's own name, where libclang recorded it, answers as it is.
  auto occurrences = view_->occurrences(path);
  if (occurrences && occurrenceAt(*occurrences, start)) return declined();
  std::string word(text->substr(start, end - start));
  auto answer = macroReferences(path, word, start, end, includeDeclaration);
  if (answer)
    answer->note = "'" + word + "' is in a macro's definition: the references of the macro in effect there";
  return answer;
}

// The references of the macro named `word` in effect at [start, end) of `path`, as clangd 14
// finds a macro by its raw word: the closest definition before it in the file, else the only
// macro of that name; declined when there is none or several.
Expected<NavigationResult> ClangNavigator::macroReferences(const std::string& path, const std::string& word,
                                                           uint32_t start, uint32_t end, bool includeDeclaration) {
  auto ids = view_->symbolsNamed(word);
  if (!ids) return ids.status();
  std::optional<ClangSymbol> chosen, only;
  uint32_t closest = 0;
  size_t macros = 0;
  for (uint32_t id : *ids) {
    auto symbol = view_->symbol(id);
    if (!symbol) return symbol.status();
    if (static_cast<SymbolKind>(symbol->kind) != SymbolKind::Macro) continue;
    ++macros;
    for (const ClangSite& s : symbol->sites)
      if (s.role == ClangRole::Definition && s.path == path && s.range.startByte < start &&
          (!chosen || s.range.startByte > closest)) {
        closest = s.range.startByte;
        chosen = *symbol;
      }
    only = std::move(*symbol);
  }
  if (!chosen && macros == 1) chosen = std::move(only);
  if (!chosen) return declined();
  ClangFileOccurrence from;
  from.start = start;
  from.end = end;
  from.role = ClangRole::Reference;
  return answerFor(*chosen, from, path, true, includeDeclaration, false);
}


}  // namespace nib
