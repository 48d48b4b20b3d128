#include "scip/TypeScriptArguments.h"

#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "scip.pb.h"
#include "scip/TypeScriptText.h"

namespace nib::typescript_arguments {

namespace {

using typescript_text::identifierStart;
using typescript_text::identifierChar;

size_t skipBlanks(std::string_view text, size_t at) {
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  return at;
}

// The last name of the (dotted) type name at `at` and where that name ends; nullopt where no name
// starts there.
std::optional<std::pair<size_t, size_t>> typeNameAt(std::string_view text, size_t at) {
  if (at >= text.size() || !identifierStart(text[at])) return std::nullopt;
  for (;;) {
    size_t end = at;
    while (end < text.size() && identifierChar(text[end])) ++end;
    if (end + 1 < text.size() && text[end] == '.' && identifierStart(text[end + 1])) {
      at = end + 1;
      continue;
    }
    return std::pair{at, end};
  }
}

// Past `<...>` at `at` (nested ones included); `at` itself when no `<` is there.
size_t skipTypeArguments(std::string_view text, size_t at) {
  if (at >= text.size() || text[at] != '<') return at;
  int depth = 0;
  for (; at < text.size(); ++at) {
    if (text[at] == '<') ++depth;
    else if (text[at] == '>' && --depth == 0) return at + 1;
  }
  return at;
}

}  // namespace

std::optional<size_t> annotatedTypeAt(std::string_view text, size_t nameEnd) {
  size_t at = skipBlanks(text, nameEnd);
  if (at < text.size() && text[at] == '?') at = skipBlanks(text, at + 1);
  if (at >= text.size() || text[at] != ':') return std::nullopt;
  auto name = typeNameAt(text, skipBlanks(text, at + 1));
  // The mapped types whose properties are their argument's (Partial<Opts>.a is Opts.a).
  for (int depth = 0; name && depth < 3; ++depth) {
    std::string_view spelled = text.substr(name->first, name->second - name->first);
    size_t open = skipBlanks(text, name->second);
    if ((spelled != "Partial" && spelled != "Required" && spelled != "Readonly") || open >= text.size() || text[open] != '<') break;
    name = typeNameAt(text, skipBlanks(text, open + 1));
  }
  if (!name) return std::nullopt;
  return name->first;
}

std::vector<size_t> heritageAt(std::string_view text, size_t nameEnd) {
  std::vector<size_t> out;
  size_t at = skipBlanks(text, skipTypeArguments(text, skipBlanks(text, nameEnd)));
  for (std::string_view keyword : {"extends", "implements"}) {
    if (text.compare(at, keyword.size(), keyword) != 0 || at + keyword.size() >= text.size() ||
        identifierChar(text[at + keyword.size()]))
      continue;
    at += keyword.size();
    for (;;) {
      auto name = typeNameAt(text, skipBlanks(text, at));
      if (!name) break;
      out.push_back(name->first);
      at = skipBlanks(text, skipTypeArguments(text, name->second));
      if (at >= text.size() || text[at] != ',') break;
      ++at;
    }
    at = skipBlanks(text, at);
  }
  return out;
}

std::string propertyOf(const std::string& type, const std::string& name,
                       const std::function<const std::vector<std::string>*(const std::string&)>& bases,
                       const std::function<bool(const std::string&)>& exists) {
  std::vector<std::string> pending{type};
  std::unordered_set<std::string> seen{type};
  for (size_t next = 0; next < pending.size() && next < 32; ++next) {
    std::string property = pending[next] + name + ".";
    if (exists(property)) return property;
    if (const std::vector<std::string>* more = bases(pending[next]))
      for (const std::string& base : *more)
        if (seen.insert(base).second) pending.push_back(base);
  }
  return "";
}

std::string callableOfParameter(const std::string& usr) {
  // `…/rm().(opts)`, `…/Vol#rm().(opts)`, `…/Foo#`<constructor>`().(opts)`.
  if (usr.size() < 5 || usr.back() != ')') return "";
  size_t open = usr.rfind(".(");
  if (open == std::string::npos || open < 2 || usr.compare(open - 2, 2, "()") != 0) return "";
  return usr.substr(0, open + 1);
}

void contextualArguments(std::vector<scip_sites::Planned>& planned, const typescript_syntax::SyntaxTree& tree,
                         const ParameterTypes& types,
                         const std::function<std::string(const std::string&, const std::string&)>& property) {
  if (types.empty()) return;
  std::vector<typescript_syntax::SyntaxTree::ObjectArgument> arguments = tree.objectArguments();
  if (arguments.empty()) return;
  std::unordered_map<uint32_t, std::vector<size_t>> byOffset;
  for (size_t i = 0; i < planned.size(); ++i)
    if (!planned[i].usr.empty()) byOffset[planned[i].site.offset].push_back(i);
  for (const auto& argument : arguments) {
    auto callee = byOffset.find(argument.calleeAt);
    if (callee == byOffset.end()) continue;
    // The argument's type by the callee's signatures, the first that names one at its place.
    std::vector<std::string> candidates;
    for (size_t i : callee->second) {
      auto signatures = types.find(planned[i].usr);
      if (signatures == types.end()) continue;
      for (const auto& parameters : signatures->second)
        if (argument.index < parameters.size() && !parameters[argument.index].empty())
          candidates.push_back(parameters[argument.index]);
    }
    if (candidates.empty()) continue;
    for (const auto& [keyAt, name] : argument.keys) {
      auto key = byOffset.find(keyAt);
      if (key == byOffset.end()) continue;
      // Only a property scip-typescript left to the literal itself (`recursive0:`, defined
      // here), and nothing else there.
      std::optional<size_t> own;
      bool other = false;
      for (size_t i : key->second) {
        const scip_sites::Planned& p = planned[i];
        if (p.usr.back() == ':' && (p.site.roles & scip::Definition)) own = i;
        else other = true;
      }
      if (!own || other) continue;
      for (const std::string& type : candidates) {
        std::string found = property(type, name);
        if (found.empty()) continue;
        scip_sites::Planned& p = planned[*own];
        p.usr = std::move(found);
        p.site.roles = 0;
        break;
      }
    }
  }
}

}  // namespace nib::typescript_arguments
