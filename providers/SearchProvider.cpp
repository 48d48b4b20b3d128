#include "providers/SearchProvider.h"

#include <fnmatch.h>
#include <string.h>
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "support/SearchText.h"

namespace nib {
namespace {

constexpr size_t kSnippetLines = 12;
constexpr size_t kSnippetLineBytes = 240;
// BM25 constants (the usual ones; the lexical view's units are short, b keeps length in play).
constexpr double kK1 = 1.2;
constexpr double kB = 0.75;
constexpr double kFileUnitWeight = 0.5;

std::vector<uint32_t> intersect(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::string fold(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(foldByte(static_cast<unsigned char>(c)));
  return out;
}

// The lines [first, last] of `text`, each cut to a readable length.
std::string linesOf(const LineTable& lines, uint32_t first, uint32_t last) {
  std::string out;
  for (uint32_t l = first; l <= last && l < lines.lineCount(); ++l) {
    std::string_view t = lines.lineText(l);
    if (t.size() > kSnippetLineBytes) t = t.substr(0, kSnippetLineBytes);
    if (l > first) out += '\n';
    out += t;
  }
  return out;
}

bool looksLikeProse(std::string_view q) {
  size_t words = 0;
  bool inWord = false;
  for (char c : q) {
    bool w = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (w && !inWord) ++words;
    inWord = w;
    if (strchr("(){}[];=<>*&|\"'.:,/\\#$@!?+-%^~`", c)) return false;  // code punctuation
  }
  return words >= 2;
}

}  // namespace

const char* searchRouteName(SearchRoute route) {
  switch (route) {
    case SearchRoute::Auto: return "auto";
    case SearchRoute::Lexical: return "lexical";
    case SearchRoute::Trigram: return "trigram";
  }
  return "auto";
}

bool parseSearchRoute(std::string_view name, SearchRoute* route) {
  if (name == "auto") *route = SearchRoute::Auto;
  else if (name == "lexical") *route = SearchRoute::Lexical;
  else if (name == "trigram") *route = SearchRoute::Trigram;
  else return false;
  return true;
}

std::vector<std::string> requiredLiterals(std::string_view p) {
  std::vector<std::string> out;
  // Alternation at the top level makes every literal optional: no filtering. Inside a group it
  // only concerns the group, whose literals are not collected anyway.
  int level = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
      continue;
    }
    if (p[i] == '[') {  // skip classes: '(' and '|' mean nothing there
      size_t j = i + 1;
      if (j < p.size() && p[j] == '^') ++j;
      if (j < p.size() && p[j] == ']') ++j;
      while (j < p.size() && p[j] != ']') j += p[j] == '\\' ? 2 : 1;
      i = j;
      continue;
    }
    if (p[i] == '(') ++level;
    if (p[i] == ')') level = std::max(0, level - 1);
    if (p[i] == '|' && level == 0) return out;
  }
  std::string cur;
  int depth = 0;
  auto flush = [&] {
    if (cur.size() >= 3) out.push_back(cur);
    cur.clear();
  };
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {
      if (i + 1 >= p.size()) break;
      char e = p[++i];
      if (std::isalnum(static_cast<unsigned char>(e))) {
        flush();  // \d, \w, \b, \x41, \pL ...: not a literal byte
        if (e == 'x' || e == 'p' || e == 'P') {
          if (i + 1 < p.size() && p[i + 1] == '{') i = p.find('}', i) == std::string_view::npos ? p.size() : p.find('}', i);
        }
        continue;
      }
      if (depth == 0) cur.push_back(e);
      continue;
    }
    switch (c) {
      case '[': {  // a class: skip it, it is not one fixed byte
        flush();
        size_t j = i + 1;
        if (j < p.size() && p[j] == '^') ++j;
        if (j < p.size() && p[j] == ']') ++j;
        while (j < p.size() && p[j] != ']') j += p[j] == '\\' ? 2 : 1;
        i = j;
        break;
      }
      case '(':
        flush();
        ++depth;  // groups may be optional: their literals are not required
        break;
      case ')':
        flush();
        depth = std::max(0, depth - 1);
        break;
      case '*': case '?':
        if (!cur.empty()) cur.pop_back();  // the previous byte may be absent
        flush();
        break;
      case '{':
        if (!cur.empty()) cur.pop_back();
        flush();
        i = p.find('}', i) == std::string_view::npos ? p.size() : p.find('}', i);
        break;
      case '+': case '.': case '^': case '$':
        flush();
        break;
      default:
        if (depth == 0) cur.push_back(c);
        else flush();
    }
  }
  flush();
  return out;
}

std::unique_ptr<SearchProvider> SearchProvider::open(const std::filesystem::path& versionDir, const Manifest& manifest) {
  auto p = std::unique_ptr<SearchProvider>(new SearchProvider());
  auto complete = [&](const char* name, std::string* error) {
    const ViewRecord* v = manifest.view(name);
    if (!v || v->status == ViewStatus::Absent) *error = std::string("this index has no ") + name + " view; run `nib index`";
    else if (v->status == ViewStatus::Failed) *error = std::string("the ") + name + " view failed to build: " + v->error;
    return error->empty();
  };
  if (complete("trigram", &p->trigramError_)) {
    auto t = TrigramView::open(versionDir / "trigram");
    if (t) p->trigram_ = std::move(*t);
    else p->trigramError_ = t.status().message();
  }
  if (complete("lexical", &p->lexicalError_)) {
    auto l = LexicalView::open(versionDir / "lexical");
    if (l) p->lexical_ = std::move(*l);
    else p->lexicalError_ = l.status().message();
  }
  return p;
}

bool SearchProvider::passesFilters(const SearchRequest& r, const std::string& path, Language language) const {
  if (!r.languages.empty() && std::find(r.languages.begin(), r.languages.end(), language) == r.languages.end())
    return false;
  if (r.paths.empty()) return true;
  for (const std::string& g : r.paths) {
    if (g.find_first_of("*?[") == std::string::npos) {
      std::string prefix = g;
      while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
      if (path == prefix || path.rfind(prefix + "/", 0) == 0) return true;
    } else if (fnmatch(g.c_str(), path.c_str(), 0) == 0) {
      return true;
    }
  }
  return false;
}

Expected<SearchResult> SearchProvider::search(const SearchRequest& request, const SearchContext& context) {
  if (request.query.empty()) return Status(ErrorCode::InvalidArgument, "the search query is empty");
  SearchRoute route = request.route;
  if (route == SearchRoute::Auto)
    route = !request.regex && looksLikeProse(request.query) && lexical_ ? SearchRoute::Lexical : SearchRoute::Trigram;
  auto result = route == SearchRoute::Lexical ? searchLexical(request, context) : searchTrigram(request, context);
  if (result && !context.notSearched.empty())
    result->notes.push_back(std::to_string(context.notSearched.size()) +
                            " new file(s) since the index was built were not searched (e.g. " +
                            context.notSearched.front() + "); run `nib index`");
  return result;
}

Expected<SearchResult> SearchProvider::searchTrigram(const SearchRequest& request, const SearchContext& context) {
  if (!trigram_) return Status(ErrorCode::Unsupported, trigramError_);
  SearchResult out;
  out.route = SearchRoute::Trigram;
  std::unique_ptr<RE2> re;
  std::vector<std::string> literals;
  if (request.regex) {
    RE2::Options options;
    options.set_case_sensitive(request.caseSensitive);
    options.set_log_errors(false);
    options.set_never_nl(true);
    re = std::make_unique<RE2>(request.query, options);
    if (!re->ok()) return Status(ErrorCode::InvalidArgument, "invalid regular expression: " + re->error());
    literals = requiredLiterals(request.query);
  } else {
    literals.push_back(request.query);
  }
  // Candidates: the docs holding every trigram of every required literal.
  std::vector<uint32_t> candidates;
  bool filtered = false;
  std::vector<uint32_t> trigrams;
  for (const std::string& lit : literals)
    for (uint32_t t : trigramsOf(lit)) trigrams.push_back(t);
  std::sort(trigrams.begin(), trigrams.end());
  trigrams.erase(std::unique(trigrams.begin(), trigrams.end()), trigrams.end());
  if (!trigrams.empty()) {
    std::vector<std::vector<uint32_t>> lists;
    for (uint32_t t : trigrams) lists.push_back(trigram_->postings(t));
    std::sort(lists.begin(), lists.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
    candidates = lists.front();
    for (size_t i = 1; i < lists.size() && !candidates.empty(); ++i) candidates = intersect(candidates, lists[i]);
    filtered = true;
  }
  // The files to verify, in path order: candidates (or everything), minus what changed, plus
  // what changed or was added (searched as it is now).
  std::vector<std::pair<std::string, Language>> files;
  auto consider = [&](const SearchDoc& d) {
    if (context.changed.count(d.path) || context.deleted.count(d.path)) return;
    if (passesFilters(request, d.path, d.language)) files.emplace_back(d.path, d.language);
  };
  if (filtered)
    for (uint32_t id : candidates) {
      if (auto d = trigram_->byId(id)) consider(*d);
    }
  else
    trigram_->forEach([&](const SearchDoc& d) {
      consider(d);
      return true;
    });
  for (const std::string& p : context.changed) {
    auto d = trigram_->byPath(p);
    Language lang = d ? d->language : detectLanguage(p, "");
    if (passesFilters(request, p, lang)) files.emplace_back(p, lang);
  }
  for (const std::string& p : context.added)
    if (passesFilters(request, p, detectLanguage(p, ""))) files.emplace_back(p, detectLanguage(p, ""));
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());

  std::string needle = request.caseSensitive ? request.query : fold(request.query);
  for (const auto& [path, lang] : files) {
    auto content = context.readCurrent(path);
    if (!content) continue;  // vanished between listing and reading
    ++out.candidates;
    std::string_view text = *content;
    std::string folded;
    std::string_view haystack = text;
    if (!request.regex && !request.caseSensitive) {
      folded = fold(text);
      haystack = folded;
    }
    if (!request.regex && haystack.find(needle) == std::string_view::npos) continue;
    LineTable lines(text);
    bool ascii = isAscii(text);
    // A final newline ends the last line; it does not start an empty one (as grep sees it).
    uint32_t lineCount = lines.lineCount() - (!text.empty() && text.back() == '\n' ? 1 : 0);
    for (uint32_t l = 0; l < lineCount; ++l) {
      std::string_view line = lines.lineText(l);
      uint32_t lineStart;
      lines.offsetOf(Position{l, 0}, &lineStart);
      size_t col, len;
      if (request.regex) {
        re2::StringPiece match;
        if (!re->Match(line, 0, line.size(), RE2::UNANCHORED, &match, 1)) continue;
        col = static_cast<size_t>(match.data() - line.data());
        len = match.size();
      } else {
        std::string_view hl = haystack.substr(lineStart, line.size());
        col = hl.find(needle);
        if (col == std::string_view::npos) continue;
        len = needle.size();
      }
      if (out.hits.size() >= request.k) {
        out.truncated = true;
        break;
      }
      SearchHit h;
      h.path = path;
      h.route = SearchRoute::Trigram;
      h.score = 1;
      h.range.startByte = lineStart + static_cast<uint32_t>(col);
      h.range.endByte = h.range.startByte + static_cast<uint32_t>(len);
      h.range.start = Position{l, static_cast<uint32_t>(col)};
      h.range.end = Position{l, static_cast<uint32_t>(col + len)};
      h.snippetLine = l;
      h.snippet = linesOf(lines, l, l);
      h.ascii = ascii;
      out.hits.push_back(std::move(h));
    }
    if (out.truncated) break;
  }
  if (!filtered) out.notes.push_back("the query has no literal of 3+ bytes to look up: every file was scanned");
  return out;
}

Expected<SearchResult> SearchProvider::searchLexical(const SearchRequest& request, const SearchContext& context) {
  if (!lexical_) return Status(ErrorCode::Unsupported, lexicalError_);
  SearchResult out;
  out.route = SearchRoute::Lexical;
  std::vector<std::string> terms;
  forEachToken(request.query, [&](std::string_view t) { terms.emplace_back(t); });
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  if (terms.empty()) return out;

  const double n = lexical_->unitCount();
  const double avgdl = lexical_->averageLength();
  // Pass 1: a length-free score per unit over all postings (an upper bound of BM25 up to the
  // length factor), to choose the candidates worth exact scoring.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> postings;
  std::map<std::string, double> idf;
  std::unordered_map<uint32_t, double> rough;
  for (const std::string& term : terms) {
    postings.push_back(lexical_->postings(term));
    double df = static_cast<double>(postings.back().size());
    idf[term] = std::log(1 + (n - df + 0.5) / (df + 0.5));
    for (const auto& [unit, tf] : postings.back()) rough[unit] += idf[term] * tf / (tf + kK1);
  }
  std::vector<std::pair<double, uint32_t>> ranked;
  ranked.reserve(rough.size());
  for (const auto& [unit, s] : rough) ranked.emplace_back(s, unit);
  size_t keep = std::min(ranked.size(), std::max<size_t>(request.k * 20, 400));
  std::partial_sort(ranked.begin(), ranked.begin() + keep, ranked.end(),
                    [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  ranked.resize(keep);
  out.candidates = rough.size();
  // Pass 2: the kept units' term frequencies, for exact BM25 once their lengths are known.
  std::unordered_map<uint32_t, std::vector<uint32_t>> tfs;
  for (const auto& [_, id] : ranked) tfs[id].assign(terms.size(), 0);
  for (size_t t = 0; t < terms.size(); ++t)
    for (const auto& [unit, tf] : postings[t])
      if (auto it = tfs.find(unit); it != tfs.end()) it->second[t] = tf;

  struct Scored {
    double score;
    SearchHit hit;
  };
  std::vector<Scored> best;
  for (const auto& [_, id] : ranked) {
    auto u = lexical_->unit(id);
    if (!u) continue;
    auto d = lexical_->byId(u->doc);
    if (!d || context.changed.count(d->path) || context.deleted.count(d->path)) continue;
    if (!passesFilters(request, d->path, d->language)) continue;
    if (!request.kinds.empty() && std::find(request.kinds.begin(), request.kinds.end(), u->kind) == request.kinds.end())
      continue;
    // Exact BM25 now that the length is known.
    double s = 0;
    const std::vector<uint32_t>& f = tfs[id];
    for (size_t t = 0; t < terms.size(); ++t)
      if (f[t]) s += idf[terms[t]] * f[t] * (kK1 + 1) / (f[t] + kK1 * (1 - kB + kB * u->length / avgdl));
    // A whole source file holds every term of its functions: rank the functions first. (Files
    // without a grammar have no smaller units and keep their score.)
    if (u->granularity == Granularity::File && d->language != Language::Unknown) s *= kFileUnitWeight;
    SearchHit h;
    h.path = d->path;
    h.range = u->range;
    h.route = SearchRoute::Lexical;
    h.name = u->name;
    h.kind = u->granularity == Granularity::File ? SymbolKind::Module : u->kind;
    best.push_back({s, std::move(h)});
  }
  // Changed and added files: scored as one unit each, from their current content.
  auto scoreText = [&](const std::string& path) {
    auto d = lexical_->byPath(path);
    Language lang = d ? d->language : detectLanguage(path, "");
    if (!passesFilters(request, path, lang)) return;
    if (!request.kinds.empty() && std::find(request.kinds.begin(), request.kinds.end(), SymbolKind::Module) == request.kinds.end())
      return;
    auto content = context.readCurrent(path);
    if (!content) return;
    std::unordered_map<std::string, uint32_t> tf;
    uint32_t length = 0;
    forEachToken(*content, [&](std::string_view t) {
      ++length;
      if (idf.count(std::string(t))) ++tf[std::string(t)];
    });
    double s = 0;
    for (const auto& [term, f] : tf) s += idf[term] * f * (kK1 + 1) / (f + kK1 * (1 - kB + kB * length / avgdl));
    if (s <= 0) return;
    SearchHit h;
    h.path = path;
    h.route = SearchRoute::Lexical;
    h.kind = SymbolKind::Module;
    LineTable lines(*content);
    h.range.endByte = static_cast<uint32_t>(content->size());
    h.range.end = lines.positionOf(h.range.endByte);
    best.push_back({s, std::move(h)});
  };
  for (const std::string& p : context.changed) scoreText(p);
  for (const std::string& p : context.added) scoreText(p);

  std::sort(best.begin(), best.end(), [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.hit.path != b.hit.path) return a.hit.path < b.hit.path;
    return a.hit.range.startByte < b.hit.range.startByte;
  });
  if (best.size() > request.k) {
    out.truncated = true;
    best.resize(request.k);
  }
  // Snippets: the unit's first lines, from the current content (each file read once).
  struct Text {
    std::string content;
    std::unique_ptr<LineTable> lines;
    bool ascii = true;
  };
  std::map<std::string, Text> texts;
  for (Scored& s : best) {
    s.hit.score = std::round(s.score * 1000) / 1000;
    auto it = texts.find(s.hit.path);
    if (it == texts.end()) {
      Text t;
      if (auto content = context.readCurrent(s.hit.path)) t.content = std::move(*content);
      it = texts.emplace(s.hit.path, std::move(t)).first;
      it->second.lines = std::make_unique<LineTable>(it->second.content);
      it->second.ascii = isAscii(it->second.content);
    }
    uint32_t first = s.hit.range.start.line;
    uint32_t last = std::min<uint32_t>(s.hit.range.end.line, first + kSnippetLines - 1);
    s.hit.snippetLine = first;
    s.hit.snippet = linesOf(*it->second.lines, first, last);
    s.hit.ascii = it->second.ascii;
    out.hits.push_back(std::move(s.hit));
  }
  return out;
}

}  // namespace nib
