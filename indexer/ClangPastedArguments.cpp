// Macro arguments clangd selects nothing at (indexer/MacroArguments.h): the names libclang's
// indexer reports where such an argument is spelled are flagged `unselected`: no name is under a
// cursor there — clangd lists no references and answers go-to-definition by the word — and they
// stay sites of their entities as written (clangd's index lists a declaration there).
#include <clang-c/Index.h>

#include <algorithm>
#include <memory>
#include <tuple>

#include "indexer/ClangCollector.h"
#include "indexer/MacroArguments.h"

namespace nib::clangindex {
namespace {

struct Tokens {
  std::vector<std::string> text;
  std::vector<unsigned> begin, end;  // file offsets of each token
};

Tokens tokensOf(CXTranslationUnit tu, CXSourceRange range) {
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(tu, range, &tokens, &n);
  Tokens out;
  for (unsigned i = 0; i < n; ++i) {
    if (clang_getTokenKind(tokens[i]) == CXToken_Comment) continue;
    CXSourceRange extent = clang_getTokenExtent(tu, tokens[i]);
    unsigned b = 0, e = 0;
    clang_getFileLocation(clang_getRangeStart(extent), nullptr, nullptr, nullptr, &b);
    clang_getFileLocation(clang_getRangeEnd(extent), nullptr, nullptr, nullptr, &e);
    out.text.push_back(take(clang_getTokenSpelling(tu, tokens[i])));
    out.begin.push_back(b);
    out.end.push_back(e);
  }
  if (tokens) clang_disposeTokens(tu, tokens, n);
  return out;
}

// The unit's function-like macros, each definition tokenized once: by cursor for an invocation's
// own macro, by name for the macros a replacement list invokes (the unit's last definition of
// the name; read on first need, from every file the unit read).
class UnitMacros {
 public:
  explicit UnitMacros(CXTranslationUnit tu) : tu_(tu) {}

  // Per parameter of the macro `definition`, the tokens of its argument its last expansion
  // leaves unselected (pastedLast), and whether its last parameter is variadic; null for a macro
  // none of whose parameters has any.
  struct Pasted {
    std::vector<uint8_t> flags;
    bool variadic = false;
  };
  const Pasted* pasted(CXCursor definition) {
    unsigned hash = clang_hashCursor(definition);
    auto [first, last] = pasted_.equal_range(hash);
    for (auto it = first; it != last; ++it)
      if (clang_equalCursors(std::get<0>(it->second), definition)) return std::get<1>(it->second).get();
    std::unique_ptr<Pasted> out;
    if (auto tokens = macroTokens(tokensOf(tu_, clang_getCursorExtent(definition)).text)) {
      auto flags = pastedLast(*tokens, [&](const std::string& name) { return byName(name); });
      if (std::any_of(flags.begin(), flags.end(), [](uint8_t f) { return f != 0; }))
        out = std::make_unique<Pasted>(Pasted{std::move(flags), tokens->variadic});
    }
    auto it = pasted_.emplace(hash, std::make_tuple(definition, std::move(out)));
    return std::get<1>(it->second).get();
  }

 private:
  // The last definition that tokenizes, tokenized on first need: a unit defines thousands of
  // function-like macros (its system headers'), and a replacement list invokes a few.
  const MacroTokens* byName(const std::string& name) {
    if (!named_) {
      named_.emplace();
      clang_visitChildren(clang_getTranslationUnitCursor(tu_), collectDefinition, this);
    }
    auto [it, added] = tokens_.try_emplace(name);
    if (auto definitions = named_->find(name); added && definitions != named_->end())
      for (auto d = definitions->second.rbegin(); d != definitions->second.rend() && !it->second; ++d)
        it->second = macroTokens(tokensOf(tu_, clang_getCursorExtent(*d)).text);
    return it->second ? &*it->second : nullptr;
  }
  static CXChildVisitResult collectDefinition(CXCursor cursor, CXCursor, CXClientData data) {
    auto* self = static_cast<UnitMacros*>(data);
    if (clang_getCursorKind(cursor) == CXCursor_MacroDefinition && clang_Cursor_isMacroFunctionLike(cursor))
      (*self->named_)[take(clang_getCursorSpelling(cursor))].push_back(cursor);
    return CXChildVisit_Continue;
  }

  CXTranslationUnit tu_;
  std::unordered_multimap<unsigned, std::tuple<CXCursor, std::unique_ptr<Pasted>>> pasted_;
  std::optional<std::unordered_map<std::string, std::vector<CXCursor>>> named_;  // each name's definitions, in order
  std::unordered_map<std::string, std::optional<MacroTokens>> tokens_;
};

}  // namespace

void settlePastedArguments(Collector& c, CXTranslationUnit tu) {
  if (c.functionLikeInvocations.empty()) return;
  UnitMacros macros(tu);
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> spans;  // (file, begin, end) of tokens
  for (const auto& [invocation, definition] : c.functionLikeInvocations) {
    const auto* pasted = macros.pasted(definition);
    if (!pasted) continue;
    CXFile file = nullptr;
    clang_getFileLocation(clang_getCursorLocation(invocation), &file, nullptr, nullptr, nullptr);
    int64_t id = c.fileId(file);
    if (id < 0) continue;
    Tokens call = tokensOf(tu, clang_getCursorExtent(invocation));
    auto arguments = invocationArguments(call.text);
    for (size_t k = 0; k < arguments.size(); ++k) {
      const std::vector<uint8_t>& flags = pasted->flags;
      size_t param = k < flags.size() ? k : pasted->variadic ? flags.size() - 1 : flags.size();
      auto [first, last] = arguments[k];
      if (param >= flags.size() || first == last) continue;
      uint8_t unselected = flags[param];
      auto token = [&](size_t t) { spans.emplace_back(static_cast<uint32_t>(id), call.begin[t], call.end[t]); };
      if (unselected & kPastedEvery) spans.emplace_back(static_cast<uint32_t>(id), call.begin[first], call.end[last - 1]);
      if (unselected & kPastedFirst) token(first);
      if (unselected & kPastedLast) token(last - 1);
    }
  }
  c.functionLikeInvocations.clear();
  if (spans.empty()) return;
  std::sort(spans.begin(), spans.end());
  for (ClangOccurrence& o : c.facts.occurrences) {
    auto it = std::upper_bound(spans.begin(), spans.end(), std::make_tuple(o.file, o.offset, UINT32_MAX));
    if (it != spans.begin() && std::get<0>(*(it - 1)) == o.file && o.offset < std::get<2>(*(it - 1))) o.unselected = true;
  }
}

}  // namespace nib::clangindex
