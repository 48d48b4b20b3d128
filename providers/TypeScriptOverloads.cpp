#include "providers/TypeScriptOverloads.h"

#include "support/Text.h"

#include <cctype>
#include <algorithm>
#include <cstdint>
#include <string>

namespace nib {
namespace {

// How far a signature's text is read for its body: past that, nothing is decided.
constexpr size_t kMaxScan = 8192;

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

size_t skipBalanced(std::string_view text, size_t at, bool angles);

// Past the string or template literal opening at `at` (a template's `${...}` parts included).
size_t skipString(std::string_view text, size_t at) {
  const char quote = text[at++];
  while (at < text.size() && text[at] != quote) {
    if (text[at] == '\\') {
      at += 2;
    } else if (quote == '`' && text.compare(at, 2, "${") == 0) {
      at = skipBalanced(text, at + 1, false);
      if (at == std::string_view::npos) return text.size();
    } else if (quote != '`' && text[at] == '\n') {
      return at;  // an unterminated string ends with its line
    } else {
      ++at;
    }
  }
  return at < text.size() ? at + 1 : text.size();
}

// Past the bracket opening at `at` and everything up to its partner, nested brackets, strings and
// comments included; `angles`: `<` and `>` pair too (in types, where `=>` is an arrow). npos when
// it never closes (within kMaxScan) or a bracket closes out of turn.
size_t skipBalanced(std::string_view text, size_t at, bool angles) {
  std::string closers;
  const size_t limit = std::min(text.size(), at + kMaxScan);
  while (at < limit) {
    const char c = text[at];
    if (c == '"' || c == '\'' || c == '`') {
      at = skipString(text, at);
      continue;
    }
    if (text.compare(at, 2, "//") == 0 || text.compare(at, 2, "/*") == 0) {
      at = skipCodeTrivia(text, at);
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || (angles && c == '<')) {
      closers.push_back(c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>');
    } else if (c == ')' || c == ']' || c == '}' || (angles && c == '>' && (at == 0 || text[at - 1] != '='))) {
      if (closers.empty() || closers.back() != c) return std::string_view::npos;  // not what it seemed
      closers.pop_back();
      if (closers.empty()) return at + 1;
    }
    ++at;
  }
  return std::string_view::npos;
}

// The top-level pieces between the bracket opening at `open` and its partner, split at commas
// (nothing when it never closes); `end` is set past the partner.
std::optional<std::vector<std::string_view>> commaSeparated(std::string_view text, size_t open, bool angles, size_t* end) {
  const size_t close = skipBalanced(text, open, angles);
  if (close == std::string_view::npos) return std::nullopt;
  *end = close;
  std::vector<std::string_view> pieces;
  size_t start = open + 1, at = open + 1;
  while (at < close - 1) {
    const char c = text[at];
    if (c == '"' || c == '\'' || c == '`') {
      at = skipString(text, at);
    } else if (text.compare(at, 2, "//") == 0 || text.compare(at, 2, "/*") == 0) {
      at = skipCodeTrivia(text, at);
    } else if (c == '(' || c == '[' || c == '{' || (angles && c == '<')) {
      at = skipBalanced(text, at, angles);
      if (at == std::string_view::npos) return std::nullopt;
    } else if (c == ',') {
      pieces.push_back(text.substr(start, at - start));
      start = ++at;
    } else {
      ++at;
    }
  }
  pieces.push_back(text.substr(start, close - 1 - start));
  return pieces;
}

std::string_view trimmed(std::string_view s) {
  size_t b = skipCodeTrivia(s, 0), e = s.size();
  while (e > b && space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// Past `?.` and a type argument list after a callee's name, at the `(` of a call; npos when the
// name is not called.
size_t callOpen(std::string_view text, size_t at) {
  at = skipCodeTrivia(text, at);
  if (text.compare(at, 2, "?.") == 0) at = skipCodeTrivia(text, at + 2);
  if (at < text.size() && text[at] == '<') {
    at = skipBalanced(text, at, true);
    if (at == std::string_view::npos) return at;
    at = skipCodeTrivia(text, at);
    if (text.compare(at, 2, "?.") == 0) at = skipCodeTrivia(text, at + 2);
  }
  return at < text.size() && text[at] == '(' ? at : std::string_view::npos;
}

// Whether the `{` at `at` opens a body rather than an object type (`): { a: number } {`): a
// type follows `:`, `|`, `&`, `=>`, `,`, or an opening bracket.
bool opensBody(std::string_view text, size_t at) {
  size_t before = at;
  while (before > 0 && space(text[before - 1])) --before;
  if (before == 0) return false;
  const char p = text[before - 1];
  if (p == '>' && before >= 2 && text[before - 2] == '=') return false;
  return p != ':' && p != '|' && p != '&' && p != ',' && p != '(' && p != '[' && p != '<';
}

}  // namespace

std::optional<size_t> callArgumentCount(std::string_view text, size_t nameEnd) {
  size_t open = callOpen(text, nameEnd);
  if (open == std::string_view::npos) return std::nullopt;
  size_t end = 0;
  auto pieces = commaSeparated(text, open, false, &end);
  if (!pieces) return std::nullopt;
  size_t count = 0;
  for (std::string_view piece : *pieces) {
    piece = trimmed(piece);
    if (piece.empty()) continue;  // `f()`, or a trailing comma
    if (piece.substr(0, 3) == "...") return std::nullopt;
    ++count;
  }
  return count;
}

std::optional<SignatureShape> signatureShape(std::string_view text, size_t nameEnd) {
  size_t at = skipCodeTrivia(text, nameEnd);
  if (at < text.size() && text[at] == '?') at = skipCodeTrivia(text, at + 1);  // `m?(a): void`
  if (at < text.size() && text[at] == '<') {
    at = skipBalanced(text, at, true);
    if (at == std::string_view::npos) return std::nullopt;
    at = skipCodeTrivia(text, at);
  }
  if (at >= text.size() || text[at] != '(') return std::nullopt;
  size_t end = 0;
  auto pieces = commaSeparated(text, at, true, &end);
  if (!pieces) return std::nullopt;
  SignatureShape shape;
  for (std::string_view piece : *pieces) {
    piece = trimmed(piece);
    if (piece.empty()) continue;
    if (piece.substr(0, 4) == "this" && (piece.size() == 4 || !identifierChar(piece[4]))) continue;  // `this: T` is no argument
    if (piece.substr(0, 3) == "...") {  // the rest parameter, always the last
      shape.max = SIZE_MAX;
      break;
    }
    // Optional: `?` after the name (or pattern), before its type; or a default value, a
    // top-level `=` that is no arrow's.
    bool optional = false, typed = false;
    for (size_t i = 0; i < piece.size() && !optional; ++i) {
      const char c = piece[i];
      if (c == '{' || c == '[' || c == '(' || c == '<') {
        size_t next = skipBalanced(piece, i, true);
        if (next == std::string_view::npos) break;
        i = next - 1;
      } else if (c == ':') {
        typed = true;
      } else if (c == '?' && !typed) {
        optional = true;
      } else if (c == '=' && (i + 1 >= piece.size() || (piece[i + 1] != '>' && piece[i + 1] != '='))) {
        optional = true;
      }
    }
    ++shape.max;  // required parameters come first: the minimum counts up to the first optional one
    if (!optional) shape.min = shape.max;
  }
  // What follows the parameters: `;` or the end of the enclosing type means no body, a `{`
  // that opens no object type a body. A signature may end without a semicolon at its line's end:
  // unless the next line opens the body or continues the type (`|`, `&`, `.`, ...), the
  // signature ended there.
  for (at = end; at < text.size() && at < end + kMaxScan;) {
    const size_t before = at;
    at = skipCodeTrivia(text, at);
    if (at >= text.size()) break;
    const char c = text[at];
    if (text.substr(before, at - before).find('\n') != std::string_view::npos && c != '{' &&
        std::string_view("|&.=?:,>").find(c) == std::string_view::npos)
      return shape;
    if (c == ';' || c == '}') return shape;
    if (c == '{') {
      if (opensBody(text, at)) {
        shape.body = true;
        return shape;
      }
      at = skipBalanced(text, at, false);
      if (at == std::string_view::npos) return std::nullopt;
    } else if (c == '(' || c == '[' || c == '<') {
      at = skipBalanced(text, at, true);
      if (at == std::string_view::npos) return std::nullopt;
    } else if (c == '"' || c == '\'' || c == '`') {
      at = skipString(text, at);
    } else {
      ++at;
    }
  }
  return shape;
}

std::optional<size_t> chooseOverload(const std::vector<SignatureShape>& signatures, size_t arguments) {
  if (signatures.size() < 2) return std::nullopt;
  size_t visible = signatures.size();
  bool signatureWithoutBody = false;
  for (size_t i = 0; i + 1 < signatures.size(); ++i) signatureWithoutBody = signatureWithoutBody || !signatures[i].body;
  if (!signatureWithoutBody) return std::nullopt;  // no overloads: one function defined twice
  if (signatures.back().body) --visible;           // the implementation: callers see the others
  std::optional<size_t> chosen;
  for (size_t i = 0; i < visible; ++i) {
    if (arguments < signatures[i].min || arguments > signatures[i].max) continue;
    if (chosen) return std::nullopt;
    chosen = i;
  }
  return chosen;
}

}  // namespace nib
