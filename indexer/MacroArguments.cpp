#include "indexer/MacroArguments.h"

#include <algorithm>
#include <set>

namespace nib {
namespace {

constexpr int kMaxDepth = 8;  // macros invoking macros: deeper chains are left alone

bool isIdentifier(const std::string& t) {
  return !t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_');
}

enum class LastUse { Unused, Selected, Unselected };

// An invocation of a function-like macro in a replacement list: its macro and, per argument,
// the range of its tokens in the list.
struct Invocation {
  const MacroTokens* macro;
  std::vector<std::pair<size_t, size_t>> arguments;
};

std::vector<Invocation> invocationsIn(const std::vector<std::string>& body, const MacroLookup& lookup) {
  std::vector<Invocation> out;
  for (size_t i = 0; i + 1 < body.size(); ++i) {
    if (!isIdentifier(body[i]) || body[i + 1] != "(") continue;
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

// Where the last expansion of the arguments `params` of `macro` lands. The preprocessor
// substitutes every use of a parameter in the replacement list at once, then rescans the result,
// expanding the macros it invokes in order: an argument passed on to an invoked macro is expanded
// last there (by the last such invocation that expands it at all). Otherwise its last use in the
// list decides: a `##` operand, or an argument of a macro that does not expand it, is no token of
// the AST (Unselected); any other use is (Selected).
LastUse lastUse(const MacroTokens& macro, const std::set<size_t>& params, const MacroLookup& lookup, int depth) {
  if (depth > kMaxDepth) return LastUse::Unused;
  const std::vector<std::string>& body = macro.body;
  auto isUse = [&](size_t i) {
    for (size_t p : params)
      if (p < macro.params.size() && body[i] == macro.params[p]) return !(i > 0 && body[i - 1] == "#");
    return false;
  };
  std::vector<Invocation> invocations = invocationsIn(body, lookup);
  for (auto it = invocations.rbegin(); it != invocations.rend(); ++it) {
    std::set<size_t> passed;
    for (size_t j = 0; j < it->arguments.size(); ++j)
      for (size_t i = it->arguments[j].first; i < it->arguments[j].second; ++i)
        if (isUse(i) && !pasteOperand(body, i))
          passed.insert(it->macro->variadic && j >= it->macro->params.size() ? it->macro->params.size() - 1 : j);
    if (passed.empty()) continue;
    if (LastUse nested = lastUse(*it->macro, passed, lookup, depth + 1); nested != LastUse::Unused) return nested;
  }
  for (size_t i = body.size(); i-- > 0;) {
    if (!isUse(i)) continue;
    if (pasteOperand(body, i)) return LastUse::Unselected;
    bool passedOn = std::any_of(invocations.begin(), invocations.end(), [&](const Invocation& n) {
      return std::any_of(n.arguments.begin(), n.arguments.end(), [&](auto r) { return i >= r.first && i < r.second; });
    });
    return passedOn ? LastUse::Unselected : LastUse::Selected;
  }
  return LastUse::Unused;
}

}  // namespace

std::optional<MacroTokens> macroTokens(const std::vector<std::string>& definition) {
  if (definition.size() < 3 || definition[1] != "(") return std::nullopt;
  MacroTokens out;
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

std::vector<bool> pastedLast(const MacroTokens& macro, const MacroLookup& lookup) {
  std::vector<bool> out(macro.params.size());
  for (size_t p = 0; p < macro.params.size(); ++p) out[p] = lastUse(macro, {p}, lookup, 0) == LastUse::Unselected;
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
