#include "support/CodeIdentifiers.h"

#include <algorithm>
#include <string>
#include <unordered_set>

namespace nib {
namespace {

using WordSet = std::unordered_set<std::string_view>;

// Each list is one string of words, split once (the sets view these literals).
WordSet words(std::initializer_list<std::string_view> lists) {
  WordSet out;
  for (std::string_view list : lists) {
    size_t i = 0;
    while (i < list.size()) {
      while (i < list.size() && list[i] == ' ') ++i;
      size_t j = list.find(' ', i);
      if (j == std::string_view::npos) j = list.size();
      if (j > i) out.insert(list.substr(i, j - i));
      i = j;
    }
  }
  return out;
}

constexpr std::string_view kC =
    "auto break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
    "_Bool _Complex _Imaginary _Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert _Thread_local include "
    "define undef ifdef ifndef elif endif pragma error warning line defined";
constexpr std::string_view kCpp =
    "alignas alignof and and_eq asm bitand bitor bool catch char8_t char16_t char32_t class compl concept consteval "
    "constexpr constinit const_cast co_await co_return co_yield decltype delete dynamic_cast explicit export false "
    "friend mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public "
    "reinterpret_cast requires static_assert static_cast template this thread_local throw true try typeid typename "
    "using virtual wchar_t xor xor_eq override final";
constexpr std::string_view kScript =
    "break case catch class const continue debugger default delete do else enum export extends false finally for "
    "function if import in instanceof new null return super switch this throw true try typeof var void while with "
    "as implements interface let package private protected public static yield any boolean constructor declare get "
    "set module number string symbol type from of async await readonly keyof unique infer is never unknown "
    "undefined abstract namespace satisfies override accessor object bigint asserts global";
// Python's keyword.kwlist: soft keywords (match, case, type) are names.
constexpr std::string_view kPython =
    "False None True and as assert async await break class continue def del elif else except finally for from "
    "global if import in is lambda nonlocal not or pass raise return try while with yield";
constexpr std::string_view kGo =
    "break case chan const continue default defer else fallthrough for func go goto if import interface map "
    "package range return select struct switch type var";
constexpr std::string_view kRust =
    "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move "
    "mut pub ref return self Self static struct super trait true type unsafe use where while";
constexpr std::string_view kJava =
    "abstract assert boolean break byte case catch char class const continue default do double else enum extends "
    "final finally float for goto if implements import instanceof int interface long native new package private "
    "protected public return short static strictfp super switch synchronized this throw throws transient try void "
    "volatile while true false null var record yield sealed permits";

const WordSet& keywordsOf(Language language) {
  static const WordSet c = words({kC}), cpp = words({kC, kCpp}), script = words({kScript}),
                       python = words({kPython}), go = words({kGo}), rust = words({kRust}), java = words({kJava}),
                       none;
  switch (language) {
    case Language::C: return c;
    case Language::Cpp: return cpp;
    case Language::JavaScript:
    case Language::TypeScript:
    case Language::Tsx: return script;
    case Language::Python: return python;
    case Language::Go: return go;
    case Language::Rust: return rust;
    case Language::Java: return java;
    case Language::Unknown: break;
  }
  return none;
}

// Bytes of non-ASCII characters count as letters: an identifier may hold them.
bool identStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
bool identPart(char c) { return identStart(c) || (c >= '0' && c <= '9'); }

// Where the literal opened at `i` by `close` ends: past its closing quote(s), skipping backslash
// escapes; at the line's end when it may not span lines; at the text's end.
size_t literalEnd(std::string_view text, size_t i, std::string_view close, bool multiline) {
  size_t j = i + close.size();
  while (j < text.size() && text.compare(j, close.size(), close) != 0) {
    if (text[j] == '\\') ++j;
    else if (text[j] == '\n' && !multiline) return j;
    ++j;
  }
  return std::min(text.size(), j + close.size());
}

size_t lineEnd(std::string_view text, size_t i) {
  size_t j = text.find('\n', i);
  return j == std::string_view::npos ? text.size() : j;
}

bool onlyBlanksBefore(std::string_view text, size_t i) {
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  return i == 0 || text[i - 1] == '\n';
}

bool includeDirective(std::string_view text, size_t i) {
  size_t j = i + 1;
  while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
  for (std::string_view d : {"include", "import"})
    if (text.compare(j, d.size(), d) == 0) return true;
  return false;
}

// Where the comment or literal starting at `i` ends, or `i` when none starts there.
size_t skipNonCode(std::string_view text, size_t i, Language language) {
  char c = text[i];
  char next = i + 1 < text.size() ? text[i + 1] : '\0';
  bool python = language == Language::Python;
  bool cFamily = language == Language::C || language == Language::Cpp;
  bool backtick = language == Language::JavaScript || language == Language::TypeScript ||
                  language == Language::Tsx || language == Language::Go;
  if (python) {
    if (c == '#') return lineEnd(text, i);
    if (c == '"' || c == '\'') {
      bool triple = text.compare(i, 3, std::string(3, c)) == 0;
      return literalEnd(text, i, triple ? std::string_view(text.data() + i, 3) : std::string_view(text.data() + i, 1),
                        triple);
    }
    return i;
  }
  if (c == '/' && next == '/') return lineEnd(text, i);
  if (c == '/' && next == '*') {
    size_t j = text.find("*/", i + 2);
    return j == std::string_view::npos ? text.size() : j + 2;
  }
  if (c == '"') return literalEnd(text, i, "\"", false);
  if (c == '`' && backtick) return literalEnd(text, i, "`", true);
  if (c == '\'') {
    size_t end = literalEnd(text, i, "'", false);
    // A Rust lifetime ('a) is code: a character literal closes within a few bytes.
    if (language == Language::Rust && end - i > 4) return i + 1;
    return end;
  }
  if (cFamily && c == '#' && onlyBlanksBefore(text, i) && includeDirective(text, i)) return lineEnd(text, i);
  return i;
}

// A word longer than any keyword of any language (`reinterpret_cast`) needs no lookup: most
// identifiers of C code are (`xmlParserCtxtPtr`).
size_t longestKeyword() {
  static const size_t longest = [] {
    size_t n = 0;
    for (Language l : {Language::C, Language::Cpp, Language::JavaScript, Language::Python, Language::Go, Language::Rust,
                       Language::Java})
      for (std::string_view w : keywordsOf(l)) n = std::max(n, w.size());
    return n;
  }();
  return longest;
}

}  // namespace

bool isLanguageKeyword(std::string_view word, Language language) {
  return word.size() <= longestKeyword() && keywordsOf(language).count(word) > 0;
}

std::vector<uint32_t> codeIdentifierStarts(std::string_view text, Language language) {
  std::vector<uint32_t> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t skipped = skipNonCode(text, i, language);
    if (skipped != i) {
      i = skipped;
      continue;
    }
    char c = text[i];
    if (!identStart(c) || (i > 0 && identPart(text[i - 1]))) {
      // A number's letters (0x1f, 1e5) are no identifier: the whole run is skipped.
      if (c >= '0' && c <= '9')
        while (i < text.size() && identPart(text[i])) ++i;
      else
        ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && identPart(text[j])) ++j;
    // Python string prefixes (r"", b'', f"""…""") belong to the literal that follows.
    bool prefix = language == Language::Python && j < text.size() && (text[j] == '"' || text[j] == '\'') && j - i <= 2;
    if (!prefix && !isLanguageKeyword(text.substr(i, j - i), language)) out.push_back(static_cast<uint32_t>(i));
    i = j;
  }
  return out;
}

}  // namespace nib
