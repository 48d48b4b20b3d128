#include "indexer/MacroArguments.h"

#include <algorithm>
#include <set>

namespace nib {
namespace {

constexpr size_t kMaxDepth = 8;  // macros invoking macros: deeper chains are left alone

bool isIdentifier(const std::string& t) {
  return !t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_');
}


// An invocation of a function-like macro in a replacement list: its macro and, per argument,
// the range of its tokens in the list.
struct Invocation {
  const MacroTokens* macro;
  std::vector<std::pair<size_t, size_t>> arguments;
};

// A macro being expanded is never expanded again inside its own expansion (the preprocessor
// paints such a name blue): `#define curl_easy_setopt(h, o, p) curl_easy_setopt(h, o, p)`, curl's
// guard against a wrong argument count, calls the function. `expanding`: the names of the macros
// whose expansion this is, outermost first.
std::vector<Invocation> invocationsIn(const std::vector<std::string>& body, const MacroLookup& lookup,
                                      const std::vector<std::string>& expanding) {
  std::vector<Invocation> out;
  for (size_t i = 0; i + 1 < body.size(); ++i) {
    if (!isIdentifier(body[i]) || body[i + 1] != "(") continue;
    if (std::find(expanding.begin(), expanding.end(), body[i]) != expanding.end()) continue;
    const MacroTokens* macro = lookup(body[i]);
    if (!macro) continue;
    std::vector<std::string> tokens(body.begin() + static_cast<ptrdiff_t>(i), body.end());
    Invocation invocation{macro, invocationArguments(tokens)};
    for (auto& [from, to] : invocation.arguments) from += i, to += i;
    if (!invocation.arguments.empty()) out.push_back(std::move(invocation));
  }
  return out;
}

bool pasteOperand(const std::vector<std::string>& body, size_t i) {
  return (i > 0 && body[i - 1] == "##") || (i + 1 < body.size() && body[i + 1] == "##");
}

// The last expansion of one of `params`: which parameter's (nullopt: none is expanded), and
// which tokens of its argument are no token of the AST there (kPasted* bits; 0: selected).
struct LastUse {
  std::optional<size_t> param;
  uint8_t unselected = 0;
};

// The preprocessor substitutes every use of a parameter in the replacement list at once, then
// rescans the result, expanding the macros it invokes in order: an argument passed on to an
// invoked macro is expanded last there (by the last such invocation that expands it at all).
// Otherwise its last use in the list decides: an operand of `##` pastes the argument's token
// next to it into another name; an argument of a macro that does not expand it is no token of
// the AST; any other use is selected.
LastUse lastUse(const MacroTokens& macro, const std::set<size_t>& params, const MacroLookup& lookup,
              std::vector<std::string>& expanding);

// lastUse's work, with `macro` the innermost of `expanding`.
LastUse lastUseExpanding(const MacroTokens& macro, const std::set<size_t>& params, const MacroLookup& lookup,
                         std::vector<std::string>& expanding) {
  const std::vector<std::string>& body = macro.body;
  auto useOf = [&](size_t i) -> std::optional<size_t> {
    for (size_t p : params)
      if (p < macro.params.size() && body[i] == macro.params[p] && !(i > 0 && body[i - 1] == "#")) return p;
    return std::nullopt;
  };
  std::vector<Invocation> invocations = invocationsIn(body, lookup, expanding);
  auto paramOf = [](const Invocation& n, size_t j) {
    return n.macro->variadic && j >= n.macro->params.size() ? n.macro->params.size() - 1 : j;
  };
  for (auto it = invocations.rbegin(); it != invocations.rend(); ++it) {
    std::set<size_t> passed;
    for (size_t j = 0; j < it->arguments.size(); ++j)
      for (size_t i = it->arguments[j].first; i < it->arguments[j].second; ++i)
        if (useOf(i) && !pasteOperand(body, i)) passed.insert(paramOf(*it, j));
    if (passed.empty()) continue;
    LastUse nested = lastUse(*it->macro, passed, lookup, expanding);
    if (!nested.param) continue;
    // The use of ours in the argument the nested macro expanded last: its last one there, and
    // which of our argument's tokens the nested unselected tokens are.
    for (size_t j = it->arguments.size(); j-- > 0;) {
      if (paramOf(*it, j) != *nested.param) continue;
      auto [from, to] = it->arguments[j];
      for (size_t i = to; i-- > from;) {
        std::optional<size_t> p = useOf(i);
        if (!p || pasteOperand(body, i)) continue;
        uint8_t bits = nested.unselected & kPastedEvery;
        if ((nested.unselected & kPastedFirst) && i == from) bits |= kPastedFirst;
        if ((nested.unselected & kPastedLast) && i + 1 == to) bits |= kPastedLast;
        return {p, bits};
      }
    }
  }
  for (size_t i = body.size(); i-- > 0;) {
    std::optional<size_t> p = useOf(i);
    if (!p) continue;
    uint8_t bits = (i > 0 && body[i - 1] == "##" ? kPastedFirst : 0) | (i + 1 < body.size() && body[i + 1] == "##" ? kPastedLast : 0);
    if (bits) return {p, bits};
    bool passedOn = std::any_of(invocations.begin(), invocations.end(), [&](const Invocation& n) {
      return std::any_of(n.arguments.begin(), n.arguments.end(), [&](auto r) { return i >= r.first && i < r.second; });
    });
    return {p, static_cast<uint8_t>(passedOn ? kPastedEvery : 0)};
  }
  return {};
}

LastUse lastUse(const MacroTokens& macro, const std::set<size_t>& params, const MacroLookup& lookup,
              std::vector<std::string>& expanding) {
  if (expanding.size() > kMaxDepth) return {};
  expanding.push_back(macro.name);
  LastUse out = lastUseExpanding(macro, params, lookup, expanding);
  expanding.pop_back();
  return out;
}

}  // namespace

std::optional<MacroTokens> macroTokens(const std::vector<std::string>& definition) {
  if (definition.size() < 3 || definition[1] != "(") return std::nullopt;
  MacroTokens out;
  out.name = definition[0];
  size_t i = 2;
  for (; i < definition.size() && definition[i] != ")"; ++i) {
    const std::string& t = definition[i];
    if (t == ",") continue;
    if (t == "...") {
      out.variadic = true;
      if (out.params.empty() || definition[i - 1] == ",") out.params.push_back("__VA_ARGS__");
    } else {
      out.params.push_back(t);
    }
  }
  if (i == definition.size()) return std::nullopt;
  out.body.assign(definition.begin() + static_cast<ptrdiff_t>(i) + 1, definition.end());
  return out;
}

std::vector<uint8_t> pastedLast(const MacroTokens& macro, const MacroLookup& lookup) {
  std::vector<uint8_t> out(macro.params.size());
  std::vector<std::string> expanding;
  for (size_t p = 0; p < macro.params.size(); ++p) out[p] = lastUse(macro, {p}, lookup, expanding).unselected;
  return out;
}

std::vector<std::pair<size_t, size_t>> invocationArguments(const std::vector<std::string>& tokens) {
  std::vector<std::pair<size_t, size_t>> out;
  if (tokens.size() < 3 || tokens[1] != "(") return out;
  int depth = 0;
  size_t start = 2;
  for (size_t k = 1; k < tokens.size(); ++k) {
    if (tokens[k] == "(") {
      ++depth;
    } else if (tokens[k] == ")") {
      if (--depth == 0) {
        out.emplace_back(start, k);
        break;
      }
    } else if (tokens[k] == "," && depth == 1) {
      out.emplace_back(start, k);
      start = k + 1;
    }
  }
  return out;
}

}  // namespace nib
