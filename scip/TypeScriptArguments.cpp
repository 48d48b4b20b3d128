#include "scip/TypeScriptArguments.h"

#include <cctype>
#include <unordered_map>

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

}  // namespace

std::optional<size_t> annotatedTypeAt(std::string_view text, size_t nameEnd) {
  size_t at = skipBlanks(text, nameEnd);
  if (at < text.size() && text[at] == '?') at = skipBlanks(text, at + 1);
  if (at >= text.size() || text[at] != ':') return std::nullopt;
  at = skipBlanks(text, at + 1);
  if (at >= text.size() || !identifierStart(text[at])) return std::nullopt;
  size_t last = at;
  for (;;) {
    size_t end = at;
    while (end < text.size() && identifierChar(text[end])) ++end;
    last = at;
    if (end + 1 < text.size() && text[end] == '.' && identifierStart(text[end + 1])) {
      at = end + 1;
      continue;
    }
    return last;
  }
}

std::string callableOfParameter(const std::string& usr) {
  // `…/rm().(opts)`, `…/Vol#rm().(opts)`, `…/Foo#`<constructor>`().(opts)`.
  if (usr.size() < 5 || usr.back() != ')') return "";
  size_t open = usr.rfind(".(");
  if (open == std::string::npos || open < 2 || usr.compare(open - 2, 2, "()") != 0) return "";
  return usr.substr(0, open + 1);
}

void contextualArguments(std::vector<scip_sites::Planned>& planned, const typescript_syntax::SyntaxTree& tree,
                         const ParameterTypes& types, const std::function<bool(const std::string&)>& exists) {
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
        const std::string property = type + name + ".";
        if (!exists(property)) continue;
        scip_sites::Planned& p = planned[*own];
        p.usr = property;
        p.site.roles = 0;
        break;
      }
    }
  }
}

}  // namespace nib::typescript_arguments
