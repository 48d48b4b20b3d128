// Text positions. nib stores 0-based lines and UTF-8 byte columns (plus byte offsets); the
// protocol edge converts columns to UTF-16 or UTF-32 code units with a LineTable built from the
// file's content. This is the only place that knows how code units are counted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nib {

struct Position {
  uint32_t line = 0;    // 0-based
  uint32_t column = 0;  // 0-based, in UTF-8 bytes from the line start
  friend bool operator==(const Position&, const Position&) = default;
  friend auto operator<=>(const Position&, const Position&) = default;
};

struct ByteRange {
  uint32_t startByte = 0;
  uint32_t endByte = 0;
  Position start;
  Position end;
  bool contains(uint32_t offset) const { return startByte <= offset && offset < endByte; }
  // Inclusive end: a cursor just after an identifier still names it, as editors expect.
  bool touches(uint32_t offset) const { return startByte <= offset && offset <= endByte; }
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

enum class Encoding { Utf8, Utf16, Utf32 };

// Lines are 0-based inside nib and on the LSP wire, 1-based in everything rendered for people
// and agents (CLI text, MCP output, context bundles). These two functions are the only place
// the difference is applied.
inline uint32_t toDisplayLine(uint32_t line) { return line + 1; }
inline uint32_t fromDisplayLine(uint32_t displayLine) { return displayLine == 0 ? 0 : displayLine - 1; }

bool isValidUtf8(std::string_view text);
// `text` with each byte that starts no whole UTF-8 sequence (a file in another encoding, a
// sequence cut short) replaced by U+FFFD: for formats whose strings must be UTF-8 (SCIP).
std::string validUtf8(std::string_view text);

// Past white space (space, tab, line breaks) and C-style comments (`//` to the line's end,
// `/* */`) from `at`: the trivia between tokens of C-like text (TypeScript, JSON with comments).
// The text's size when an unclosed comment runs to its end.
size_t skipCodeTrivia(std::string_view text, size_t at);
// True when every byte is < 0x80, in which case all encodings count columns alike.
bool isAscii(std::string_view text);
// Whether `c` may be part of a C-family identifier (ASCII letters, digits, `_`).
inline bool isIdentifierByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
// The identifier touching `offset`, as an editor's cursor gives it: [start, end), or nothing
// (no word there, or a number).
std::optional<std::pair<uint32_t, uint32_t>> identifierAround(std::string_view text, uint32_t offset);

class LineTable {
 public:
  explicit LineTable(std::string_view text);

  uint32_t lineCount() const { return static_cast<uint32_t>(starts_.size()); }
  // Byte offset of a (line, byte column) position; clamped to the line's end. Returns false
  // when the line does not exist.
  bool offsetOf(Position pos, uint32_t* offset) const;
  Position positionOf(uint32_t offset) const;
  std::string_view lineText(uint32_t line) const;

  // Converts a UTF-8 byte column to code units in `enc`, and back. Malformed UTF-8 counts one
  // unit per byte so that conversion never fails.
  uint32_t toUnits(uint32_t line, uint32_t byteColumn, Encoding enc) const;
  uint32_t fromUnits(uint32_t line, uint32_t units, Encoding enc) const;

 private:
  std::string_view text_;
  std::vector<uint32_t> starts_;
};

// A file's text with its line table, made once: a caller listing many places in few files keeps
// one per file (std::map's nodes stay where they are, and the table views the text beside it).
class LinedText {
 public:
  explicit LinedText(std::string text) : text_(std::move(text)), lines_(text_) {}
  LinedText(const LinedText&) = delete;
  LinedText& operator=(const LinedText&) = delete;
  const std::string& text() const { return text_; }
  const LineTable& lines() const { return lines_; }

 private:
  std::string text_;  // before lines_, which views it
  LineTable lines_;
};

}  // namespace nib
