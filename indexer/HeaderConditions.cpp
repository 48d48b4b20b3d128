#include "indexer/HeaderConditions.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "support/Text.h"

namespace nib {
namespace {

bool identifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifierPart(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Calls `visit(keyword, rest)` for each preprocessor directive of `text`: the directive's name
// and what follows it up to the end of its logical line (backslash continuations joined by the
// caller's scanning of `rest`, which keeps them).
template <typename Visit>
void forEachDirective(std::string_view text, Visit visit) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = pos;
    // A logical line: a backslash before the newline continues it.
    while (end < text.size()) {
      size_t nl = text.find('\n', end);
      if (nl == std::string_view::npos) {
        end = text.size();
        break;
      }
      size_t last = nl;
      while (last > end && (text[last - 1] == '\r')) --last;
      if (last > end && text[last - 1] == '\\') {
        end = nl + 1;
        continue;
      }
      end = nl;
      break;
    }
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || line[i] != '#') continue;
    ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t k = i;
    while (k < line.size() && identifierPart(line[k])) ++k;
    visit(line.substr(i, k - i), line.substr(k));
  }
}

// The identifiers of a directive's text, comments left out.
template <typename Visit>
void forEachIdentifier(std::string_view s, Visit visit) {
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "//") == 0) return;
    if (s.compare(i, 2, "/*") == 0) {
      size_t close = s.find("*/", i + 2);
      if (close == std::string_view::npos) return;
      i = close + 2;
      continue;
    }
    if (identifierStart(s[i])) {
      size_t k = i;
      while (k < s.size() && identifierPart(s[k])) ++k;
      visit(s.substr(i, k - i));
      i = k;
      continue;
    }
    // A number's letters (`0x10UL`) are no identifier.
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (i < s.size() && identifierPart(s[i])) ++i;
      continue;
    }
    ++i;
  }
}

// The identifiers of a file's text, comments, string and character literals left out.
template <typename Visit>
void forEachCodeIdentifier(std::string_view s, Visit visit) {
  for (size_t i = skipCodeTrivia(s, 0); i < s.size(); i = skipCodeTrivia(s, i)) {
    if (s[i] == '"' || s[i] == '\'') {
      size_t k = i + 1;
      while (k < s.size() && s[k] != s[i] && s[k] != '\n') k += s[k] == '\\' ? 2 : 1;
      i = k + 1;
    } else if (identifierStart(s[i])) {
      size_t k = i;
      while (k < s.size() && identifierPart(s[k])) ++k;
      visit(s.substr(i, k - i));
      i = k;
    } else if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (i < s.size() && identifierPart(s[i])) ++i;
    } else {
      ++i;
    }
  }
}

// The first identifier of a directive's text ("" when it starts otherwise).
std::string_view firstIdentifier(std::string_view rest) {
  size_t i = 0;
  while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
  size_t k = i;
  while (k < rest.size() && identifierPart(rest[k])) ++k;
  return k > i && identifierStart(rest[i]) ? rest.substr(i, k - i) : std::string_view();
}

// The macro an include guard's opening directive tests: `#ifndef X`, `#if !defined(X)` or
// `#if !defined X`; "" for any other directive.
std::string_view guardTestedBy(std::string_view keyword, std::string_view rest) {
  if (keyword == "ifndef") return firstIdentifier(rest);
  if (keyword != "if") return {};
  size_t i = rest.find_first_not_of(" \t");
  if (i == std::string_view::npos || rest[i] != '!') return {};
  rest.remove_prefix(i + 1);
  if (firstIdentifier(rest) != "defined") return {};
  rest.remove_prefix(rest.find("defined") + 7);
  i = rest.find_first_not_of(" \t(");
  return i == std::string_view::npos ? std::string_view() : firstIdentifier(rest.substr(i));
}

// The name an #include spells between quotes or angle brackets ("" for one a macro gives).
std::string_view includedName(std::string_view rest) {
  size_t open = rest.find_first_not_of(" \t");
  if (open == std::string_view::npos || (rest[open] != '"' && rest[open] != '<')) return {};
  size_t close = rest.find(rest[open] == '"' ? '"' : '>', open + 1);
  return close == std::string_view::npos ? std::string_view() : rest.substr(open + 1, close - open - 1);
}

// `name` without leading `./` and `../` components: what an #include's name says of the path it
// finds, whatever the directory it is looked up from.
std::string_view trailingPath(std::string_view name) {
  for (;;) {
    if (name.substr(0, 2) == "./") name.remove_prefix(2);
    else if (name.substr(0, 3) == "../") name.remove_prefix(3);
    else return name;
  }
}

// Which files each file's #includes reach, directly or through others: the repository's files
// (of `directives`) and the files outside the repository the units read (system headers, whose
// #includes `readOutside` gives, each read once and only when a walk reaches it). An #include's
// name is matched against the known files' trailing components, so the graph holds every edge an
// #include might be, in every section of the file: a file reached is one its text may #include.
class IncludeGraph {
 public:
  IncludeGraph(const std::map<std::string, FileDirectives>& directives, const std::set<std::string>& outside,
               const OutsideReader& readOutside)
      : directives_(directives), readOutside_(readOutside) {
    for (const auto& [path, d] : directives) add(path);
    for (const std::string& path : outside)
      if (!directives.count(path)) add(path);
    edges_.resize(paths_.size());
  }

  // Whether `to` lies in the #include closure of `from` (itself included).
  bool reaches(const std::string& from, const std::string& to) {
    auto f = ids_.find(from), t = ids_.find(to);
    if (f == ids_.end() || t == ids_.end()) return from == to;
    auto [it, added] = reached_.try_emplace(f->second);
    if (added) it->second = closureOf(f->second);
    return it->second[t->second];
  }

 private:
  void add(const std::string& path) {
    auto id = static_cast<uint32_t>(paths_.size());
    paths_.push_back(&path);
    ids_.emplace(path, id);
    byBaseName_[path.substr(path.rfind('/') + 1)].push_back(id);
  }

  std::vector<char> closureOf(uint32_t from) {
    std::vector<char> seen(paths_.size());
    std::vector<uint32_t> todo{from};
    seen[from] = 1;
    while (!todo.empty()) {
      uint32_t node = todo.back();
      todo.pop_back();
      for (uint32_t next : edgesOf(node))
        if (!seen[next]) seen[next] = 1, todo.push_back(next);
    }
    return seen;
  }

  const std::vector<uint32_t>& edgesOf(uint32_t node) {
    std::optional<std::vector<uint32_t>>& edges = edges_[node];
    if (edges) return *edges;
    edges.emplace();
    const FileDirectives* d = nullptr;
    std::optional<FileDirectives> read;
    if (auto it = directives_.find(*paths_[node]); it != directives_.end()) {
      d = &it->second;
    } else if (readOutside_) {
      if (std::optional<std::string> text = readOutside_(*paths_[node])) d = &read.emplace(directivesOf(*text));
    }
    if (d)
      for (const std::string& include : d->includes) filesNamed(include, *edges);
    return *edges;
  }

  void filesNamed(std::string_view include, std::vector<uint32_t>& out) const {
    std::string_view name = trailingPath(include);
    auto it = byBaseName_.find(std::string(name.substr(name.rfind('/') + 1)));
    if (it == byBaseName_.end()) return;
    for (uint32_t id : it->second) {
      const std::string& path = *paths_[id];
      if (path.size() > name.size() && path.compare(path.size() - name.size(), name.size(), name) == 0 &&
          path[path.size() - name.size() - 1] == '/')
        out.push_back(id);
    }
  }

  const std::map<std::string, FileDirectives>& directives_;
  const OutsideReader& readOutside_;
  std::vector<const std::string*> paths_;
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::unordered_map<std::string, std::vector<uint32_t>> byBaseName_;
  std::vector<std::optional<std::vector<uint32_t>>> edges_;
  std::unordered_map<uint32_t, std::vector<char>> reached_;
};

}  // namespace

std::set<std::string> headersNamingIncludersNames(const std::vector<const TuFacts*>& units,
                                                   const std::map<std::string, FileDirectives>& directives,
                                                   const std::set<std::string>& candidates, const OutsideReader& readOutside) {
  std::set<std::string> outside;  // the files the units read that are not the repository's
  if (readOutside)
    for (const TuFacts* unit : units)
      for (const std::string& f : unit->files)
        if (!directives.count(f)) outside.insert(f);
  IncludeGraph graph(directives, outside, readOutside);
  std::set<std::string> out;
  for (const TuFacts* unit : units) {
    // Where the unit saw each entity declared, by file; for one declared outside the repository
    // only, the declaration clangd's go-to-definition answers (ClangOutsideTarget).
    std::vector<std::vector<uint32_t>> declaredIn(unit->usrs.size());
    for (const ClangOccurrence& o : unit->occurrences)
      if (o.role != ClangRole::Reference && o.usr < declaredIn.size()) declaredIn[o.usr].push_back(o.file);
    std::vector<const std::string*> declaredOutside(unit->usrs.size());
    if (readOutside)
      for (const ClangOutsideTarget& t : unit->outsideTargets)
        if (t.usr < declaredOutside.size() && !t.macroWord) declaredOutside[t.usr] = &t.path;
    // Which of the unit's files are candidates not yet found, looked up once per file (the
    // candidates are headers, so never the unit's main file).
    std::vector<char> open(unit->files.size());
    for (size_t k = 0; k < unit->files.size(); ++k) open[k] = candidates.count(unit->files[k]) && !out.count(unit->files[k]);
    for (const ClangOccurrence& o : unit->occurrences) {
      if (o.role != ClangRole::Reference || o.file >= open.size() || !open[o.file] || o.usr >= declaredIn.size()) continue;
      const std::string& header = unit->files[o.file];
      bool relies;
      if (!declaredIn[o.usr].empty())
        relies = std::none_of(declaredIn[o.usr].begin(), declaredIn[o.usr].end(),
                              [&](uint32_t f) { return f < unit->files.size() && graph.reaches(header, unit->files[f]); });
      else
        relies = declaredOutside[o.usr] && !graph.reaches(header, *declaredOutside[o.usr]);
      if (relies) {
        out.insert(header);
        open[o.file] = 0;
      }
    }
  }
  return out;
}

FileDirectives directivesOf(std::string_view text) {
  FileDirectives out;
  size_t index = 0;
  std::string_view guard;  // the macro the first directive tests for an include guard
  std::string_view unset;  // the macro the directive before tests is not defined
  forEachDirective(text, [&](std::string_view keyword, std::string_view rest) {
    size_t n = index++;
    if (n == 0) guard = guardTestedBy(keyword, rest);
    if (n == 1 && keyword == "define" && !guard.empty() && firstIdentifier(rest) == guard) out.guarded = true;
    if (keyword == "pragma" && firstIdentifier(rest) == "once") out.guarded = true;
    std::string_view tested = std::exchange(unset, guardTestedBy(keyword, rest));
    if (keyword == "define") {
      std::string_view name = firstIdentifier(rest);
      if (!name.empty() && !out.defined.emplace(name).second) out.redefined.emplace(name);
      if (!name.empty() && name == tested && n != 1) out.defaulted.emplace(name);
    } else if (keyword == "include" || keyword == "import" || keyword == "include_next") {
      std::string_view name = includedName(rest);
      if (!name.empty()) out.includes.emplace_back(name);
    } else if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef" || keyword == "elif") {
      forEachIdentifier(rest, [&](std::string_view name) {
        if (name != "defined") out.tested.emplace(name);
      });
    }
  });
  return out;
}

std::vector<std::string> headersConfiguredElsewhere(const std::vector<std::pair<std::string, FileDirectives>>& headers,
                                                    const std::map<std::string, size_t>& definers) {
  std::vector<std::string> out;
  for (const auto& [path, d] : headers)
    if (std::any_of(d.tested.begin(), d.tested.end(), [&](const std::string& name) {
          auto it = definers.find(name);
          size_t others = it == definers.end() ? 0 : it->second - (d.defined.count(name) ? 1 : 0);
          return others > 0 && (!d.defined.count(name) || d.defaulted.count(name));
        }))
      out.push_back(path);
  return out;
}

std::vector<std::string> headersUsingConfiguredMacros(const std::vector<std::pair<std::string, FileDirectives>>& headers,
                                                      const std::vector<std::string>& configured,
                                                      const std::map<std::string, std::string>& texts) {
  std::set<std::string> chosen(configured.begin(), configured.end());
  std::set<std::string, std::less<>> macros;
  for (const auto& [path, d] : headers)
    if (chosen.count(path)) macros.insert(d.redefined.begin(), d.redefined.end());
  std::vector<std::string> out;
  if (macros.empty()) return out;
  for (const auto& [path, d] : headers) {
    auto text = texts.find(path);
    if (chosen.count(path) || text == texts.end()) continue;
    bool uses = false;
    forEachCodeIdentifier(text->second, [&](std::string_view name) {
      uses = uses || (macros.count(name) && !d.defined.count(std::string(name)));
    });
    if (uses) out.push_back(path);
  }
  return out;
}

}  // namespace nib
