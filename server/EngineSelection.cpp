// The Engine's selection ranges (textDocument/selectionRange): the steps of an editor's
// "expand selection" from a position, from the file's facts (the open buffer's when it is open)
// rather than a syntax tree at request time: the identifier there, the line's text, every
// definition and source unit that contains it, and the whole file.
#include <algorithm>

#include "server/Engine.h"
#include "support/Text.h"

namespace nib {
namespace {

bool isWordByte(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

ByteRange byteRange(const LineTable& lines, uint32_t from, uint32_t to) {
  ByteRange r;
  r.startByte = from;
  r.endByte = to;
  r.start = lines.positionOf(from);
  r.end = lines.positionOf(to);
  return r;
}

bool contains(const ByteRange& outer, const ByteRange& inner) {
  return outer.startByte <= inner.startByte && inner.endByte <= outer.endByte;
}

}  // namespace

Expected<Engine::SelectionChain> Engine::selectionRanges(const std::string& path, uint32_t offset) {
  auto facts = this->facts(path);
  if (!facts) return facts.status();
  auto text = currentText(path);
  if (!text) return text.status();
  const uint32_t size = static_cast<uint32_t>(text->size());
  offset = std::min(offset, size);
  LineTable lines(*text);
  std::vector<ByteRange> candidates;
  // The name at the position: an occurrence's range, else the run of word bytes around it.
  bool named = false;
  for (const Occurrence& o : facts->occurrences)
    if (o.range.startByte <= offset && offset < o.range.endByte && o.range.endByte <= size) {
      candidates.push_back(o.range);
      named = true;
      break;
    }
  if (!named) {
    uint32_t from = offset, to = offset;
    while (from > 0 && isWordByte((*text)[from - 1])) --from;
    while (to < size && isWordByte((*text)[to])) ++to;
    if (to > from) candidates.push_back(byteRange(lines, from, to));
  }
  // The line's text without its indentation and trailing blanks.
  Position at = lines.positionOf(offset);
  std::string_view line = lines.lineText(at.line);
  uint32_t lineStart = offset - at.column;
  size_t first = line.find_first_not_of(" \t\r");
  size_t last = line.find_last_not_of(" \t\r");
  if (first != std::string_view::npos)
    candidates.push_back(byteRange(lines, lineStart + static_cast<uint32_t>(first),
                                   lineStart + static_cast<uint32_t>(last) + 1));
  for (const Definition& d : facts->definitions)
    if (d.range.startByte <= offset && offset <= d.range.endByte && d.range.endByte <= size) candidates.push_back(d.range);
  for (const SourceUnit& u : facts->units)
    if (u.range.startByte <= offset && offset <= u.range.endByte && u.range.endByte <= size) candidates.push_back(u.range);
  candidates.push_back(byteRange(lines, 0, size));
  // Smallest first; a range joins the chain only when it contains the last one taken (and is
  // larger), so the answer nests as the protocol requires.
  std::stable_sort(candidates.begin(), candidates.end(), [](const ByteRange& a, const ByteRange& b) {
    return a.endByte - a.startByte < b.endByte - b.startByte;
  });
  SelectionChain out;
  out.ascii = facts->ascii;
  for (const ByteRange& r : candidates) {
    if (!out.ranges.empty()) {
      const ByteRange& inner = out.ranges.back();
      if (!contains(r, inner) || (r.startByte == inner.startByte && r.endByte == inner.endByte)) continue;
    }
    out.ranges.push_back(r);
  }
  return out;
}

}  // namespace nib
