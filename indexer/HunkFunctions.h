// The functions a change touched, read from the changed file's new text the way git names a
// hunk's function (`@@ -10,2 +10,3 @@ parse_args (int argc, char **argv)`): the nearest line at
// or above a changed line that starts with a letter, `_` or `$` — git's default heuristic, with
// no per-language driver — and from it the name a unit of the file would carry.
//
// The history view keeps these names per commit and file so that past commits like a query
// vote for the functions they changed, not only for their files (views/HistoryView.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nib {

// A changed stretch of a file's new text: `count` lines from line `first` (1-based); a count of
// 0 is a deletion after line `first` (0: at the top).
struct ChangedLines {
  uint32_t first = 0;
  uint32_t count = 0;
};

class HunkFunctions {
 public:
  static constexpr size_t kMaxNames = 16;  // per file and commit: more is a sweeping edit

  // The name a function line declares: the identifier before its first `(` (`static int
  // foo (void)`, `def foo(self):`, `export function foo(`), else the name after `class`,
  // `struct`, `union`, `enum`, `interface`, `trait` or `impl`; "" for anything else (a
  // statement at column 0, a keyword before its parenthesis: `if (`, `function (`).
  static std::string nameOf(std::string_view line);

  // The distinct names, sorted, of the functions the `changes` of `text` fall in: each
  // change's enclosing function line and every function line inside it; at most kMaxNames.
  static std::vector<std::string> touched(std::string_view text, const std::vector<ChangedLines>& changes);
};

}  // namespace nib
