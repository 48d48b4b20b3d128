#include "scip/ScipImport.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "scip.pb.h"
#include "scip/PythonImports.h"
#include "scip/ScipSites.h"
#include "scip/ScipSymbols.h"
#include "scip/TypeScriptArguments.h"
#include "scip/TypeScriptCalls.h"
#include "scip/TypeScriptExports.h"
#include "scip/TypeScriptSites.h"
#include "scip/TypeScriptSyntax.h"
#include "scip/TypeScriptText.h"
#include "support/FileIo.h"
#include "support/Text.h"
#include "views/FileFacts.h"

namespace nib {
namespace fs = std::filesystem;
using typescript_text::identifierChar;
using scip_symbols::kindOf;
using scip_symbols::kindOfSymbol;
using scip_symbols::moduleNameOf;
using scip_symbols::moduleSymbolLike;
using scip_symbols::nameOfSymbol;
using scip_symbols::pathOfUri;
using scip_symbols::repositoryNamed;

namespace {

struct Importer {
  std::string root;
  fs::path projectRoot;
  std::unordered_map<std::string, std::string> renamed;  // repositoryNamed, once per symbol

  std::unordered_map<std::string, std::string> definedAt;  // SCIP symbol -> the file defining it

  const std::string& canonical(const std::string& symbol) {
    auto it = renamed.find(symbol);
    if (it == renamed.end()) {
      auto at = definedAt.find(symbol);
      it = renamed.emplace(symbol, repositoryNamed(symbol, projectRoot, root, at == definedAt.end() ? "" : at->second)).first;
    }
    return it->second;
  }

  // Which document defines each symbol (the first, for one defined in several).
  void noteDefinitions(const scip::Index& index) {
    for (const scip::Document& doc : index.documents()) {
      std::error_code ec;
      std::string absolute = fs::weakly_canonical(projectRoot / doc.relative_path(), ec).string();
      if (ec) continue;
      for (const scip::Occurrence& o : doc.occurrences())
        if ((o.symbol_roles() & scip::Definition) && o.symbol().rfind("local ", 0) != 0) definedAt.emplace(o.symbol(), absolute);
    }
  }
  // The text of `doc` when one of its occurrences is `wanted` (nullptr otherwise): a pre-pass
  // reads only those, once; document() takes the texts read here instead of reading them again.
  std::unordered_map<std::string, std::string> readTexts;  // by the document's relative path
  template <typename Wanted>
  const std::string* textWhereAny(const scip::Document& doc, Wanted wanted) {
    if (std::none_of(doc.occurrences().begin(), doc.occurrences().end(), wanted)) return nullptr;
    if (auto it = readTexts.find(doc.relative_path()); it != readTexts.end()) return &it->second;
    std::error_code ec;
    auto text = readFile(fs::weakly_canonical(projectRoot / doc.relative_path(), ec));
    if (ec || !text) return nullptr;
    return &readTexts.emplace(doc.relative_path(), std::move(*text)).first->second;
  }

  // The declared type of each callable's parameters and the types each type extends, read before
  // any document (a call in one names a callable another declares), and the symbols the index
  // defines, canonical: an object literal passed as an argument takes its parameter's type's
  // properties (typescript_arguments).
  typescript_arguments::ParameterTypes parameterTypes;
  std::unordered_map<std::string, std::vector<std::string>> typeBases;
  std::unordered_set<std::string> definedCanonical;
  static bool parameterDefinition(const scip::Occurrence& o) {
    return (o.symbol_roles() & scip::Definition) && o.symbol().rfind("local ", 0) != 0 &&
           !typescript_arguments::callableOfParameter(o.symbol()).empty() && o.range_size() == 3;
  }
  static bool typeDefinition(const scip::Occurrence& o) {
    return (o.symbol_roles() & scip::Definition) && o.symbol().rfind("local ", 0) != 0 && o.symbol().size() > 1 &&
           o.symbol().back() == '#' && o.range_size() == 3;
  }
  void noteArgumentTypes(const scip::Index& index) {
    for (const auto& [symbol, file] : definedAt) definedCanonical.insert(canonical(symbol));
    for (const scip::Document& doc : index.documents()) {
      const std::string* text =
          textWhereAny(doc, [](const scip::Occurrence& o) { return parameterDefinition(o) || typeDefinition(o); });
      if (!text) continue;
      LineTable lines(*text);
      const Encoding enc = encodingOf(doc);
      std::map<std::pair<uint32_t, uint32_t>, const std::string*> types;  // (line, byte column) -> a type's symbol
      auto endOf = [&](const scip::Occurrence& o) -> std::optional<uint32_t> {
        uint32_t end = 0;
        if (o.range(0) < 0 || o.range(2) < 0 || static_cast<uint32_t>(o.range(0)) >= lines.lineCount() ||
            !lines.offsetOf({static_cast<uint32_t>(o.range(0)), lines.fromUnits(static_cast<uint32_t>(o.range(0)),
                                                                                 static_cast<uint32_t>(o.range(2)), enc)}, &end))
          return std::nullopt;
        return end;
      };
      auto typeAt = [&](size_t offset) -> std::string {
        Position p = lines.positionOf(static_cast<uint32_t>(offset));
        auto it = types.find({p.line, p.column});
        return it == types.end() ? "" : canonical(*it->second);
      };
      for (const scip::Occurrence& o : doc.occurrences())
        if (o.range_size() == 3 && o.symbol().size() > 1 && o.symbol().back() == '#' && o.range(0) >= 0 && o.range(1) >= 0 &&
            static_cast<uint32_t>(o.range(0)) < lines.lineCount())
          types.emplace(std::pair{static_cast<uint32_t>(o.range(0)),
                                  lines.fromUnits(static_cast<uint32_t>(o.range(0)), static_cast<uint32_t>(o.range(1)), enc)},
                        &o.symbol());
      noteParameters(doc, *text, endOf, typeAt);
      for (const scip::Occurrence& o : doc.occurrences())
        if (auto end = typeDefinition(o) ? endOf(o) : std::nullopt)
          for (size_t at : typescript_arguments::heritageAt(*text, *end))
            if (std::string base = typeAt(at); !base.empty()) typeBases[canonical(o.symbol())].push_back(std::move(base));
    }
  }
  // A document's parameters in the order they are written; a callable's parameter written again
  // starts its next signature (an overload).
  template <typename EndOf, typename TypeAt>
  void noteParameters(const scip::Document& doc, const std::string& text, EndOf endOf, TypeAt typeAt) {
    std::unordered_map<std::string, std::vector<std::vector<std::pair<std::string, std::string>>>> signatures;
    for (const scip::Occurrence& o : doc.occurrences()) {
      auto end = parameterDefinition(o) ? endOf(o) : std::nullopt;
      if (!end) continue;
      auto at = typescript_arguments::annotatedTypeAt(text, *end);
      std::string type = at ? typeAt(*at) : "";
      auto& list = signatures[canonical(typescript_arguments::callableOfParameter(o.symbol()))];
      bool again = !list.empty() && std::any_of(list.back().begin(), list.back().end(),
                                                [&](const auto& named) { return named.first == o.symbol(); });
      if (list.empty() || again) list.emplace_back();
      list.back().emplace_back(o.symbol(), std::move(type));
    }
    for (auto& [callable, list] : signatures)
      for (auto& parameters : list) {
        std::vector<std::string> typesInOrder;
        for (auto& [name, type] : parameters) typesInOrder.push_back(std::move(type));
        parameterTypes[callable].push_back(std::move(typesInOrder));
      }
  }
  // The property `name` of `type` or of a type it extends (typescript_arguments::propertyOf).
  std::string argumentProperty(const std::string& type, const std::string& name) {
    return typescript_arguments::propertyOf(
        type, name,
        [&](const std::string& t) -> const std::vector<std::string>* {
          auto it = typeBases.find(t);
          return it == typeBases.end() ? nullptr : &it->second;
        },
        [&](const std::string& usr) { return definedCanonical.count(usr) > 0; });
  }

  // scip-typescript's symbols of a class member defined both as a static and as an instance
  // member (typescript_sites::staticMembers tells their sites apart). Only documents defining a
  // member symbol twice are read for it.
  std::unordered_set<std::string> staticCollisions;
  void noteStaticCollisions(const scip::Index& index) {
    auto member = [](const std::string& symbol) {
      return symbol.rfind("local ", 0) != 0 && symbol.find('#') != std::string::npos && symbol.back() != ')' &&
             symbol.back() != ':' && symbol.back() != '#';
    };
    std::unordered_map<std::string, int> definitions;
    for (const scip::Document& doc : index.documents())
      for (const scip::Occurrence& o : doc.occurrences())
        if ((o.symbol_roles() & scip::Definition) && member(o.symbol())) ++definitions[o.symbol()];
    std::unordered_map<std::string, int> ways;  // 1: static, 2: instance
    for (const scip::Document& doc : index.documents()) {
      auto twice = [&](const scip::Occurrence& o) {
        auto it = definitions.find(o.symbol());
        return (o.symbol_roles() & scip::Definition) && it != definitions.end() && it->second >= 2;
      };
      const std::string* text = textWhereAny(doc, twice);
      if (!text) continue;
      LineTable lines(*text);
      const Encoding enc = encodingOf(doc);
      for (const scip::Occurrence& o : doc.occurrences()) {
        if (!twice(o) || o.range().size() < 3 || o.range(0) < 0 || o.range(1) < 0) continue;
        const uint32_t line = static_cast<uint32_t>(o.range(0));
        uint32_t offset = 0;
        if (line >= lines.lineCount() || !lines.offsetOf({line, lines.fromUnits(line, static_cast<uint32_t>(o.range(1)), enc)}, &offset))
          continue;
        ways[canonical(o.symbol())] |= typescript_text::staticMemberAt(*text, offset) ? 1 : 2;
      }
    }
    for (const auto& [usr, seen] : ways)
      if (seen == 3) staticCollisions.insert(usr);
  }

  static Encoding encodingOf(const scip::Document& doc) {
    return doc.position_encoding() == scip::UTF8CodeUnitOffsetFromLineStart    ? Encoding::Utf8
           : doc.position_encoding() == scip::UTF32CodeUnitOffsetFromLineStart ? Encoding::Utf32
                                                                              : Encoding::Utf16;
  }

  TuFacts facts;
  std::vector<typescript_calls::CalledDefinitions> calls;  // what the launcher wrote at callees
  std::unordered_map<std::string, uint32_t> usrIds;
  std::vector<bool> named;  // by usr: the name came from a definition's text
  std::unordered_map<std::string, const scip::SymbolInformation*> infos;
  ScipImportStats stats;
  bool typescript = false;  // scip-typescript wrote the index (scip-python's conventions differ)

  uint32_t usrOf(const std::string& usr) {
    auto [it, added] = usrIds.emplace(usr, static_cast<uint32_t>(facts.usrs.size()));
    if (added) {
      facts.usrs.push_back(usr);
      facts.names.push_back(nameOfSymbol(usr));
      named.push_back(false);
    }
    return it->second;
  }

  SymbolKind kindFor(const std::string& symbol) {
    auto it = infos.find(symbol);
    SymbolKind k = it != infos.end() ? kindOf(it->second->kind()) : SymbolKind::Unknown;
    return k != SymbolKind::Unknown ? k : kindOfSymbol(symbol);
  }

  // The TypeScript rules (TypeScriptSites, TypeScriptExports' bindings) on a document's planned
  // sites; `aliased` and `namespaceUses` are moduleAliases's, per site. Returns the sites to add
  // beside the others, expanded.
  std::vector<scip_sites::Planned> typeScriptRules(std::vector<scip_sites::Planned>& planned, const std::string& text,
                                                   const std::string& absolute,
                                                   const std::string& relative, std::vector<std::string>& aliased,
                                                   std::vector<bool>& namespaceUses) {
    std::vector<scip_sites::Planned> importAliases;
    std::unique_ptr<typescript_syntax::SyntaxTree> tree = typescript_syntax::SyntaxTree::parse(text, typescript_syntax::dialectOf(relative));
    if (tree) typescript_sites::keepMeaningAsked(planned, *tree);
    typescript_sites::namesBeforeAs(planned, text);
    typescript_sites::unresolvedImports(planned, text);
    typescript_sites::indexSignatureAccesses(planned, text);
    typescript_sites::overloadParameters(planned);
    typescript_sites::staticMembers(planned, text, staticCollisions);
    aliased = moduleAliases(planned, text, relative, &namespaceUses);
    commonJsExports(planned, text);
    deferAliasMembers(planned, aliased, text);
    const uint32_t file = static_cast<uint32_t>(facts.files.size() - 1);
    if (tree) {
      typescript_syntax::ModuleSyntax syntax = tree->moduleSyntax();
      typescript_sites::exportedImports(planned, syntax);
      if (auto bindings = typescript_sites::noteBindings(planned, syntax, text, relative, file)) {
        for (typescript_exports::ModuleBindings::Bound& b : bindings->bindings)
          // Only an import the indexer declared a local at can name an expression's default export.
          if (b.syntax.imported == "default" && b.syntax.sourceAt && b.target.rfind("local:", 0) == 0)
            if (std::string found = typescript_text::resolveRelativeModule(absolute, typescript_text::stringAt(text, *b.syntax.sourceAt));
                found.compare(0, root.size(), root) == 0)
              b.sourceFile = found.substr(root.size());
        moduleBindings.push_back(std::move(*bindings));
      }
      importAliases = typescript_sites::shorthandImports(planned, syntax, text, relative);
      typescript_sites::argumentsObjects(planned, *tree, text, file);
      if (typescript_syntax::dialectOf(relative) == typescript_syntax::Dialect::JavaScript)
        typescript_sites::requireCalls(planned, *tree, text, file);
      typescript_sites::unresolvedTypes(planned, *tree, text, file);
      typescript_sites::docReferences(planned, *tree, text, file);
      typescript_sites::modifiedConstructors(planned, *tree, file);
      typescript_sites::contextualShorthands(planned, *tree, text);
      typescript_arguments::contextualArguments(
          planned, *tree, parameterTypes, [&](const std::string& type, const std::string& name) { return argumentProperty(type, name); });
      typescript_sites::unresolvedProperties(planned, *tree, relative);
    }
    aliased.resize(planned.size());  // the sites added since alias nothing
    namespaceUses.resize(planned.size());
    return importAliases;
  }

  void document(const scip::Document& doc, const fs::path& projectRoot) {
    std::error_code ec;
    std::string absolute = fs::weakly_canonical(projectRoot / doc.relative_path(), ec).string();
    auto read = readTexts.find(doc.relative_path());
    auto text = ec || absolute.compare(0, root.size(), root) != 0 ? Expected<std::string>(Status(ErrorCode::NotFound, ""))
                : read != readTexts.end()                          ? Expected<std::string>(std::move(read->second))
                                                                   : readFile(absolute);
    if (read != readTexts.end()) readTexts.erase(read);
    if (!text) {
      ++stats.skippedDocuments;
      return;
    }
    ++stats.documents;
    facts.files.push_back(absolute);
    const std::string relative = absolute.substr(root.size());
    std::vector<Planned> planned = plan(doc, *text, relative);
    const std::string package = typescript ? std::string() : packageOfDocument(planned, relative);
    if (!typescript) allListSites(planned, *text);
    std::vector<std::string> aliased(planned.size());
    std::vector<bool> namespaceUses(planned.size());
    // Sites to add beside the others, expanded (shorthands' imports).
    std::vector<Planned> importAliases;
    if (typescript) importAliases = typeScriptRules(planned, *text, absolute, relative, aliased, namespaceUses);
    for (size_t i = 0; i < planned.size(); ++i) {
      Planned& p = planned[i];
      if (p.usr.empty()) continue;
      std::string& usr = p.usr;
      const Site& site = p.site;
      // scip-typescript names a class by its constructor wherever the class has one (`new X()`,
      // `X.REVERSE`, `extends X`); TypeScript's own server answers those as the class's
      // references, and goes to the class — and, after `new`, to the constructor too: there the
      // constructor stays as a second, `expanded` occurrence (never the name under the cursor;
      // ClangNavigator adds its definition). The constructor keeps its own definition.
      static const std::string kConstructor = "`<constructor>`().";
      if (!(site.roles & scip::Definition) && usr.size() > kConstructor.size() &&
          usr.compare(usr.size() - kConstructor.size(), kConstructor.size(), kConstructor) == 0) {
        if (typescript_text::afterNew(*text, site.offset)) add(usr, site, *text, /*expanded=*/true);
        usr.resize(usr.size() - kConstructor.size());
      } else if (typescript && !(site.roles & scip::Definition) && usr.size() > 1 && usr.back() == '#' &&
                 kindFor(usr) == SymbolKind::Class && typescript_text::afterNew(*text, site.offset)) {
        // `new X()` of a class without a constructor of its own: TypeScript's server goes to the
        // nearest base class's constructor too. The class's constructor, defined nowhere, stays
        // beside it, and ClangNavigator looks up the hierarchy from it.
        add(usr + kConstructor, site, *text, /*expanded=*/true);
      }
      // `import numpy as np`, `from .util import helper as helper`: scip-python gives both names one
      // range; each is a name of its own, the alias naming what it imports, as pyright answers at
      // either (and lists both among the references).
      Site named = site;
      std::optional<Site> alias = typescript ? std::nullopt : splitImportAlias(named, *text);
      if (std::string module = moduleNameOf(usr); !module.empty() && named.length > 0) {
        if (!typescript) absoluteModule(usr, module, named, *text, package);
        moduleSites(usr, module, named, *text);
      } else {
        add(usr, named, *text);
      }
      if (alias) add(usr, *alias, *text);
      // The module an alias stands for stays beside it, for definitions (ClangNavigator) — but
      // at a use of `import * as ns`, where TypeScript's server goes to that declaration, not
      // through it (its shouldSkipAlias: a namespace import is the one alias it stops at).
      if (!aliased[i].empty() && !namespaceUses[i]) {
        Site reference = site;
        reference.roles = 0;  // at the alias's declaration too: it declares the alias, not the module
        add(aliased[i], reference, *text, /*expanded=*/true);
      }
    }
    for (const Planned& d : importAliases) add(d.usr, d.site, *text, /*expanded=*/true);
  }

  using Site = scip_sites::Site;
  using Planned = scip_sites::Planned;

  // After every document: the server's answers at callees (TypeScriptCalls), named by no one.
  void addCalledDefinitions() {
    for (const Planned& p : typescript_calls::answerSites(calls, root)) {
      addSpelled(p.usr, p.site, "", /*expanded=*/true);
      facts.names[usrOf(p.usr)].clear();
    }
  }

  // The document's occurrences in nib's positions (bytes), with their symbols named as nib names
  // them; occurrences that name no place in the file are left out (counted).
  std::vector<Planned> plan(const scip::Document& doc, const std::string& text, const std::string& relative) {
    const uint32_t file = static_cast<uint32_t>(facts.files.size() - 1);
    LineTable lines(text);
    const Encoding enc = encodingOf(doc);
    std::vector<Planned> out;
    out.reserve(doc.occurrences_size());
    for (const scip::Occurrence& o : doc.occurrences()) {
      const auto& r = o.range();
      bool valid = (r.size() == 3 || r.size() == 4) && !o.symbol().empty();
      for (int v : r) valid = valid && v >= 0;
      if (!valid || static_cast<uint32_t>(r[0]) >= lines.lineCount()) {
        ++stats.skippedOccurrences;
        continue;
      }
      uint32_t line = static_cast<uint32_t>(r[0]);
      bool oneLine = r.size() == 3 || r[2] == r[0];
      uint32_t start = lines.fromUnits(line, static_cast<uint32_t>(r[1]), enc);
      uint32_t end = oneLine ? lines.fromUnits(line, static_cast<uint32_t>(r.size() == 3 ? r[2] : r[3]), enc)
                             : static_cast<uint32_t>(lines.lineText(line).size());
      uint32_t offset = 0;
      // An empty range names nothing a cursor can be on; a module's definition at the start of
      // its file is kept, as the place its importers go to.
      bool moduleDefinition = end == start && start == 0 && line == 0 && (o.symbol_roles() & scip::Definition);
      if ((end <= start && !moduleDefinition) || !lines.offsetOf({line, start}, &offset)) {
        ++stats.skippedOccurrences;
        continue;
      }
      if (typescript && typescript_calls::isLauncherOccurrence(o.symbol())) {
        if (auto definitions = typescript_calls::parse(o.symbol()))
          calls.push_back({Site{file, line, start, offset, end - start, 0}, std::move(*definitions)});
        continue;
      }
      std::string usr = o.symbol().rfind("local ", 0) == 0 ? "local:" + relative + "#" + o.symbol().substr(6) : canonical(o.symbol());
      // TypeScript's server places a module's definition at its first token, past the comments
      // a file opens with (pyright and pylsp at the file's start, where SCIP has it).
      if (moduleDefinition && typescript) {
        offset = static_cast<uint32_t>(typescript_text::moduleStart(text));
        Position p = lines.positionOf(offset);
        line = p.line;
        start = end = p.column;
      }
      out.push_back({Site{file, line, start, offset, end - start, o.symbol_roles()}, std::move(usr)});
    }
    return out;
  }

  // After every document: the export and alias symbols TypeScript's server stops at, given to
  // the sites the plan names (the indexer's symbol kept beside them, expanded), and each `export
  // default NAME;` keyword as a site of the module's default export.
  void applyAliasPlan() {
    if (moduleBindings.empty()) return;
    std::unordered_map<std::string, bool> expressionDefaults;  // by file, read once
    auto expressionDefault = [&](const std::string& file) {
      auto [it, added] = expressionDefaults.emplace(file, false);
      if (!added) return it->second;
      auto text = readFile(root + file);
      if (!text) return false;
      auto tree = typescript_syntax::SyntaxTree::parse(*text, typescript_syntax::dialectOf(file));
      if (!tree) return false;
      auto assignment = tree->moduleSyntax().defaultAssignment;
      return it->second = assignment && assignment->statement;
    };
    typescript_exports::AliasPlan plan = typescript_exports::planAliases(
        moduleBindings, [](const std::string& usr) { return nameOfSymbol(usr); }, expressionDefault);
    std::map<std::pair<uint32_t, uint32_t>, std::vector<const typescript_exports::SiteSymbols*>> at;
    for (const typescript_exports::SiteSymbols& s : plan.sites) at[{s.file, s.offset}].push_back(&s);
    std::vector<ClangOccurrence> added;
    for (ClangOccurrence& o : facts.occurrences) {
      if (o.expanded) continue;
      auto it = at.find({o.file, o.offset});
      if (it == at.end()) continue;
      for (const typescript_exports::SiteSymbols* s : it->second) {
        if (facts.usrs[o.usr] != s->target) continue;
        ClangOccurrence beside = o;
        beside.expanded = true;
        o.usr = aliasSymbol(s->primary, s->name);
        if (s->reference) o.role = ClangRole::Reference;
        for (const std::string& e : s->expanded) {
          beside.usr = e == s->target ? usrIds.at(s->target) : aliasSymbol(e, s->name);
          added.push_back(beside);
        }
        break;
      }
    }
    // An export's own site: a variable's, of the symbol named so.
    auto exportSite = [&](uint32_t file, uint32_t line, uint32_t column, uint32_t offset, uint32_t length, uint32_t usr) {
      ClangOccurrence c;
      c.file = file;
      c.line = line;
      c.column = column;
      c.offset = offset;
      c.length = length;
      c.usr = usr;
      c.kind = static_cast<uint8_t>(SymbolKind::Variable);
      return c;
    };
    for (const typescript_exports::KeywordSite& k : plan.keywords)  // `default`
      added.push_back(exportSite(k.file, k.line, k.column, k.offset, 7, aliasSymbol(k.symbol, k.name)));
    // The statement declares what it exports: it answers definitions, and is neither a name under
    // the cursor (expanded) nor one of the references (unlisted; its `default` keyword is).
    for (const typescript_exports::StatementSite& st : plan.statements) {
      ClangOccurrence c = exportSite(st.file, st.line, st.column, st.offset, st.length, aliasSymbol(st.symbol, "default"));
      c.role = ClangRole::Definition;
      c.expanded = true;
      c.unlisted = true;
      added.push_back(c);
    }
    stats.occurrences += added.size();
    facts.occurrences.insert(facts.occurrences.end(), added.begin(), added.end());
  }

  // An export's or alias's symbol, named as the text spells it.
  uint32_t aliasSymbol(const std::string& usr, const std::string& name) {
    uint32_t id = usrOf(usr);
    if (!named[id]) {
      facts.names[id] = name;
      named[id] = true;
    }
    return id;
  }

  std::vector<typescript_exports::ModuleBindings> moduleBindings;

  // CommonJS exports: the symbol each `exports.NAME = ...` / `module.exports.NAME = ...` of this
  // module names at NAME (what the assignment exports: the function, the class), by NAME.
  void commonJsExports(const std::vector<Planned>& planned, const std::string& text) {
    const std::string* module = nullptr;
    for (const Planned& p : planned)
      if ((p.site.roles & scip::Definition) && p.site.length == 0 && isModuleSymbol(p.usr)) module = &p.usr;
    if (!module) return;
    static constexpr std::string_view kExports = "exports.";
    for (const Planned& p : planned) {
      if (p.usr.empty() || p.usr.rfind("local:", 0) == 0 || p.site.offset < kExports.size()) continue;
      size_t at = p.site.offset - kExports.size();
      if (text.compare(at, kExports.size(), kExports) != 0 || (at > 0 && identifierChar(text[at - 1]) )) continue;
      exportsOf[*module].emplace(text.substr(p.site.offset, p.site.length), p.usr);
    }
  }

  // `yaml.load(...)` where `yaml` is an alias of a CommonJS module: scip-typescript names `load` by
  // a symbol local to this document and defined nowhere in it. Such a use waits until every
  // document is read, for the symbol the module's `exports.load = ...` names (TypeScript's server
  // goes there); it keeps the local where the module exports no such name.
  void deferAliasMembers(std::vector<Planned>& planned, const std::vector<std::string>& aliased, const std::string& text) {
    std::unordered_set<std::string> defined;
    std::unordered_map<uint32_t, size_t> aliasEndingAt;
    for (size_t i = 0; i < planned.size(); ++i) {
      if ((planned[i].site.roles & scip::Definition) && planned[i].usr.rfind("local:", 0) == 0) defined.insert(planned[i].usr);
      if (!aliased[i].empty() && !(planned[i].site.roles & scip::Definition))
        aliasEndingAt.emplace(planned[i].site.offset + planned[i].site.length, i);
    }
    for (Planned& p : planned) {
      if (p.usr.rfind("local:", 0) != 0 || defined.count(p.usr) || p.site.offset == 0 || text[p.site.offset - 1] != '.') continue;
      auto alias = aliasEndingAt.find(p.site.offset - 1);
      if (alias == aliasEndingAt.end()) continue;
      pendingMembers.push_back({p.site, aliased[alias->second], text.substr(p.site.offset, p.site.length), std::move(p.usr)});
      p.usr.clear();
    }
  }

  // After every document: the deferred members, resolved through their module's exports.
  void resolveAliasMembers() {
    for (PendingMember& m : pendingMembers) {
      auto module = exportsOf.find(m.module);
      const std::string* exported = nullptr;
      if (module != exportsOf.end())
        if (auto e = module->second.find(m.name); e != module->second.end()) exported = &e->second;
      addSpelled(exported ? *exported : m.local, m.site, m.name);
    }
    pendingMembers.clear();
  }

  static bool isModuleSymbol(const std::string& usr) { return scip_sites::isModuleSymbol(usr); }

  struct PendingMember {
    Site site;
    std::string module, name, local;
  };
  std::vector<PendingMember> pendingMembers;
  std::unordered_map<std::string, std::unordered_map<std::string, std::string>> exportsOf;  // module -> name -> symbol

  // `const yaml = require("./index")` (or `import * as yaml from "./index"`): scip-typescript
  // writes the module's symbol at every use of `yaml`, so the module's references would be every
  // file's uses of its own alias. TypeScript's server answers the alias's references (the
  // declaration and this file's uses) and goes to the module for its definition. A use spelled
  // as an identifier that names a module (or, after `NAME = require(`, whatever the module
  // exports) is given the alias's symbol (the nearest definition before it in the document
  // spelled alike); the result names, per occurrence, the target that stays beside the alias (the
  // alias's uses and its declaration), "" elsewhere.
  // `namespaceUses` marks the uses of an `import * as` alias.
  std::vector<std::string> moduleAliases(std::vector<Planned>& planned, const std::string& text, const std::string& relative,
                                         std::vector<bool>* namespaceUses) {
    namespaceUses->assign(planned.size(), false);
    std::vector<std::string> aliased(planned.size());
    std::vector<bool> namespaceAlias(planned.size());
    auto spelled = [&](const Site& s) { return std::string_view(text).substr(s.offset, s.length); };
    // `import * as ns from "./m"`: scip-typescript writes the module at `ns` itself, as a
    // reference; the name is the alias's declaration, given a symbol of its own.
    for (size_t j = 0; j < planned.size(); ++j) {
      Planned& p = planned[j];
      if (!isModuleSymbol(p.usr) || (p.site.roles & scip::Definition) || !typescript_text::namespaceImportAt(text, p.site.offset)) continue;
      aliased[j] = p.usr;
      namespaceAlias[j] = true;
      p.usr = "local:" + relative + "#namespace@" + std::to_string(p.site.offset);
      p.site.roles |= scip::Definition;
    }
    // The document's definitions by spelling, in the order of their offsets.
    std::unordered_map<std::string_view, std::vector<size_t>> definitions;
    for (size_t j = 0; j < planned.size(); ++j)
      if ((planned[j].site.roles & scip::Definition) && !planned[j].usr.empty() && !isModuleSymbol(planned[j].usr))
        definitions[spelled(planned[j].site)].push_back(j);
    for (auto& [name, list] : definitions)
      std::sort(list.begin(), list.end(), [&](size_t a, size_t b) { return planned[a].site.offset < planned[b].site.offset; });
    for (size_t i = 0; i < planned.size(); ++i) {
      Planned& use = planned[i];
      if (use.usr.empty() || use.usr.rfind("local:", 0) == 0 || (use.site.roles & scip::Definition)) continue;
      const bool module = isModuleSymbol(use.usr);
      std::string_view name = spelled(use.site);
      if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_' || name[0] == '$')) continue;
      if (!module && use.site.offset > 0 && text[use.site.offset - 1] == '.') continue;  // a member, not a name in scope
      auto found = definitions.find(name);
      if (found == definitions.end()) continue;
      const std::vector<size_t>& list = found->second;
      auto after = std::lower_bound(list.begin(), list.end(), use.site.offset,
                                    [&](size_t j, uint32_t offset) { return planned[j].site.offset < offset; });
      if (after == list.begin()) continue;
      size_t alias = *(after - 1);
      // `const Type = require("./type")`, where the module exports a value (`module.exports =
      // Type`): scip-typescript writes that value at the alias's uses; TypeScript's server answers
      // them as the alias's, as for a module.
      if (planned[alias].usr == use.usr || (!module && !typescript_text::requireAliasAt(text, planned[alias].site.offset + planned[alias].site.length))) continue;
      aliased[i] = use.usr;
      if (aliased[alias].empty()) aliased[alias] = use.usr;
      if (namespaceAlias[alias]) (*namespaceUses)[i] = true;
      use.usr = planned[alias].usr;
    }
    return aliased;
  }

  void add(const std::string& usr, const Site& site, const std::string& text, bool expanded = false) {
    std::string_view spelled = site.offset + site.length <= text.size() ? std::string_view(text).substr(site.offset, site.length)
                                                                        : std::string_view();
    addSpelled(usr, site, spelled, expanded);
  }

  // `spelled`: the text at the site ("" when unknown).
  void addSpelled(const std::string& usr, const Site& site, std::string_view spelled, bool expanded = false) {
    uint32_t id = usrOf(usr);
    ClangOccurrence c;
    c.expanded = expanded;
    c.file = site.file;
    c.line = site.line;
    c.column = site.column;
    c.offset = site.offset;
    c.length = site.length;
    c.usr = id;
    c.role = site.roles & scip::Definition          ? ClangRole::Definition
             : site.roles & scip::ForwardDefinition ? ClangRole::Declaration
                                                    : ClangRole::Reference;
    c.kind = static_cast<uint8_t>(kindFor(usr));
    // The name as the text spells it at a definition (else at its first occurrence).
    if (!named[id] && c.length > 0 && !spelled.empty()) {
      facts.names[id] = std::string(spelled);
      named[id] = c.role != ClangRole::Reference;
    }
    facts.occurrences.push_back(c);
    ++stats.occurrences;
  }

  // `A as B` spelled by one site: the site shrinks to `A`, and `B`'s site is returned.
  static std::optional<Site> splitImportAlias(Site& site, const std::string& text) {
    std::string_view spelled = std::string_view(text).substr(site.offset, site.length);
    const size_t as = spelled.find(" as ");
    if (as == std::string_view::npos || spelled.find(" as ", as + 1) != std::string_view::npos) return std::nullopt;
    size_t first = as;
    while (first > 0 && (spelled[first - 1] == ' ' || spelled[first - 1] == '\t')) --first;
    size_t second = as + 4;
    while (second < spelled.size() && (spelled[second] == ' ' || spelled[second] == '\t')) ++second;
    if (first == 0 || second >= spelled.size()) return std::nullopt;
    for (size_t i = second; i < spelled.size(); ++i)
      if (!identifierChar(spelled[i]) && static_cast<unsigned char>(spelled[i]) < 0x80) return std::nullopt;
    Site alias = site;
    alias.column += static_cast<uint32_t>(second);
    alias.offset += static_cast<uint32_t>(second);
    alias.length = static_cast<uint32_t>(spelled.size() - second);
    site.length = static_cast<uint32_t>(first);
    return alias;
  }

  // `__all__ = ["Request", ...]`: pyright lists each entry among the references of the symbol
  // it names, which scip-python does not record. The symbol is the one the document's own
  // occurrences spelled alike name (its definition, or the import that brings it in).
  void allListSites(const std::vector<Planned>& planned, const std::string& text) {
    std::vector<python_imports::AllEntry> entries = python_imports::allEntries(text);
    if (entries.empty()) return;
    std::unordered_map<std::string_view, const Planned*> named;
    for (const Planned& p : planned) {
      if (p.usr.empty() || p.usr.rfind("local:", 0) == 0 || moduleNameOf(p.usr) != "") continue;
      std::string_view spelled = std::string_view(text).substr(p.site.offset, p.site.length);
      auto [it, added] = named.emplace(spelled, &p);
      if (!added && (p.site.roles & scip::Definition) && !(it->second->site.roles & scip::Definition)) it->second = &p;
    }
    LineTable lines(text);
    for (const python_imports::AllEntry& e : entries) {
      auto it = named.find(std::string_view(text).substr(e.offset, e.length));
      if (it == named.end()) continue;
      Position at = lines.positionOf(static_cast<uint32_t>(e.offset));
      Site site{it->second->site.file, at.line, at.column, static_cast<uint32_t>(e.offset), static_cast<uint32_t>(e.length), 0};
      add(it->second->usr, site, text);
    }
  }

  // The package a Python document's relative imports start from, by its own module's name (the
  // module symbol scip-python defines at the file's start).
  static std::string packageOfDocument(const std::vector<Planned>& planned, const std::string& relative) {
    for (const Planned& p : planned)
      if ((p.site.roles & scip::Definition) && p.site.length == 0)
        if (std::string module = moduleNameOf(p.usr); !module.empty()) {
          const bool init = relative == "__init__.py" || relative == "__init__.pyi" ||
                            relative.ends_with("/__init__.py") || relative.ends_with("/__init__.pyi");
          return python_imports::packageOf(module, init);
        }
    return "";
  }

  // A relative import (`from .color import Color`, `from . import util`): scip-python names the
  // module by the relative name alone (`color`), a module of that name nowhere defined; the
  // language's servers mean the one the dots lead to from the document's package
  // (`rich.color`), and list the import among its references. `usr` and `module` become that one.
  static void absoluteModule(std::string& usr, std::string& module, const Site& site, const std::string& text,
                             const std::string& package) {
    std::string_view spelled = std::string_view(text).substr(site.offset, site.length);
    size_t dots = 0;
    while (dots < spelled.size() && spelled[dots] == '.') ++dots;
    std::string absolute;
    if (dots > 0) {
      std::string name;
      for (char c : spelled.substr(dots))
        if (c != ' ' && c != '\t') name.push_back(c);
      if (name != module) return;  // not the relative name alone: scip-python resolved it
      absolute = python_imports::resolveRelative(package, dots, name);
    } else if (auto from = python_imports::relativeFromAt(text, site.offset); from && spelled == module) {
      absolute = python_imports::resolveRelative(package, from->dots, from->module.empty() ? module : from->module + "." + module);
    }
    if (absolute.empty() || absolute == module) return;
    usr = moduleSymbolLike(usr, absolute);
    module = absolute;
  }

  // A module named in the text (`import a.b`, `from a.b import c`): scip-python gives the whole
  // dotted name one range and the last module's symbol; each name is its own module for the
  // language's servers (`a` is module a, `b` module a.b). A name that is not the module's at all
  // is one a star import brought in (`from m import *` ... `f()`), which scip-python attributes
  // to the module: no symbol, as the indexer did not resolve it.
  void moduleSites(const std::string& usr, const std::string& module, const Site& site, const std::string& text) {
    std::string_view spelled = std::string_view(text).substr(site.offset, site.length);
    // A relative import's leading dots name no module of their own.
    size_t dots = 0;
    while (dots < spelled.size() && spelled[dots] == '.') ++dots;
    std::string compact;
    for (char ch : spelled.substr(dots))
      if (ch != ' ' && ch != '\t') compact.push_back(ch);
    bool tail = compact.size() <= module.size() && module.compare(module.size() - compact.size(), compact.size(), compact) == 0 &&
                (compact.size() == module.size() || module[module.size() - compact.size() - 1] == '.');
    if (compact.empty() || !tail) {
      ++stats.skippedOccurrences;
      return;
    }
    std::string prefix = module.substr(0, module.size() - compact.size());  // "" or "x.y." before the spelled names
    size_t at = dots;
    while (at < spelled.size()) {
      size_t dot = spelled.find('.', at);
      size_t end = dot == std::string_view::npos ? spelled.size() : dot;
      std::string_view part = spelled.substr(at, end - at);
      size_t lead = part.find_first_not_of(" \t"), trail = part.find_last_not_of(" \t");
      if (lead != std::string_view::npos) {
        prefix += std::string(part.substr(lead, trail - lead + 1));
        Site one = site;
        one.column = site.column + static_cast<uint32_t>(at + lead);
        one.offset = site.offset + static_cast<uint32_t>(at + lead);
        one.length = static_cast<uint32_t>(trail - lead + 1);
        add(prefix == module ? usr : moduleSymbolLike(usr, prefix), one, text);
      }
      if (dot == std::string_view::npos) break;
      prefix += ".";
      at = dot + 1;
    }
  }

  void relationships(const scip::SymbolInformation& info) {
    for (const scip::Relationship& rel : info.relationships()) {
      if (rel.symbol().empty() || rel.symbol() == info.symbol()) continue;
      // A member whose references include another's (a method and the one it implements) is an
      // override edge; a type implementing another (a class and its interface) a base edge.
      const std::string& from = canonical(info.symbol());
      const std::string& to = canonical(rel.symbol());
      if (rel.is_reference() || rel.is_implementation()) {
        uint32_t a = usrOf(from), b = usrOf(to);
        bool type = !rel.is_reference() && isTypeKind(kindFor(from));
        (type ? facts.bases : facts.overrides).emplace_back(a, b);
      }
      if (rel.is_type_definition()) facts.types.emplace_back(usrOf(from), usrOf(to));
    }
  }
};

}  // namespace

Expected<TuFacts> importScip(std::string_view bytes, const std::string& root, ScipImportStats* stats) {
  scip::Index index;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) || !index.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return Status(ErrorCode::Corrupt, "not an SCIP index (truncated, or another format)");
  std::string projectRoot = pathOfUri(index.metadata().project_root());
  if (projectRoot.empty())
    return Status(ErrorCode::Corrupt, "the SCIP index names no file:// project root (\"" + index.metadata().project_root() + "\")");
  Importer im;
  im.root = root;
  im.stats.tool = index.metadata().tool_info().name() + " " + index.metadata().tool_info().version();
  im.typescript = index.metadata().tool_info().name() == "scip-typescript";
  im.projectRoot = projectRoot;
  if (im.typescript) {
    im.noteDefinitions(index);
    im.noteStaticCollisions(index);
    im.noteArgumentTypes(index);
  }
  for (const scip::Document& doc : index.documents())
    for (const scip::SymbolInformation& info : doc.symbols()) im.infos.emplace(im.canonical(info.symbol()), &info);
  for (const scip::SymbolInformation& info : index.external_symbols()) im.infos.emplace(im.canonical(info.symbol()), &info);
  for (const scip::Document& doc : index.documents()) im.document(doc, projectRoot);
  im.resolveAliasMembers();
  im.applyAliasPlan();
  im.addCalledDefinitions();
  // Local symbols' relationships are per document; a local's info names it unqualified, and
  // nib has renamed it: relationships of locals are left out.
  for (const scip::Document& doc : index.documents())
    for (const scip::SymbolInformation& info : doc.symbols())
      if (info.symbol().rfind("local ", 0) != 0) im.relationships(info);
  if (stats) *stats = im.stats;
  return std::move(im.facts);
}

}  // namespace nib
