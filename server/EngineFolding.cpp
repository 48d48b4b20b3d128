// The Engine's folding ranges: the regions an editor folds, from the file's facts (the open
// buffer's when it is open) — every definition that spans lines: functions, classes, methods,
// multi-line initialisers. No syntax tree is needed at request time.
#include <algorithm>

#include "server/Engine.h"

namespace nib {

Expected<std::vector<FoldRange>> Engine::foldingRanges(const std::string& path) {
  auto facts = this->facts(path);
  if (!facts) return facts.status();
  auto text = currentText(path);
  if (!text) return text.status();
  std::vector<FoldRange> out;
  for (const Definition& d : facts->definitions) {
    if (d.range.end.line <= d.range.start.line || d.range.endByte > text->size()) continue;
    FoldRange f{d.range.start.line, d.range.end.line};
    // A definition that ends with a closing token alone on its last line (`}`, `};`, `end`)
    // folds up to the line before it, so the folded text still shows where the body ends,
    // as editors fold brace languages.
    size_t lineStart = text->rfind('\n', d.range.endByte > 0 ? d.range.endByte - 1 : 0);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    std::string_view last(text->data() + lineStart, d.range.endByte - lineStart);
    size_t first = last.find_first_not_of(" \t");
    if (first != std::string_view::npos && (last[first] == '}' || last[first] == ')' || last[first] == ']'))
      f.endLine = d.range.end.line - 1;
    if (f.endLine > f.startLine) out.push_back(f);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace nib
