// scip-typescript's occurrences as TypeScript's server reads the same places, where its symbols
// alone do not tell: the rules ScipImport applies to a TypeScript or JavaScript document's
// planned occurrences, from the document's text (TypeScriptText) and syntax (TypeScriptSyntax).
#include "scip/TypeScriptSites.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "scip.pb.h"
#include "scip/TypeScriptText.h"
#include "support/Text.h"

namespace nib::typescript_sites {

using scip_sites::isModuleSymbol;
using scip_sites::Planned;
using scip_sites::Site;
using scip_sites::withoutConstructor;

// A name declared as a type and as a value (`interface Error` and `declare var Error`; `type Opts`
// beside `const Opts`): scip-typescript writes both symbols (`Error#`, `Error.`) at each use.
// TypeScript's server keeps the meaning of the place (a type annotation lists the type's uses,
// `new Error` the value's), so each use keeps the symbol of its meaning; a specifier (`import {
// Opts }`) binds both and keeps both. The standard library declares some types in several files
// (`Array#` in lib.es5.d.ts, lib.es2015.core.d.ts, ...; `Promise.` only in lib.es2015.promise.d.ts):
// one name's declarations merge whatever file holds them, so the twins are matched by name.
void keepMeaningAsked(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree) {
  // The name a global or module symbol declares, without its suffix: "Array" of
  // "... lib/`lib.es5.d.ts`/Array#".
  auto declared = [](const std::string& usr, char suffix) -> std::string_view {
    if (usr.size() < 2 || usr.back() != suffix) return {};
    std::string_view s(usr);
    size_t slash = s.rfind('/');
    return slash == std::string_view::npos ? std::string_view() : s.substr(slash + 1, s.size() - slash - 2);
  };
  std::unordered_map<uint32_t, std::vector<size_t>> byOffset;
  for (size_t i = 0; i < planned.size(); ++i) byOffset[planned[i].site.offset].push_back(i);
  for (const auto& [offset, list] : byOffset) {
    if (list.size() < 2) continue;
    // Copies: the symbols they come from are cleared below.
    std::set<std::string> types, values;
    for (size_t i : list) {
      if (std::string_view t = declared(planned[i].usr, '#'); !t.empty()) types.emplace(t);
      if (std::string_view v = declared(planned[i].usr, '.'); !v.empty()) values.emplace(v);
    }
    std::set<std::string, std::less<>> both;
    std::set_intersection(types.begin(), types.end(), values.begin(), values.end(), std::inserter(both, both.end()));
    if (both.empty()) continue;
    typescript_syntax::Meaning meaning = tree.meaningAt(offset);
    if (meaning == typescript_syntax::Meaning::Both) continue;
    const char dropped = meaning == typescript_syntax::Meaning::Type ? '.' : '#';
    for (size_t i : list)
      if (both.count(declared(planned[i].usr, dropped))) planned[i].usr.clear();
  }
}

void exportedImports(std::vector<Planned>& planned, const typescript_syntax::ModuleSyntax& syntax) {
  std::unordered_map<std::string_view, uint32_t> imports;  // a name an import binds -> where
  for (const typescript_syntax::Binding& b : syntax.bindings)
    if (!b.exported && b.sourceAt) imports.emplace(b.local, b.localAt);
  if (imports.empty()) return;
  std::unordered_map<uint32_t, size_t> byOffset;  // the first symbol at each place
  std::unordered_map<std::string, size_t> uses;  // copies: a specifier's symbol changes below
  for (size_t i = 0; i < planned.size(); ++i) {
    if (planned[i].usr.empty()) continue;
    byOffset.emplace(planned[i].site.offset, i);
    ++uses[planned[i].usr];
  }
  for (const typescript_syntax::Binding& b : syntax.bindings) {
    if (!b.exported || b.sourceAt) continue;  // `export { a }` of this module's own scope only
    auto imported = imports.find(b.imported);
    auto at = byOffset.find(b.importedAt);
    auto import = imported == imports.end() ? byOffset.end() : byOffset.find(imported->second);
    if (at == byOffset.end() || import == byOffset.end()) continue;
    std::string& symbol = planned[at->second].usr;
    if (symbol.rfind("local:", 0) == 0 && uses[symbol] == 1 && symbol != planned[import->second].usr)
      symbol = planned[import->second].usr;
  }
}

// The document's import and export bindings with the symbols the indexer wrote at them, for
// the plan made after every document (typescript_exports::planAliases).
std::optional<typescript_exports::ModuleBindings> noteBindings(const std::vector<Planned>& planned, typescript_syntax::ModuleSyntax syntax,
                                                              const std::string& text, const std::string& relative, uint32_t file) {
  typescript_exports::ModuleBindings m;
  m.relative = relative;
  m.file = file;
  m.defaultAssignment = std::move(syntax.defaultAssignment);
  if (syntax.bindings.empty() && !m.defaultAssignment) return std::nullopt;
  // The occurrences by offset and by the name the text spells there (each once, not per binding).
  std::unordered_map<uint32_t, std::vector<size_t>> byOffset;
  std::unordered_map<std::string_view, std::vector<size_t>> bySpelling;
  for (size_t i = 0; i < planned.size(); ++i) {
    const Planned& p = planned[i];
    if (p.usr.empty()) continue;
    byOffset[p.site.offset].push_back(i);
    if (p.site.offset + p.site.length <= text.size()) bySpelling[std::string_view(text).substr(p.site.offset, p.site.length)].push_back(i);
    if ((p.site.roles & scip::Definition) && p.site.length == 0 && isModuleSymbol(p.usr)) m.module = p.usr;
  }
  auto symbolAt = [&](uint32_t offset, bool module) -> std::string {
    auto it = byOffset.find(offset);
    if (it == byOffset.end()) return "";
    for (size_t i : it->second)
      if (isModuleSymbol(planned[i].usr) == module) return withoutConstructor(planned[i].usr);
    return "";
  };
  for (typescript_syntax::Binding& b : syntax.bindings) {
    typescript_exports::ModuleBindings::Bound bound;
    bound.target = symbolAt(b.localAt, false);
    if (bound.target.empty()) continue;
    if (b.sourceAt) bound.source = symbolAt(*b.sourceAt, true);
    if (b.importedAt != b.localAt && symbolAt(b.importedAt, false) == bound.target) bound.importedSite = b.importedAt;
    if (b.exported) {
      bound.localSites.assign(1, b.localAt);
    } else if (auto spelled = bySpelling.find(b.local); spelled != bySpelling.end()) {
      for (size_t i : spelled->second)
        if (withoutConstructor(planned[i].usr) == bound.target) bound.localSites.push_back(planned[i].site.offset);
    }
    bound.syntax = std::move(b);
    m.bindings.push_back(std::move(bound));
  }
  if (m.bindings.empty() && !m.defaultAssignment) return std::nullopt;
  return m;
}

// scip-typescript declares an object literal's property under a meta descriptor (`api.greet0:`)
// and, at a shorthand one, refers to the value beside it. The import's local symbol is added
// beside both the shorthand and the import's own name, expanded, and only as references: the
// value's symbol stays what answers references there, and a definition asked at the import
// still goes through it. A renamed import (`{ greet as hello }`) has that symbol already
// (typescript_exports::planAliases gives it to the alias's sites).
std::vector<Planned> shorthandImports(const std::vector<Planned>& planned, const typescript_syntax::ModuleSyntax& syntax,
                                      const std::string& text, const std::string& relative) {
  std::vector<Planned> beside;
  std::map<uint32_t, std::vector<size_t>> byOffset;  // in offset order: the sites are added in it
  for (size_t i = 0; i < planned.size(); ++i)
    if (!planned[i].usr.empty()) byOffset[planned[i].site.offset].push_back(i);
  std::unordered_map<std::string_view, const typescript_syntax::Binding*> imported;  // local name -> its import
  for (const typescript_syntax::Binding& b : syntax.bindings)
    if (!b.exported && (b.imported == b.local || b.imported == "default")) imported.emplace(b.local, &b);
  std::unordered_set<std::string_view> declared;  // the symbols this document declares
  for (const Planned& p : planned)
    if (p.site.roles & scip::Definition) declared.insert(p.usr);
  std::set<uint32_t> atImport;
  for (const auto& [offset, at] : byOffset) {
    const Planned* property = nullptr;
    for (size_t i : at)
      if ((planned[i].site.roles & scip::Definition) && planned[i].usr.back() == ':') property = &planned[i];
    if (!property || offset + property->site.length > text.size()) continue;
    auto binding = imported.find(std::string_view(text).substr(offset, property->site.length));
    if (binding == imported.end()) continue;
    auto bound = byOffset.find(binding->second->localAt);
    if (bound == byOffset.end()) continue;
    // The import's symbol, or one the document does not declare (scip-typescript writes the type
    // of an annotated import there, `RebaseFunction#` for `rebase`); a parameter or local of this
    // document shadowing the import is left alone.
    // A shorthand has its value written beside the property; a property's key (`y18n: y18n(…)`)
    // has none.
    auto value = [&](size_t i) { return &planned[i] != property && !(planned[i].site.roles & scip::Definition); };
    const bool shadowed = std::any_of(at.begin(), at.end(), [&](size_t i) {
      return value(i) && declared.count(planned[i].usr) &&
             std::none_of(bound->second.begin(), bound->second.end(), [&](size_t k) { return planned[k].usr == planned[i].usr; });
    });
    if (shadowed || std::none_of(at.begin(), at.end(), value)) continue;
    const std::string alias = "local:" + relative + "#import@" + std::to_string(binding->second->localAt);
    Planned site{property->site, alias};
    site.site.roles = 0;
    beside.push_back(site);
    if (atImport.insert(binding->second->localAt).second) {
      Planned declaration{planned[bound->second.front()].site, alias};
      declaration.site.roles = 0;
      beside.push_back(std::move(declaration));
    }
  }
  return beside;
}

std::string staticSymbol(const std::string& usr) {
  const size_t hash = usr.rfind('#');
  const size_t suffix = usr.size() >= 3 && usr.compare(usr.size() - 3, 3, "().") == 0 ? usr.size() - 3 : usr.size() - 1;
  if (hash == std::string::npos || suffix <= hash) return usr;
  std::string name = usr.substr(hash + 1, suffix - hash - 1);
  if (name.size() >= 2 && name.front() == '`' && name.back() == '`') name = name.substr(1, name.size() - 2);
  return usr.substr(0, hash + 1) + "`static " + name + "`" + usr.substr(suffix);
}

void staticMembers(std::vector<Planned>& planned, const std::string& text, const std::unordered_set<std::string>& collisions) {
  if (collisions.empty()) return;
  std::unordered_map<uint32_t, size_t> endingAt;  // a name's end offset -> its occurrence
  for (size_t i = 0; i < planned.size(); ++i)
    if (!planned[i].usr.empty()) endingAt.emplace(planned[i].site.offset + planned[i].site.length, i);
  for (Planned& p : planned) {
    if (!collisions.count(p.usr)) continue;
    const uint32_t at = p.site.offset;
    bool isStatic = false;
    if (p.site.roles & scip::Definition) {
      isStatic = typescript_text::staticMemberAt(text, at);
    } else if (at >= 2 && text[at - 1] == '.') {
      // `Volume.fromJSON`: the receiver is the class itself (scip-typescript may name it by its
      // constructor).
      auto receiver = endingAt.find(at - 1);
      const std::string owner = p.usr.substr(0, p.usr.rfind('#') + 1);
      isStatic = receiver != endingAt.end() && withoutConstructor(planned[receiver->second].usr) == owner;
    }
    if (isStatic) p.usr = staticSymbol(p.usr);
  }
}

void contextualShorthands(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& text) {
  std::vector<uint32_t> shorthands = tree.objectShorthands();
  if (shorthands.empty()) return;
  // A type's member (`Parsed#variadic.`): not a type (`Parsed#`) nor a local (`local:PATH#N`).
  auto member = [](const std::string& usr) {
    const size_t hash = usr.rfind('#');
    return usr.rfind("local:", 0) != 0 && hash != std::string::npos && hash + 1 < usr.size();
  };
  std::unordered_map<uint32_t, std::vector<size_t>> byOffset;
  std::unordered_map<std::string_view, std::vector<size_t>> declarations;  // values, by the name spelled
  for (size_t i = 0; i < planned.size(); ++i) {
    const Planned& p = planned[i];
    if (p.usr.empty() || p.site.offset + p.site.length > text.size()) continue;
    byOffset[p.site.offset].push_back(i);
    if ((p.site.roles & scip::Definition) && p.usr.back() != ':' && !member(p.usr))
      declarations[std::string_view(text).substr(p.site.offset, p.site.length)].push_back(i);
  }
  for (uint32_t at : shorthands) {
    auto here = byOffset.find(at);
    // Only the contextual type's property is written there: a reference to a type's member.
    if (here == byOffset.end() || here->second.size() != 1) continue;
    const Planned& property = planned[here->second.front()];
    if ((property.site.roles & scip::Definition) || !member(property.usr)) continue;
    auto candidates = declarations.find(std::string_view(text).substr(at, property.site.length));
    if (candidates == declarations.end()) continue;
    const Planned* value = nullptr;
    uint32_t innermost = UINT32_MAX;
    for (size_t i : candidates->second) {
      auto scope = tree.scopeOf(planned[i].site.offset);
      if (!scope || at < scope->first || at >= scope->second || planned[i].site.offset > at) continue;
      const uint32_t size = scope->second - scope->first;
      if (size < innermost || (size == innermost && planned[i].site.offset > value->site.offset)) {
        innermost = size;
        value = &planned[i];
      }
    }
    if (value && value->usr != property.usr) planned.push_back({Site{property.site.file, property.site.line, property.site.column, at,
                                                                     property.site.length, 0}, value->usr});
  }
}

void modifiedConstructors(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, uint32_t file) {
  std::vector<typescript_syntax::SyntaxTree::ModifiedConstructor> found = tree.modifiedConstructors();
  if (found.empty()) return;
  std::unordered_map<uint32_t, std::string> classAt;  // a class's name -> its symbol
  std::unordered_set<std::string> defined;
  for (const Planned& p : planned) {
    if (p.usr.empty() || !(p.site.roles & scip::Definition)) continue;
    defined.insert(p.usr);
    if (p.usr.back() == '#') classAt.emplace(p.site.offset, p.usr);
  }
  for (const auto& c : found) {
    auto cls = classAt.find(c.classNameAt);
    if (cls == classAt.end()) continue;
    std::string constructor = cls->second + "`<constructor>`().";
    if (defined.count(constructor)) continue;
    planned.push_back({Site{file, c.line, c.column, c.offset, c.length, scip::Definition}, std::move(constructor)});
  }
}

namespace {

// One symbol of the program, defined nowhere, at each of `uses` (names `length` long) where the
// indexer wrote none.
void programWide(std::vector<Planned>& planned, const std::vector<uint32_t>& uses, uint32_t length, const std::string& usr,
                 const std::string& text, uint32_t file) {
  if (uses.empty()) return;
  std::unordered_set<uint32_t> named;
  for (const Planned& p : planned) named.insert(p.site.offset);
  LineTable lines(text);
  for (uint32_t offset : uses) {
    if (named.count(offset)) continue;
    Position at = lines.positionOf(offset);
    planned.push_back({Site{file, at.line, at.column, offset, length, 0}, usr});
  }
}

}  // namespace

// A function's `arguments`: scip-typescript writes no symbol there, and TypeScript's server
// answers it as one symbol of the whole program (the checker's own `arguments`), defined
// nowhere: its references are every `arguments` the program names.
void argumentsObjects(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& text, uint32_t file) {
  programWide(planned, tree.argumentsUses(), 9, "scip-typescript npm . . `<arguments>`.", text, file);
}

void requireCalls(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& text, uint32_t file) {
  programWide(planned, tree.requireCalls(), 7, "scip-typescript npm . . `<require>`().", text, file);
}

void unresolvedTypes(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& text, uint32_t file) {
  std::unordered_set<uint32_t> named;
  std::unordered_set<std::string_view> declared;  // names the document declares, as spelled
  for (const Planned& p : planned) {
    if (p.usr.empty()) continue;
    named.insert(p.site.offset);
    if ((p.site.roles & scip::Definition) && p.site.offset + p.site.length <= text.size())
      declared.insert(std::string_view(text).substr(p.site.offset, p.site.length));
  }
  std::optional<LineTable> lines;
  for (const auto& [offset, length] : tree.typeNames()) {
    if (named.count(offset) || offset + length > text.size()) continue;
    std::string_view name = std::string_view(text).substr(offset, length);
    if (declared.count(name)) continue;
    if (!lines) lines.emplace(text);
    Position at = lines->positionOf(offset);
    planned.push_back({Site{file, at.line, at.column, offset, length, 0}, "scip-typescript npm . . `<unresolved type>`/" + std::string(name) + "#"});
  }
}

namespace {

using typescript_text::identifierStart;
using typescript_text::identifierChar;

// The names (offset, length) a documentation comment in [start, end) refers to code by, as
// TypeScript's server reads them: the identifiers of a tag's type in braces (`@returns {Foo |
// undefined}`), but not a member after a dot nor a key or a parameter before its colon
// (`{{ a: Foo }}`, `{(x: Foo) => Bar}`); the name after `@see`; the target of `{@link Name}`.
struct DocName {
  uint32_t offset = 0, length = 0;
  bool type = false;  // in a tag's braces: a type's name
};

std::vector<DocName> docNames(std::string_view text, size_t start, size_t end) {
  std::vector<DocName> out;
  auto identifierEnd = [&](size_t i, size_t limit) {
    while (i < limit && identifierChar(text[i])) ++i;
    return i;
  };
  auto nameAt = [&](size_t i) {
    while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < end && identifierStart(text[i]))
      out.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(identifierEnd(i, end) - i), false});
  };
  for (size_t i = start; i < end; ++i) {
    if (text[i] != '@') continue;
    const size_t tagEnd = identifierEnd(i + 1, end);
    const std::string_view tag = text.substr(i + 1, tagEnd - i - 1);
    if (i > start && text[i - 1] == '{') {  // inline: `{@link Name}`
      if (tag == "link" || tag == "linkcode" || tag == "linkplain") nameAt(tagEnd);
      continue;
    }
    if (tag == "see") {
      nameAt(tagEnd);
      continue;
    }
    size_t open = tagEnd;
    while (open < end && (text[open] == ' ' || text[open] == '\t')) ++open;
    if (open >= end || text[open] != '{') continue;
    size_t close = open;
    for (int depth = 0; close < end; ++close) {
      if (text[close] == '{') ++depth;
      else if (text[close] == '}' && --depth == 0) break;
    }
    if (close >= end) continue;
    for (size_t p = open + 1; p < close;) {
      if (!identifierStart(text[p]) || identifierChar(text[p - 1])) {
        ++p;
        continue;
      }
      const size_t q = identifierEnd(p, close);
      size_t after = q;
      while (after < close && text[after] == ' ') ++after;
      const bool key = after < close && (text[after] == ':' || text.compare(after, 2, "?:") == 0);
      // Not a namepath's later part either (`{module:zrender/Storage}`, `{Foo#bar}`, `{Foo~Bar}`).
      const bool later = std::string_view(".:/#~-'\"").find(text[p - 1]) != std::string_view::npos;
      if (!later && !key) out.push_back({static_cast<uint32_t>(p), static_cast<uint32_t>(q - p), true});
      p = q;
    }
    i = close;
  }
  return out;
}

}  // namespace

void docReferences(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& text, uint32_t file) {
  const std::vector<std::pair<uint32_t, uint32_t>> comments = tree.docComments();
  if (comments.empty()) return;
  std::unordered_set<uint32_t> named;
  std::unordered_map<std::string_view, std::set<std::string>> bySpelling;  // symbols copied: sites are added below
  for (const Planned& p : planned) {
    if (p.usr.empty()) continue;
    named.insert(p.site.offset);
    if (p.site.offset + p.site.length <= text.size()) bySpelling[std::string_view(text).substr(p.site.offset, p.site.length)].insert(p.usr);
  }
  std::optional<LineTable> lines;
  for (const auto& [start, end] : comments)
    for (const auto& [offset, length, type] : docNames(text, start, end)) {
      auto spelled = bySpelling.find(std::string_view(text).substr(offset, length));
      if (named.count(offset) || spelled == bySpelling.end()) continue;
      // A type's name in braces names a type (`{Error}` is `interface Error`, not `var Error`);
      // after `@see` or `{@link` any symbol.
      const std::set<std::string>& symbols = spelled->second;
      const std::string* chosen = symbols.size() == 1 && !type ? &*symbols.begin() : nullptr;
      if (!chosen) {
        size_t types = 0;
        for (const std::string& usr : symbols)
          if (usr.back() == '#' && ++types) chosen = &usr;
        if (types != 1) continue;
      }
      if (!lines) lines.emplace(text);
      Position at = lines->positionOf(offset);
      planned.push_back({Site{file, at.line, at.column, offset, length, 0}, *chosen});
    }
}

// `export { default as Box } from "./box"`, `import { Box as B2 } from "./index"`: scip-typescript
// names the name before `as` by a symbol local to the document, defined nowhere, and the alias
// after it by what both stand for. TypeScript's server lists both names among that symbol's
// references (and goes there from either): the name before `as` is given the alias's symbol.
void namesBeforeAs(std::vector<Planned>& planned, const std::string& text) {
  std::unordered_set<std::string_view> defined;
  std::unordered_map<uint32_t, size_t> at;  // offset -> occurrence
  for (size_t i = 0; i < planned.size(); ++i) {
    if (planned[i].site.roles & scip::Definition) defined.insert(planned[i].usr);
    at.emplace(planned[i].site.offset, i);
  }
  for (Planned& p : planned) {
    if (p.usr.rfind("local:", 0) != 0 || defined.count(p.usr) || !typescript_text::inSpecifierList(text, p.site.offset))
      continue;  // `(process as ElectronProcess)` is a type assertion, no alias
    size_t next = typescript_text::aliasAfter(text, p.site.offset + p.site.length);
    if (next == std::string::npos) continue;
    auto alias = at.find(static_cast<uint32_t>(next));
    if (alias == at.end()) continue;
    const std::string& target = planned[alias->second].usr;
    if (target.empty() || target.rfind("local:", 0) == 0 || isModuleSymbol(target)) continue;
    p.usr = target;
  }
}

// `import { html } from "parse5"` where the module does not resolve (a package not installed):
// scip-typescript names `html` by a symbol local to the document, defined nowhere. TypeScript's
// server, failing to resolve the alias, answers the import itself — its definition, and its
// references in the file. The import clause's name becomes the symbol's definition.
void unresolvedImports(std::vector<Planned>& planned, const std::string& text) {
  std::unordered_map<std::string_view, size_t> first;  // local symbol -> its first occurrence
  std::unordered_set<std::string_view> defined;
  for (size_t i = 0; i < planned.size(); ++i) {
    const Planned& p = planned[i];
    if (p.usr.rfind("local:", 0) != 0) continue;
    if (p.site.roles & scip::Definition) defined.insert(p.usr);
    auto [it, added] = first.emplace(p.usr, i);
    if (!added && planned[it->second].site.offset > p.site.offset) it->second = i;
  }
  for (const auto& [usr, i] : first)
    if (!defined.count(usr) && typescript_text::inImportClause(text, planned[i].site.offset))
      planned[i].site.roles |= scip::Definition;
}

void indexSignatureAccesses(std::vector<Planned>& planned, const std::string& text) {
  struct Uses {
    bool defined = false;
    std::set<std::string_view> spellings;
  };
  std::unordered_map<std::string, Uses> locals;  // copies: the symbols are cleared below
  for (const Planned& p : planned) {
    if (p.usr.rfind("local:", 0) != 0 || p.site.offset + p.site.length > text.size()) continue;
    Uses& u = locals[p.usr];
    u.defined = u.defined || (p.site.roles & scip::Definition);
    u.spellings.insert(std::string_view(text).substr(p.site.offset, p.site.length));
  }
  for (Planned& p : planned)
    if (auto it = locals.find(p.usr); it != locals.end() && !it->second.defined && it->second.spellings.size() > 1) p.usr.clear();
}

// Overloads: scip-typescript names a parameter by its function (`create().(a)`), so each
// overload signature's `a` and the implementation's are one symbol defined several times.
// TypeScript's server answers each declaration's parameter as its own: the signatures' get a
// symbol each, and the last definition — the implementation, which follows its signatures,
// and whose body holds the uses — keeps the symbol and its references.
void overloadParameters(std::vector<Planned>& planned) {
  std::unordered_map<std::string_view, std::vector<size_t>> definitions;
  for (size_t i = 0; i < planned.size(); ++i) {
    const Planned& p = planned[i];
    if ((p.site.roles & scip::Definition) && p.usr.size() >= 3 && p.usr.back() == ')')  // a parameter: `f().(a)`
      definitions[p.usr].push_back(i);
  }
  for (auto& [usr, list] : definitions) {
    if (list.size() < 2) continue;
    std::sort(list.begin(), list.end(), [&](size_t a, size_t b) { return planned[a].site.offset < planned[b].site.offset; });
    for (size_t k = 0; k + 1 < list.size(); ++k) {
      // Still a parameter descriptor, its name escaped: `(a)` becomes `(`a@OFFSET`)`.
      std::string& symbol = planned[list[k]].usr;
      const std::string suffix = "@" + std::to_string(planned[list[k]].site.offset);
      if (symbol[symbol.size() - 2] == '`') {
        symbol.insert(symbol.size() - 2, suffix);
      } else if (size_t open = symbol.rfind('('); open != std::string::npos) {
        symbol = symbol.substr(0, open + 1) + "`" + symbol.substr(open + 1, symbol.size() - open - 2) + suffix + "`)";
      }
    }
  }
}

// `const { body } = await got(url)`, `function f({ depth }: any)`: TypeScript's server goes from
// such a name to the property of the value's type, and where the type has none (`any`, a module
// that does not resolve), nowhere — while scip-typescript writes only the local there, whose
// definition is the name itself. The name is given a symbol of its own beside the local, a
// property defined nowhere (ClangNavigator's destructured answer then has no definition to
// give, and lists the local's references), as it is given the type's member where one resolves.
void unresolvedProperties(std::vector<Planned>& planned, const typescript_syntax::SyntaxTree& tree, const std::string& relative) {
  std::vector<uint32_t> names = tree.shorthandBindings();
  if (names.empty()) return;
  std::unordered_map<uint32_t, std::vector<size_t>> byOffset;
  for (size_t i = 0; i < planned.size(); ++i) byOffset[planned[i].site.offset].push_back(i);
  for (uint32_t offset : names) {
    auto it = byOffset.find(offset);
    if (it == byOffset.end()) continue;
    const Planned* local = nullptr;
    bool member = false;
    for (size_t i : it->second) {
      const Planned& p = planned[i];
      if (p.usr.rfind("local:", 0) == 0 && (p.site.roles & scip::Definition)) local = &p;
      else if (!p.usr.empty()) member = true;
    }
    if (!local || member) continue;
    Site site = local->site;
    site.roles = 0;
    planned.push_back({site, "local:" + relative + "#`<unresolved property>`@" + std::to_string(offset)});
  }
}

}  // namespace nib::typescript_sites
