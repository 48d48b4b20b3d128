#include "indexer/PatternMatcher.h"

#include <cctype>

namespace nib {

// Recursive-descent reader of the pattern text.
class PatternParser {
 public:
  PatternParser(const TSLanguage* lang, std::string_view src, PatternSet& out) : lang_(lang), src_(src), out_(out) {}

  Status parseAll() {
    for (;;) {
      skipSpace();
      if (pos_ >= src_.size()) return Status::ok();
      PatternSet::Step step;
      NIB_RETURN_IF_ERROR(parsePattern(step));
      out_.patterns_.push_back(std::move(step));
    }
  }

 private:
  Status error(const std::string& what) {
    size_t lineStart = src_.rfind('\n', pos_ == 0 ? 0 : pos_ - 1);
    lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
    size_t lineEnd = src_.find('\n', pos_);
    return Status(ErrorCode::Internal, what + " at offset " + std::to_string(pos_) + " in: " +
                                           std::string(src_.substr(lineStart, lineEnd == std::string_view::npos
                                                                                  ? std::string_view::npos
                                                                                  : lineEnd - lineStart)));
  }

  void skipSpace() {
    while (pos_ < src_.size()) {
      if (std::isspace(static_cast<unsigned char>(src_[pos_]))) ++pos_;
      else if (src_[pos_] == ';') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else break;
    }
  }

  std::string_view token() {
    size_t start = pos_;
    while (pos_ < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_' ||
                                  src_[pos_] == '.' || src_[pos_] == '-'))
      ++pos_;
    return src_.substr(start, pos_ - start);
  }

  uint16_t captureId(std::string_view name) {
    for (size_t i = 0; i < out_.captureNames_.size(); ++i)
      if (out_.captureNames_[i] == name) return static_cast<uint16_t>(i);
    out_.captureNames_.emplace_back(name);
    return static_cast<uint16_t>(out_.captureNames_.size() - 1);
  }

  Status parseCaptures(PatternSet::Step& step) {
    for (;;) {
      skipSpace();
      if (pos_ >= src_.size() || src_[pos_] != '@') return Status::ok();
      ++pos_;
      std::string_view name = token();
      if (name.empty()) return error("empty capture name");
      step.captures.push_back(captureId(name));
    }
  }

  Status parsePattern(PatternSet::Step& step) {
    skipSpace();
    if (pos_ >= src_.size()) return error("unexpected end of patterns");
    if (src_[pos_] == '[') {
      ++pos_;
      for (;;) {
        skipSpace();
        if (pos_ >= src_.size()) return error("unterminated [");
        if (src_[pos_] == ']') {
          ++pos_;
          break;
        }
        PatternSet::Step alt;
        NIB_RETURN_IF_ERROR(parsePattern(alt));
        step.alternatives.push_back(std::move(alt));
      }
      if (step.alternatives.empty()) return error("empty alternation");
      return parseCaptures(step);
    }
    if (src_[pos_] != '(') return error("expected ( or [");
    ++pos_;
    skipSpace();
    std::string_view type = token();
    if (type.empty()) return error("expected a node type");
    if (type == "_") {
      step.wildcard = true;
    } else {
      uint32_t count = ts_language_symbol_count(lang_);
      step.symbols.assign(count, false);
      bool any = false;
      for (TSSymbol s = 0; s < count; ++s)
        if (ts_language_symbol_type(lang_, s) == TSSymbolTypeRegular && type == ts_language_symbol_name(lang_, s)) {
          step.symbols[s] = true;
          any = true;
        }
      if (!any) return error("unknown node type '" + std::string(type) + "'");
    }
    bool anchorNext = false;
    for (;;) {
      skipSpace();
      if (pos_ >= src_.size()) return error("unterminated (");
      char c = src_[pos_];
      if (c == ')') {
        ++pos_;
        break;
      }
      if (c == '.') {
        ++pos_;
        anchorNext = true;
        continue;
      }
      if (c == '!') {
        ++pos_;
        std::string_view field = token();
        TSFieldId id = ts_language_field_id_for_name(lang_, field.data(), static_cast<uint32_t>(field.size()));
        if (!id) return error("unknown field '" + std::string(field) + "'");
        step.absentFields.push_back(id);
        continue;
      }
      PatternSet::Step child;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t save = pos_;
        std::string_view field = token();
        skipSpace();
        if (pos_ < src_.size() && src_[pos_] == ':') {
          ++pos_;
          child.field = ts_language_field_id_for_name(lang_, field.data(), static_cast<uint32_t>(field.size()));
          if (!child.field) return error("unknown field '" + std::string(field) + "'");
        } else {
          pos_ = save;
          return error("bare node names are not supported; write (" + std::string(field) + ")");
        }
      }
      TSFieldId field = child.field;
      NIB_RETURN_IF_ERROR(parsePattern(child));
      child.field = field;
      child.anchored = anchorNext;
      anchorNext = false;
      step.children.push_back(std::move(child));
    }
    return parseCaptures(step);
  }

  const TSLanguage* lang_;
  std::string_view src_;
  PatternSet& out_;
  size_t pos_ = 0;
};

Expected<PatternSet> PatternSet::compile(const TSLanguage* language, std::string_view source) {
  PatternSet set;
  PatternParser parser(language, source, set);
  NIB_RETURN_IF_ERROR(parser.parseAll());
  set.byRoot_.assign(ts_language_symbol_count(language), {});
  std::function<void(const Step&, size_t)> index = [&](const Step& s, size_t p) {
    if (!s.alternatives.empty()) {
      for (const Step& a : s.alternatives) index(a, p);
      return;
    }
    for (size_t sym = 0; sym < set.byRoot_.size(); ++sym)
      if (s.wildcard ? ts_language_symbol_type(language, static_cast<TSSymbol>(sym)) == TSSymbolTypeRegular
                     : static_cast<bool>(s.symbols[sym])) {
        auto& v = set.byRoot_[sym];
        if (v.empty() || v.back() != p) v.push_back(p);
      }
  };
  for (size_t p = 0; p < set.patterns_.size(); ++p) index(set.patterns_[p], p);
  return set;
}

namespace {
thread_local std::vector<std::pair<TSNode, TSFieldId>> tlsKids;

// One tree cursor per thread, reset to each node whose children are listed: a new cursor per
// node allocated its stack and freed it again, for every node a pattern is rooted at.
struct ThreadCursor {
  TSTreeCursor cursor{};
  bool made = false;
  ~ThreadCursor() {
    if (made) ts_tree_cursor_delete(&cursor);
  }
  TSTreeCursor* at(TSNode node) {
    if (made) {
      ts_tree_cursor_reset(&cursor, node);
    } else {
      cursor = ts_tree_cursor_new(node);
      made = true;
    }
    return &cursor;
  }
};
thread_local ThreadCursor tlsCursor;
}  // namespace

size_t PatternSet::pushNamedChildren(TSNode node) const {
  // Not reentrant, and need not be: the children are copied out before anything else runs.
  TSTreeCursor* cur = tlsCursor.at(node);
  if (ts_tree_cursor_goto_first_child(cur)) {
    do {
      TSNode k = ts_tree_cursor_current_node(cur);
      if (ts_node_is_named(k)) tlsKids.emplace_back(k, ts_tree_cursor_current_field_id(cur));
    } while (ts_tree_cursor_goto_next_sibling(cur));
  }
  return tlsKids.size();
}

void PatternSet::match(TSNode node, const std::function<void(const std::vector<PatternCapture>&)>& onMatch) const {
  TSSymbol sym = ts_node_symbol(node);
  if (sym >= byRoot_.size()) return;
  std::vector<PatternCapture> caps;
  auto emit = [&](std::vector<PatternCapture>& c) { onMatch(c); };
  // Several patterns often share a root type (C declarations have eight): list the root's
  // children once for all of them.
  size_t base = tlsKids.size(), end = base;
  bool haveKids = false;
  for (size_t p : byRoot_[sym]) {
    caps.clear();
    const Step& step = patterns_[p];
    if (step.alternatives.empty() && !step.children.empty()) {
      if (step.wildcard ? !ts_node_is_named(node) : !step.symbols[sym]) continue;
      bool absent = true;
      for (TSFieldId f : step.absentFields) absent &= ts_node_is_null(ts_node_child_by_field_id(node, f));
      if (!absent) continue;
      if (!haveKids) {
        end = pushNamedChildren(node);
        haveKids = true;
      }
      for (uint16_t id : step.captures) caps.push_back({id, node});
      matchChildren(base, end, base, step, 0, caps, emit);
      continue;
    }
    matchStep(node, step, caps, emit);
  }
  tlsKids.resize(base);
}

void PatternSet::matchStep(TSNode node, const Step& step, std::vector<PatternCapture>& caps, Next next) const {
  if (!step.alternatives.empty()) {
    for (const Step& alt : step.alternatives) {
      auto withOwn = [&](std::vector<PatternCapture>& c) {
        size_t mark = c.size();
        for (uint16_t id : step.captures) c.push_back({id, node});
        next(c);
        c.resize(mark);
      };
      matchStep(node, alt, caps, withOwn);
    }
    return;
  }
  // Error nodes carry symbol 65535, outside every grammar's table.
  TSSymbol sym = ts_node_symbol(node);
  if (step.wildcard ? !ts_node_is_named(node) : (sym >= step.symbols.size() || !step.symbols[sym])) return;
  for (TSFieldId f : step.absentFields)
    if (!ts_node_is_null(ts_node_child_by_field_id(node, f))) return;
  size_t mark = caps.size();
  for (uint16_t id : step.captures) caps.push_back({id, node});
  if (step.children.empty()) {
    next(caps);
  } else {
    size_t begin = tlsKids.size();
    size_t end = pushNamedChildren(node);
    matchChildren(begin, end, begin, step, 0, caps, next);
    tlsKids.resize(begin);
  }
  caps.resize(mark);
}

void PatternSet::matchChildren(size_t begin, size_t end, size_t from, const Step& parent, size_t k,
                               std::vector<PatternCapture>& caps, Next done) const {
  if (k == parent.children.size()) {
    done(caps);
    return;
  }
  const Step& child = parent.children[k];
  for (size_t i = from; i < end; ++i) {
    if (child.anchored && i != begin) break;
    if (child.field && tlsKids[i].second != child.field) continue;
    auto rest = [&](std::vector<PatternCapture>& c) { matchChildren(begin, end, i + 1, parent, k + 1, c, done); };
    matchStep(tlsKids[i].first, child, caps, rest);
  }
}

}  // namespace nib
