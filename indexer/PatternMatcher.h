// Matches nib's extraction patterns (a subset of tree-sitter's query language) against nodes
// during the extractor's own tree walk. tree-sitter's query cursor walks the whole tree a
// second time and costs as much as a third of the parse; matching only at the nodes whose type
// roots a pattern, inside the walk nib does anyway, removes that cost.
//
// Supported syntax: `(type child* )`, `(_)`, `[alt alt ...]`, `field: pattern`, `!field`, the
// anchor `.` before a first child, `@capture` after any pattern, `;` comments. Children match
// named children in order (not necessarily adjacent), as in tree-sitter; every way a pattern
// matches yields one match. The same text still compiles with ts_query_new in the tests, so
// the files stay valid tree-sitter queries.
#pragma once

#include <tree_sitter/api.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "support/Status.h"

namespace nib {

struct PatternCapture {
  uint16_t id;  // index into captureNames()
  TSNode node;
};

// A non-owning reference to a callable: continuations in the matcher are created per step and
// must not allocate the way std::function does for larger captures.
template <typename Signature>
class FunctionRef;
template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F>
  FunctionRef(F& f) : obj_(&f), call_([](void* o, Args... a) -> R { return (*static_cast<F*>(o))(a...); }) {}
  R operator()(Args... a) const { return call_(obj_, a...); }

 private:
  void* obj_;
  R (*call_)(void*, Args...);
};

class PatternSet {
 public:
  static Expected<PatternSet> compile(const TSLanguage* language, std::string_view source);

  const std::vector<std::string>& captureNames() const { return captureNames_; }
  size_t patternCount() const { return patterns_.size(); }
  // True when some pattern's root can be a node of this symbol.
  bool rootsAt(TSSymbol symbol) const { return symbol < byRoot_.size() && !byRoot_[symbol].empty(); }
  // Calls `onMatch` once per match rooted at `node`, with that match's captures.
  void match(TSNode node, const std::function<void(const std::vector<PatternCapture>&)>& onMatch) const;

 private:
  struct Step {
    bool wildcard = false;          // (_)
    std::vector<bool> symbols;      // accepted node symbols, when not a wildcard
    TSFieldId field = 0;            // required field of this child in its parent, 0: any
    bool anchored = false;          // must be the first named child
    std::vector<TSFieldId> absentFields;
    std::vector<uint16_t> captures;
    std::vector<Step> children;
    std::vector<Step> alternatives;  // non-empty for [ ... ]
  };
  friend class PatternParser;

  using Next = FunctionRef<void(std::vector<PatternCapture>&)>;
  using Kid = std::pair<TSNode, TSFieldId>;
  // Matches `node` against `step`; for every way it matches, calls `next` with the captures so
  // far (the step's own included).
  void matchStep(TSNode node, const Step& step, std::vector<PatternCapture>& caps, Next next) const;
  // Children lists live on one per-thread stack, addressed by index: continuations run while
  // outer steps still iterate their own lists, so a list stays until its step returns.
  size_t pushNamedChildren(TSNode node) const;
  void matchChildren(size_t begin, size_t end, size_t from, const Step& parent, size_t k,
                     std::vector<PatternCapture>& caps, Next done) const;

  std::vector<Step> patterns_;
  std::vector<std::vector<size_t>> byRoot_;  // symbol -> patterns whose root accepts it
  std::vector<std::string> captureNames_;
};

}  // namespace nib
