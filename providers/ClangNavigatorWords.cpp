// The clang view's answers where the compiler saw no name under the cursor — code the
// preprocessor left out, a macro's replacement text — found by the bare word as clangd 14 finds
// them (ClangNavigator.h: wordAnswer, preprocessorReferences, preprocessorDefinition).
#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

#include "providers/ClangNavigator.h"
#include "providers/ClangNavigatorSites.h"
#include "support/Language.h"
#include "support/PreprocessorText.h"
#include "support/Text.h"

namespace nib {

using namespace clangnav;

namespace {

constexpr size_t kMostWordMatches = 5;  // clangd 14 answers nothing when more symbols match

// The same word written nearby as a name the compiler saw, as clangd 14 finds it
// (findNearbyIdentifier): among the tokens the compiler read (not in code the preprocessor left
// out, in a directive or in arguments a macro dropped), the one of least cost — its distance in
// lines after the word, twice that before it — within 2^(length) lines after the word (or on the
// next line, at its first column) and fewer than 2^(length-1) before it, the first found on ties,
// after the word first. Measured against clangd 14 (a three-letter word): 8 lines after answers,
// 9 do not; 3 before answers, 4 do not; 2 before wins over 5 after. clangd resolves that one
// spelling, else falls back to its index: so nullptr when the closest is no name libclang
// recorded (a K&R function's parameter list, whose names are declared on the lines below it).
// `live` holds the offsets where libclang recorded a name, `unread` tells the spellings the
// compiler never read as code.
const Occurrence* nearestCompiledSpelling(const FileFacts& facts, const std::string& word, uint32_t startByte,
                                          uint32_t line, const std::set<uint32_t>& live,
                                          const std::function<bool(uint32_t)>& unread) {
  std::vector<const Occurrence*> same;
  for (const Occurrence& o : facts.occurrences)
    if (o.range.startByte != startByte && facts.nameOf(o) == word && !unread(o.range.startByte)) same.push_back(&o);
  std::sort(same.begin(), same.end(),
            [](const Occurrence* a, const Occurrence* b) { return a->range.startByte < b->range.startByte; });
  const uint64_t reach = uint64_t{1} << std::min<size_t>(word.size(), 31);
  uint64_t best = UINT64_MAX;
  const Occurrence* nearest = nullptr;
  auto consider = [&](const Occurrence* o) {
    const uint32_t l = o->range.start.line;
    const uint64_t distance = l >= line ? l - line : line - l;
    const bool inWindow = l >= line ? distance <= reach || (distance == reach + 1 && o->range.start.column == 0)
                                    : distance < reach / 2;
    const uint64_t cost = l >= line ? distance : 2 * distance;
    if (!inWindow || cost >= best) return false;  // farther ones are out or cost more: stop
    best = cost, nearest = o;
    return true;
  };
  auto split = std::partition_point(same.begin(), same.end(), [&](const Occurrence* o) {
    return o->range.startByte < startByte;
  });
  for (auto it = split; it != same.end() && consider(*it); ++it) {
  }
  for (auto it = split; it != same.begin() && consider(*(it - 1)); --it) {
  }
  return nearest && live.count(nearest->range.startByte) ? nearest : nullptr;
}

// Where clangd's index holds a symbol while `path` is open: its definition (not the expansion
// twin of one a macro writes), else its canonical declaration; nullptr when the repository has
// neither. Its index of the open file comes before its background index: an entity `path`
// defines (`main`, which each program of a repository defines under one USR) is held at the
// file's own definition (libxcrypt's test/des-obsolete_r.c, checked against clangd 14). `known`
// says which sites its index has: those only a made-up unit saw are in no index but of the
// files open in the editor.
const ClangSite* indexedPlace(const ClangSymbol& symbol, const std::string& path,
                              const std::function<bool(const ClangSite&)>& known) {
  bool bodyTwins = std::any_of(symbol.sites.begin(), symbol.sites.end(), [](const ClangSite& s) { return s.macroBody; });
  for (const ClangSite& s : symbol.sites)
    if (s.role == ClangRole::Definition && s.path == path && !(s.expanded && bodyTwins)) return &s;
  for (const ClangSite& s : symbol.sites)
    if (s.role == ClangRole::Definition && !(s.expanded && bodyTwins) && known(s)) return &s;
  const ClangSite* declaration = declarationSite(symbol);
  if (declaration && known(*declaration)) return declaration;
  for (const ClangSite& s : symbol.sites)
    if (s.role == ClangRole::Declaration && known(s)) return &s;
  return nullptr;
}

// How the function-like macro defined at `at` in `text` uses its argument `index`: as code where
// its parameter appears in the replacement list other than after `#` or beside `##` and outside
// the arguments of a call there; handed on where it is an argument of such a call (FreeType's
// `#define FT_TRACE3( varformat ) FT_TRACE( 3, varformat )`), whose callee decides — a macro
// that drops it (`FT_TRACE` without tracing built in) leaves it unread, anything else is code.
// An argument the compiler reads is made of tokens it read (clangd's go-to-definition answers
// them from its AST or not at all, never by the word), even where libclang recorded no name (a
// statement with errors, dropped whole by its cursors: cJSON's RUN_TEST(test_x, 43) in a runner
// whose headers are missing). nullopt when the definition cannot be read as one.
struct ArgumentUse {
  bool code = false;
  std::vector<std::pair<std::string, size_t>> handedOn;  // (callee, its argument's index)
};

bool identifier(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }

// The name of parameter `index` of the function-like macro defined at `at` in `text` (a variadic
// one's for the arguments past the named ones), and its replacement list; nullopt when the
// definition cannot be read as one.
std::optional<std::pair<std::string_view, std::string_view>> macroParameter(std::string_view text, uint32_t at, size_t index) {
  size_t i = at;
  while (i < text.size() && identifier(text[i])) ++i;
  if (i == at || i >= text.size() || text[i] != '(') return std::nullopt;
  size_t close = text.find(')', i);
  if (close == std::string_view::npos) return std::nullopt;
  auto trim = [](std::string_view v) {
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    return v;
  };
  std::vector<std::string_view> parameters;
  for (std::string_view list = text.substr(i + 1, close - i - 1); !list.empty();) {
    size_t comma = std::min(list.find(','), list.size());
    parameters.push_back(trim(list.substr(0, comma)));
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  std::string_view parameter;
  if (index < parameters.size() && parameters[index] != "...") parameter = parameters[index];
  else if (!parameters.empty() && parameters.back().size() >= 3 && parameters.back().substr(parameters.back().size() - 3) == "...")
    parameter = parameters.back() == "..." ? "__VA_ARGS__" : parameters.back().substr(0, parameters.back().size() - 3);
  if (parameter.empty()) return std::nullopt;
  // The replacement list: to the end of the line, continuation lines included.
  size_t end = close;
  while ((end = text.find('\n', end)) != std::string_view::npos && end > 0 &&
         (text[end - 1] == '\\' || (text[end - 1] == '\r' && end > 1 && text[end - 2] == '\\')))
    ++end;
  return std::make_pair(parameter, text.substr(close + 1, (end == std::string_view::npos ? text.size() : end) - close - 1));
}

// How the macro defined at `at` in `text` uses its argument `index` (ArgumentUse).
std::optional<ArgumentUse> argumentUse(std::string_view text, uint32_t at, size_t index) {
  auto read = macroParameter(text, at, index);
  if (!read) return std::nullopt;
  auto [parameter, body] = *read;
  ArgumentUse use;
  std::string_view before;  // the token before, when it is punctuation
  std::string_view callee;  // an identifier just read, which a `(` makes a call
  struct Call {
    std::string_view name;
    size_t argument = 0;
    int depth = 0;
  };
  std::vector<Call> calls;  // the calls the scan is inside, innermost last
  int depth = 0;
  for (size_t k = 0; k < body.size();) {
    if (body[k] == ' ' || body[k] == '\t' || body[k] == '\\' || body[k] == '\r' || body[k] == '\n') {
      ++k;
      continue;
    }
    // Comments and literals hold no parameter (a `// ...` comment ends the text read).
    if (body.compare(k, 2, "//") == 0) break;
    if (body.compare(k, 2, "/*") == 0) {
      size_t closing = body.find("*/", k + 2);
      k = closing == std::string_view::npos ? body.size() : closing + 2;
      continue;
    }
    if (body[k] == '"' || body[k] == '\'') {
      char quote = body[k++];
      while (k < body.size() && body[k] != quote) k += body[k] == '\\' ? 2 : 1;
      ++k;
      before = callee = {};
      continue;
    }
    if (!identifier(body[k])) {
      before = body.compare(k, 2, "##") == 0 ? "##" : body.substr(k, 1);
      if (before == "(") {
        ++depth;
        if (!callee.empty()) calls.push_back({callee, 0, depth});
      } else if (before == ")") {
        if (!calls.empty() && calls.back().depth == depth) calls.pop_back();
        --depth;
      } else if (before == "," && !calls.empty() && calls.back().depth == depth) {
        ++calls.back().argument;
      }
      callee = {};
      k += before.size();
      continue;
    }
    size_t word = k;
    while (k < body.size() && identifier(body[k])) ++k;
    size_t next = k;
    while (next < body.size() && (body[next] == ' ' || body[next] == '\t')) ++next;
    callee = body.substr(word, k - word);
    if (callee == parameter && before != "#" && before != "##" && body.compare(next, 2, "##") != 0) {
      if (calls.empty()) use.code = true;
      else use.handedOn.emplace_back(std::string(calls.back().name), calls.back().argument);
    }
    before = {};
  }
  return use;
}

}  // namespace

// A symbol answers by the word as clangd's index holds it: at its definition, else at its
// canonical declaration (one place either way) — one declared only outside the repository at
// the place the build saw there. False when it has none.
bool ClangNavigator::addIndexedPlace(const std::string& path, const ClangSymbol& symbol, NavigationResult& out) {
  const std::optional<std::vector<std::string_view>> read = readByOwnParse(path);
  auto known = [&](const ClangSite& s) { return knownSite(path, s, read); };
  // A namespace a system header opens first (`std`) is indexed at that block (c++config.h's),
  // as namespaceDefinition answers it at a name the compiler saw.
  const bool outsideFirst =
      static_cast<SymbolKind>(symbol.kind) == SymbolKind::Namespace && symbol.id && view_->openedOutside(*symbol.id);
  if (outsideFirst)
    if (std::optional<SymbolLocation> outside = outsideLocation(*view_, symbol)) {
      out.locations.push_back(std::move(*outside));
      return true;
    }
  const ClangSite* chosen = indexedPlace(symbol, path, known);
  if (!chosen) {
    std::optional<SymbolLocation> outside = outsideLocation(*view_, symbol);
    if (outside) out.locations.push_back(std::move(*outside));
    return outside.has_value();
  }
  if (changed_(chosen->path)) return false;
  out.locations.push_back(siteLocation(symbol, *chosen));
  return true;
}

// A site clangd's index knows while `path` is open: not one only a made-up unit saw, unless in a
// file in front of the user or one `path`'s own parse read (`read`, sorted) where that parse is
// a made-up unit's: clangd indexes the open file's preamble, so a header no compile command
// reaches is known while a file that #includes it is open (ninja's Windows-only
// includes_normalize.h, from its test). A compiled file's parse is its unit's, which saw none of
// what only made-up units saw: a section of a header only an uncompiled file turns on (fmtlib's
// gtest-extra.h `import fmt;` under module-test.cc's FMT_MODULE_TEST) is unknown to clangd then.
bool ClangNavigator::knownSite(const std::string& path, const ClangSite& s,
                               const std::optional<std::vector<std::string_view>>& read) const {
  return !s.interpolated || s.path == path || (shown_ && shown_(s.path)) ||
         (read && std::binary_search(read->begin(), read->end(), std::string_view(s.path)));
}

std::optional<std::vector<std::string_view>> ClangNavigator::readByOwnParse(const std::string& path) {
  if (view_->compiledMainFile(path)) return std::nullopt;
  auto read = view_->filesReadBy(path);
  if (!read || !*read) return std::nullopt;
  return std::move(**read);
}

Expected<NavigationResult> ClangNavigator::wordAnswer(const std::string& path, const AskedFile& f,
                                                      const PreprocessorWord& w) {
  const std::string& word = w.word;
  // Names the file's own parse saw: not what a unit #including it whole saw. A spelling of the
  // word clangd's selection finds no node at (a macro argument pasted last) is one too: clangd's
  // search for the word nearby takes it, finds nothing there, and goes on to its index.
  std::set<uint32_t> live;
  for (const ClangFileOccurrence& o : w.occurrences)
    if (!o.foreign && (!o.expanded || o.end - o.start == word.size())) live.insert(o.start);
  auto text = f.text();
  // A macro's arguments it dropped were not read either (`BROTLI_DCHECK(n_bits <= 56)` with
  // checks off), unless libclang recorded a name there.
  auto unread = [&](uint32_t offset) {
    return view_->skippedAt(path, offset) ||
           (text && (!directiveAt(*text, offset).empty() ||
                     (!live.count(offset) && inMacroArguments(w.occurrences, *text, offset, false))));
  };
  const Occurrence* nearest = nearestCompiledSpelling(f.facts, word, w.start, w.line, live, unread);
  NavigationResult out;
  out.symbol = word;
  out.source = source_;
  out.confidence = Confidence::Name;
  if (nearest)
    if (const ClangFileOccurrence* named = occurrenceAt(w.occurrences, nearest->range.startByte)) {
      auto symbol = view_->symbol(named->symbol);
      if (!symbol) return symbol.status();
      if (addIndexedPlace(path, *symbol, out)) {
        out.note = "'" + word + "' is not a name the compiler saw here; answered for the same name at line " +
                   std::to_string(toDisplayLine(nearest->range.start.line));
        return out;
      }
    }
  auto byWord = indexedByWord(path, word, w.occurrences);
  if (!byWord || byWord->facet == kManyNamedFacet) return byWord;
  if (byWord->locations.empty()) return declined();
  byWord->note = "'" + word + "' is not a name the compiler saw here (code the preprocessor left out, or a macro's "
                 "definition): " + std::to_string(byWord->locations.size()) + " symbol(s) of that name";
  return byWord;
}

// The index by the bare word (clangd's locateSymbolTextually): every symbol of exactly that name
// but constructors, function-local ones and macros (clangd 14's background index offered none, a
// header's included: probed) other than the asked file's own (its index of the open file holds
// them: c-ares's `#undef optreset` above its `#define optreset`), at its definition (else its
// canonical declaration); nothing, labelled many-named, when more than five match.
Expected<NavigationResult> ClangNavigator::indexedByWord(const std::string& path, const std::string& word,
                                                         const std::vector<ClangFileOccurrence>& occurrences) {
  NavigationResult out;
  out.symbol = word;
  out.source = source_;
  out.confidence = Confidence::Name;
  const std::optional<std::vector<std::string_view>> read = readByOwnParse(path);
  auto known = [&](const ClangSite& s) { return knownSite(path, s, read); };
  auto ids = view_->symbolsNamed(word);
  if (!ids) return ids.status();
  size_t matched = 0;
  for (uint32_t id : *ids) {
    auto symbol = view_->symbol(id);
    if (!symbol) return symbol.status();
    auto kind = static_cast<SymbolKind>(symbol->kind);
    bool ownMacro = kind == SymbolKind::Macro && std::any_of(symbol->sites.begin(), symbol->sites.end(), [&](const ClangSite& s) {
                      return s.role == ClangRole::Definition && s.path == path;
                    });
    if (isFunctionLocalUsr(symbol->usr) || kind == SymbolKind::Constructor || (kind == SymbolKind::Macro && !ownMacro))
      continue;
    // One only made-up units saw (a program no compile command builds), outside the files in
    // front of the user, is in no index clangd has.
    if (!symbol->sites.empty() && std::none_of(symbol->sites.begin(), symbol->sites.end(), known)) continue;
    // One whose index place is in code the asked file's own parse leaves out (a field of a
    // header's section only an includer turns on) is not in clangd's index while the file is
    // open: its index of the open file replaces what the background index holds for that file.
    // (A function declared there and defined elsewhere is: its place is the definition.)
    const ClangSite* place = indexedPlace(*symbol, path, known);
    if (place && place->path == path && onlyForeignAt(occurrences, place->range.startByte)) continue;
    // What a system header declares under a reserved name (`__m128i`, `__uint32_t`: two
    // underscores, or one and a capital) is in no clangd 14 index: its indexer leaves such
    // names of system headers out (`_mm_or_si128`, one underscore and a small letter, stays).
    const std::string& n = symbol->name;
    const bool declaredHere = std::any_of(symbol->sites.begin(), symbol->sites.end(),
                                          [](const ClangSite& s) { return s.role != ClangRole::Reference; });
    if (!declaredHere && n.size() > 1 && n[0] == '_' && (n[1] == '_' || std::isupper(static_cast<unsigned char>(n[1]))))
      continue;
    // One declared only outside the repository (a system header's) counts, as clangd's index
    // holds it too, and answers the place the build saw there. Symbols declared at one place the
    // source spells once are the header's declarations as units that see it otherwise name them
    // (RapidJSON's tests compile it into two more namespaces): clangd's index keeps one unit's
    // view of a header, so they count once. The fields a macro's text declares in every struct
    // expanding it are as many symbols there.
    NavigationResult placed;
    if (addIndexedPlace(path, *symbol, placed) && !(place && place->macroBody) &&
        std::any_of(out.locations.begin(), out.locations.end(), [&](const SymbolLocation& l) {
          return l.path == placed.locations[0].path && l.range.start == placed.locations[0].range.start;
        }))
      continue;
    if (++matched > kMostWordMatches) return manyNamed(word);
    for (SymbolLocation& l : placed.locations) out.locations.push_back(std::move(l));
  }
  uniqueSites(out.locations);
  return out;
}

// A member name in a template that depends on a template parameter, which neither clang nor
// nib's lookup in the primary template resolved: clangd 14's go-to-definition falls back on its
// index by the bare word there (for dependent names only: rapidjson's `ValueType(v, a).Move()`
// goes to GenericValue::Move), and its references find no entity.
Expected<NavigationResult> ClangNavigator::dependentNameAnswer(const std::string& path,
                                                               const std::vector<ClangFileOccurrence>& occurrences,
                                                               const ClangSymbol& symbol, bool references) {
  if (!references) {
    auto byWord = indexedByWord(path, symbol.name, occurrences);
    if (!byWord || byWord->facet == kManyNamedFacet) return byWord;
    if (!byWord->locations.empty()) {
      byWord->note = "'" + symbol.name + "' depends on a template parameter and nothing resolves it: " +
                     std::to_string(byWord->locations.size()) + " symbol(s) of that name";
      return byWord;
    }
  }
  NavigationResult out;
  out.symbol = symbol.name;
  out.source = source_;
  out.facet = kUnresolvedFacet;
  out.note = "'" + symbol.name + "' depends on a template parameter and nothing resolves it" +
             (references ? ": no references" : ", nor names a symbol");
  return out;
}

std::optional<ClangNavigator::PreprocessorWord> ClangNavigator::preprocessorWord(const std::string& path,
                                                                                 const AskedFile& f, uint32_t offset) {
  if (changed_(path) || (f.language != Language::C && f.language != Language::Cpp) || !covers(path)) return std::nullopt;
  auto text = f.text();
  auto around = text ? identifierAround(*text, offset) : std::nullopt;
  if (!around) return std::nullopt;
  PreprocessorWord w;
  std::tie(w.start, w.end) = *around;
  w.skipped = view_->skippedAt(path, w.start);
  // A name libclang recorded there (a macro's own, a defined macro in a condition) answers as it is.
  auto occurrences = view_->occurrences(path);
  if (!occurrences) return std::nullopt;
  // (What a unit #including the file whole saw is no name here: see namedAt.)
  if (const ClangFileOccurrence* at = occurrenceAt(*occurrences, w.start); at && ownName(path, *at)) return std::nullopt;
  if (!w.skipped) {
    std::string_view directive = directiveAt(*text, w.start);
    // An #include's words are a file name, or a macro libclang recorded.
    if (directive == "include" || directive == "include_next" || directive == "import") return std::nullopt;
    // In compiled code, only a macro's arguments the preprocessor dropped are words the
    // compiler never saw (`lua_assert(x)` with assertions off).
    // So is an argument whose last expansion is pasted into another name, where the worker
    // flagged the names it reported expanded (indexer/MacroArguments.h): clangd selects none.
    w.pasted = directive.empty() && std::any_of(occurrences->begin(), occurrences->end(), [&](const ClangFileOccurrence& o) {
      return o.start == w.start && o.end == w.end && o.expanded;
    });
    if (directive.empty() && !(w.inArguments = inMacroArguments(*occurrences, *text, w.start, w.pasted))) return std::nullopt;
  }
  w.occurrences = std::move(*occurrences);
  w.word = std::string(text->substr(w.start, w.end - w.start));
  w.line = static_cast<uint32_t>(std::count(text->begin(), text->begin() + w.start, '\n'));
  w.preambleEnd = preambleEnd(*text);
  return w;
}

// clangd asks its index for ten names like the word, best first, and answers nothing when more
// than five are the word's: which ten depends on its ranking, so the answer is labelled so.
NavigationResult ClangNavigator::manyNamed(const std::string& word) {
  NavigationResult out;
  out.symbol = word;
  out.source = source_;
  out.confidence = Confidence::Name;
  out.facet = kManyNamedFacet;
  out.note = "'" + word + "' is not a name the compiler saw here, and more than " + std::to_string(kMostWordMatches) +
             " symbols are named so: no answer by the word";
  return out;
}

NavigationResult ClangNavigator::nothingNamed(const PreprocessorWord& w) {
  NavigationResult out;
  out.symbol = w.word;
  out.source = source_;
  out.facet = "preprocessor";
  out.note = "'" + w.word + "' is " + w.where() + " and names no macro there: the compiler saw no name here";
  return out;
}

Expected<NavigationResult> ClangNavigator::preprocessorReferences(const std::string& path, const AskedFile& f,
                                                                  uint32_t offset, bool includeDeclaration) {
  auto w = preprocessorWord(path, f, offset);
  if (!w) return declined();
  auto answer = macroAnswer(path, *w, /*references=*/true, includeDeclaration, false);
  if (answer) {
    answer->facet = "preprocessor";
    answer->note = "'" + w->word + "' is " + w->where() + ": the references of the macro in effect there";
  }
  if (!isDeclined(answer)) return answer;
  return nothingNamed(*w);
}

Expected<NavigationResult> ClangNavigator::preprocessorDefinition(const std::string& path, const AskedFile& f,
                                                                  uint32_t offset, bool declarations) {
  auto w = preprocessorWord(path, f, offset);
  if (!w) return declined();
  // clangd 14's order: the macro in effect there, then the word's fallbacks (not for
  // textDocument/declaration), else nothing.
  if (auto answer = macroAnswer(path, *w, /*references=*/false, false, declarations); !isDeclined(answer)) {
    if (answer) answer->facet = "preprocessor";
    return answer;
  }
  if (!declarations)
    if (auto word = wordAnswer(path, f, *w); !isDeclined(word)) return word;
  return nothingNamed(*w);
}

// The macro named by a preprocessor word, as clangd 14 finds a macro by its raw word: the closest
// definition before it in the file; else, in the file's preamble, the first one after it there;
// else the only macro of that name defined elsewhere that the file's own parse can know (a
// header read before, the command line, a system header) — not one only made-up units define
// (c-ares's HAVE_SYS_UIO_H is the generated ares_config.h's, not config-dos.h's, a header no
// unit reads). Declined when there is none or several.
Expected<std::optional<ClangSymbol>> ClangNavigator::macroInEffect(const std::string& path, const PreprocessorWord& w) {
  auto ids = view_->symbolsNamed(w.word);
  if (!ids) return ids.status();
  std::optional<ClangSymbol> chosen, inPreamble;
  std::vector<ClangSymbol> elsewhere;  // the macros of that name this file does not define
  uint32_t closest = 0, firstAfter = 0;
  for (uint32_t id : *ids) {
    auto symbol = view_->symbol(id);
    if (!symbol) return symbol.status();
    if (static_cast<SymbolKind>(symbol->kind) != SymbolKind::Macro) continue;
    bool definedHere = false;
    for (const ClangSite& s : symbol->sites) {
      if (s.role != ClangRole::Definition || s.path != path) continue;
      definedHere = true;
      uint32_t at = s.range.startByte;
      // A #define in code the file's own parse leaves out (a header's section only an
      // includer's #define turns on) defines nothing there: no macro is in effect after it.
      if (view_->skippedAt(path, at)) continue;
      if (at < w.start && (!chosen || at > closest)) closest = at, chosen = *symbol;
      if (at > w.start && at < w.preambleEnd && (!inPreamble || at < firstAfter)) firstAfter = at, inPreamble = *symbol;
    }
    if (!definedHere) elsewhere.push_back(std::move(*symbol));
  }
  // clangd reads a file's leading directives as its preamble, whose macros it finds before any
  // place in the file (an include guard's #ifndef, `#ifndef FALSE` above `#define FALSE`).
  if (!chosen && w.start < w.preambleEnd) chosen = std::move(inPreamble);
  // A macro the repository defines and the file can see comes before one only a header outside
  // the repository defines (no definition site: stdio.h's `stderr`): a repository's own `MIN`
  // where sys/param.h has one too.
  const ClangSymbol *visibleOne = nullptr, *outsideOne = nullptr;
  size_t visibleCount = 0, outsideCount = 0;
  for (size_t k = 0; !chosen && k < elsewhere.size(); ++k) {
    const auto& sites = elsewhere[k].sites;
    bool defined = std::any_of(sites.begin(), sites.end(), [](const ClangSite& s) { return s.role == ClangRole::Definition; });
    if (defined &&
        std::all_of(sites.begin(), sites.end(), [](const ClangSite& s) { return s.role != ClangRole::Definition || s.interpolated; }))
      continue;
    if (!defined) {
      if (++outsideCount == 1) outsideOne = &elsewhere[k];
      continue;
    }
    auto visible = visibleFrom(path, elsewhere[k]);
    if (!visible) return visible.status();
    if (*visible && ++visibleCount == 1) visibleOne = &elsewhere[k];
  }
  if (!chosen && visibleCount == 1) chosen = *visibleOne;
  if (!chosen && visibleCount == 0 && outsideCount == 1) {
    auto known = outsideKnown(path, *outsideOne);
    if (!known) return known.status();
    if (*known) chosen = *outsideOne;
  }
  return chosen;
}

Expected<NavigationResult> ClangNavigator::macroAnswer(const std::string& path, const PreprocessorWord& w,
                                                       bool references, bool includeDeclaration, bool declarations) {
  auto chosen = macroInEffect(path, w);
  if (!chosen) return chosen.status();
  if (!*chosen) return declined();
  ClangFileOccurrence from;
  from.start = w.start;
  from.end = w.end;
  from.role = ClangRole::Reference;
  return answerFor(**chosen, from, path, references, includeDeclaration, declarations);
}

// clangd 14 lists a macro's `#undef` among its references where the file asked in holds it: its
// parse of the open file collects the main file's macro uses, #undefs included, while its
// background index records none (brotli's `#undef HASHER`). libclang's preprocessing record
// keeps no #undef either, so they are found in the file's text: each `#undef NAME` in code the
// preprocessor kept, whose macro in effect there (as a directive's word finds it) is `macro`.
Status ClangNavigator::addUndefinitions(const ClangSymbol& macro, const std::string& path, NavigationResult& out) {
  if (!text_ || macro.name.empty()) return Status::ok();
  // A file the index holds no text of (a header the build generated, which the clang view lists
  // but nib does not index) has no #undef nib can find: its references go without them.
  auto text = text_(path);
  if (!text) return Status::ok();
  std::string_view all = *text;
  auto identifierByte = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::vector<SymbolLocation> found;
  std::optional<uint32_t> preamble;
  std::optional<LineTable> lines;
  for (size_t at = all.find(macro.name); at != std::string_view::npos; at = all.find(macro.name, at + 1)) {
    size_t end = at + macro.name.size();
    bool whole = (at == 0 || !identifierByte(all[at - 1])) && (end == all.size() || !identifierByte(all[end]));
    if (!whole || directiveAt(all, static_cast<uint32_t>(at)) != "undef" || view_->skippedAt(path, static_cast<uint32_t>(at)))
      continue;
    // The directive's first word only (`#undef X` names one macro).
    size_t word = all.find_first_not_of(" \t", all.find("undef", all.rfind('#', at)) + 5);
    if (word != at) continue;
    PreprocessorWord w;
    w.word = macro.name;
    w.start = static_cast<uint32_t>(at);
    w.end = static_cast<uint32_t>(end);
    if (!preamble) preamble = preambleEnd(all), lines.emplace(all);
    w.preambleEnd = *preamble;
    auto inEffect = macroInEffect(path, w);
    if (!inEffect) return inEffect.status();
    if (!*inEffect || (*inEffect)->usr != macro.usr) continue;
    // Defined in this file only further down (an #undef that clears the way before a header's
    // own #define, pcre2_intmodedep.h's, which the word finds in the preamble): no macro is in
    // effect at the #undef in the file's own parse, so it undoes none.
    bool here = false, before = false;
    for (const ClangSite& s : macro.sites)
      if (s.role == ClangRole::Definition && s.path == path) {
        here = true;
        before |= s.range.startByte < w.start;
      }
    if (here && !before) continue;
    ClangSite site;
    site.path = path;
    site.role = ClangRole::Reference;
    site.range = {w.start, w.end, lines->positionOf(w.start), lines->positionOf(w.end)};
    found.push_back(siteLocation(macro, site));
  }
  if (found.empty()) return Status::ok();
  for (SymbolLocation& l : found) out.locations.push_back(std::move(l));
  uniqueSites(out.locations);
  return Status::ok();
}

// Whether the file's own parse read the header outside the repository that defines `macro`
// (stdio.h's `stderr`): clangd finds a word's macro in its parse of the file only, and a word in
// code left out whose header is #included in code left out too (libwebp's NEON files and their
// <assert.h>) names none. True where that is not known: a file that is no unit's main file (a
// header, parsed within its includers), a macro whose place outside the view does not hold.
Expected<bool> ClangNavigator::outsideKnown(const std::string& path, const ClangSymbol& macro) {
  auto read = view_->filesReadBy(path);
  if (!read) return read.status();
  std::optional<SymbolLocation> place = outsideLocation(*view_, macro);
  if (!*read || !place) return true;
  return std::binary_search((*read)->begin(), (*read)->end(), std::string_view(place->path));
}

// Whether the file's own parse can know a macro defined elsewhere: one defined in a file its
// unit read, or nowhere in the repository (the command line, a system header). A file that is no
// unit's main file (a header, which clangd parses alone too, with what it includes itself) knows
// none defined only in source files — a `.c` file defining a macro before it #includes the
// header (`#define LZ4_DISABLE_DEPRECATE_WARNINGS`) is no part of the header's own parse.
Expected<bool> ClangNavigator::visibleFrom(const std::string& path, const ClangSymbol& macro) {
  auto read = view_->filesReadBy(path);
  if (!read) return read.status();
  bool anywhere = false;
  for (const ClangSite& s : macro.sites) {
    if (s.role != ClangRole::Definition) continue;
    if (s.path == path) return true;
    anywhere = true;
    if (*read ? std::binary_search((*read)->begin(), (*read)->end(), s.path) : !isCFamilySourceFile(s.path)) return true;
  }
  return !anywhere;
}

// Whether the position lies in the arguments of a macro invocation (`lua_assert(getOpMode(o))`),
// where libclang recorded no name: the preprocessor may have dropped them, or (`pasted`) it
// pasted the argument into another name last. Found as the innermost
// parentheses around it, going outwards within the statement, that follow a name
// libclang recorded as a macro's use.
bool ClangNavigator::inMacroArguments(const std::vector<ClangFileOccurrence>& occurrences, const std::string& text,
                                      uint32_t offset, bool pasted) {
  size_t limit = offset > 4096 ? offset - 4096 : 0;
  int depth = 0;
  for (size_t i = std::min<size_t>(offset, text.size()); i-- > limit;) {
    char ch = text[i];
    if (ch == ')') ++depth;
    if (depth == 0 && (ch == ';' || ch == '{' || ch == '}')) return false;
    if (ch != '(') continue;
    if (depth > 0) {
      --depth;
      continue;
    }
    size_t end = i;
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
    size_t start = end;
    while (start > 0 && (std::isalnum(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '_')) --start;
    if (start == end) continue;
    for (const ClangFileOccurrence& o : occurrences) {
      if (o.start > start) break;
      if (o.start != start || o.role != ClangRole::Reference) continue;
      auto symbol = view_->symbol(o.symbol);
      if (symbol && static_cast<SymbolKind>(symbol->kind) == SymbolKind::Macro)
        return pasted || !argumentExpanded(*symbol, text, i + 1, offset);
    }
  }
  return false;
}

bool ClangNavigator::resolvedNothingAt(const std::string& path, uint32_t offset) {
  return !resolvedNothingAmong(path, {offset}).empty();
}

std::vector<uint32_t> ClangNavigator::resolvedNothingAmong(const std::string& path, const std::vector<uint32_t>& offsets) {
  std::vector<uint32_t> out;
  if (!covers(path)) return out;
  auto occurrences = view_->occurrences(path);  // decoded once for every offset
  if (!occurrences) return out;
  for (uint32_t offset : offsets) {
    if (view_->skippedAt(path, offset)) continue;
    const ClangFileOccurrence* at = occurrenceAt(*occurrences, offset);
    if (!at || !ownName(path, *at)) out.push_back(offset);
  }
  return out;
}

// Whether the macro expands the argument `offset` lies in (the arguments start at `open`, past
// the parenthesis), by its definition's text (macroExpands); false when that cannot be read.
bool ClangNavigator::argumentExpanded(const ClangSymbol& macro, const std::string& text, size_t open, uint32_t offset) {
  // The argument's index: the commas before it outside parentheses (braces and brackets do not
  // group a macro's arguments).
  size_t index = 0;
  int depth = 0;
  for (size_t k = open; k < offset && k < text.size(); ++k) {
    if (text[k] == '(') ++depth;
    if (text[k] == ')') --depth;
    if (text[k] == ',' && depth == 0) ++index;
  }
  return macroExpands(macro, index, 0).value_or(false);
}

// Whether `macro` expands its argument `index` as code, by its (first) definition's text,
// following the argument into the macros that text hands it to (argumentUse): a callee no macro
// of the build is named is a function, whose arguments are code. nullopt when the definition
// cannot be read.
std::optional<bool> ClangNavigator::macroExpands(const ClangSymbol& macro, size_t index, int depth) {
  const ClangSite* definition = nullptr;
  for (const ClangSite& s : macro.sites)
    if (s.role == ClangRole::Definition) definition = definition ? definition : &s;
  if (!definition || !text_ || depth > 8) return std::nullopt;
  auto defined = text_(definition->path);
  std::optional<ArgumentUse> use = defined ? argumentUse(*defined, definition->range.startByte, index) : std::nullopt;
  if (!use) return std::nullopt;
  if (use->code) return true;
  for (const auto& [name, argument] : use->handedOn) {
    auto ids = view_->symbolsNamed(name);
    bool macroCallee = false;
    for (uint32_t id : ids ? *ids : std::vector<uint32_t>{}) {
      auto callee = view_->symbol(id);
      if (!callee || static_cast<SymbolKind>(callee->kind) != SymbolKind::Macro) continue;
      macroCallee = true;
      if (macroExpands(*callee, argument, depth + 1).value_or(true)) return true;
    }
    if (!macroCallee) return true;
  }
  return false;
}

bool ClangNavigator::parsedWithErrors(const std::string& path) { return !scip_ && view_->parsedWithErrors(path); }

bool ClangNavigator::ownName(const std::string& path, const ClangFileOccurrence& o) {
  if (o.foreign) return false;
  if (scip_) return true;
  auto symbol = view_->symbolForDefinition(o.symbol, path, o.start);
  if (symbol && spelledInMacroText(*symbol, path, o.start)) return false;
  if (!symbol || static_cast<SymbolKind>(symbol->kind) != SymbolKind::Macro) return true;
  auto visible = visibleFrom(path, *symbol);
  return !visible || *visible;
}

// A macro's replacement list is not parsed where it is written, so no name is there for clangd's
// parse of the file: a declaration the macro's expansions write (nettle's `#define ecc_size
// nettle_ecc_size`, whose expansions declare and define `nettle_ecc_size`) is recorded at
// the text spelling its name too (its `macroBody` twin, where clangd's index puts the
// declaration), but a cursor there asks about a word. clangd answers its definition by the
// word (its index then finds the declaration, at that very text) and lists no references.
bool ClangNavigator::spelledInMacroText(const ClangSymbol& symbol, const std::string& path, uint32_t offset) {
  return std::any_of(symbol.sites.begin(), symbol.sites.end(), [&](const ClangSite& s) {
    return s.macroBody && s.range.startByte == offset && s.path == path;
  });
}

}  // namespace nib
