// The words of a declaration's attributes. clangd 14's selection visits no attribute, so a word
// of `__attribute__((nonnull(1)))` after a prototype, of `__attribute__((weak))` before it or of
// C++'s `[[nodiscard]]` — the keyword `__attribute__` too — selects the declaration around it:
// go-to-definition answers the function's definition (the struct, the field, the variable, the
// typedef the attribute is written on), references list the entity's (checked against clangd 14;
// libsodium's headers write `__attribute__ ((nonnull))` after most prototypes). libclang's
// indexer lists each declaration's attributes with the place of the attribute's name; the words
// of the attribute list written around that place become unlisted references to the entity,
// where no other name was recorded (a macro's name stays the macro's). An attribute a macro's
// expansion writes (libsodium's SODIUM_EXPORT) has no list written around its place: its word is
// the macro's.
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>
#include <utility>

#include "indexer/ClangCollector.h"
#include "support/CodeIdentifiers.h"

namespace nib::clangindex {
namespace {

bool wordPart(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }

// Past the bracketed group opening at `at` (`(` or `[`): the offset after its matching closer,
// string and character literals skipped; npos when it does not close.
size_t pastGroup(std::string_view text, size_t at) {
  int depth = 0;
  for (size_t i = at; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '"' || ch == '\'') {
      for (++i; i < text.size() && text[i] != ch && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
    } else if (ch == '(' || ch == '[') {
      ++depth;
    } else if (ch == ')' || ch == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

size_t skipSpaces(std::string_view text, size_t i) {
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  return i;
}

// The attribute list starting at `at`: `__attribute__ ((...))` (or `__attribute`) from its
// keyword, or `[[...]]`; its end, or npos when none starts there.
size_t listAt(std::string_view text, size_t at) {
  if (text[at] == '[') return at + 1 < text.size() && text[at + 1] == '[' ? pastGroup(text, at) : std::string_view::npos;
  // Most places start no list: only the keyword's first bytes are worth reading the word for.
  if (text.substr(at, 11) != "__attribute" || (at > 0 && wordPart(text[at - 1]))) return std::string_view::npos;
  size_t end = at;
  while (end < text.size() && wordPart(text[end])) ++end;
  std::string_view word = text.substr(at, end - at);
  if (word != "__attribute__" && word != "__attribute") return std::string_view::npos;
  size_t open = skipSpaces(text, end);
  return open < text.size() && text[open] == '(' ? pastGroup(text, open) : std::string_view::npos;
}

// The attribute list written around `offset`, looked for in the 512 bytes before it.
std::optional<std::pair<size_t, size_t>> listAround(std::string_view text, size_t offset) {
  size_t from = offset > 512 ? offset - 512 : 0;
  for (size_t at = offset + 1; at-- > from;)
    if (size_t end = listAt(text, at); end != std::string_view::npos && offset < end) return std::make_pair(at, end);
  return std::nullopt;
}

// Where a declaration's own text ends for its attributes: the first `;`, `{` or `=` after its
// name outside parentheses and brackets (2 KiB at most).
size_t declarationEnd(std::string_view text, size_t name) {
  int depth = 0;
  for (size_t i = name, last = std::min(text.size(), name + 2048); i < last; ++i) {
    char ch = text[i];
    if (ch == '(' || ch == '[') ++depth;
    else if (ch == ')' || ch == ']') --depth;
    else if (depth <= 0 && (ch == ';' || ch == '{' || ch == '=')) return i;
  }
  return std::min(text.size(), name + 2048);
}

// A word of an attribute list, with the entity of the declaration it is written on.
struct Word {
  uint32_t file, offset;
  const Collector::AttributeAt* attribute;
  bool operator<(const Word& o) const { return std::tie(file, offset) < std::tie(o.file, o.offset); }
};

// The words of the list [start, end) a user might click (support/CodeIdentifiers: not in a
// literal, not a number, not a keyword — `__attribute__` is none).
void wordsOf(const Collector::AttributeAt& a, uint32_t file, std::string_view text, size_t start, size_t end,
             std::vector<Word>& out) {
  for (uint32_t at : codeIdentifierStarts(text.substr(start, end - start), Language::Cpp))
    out.push_back({file, static_cast<uint32_t>(start + at), &a});
}

}  // namespace

void addAttributeWords(Collector& c) {
  if (c.attributes.empty()) return;
  std::vector<Word> words;
  std::set<std::pair<uint32_t, size_t>> lists;  // (file, start) of each list done
  auto add = [&](const Collector::AttributeAt& a, uint32_t file, std::string_view text, size_t start, size_t end) {
    if (lists.insert({file, start}).second) wordsOf(a, file, text, start, end, words);
  };
  // Each attribute place and each declaration once: a redeclaration inherits its predecessors'
  // attributes, with their places.
  std::unordered_set<uint64_t> places, declarations;
  auto once = [](std::unordered_set<uint64_t>& seen, uint32_t file, uint32_t offset) {
    return seen.insert(static_cast<uint64_t>(file) << 32 | offset).second;
  };
  for (const Collector::AttributeAt& a : c.attributes) {
    std::string_view text = c.contentOf(a.file);
    // The list around the attribute's own place (a macro's expansion writes none there).
    if (a.offset < text.size() && once(places, a.file, a.offset) && !c.inExpansion(a.file, a.offset))
      if (auto list = listAround(text, a.offset)) add(a, a.file, text, list->first, list->second);
    // The lists written on the declaration itself, before its name and after it: one repeating
    // an attribute of an earlier declaration is merged into that one's (`__attribute__((weak))`
    // on a definition whose prototype has it), whose place the attribute keeps.
    if (a.declarationFile == UINT32_MAX || !once(declarations, a.declarationFile, a.name)) continue;
    std::string_view own = c.contentOf(a.declarationFile);
    if (a.name >= own.size() || a.start > a.name || c.inExpansion(a.declarationFile, a.name)) continue;
    for (size_t at = a.start, end = declarationEnd(own, a.name); at < end; ++at)
      if (size_t past = listAt(own, at); past != std::string_view::npos) {
        add(a, a.declarationFile, own, at, past);
        at = past - 1;
      }
  }
  if (words.empty()) return;
  // A word where a name was recorded stays that name's (a macro's): one pass over the unit's
  // names against the few words, rather than an index of every name.
  std::unordered_set<uint64_t> named;
  named.reserve(words.size());
  for (const Word& w : words) named.insert(static_cast<uint64_t>(w.file) << 32 | w.offset);
  std::unordered_set<uint64_t> taken;
  for (const ClangOccurrence& o : c.facts.occurrences)
    if (uint64_t key = static_cast<uint64_t>(o.file) << 32 | o.offset; named.count(key)) taken.insert(key);
  std::sort(words.begin(), words.end());
  for (size_t k = 0; k < words.size(); ++k) {
    if (taken.count(static_cast<uint64_t>(words[k].file) << 32 | words[k].offset) || (k > 0 && !(words[k - 1] < words[k])))
      continue;
    c.addAt(words[k].file, words[k].offset, words[k].attribute->usr, ClangRole::Reference, words[k].attribute->kind, false, false);
    c.facts.occurrences.back().unlisted = true;
  }
}

}  // namespace nib::clangindex
