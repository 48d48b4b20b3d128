#include "scip/TypeScriptExports.h"

#include <map>
#include <unordered_map>

#include "scip/ScipSymbols.h"

namespace nib::typescript_exports {

namespace {

using Bound = ModuleBindings::Bound;
using typescript_syntax::DefaultAssignment;

class Planner {
 public:
  Planner(const std::vector<ModuleBindings>& modules, const std::function<std::string(const std::string&)>& nameOf,
          const std::function<bool(const std::string&)>& expressionDefault)
      : modules_(modules), nameOf_(nameOf), expressionDefault_(expressionDefault) {
    for (const ModuleBindings& m : modules) {
      byPath_.emplace(m.relative, &m);
      if (m.module.empty()) continue;
      byModule_.emplace(m.module, &m);
      for (const Bound& b : m.bindings)
        if (b.syntax.exported && b.syntax.local != b.syntax.imported) renamed_[m.module].emplace(b.syntax.local, &b);
    }
  }

  AliasPlan plan() {
    AliasPlan out;
    for (const ModuleBindings& m : modules_) {
      if (m.defaultAssignment && !m.module.empty()) {
        const DefaultAssignment& a = *m.defaultAssignment;
        const std::string symbol = a.statement ? expressionSymbol(m.relative) : defaultSymbol(m.module);
        out.keywords.push_back({m.file, a.keywordAt, a.line, a.column, symbol, a.statement ? "default" : a.name});
        if (a.statement)
          out.statements.push_back({m.file, a.statement->offset, a.statement->line, a.statement->column, a.statement->length, symbol});
      }
      for (const Bound& b : m.bindings) {
        if (b.target.empty()) continue;
        if (b.target.rfind("local:", 0) == 0) expressionImportSites(m, b, out);
        else if (b.syntax.exported) exportSites(m, b, out);
        else importSites(m, b, out);
      }
    }
    return out;
  }

 private:
  static std::string defaultSymbol(const std::string& module) { return module + "`<default>`."; }
  // An expression's default export, named by its file's path in the repository: an importer in
  // another project, or one whose indexer wrote no module symbol at the specifier (a folder's
  // index), names it so too.
  static std::string expressionSymbol(const std::string& relative) { return scip_symbols::fileSymbol(relative) + "`<default>`."; }
  static std::string exportSymbol(const std::string& module, const std::string& name) {
    return module + "`<export " + name + ">`.";
  }

  // The export symbols between an import of `name` from `module` and what the indexer named: the
  // module's default assignment, or its renaming export and what that one re-exports.
  std::vector<std::string> chain(const std::string& module, const std::string& name, int depth = 0) const {
    if (depth > 8 || module.empty()) return {};
    auto m = byModule_.find(module);
    if (m == byModule_.end()) return {};
    if (name == "default" && m->second->defaultAssignment) return {defaultSymbol(module)};
    auto exports = renamed_.find(module);
    if (exports == renamed_.end()) return {};
    auto b = exports->second.find(name);
    if (b == exports->second.end()) return {};
    std::vector<std::string> out = {exportSymbol(module, name)};
    for (std::string& next : chain(b->second->source, b->second->syntax.imported, depth + 1)) out.push_back(std::move(next));
    return out;
  }

  // The name an import must keep to be followed: the assigned name of a default assignment, a
  // default-exported declaration's own name, else the exported name itself.
  std::string exportedName(const std::string& module, const std::string& name, const std::string& target) const {
    if (name != "default") return name;
    auto m = byModule_.find(module);
    if (m != byModule_.end() && m->second->defaultAssignment) return m->second->defaultAssignment->name;
    return nameOf_(target);
  }

  static void addSite(AliasPlan& out, const ModuleBindings& m, const Bound& b, uint32_t offset, const std::string& name,
                      std::string primary, std::vector<std::string> expanded) {
    expanded.push_back(b.target);
    out.sites.push_back({m.file, offset, b.target, std::move(primary), name, std::move(expanded)});
  }

  void importSites(const ModuleBindings& m, const Bound& b, AliasPlan& out) const {
    std::vector<std::string> through = chain(b.source, b.syntax.imported);
    const std::string exported = exportedName(b.source, b.syntax.imported, b.target);
    const bool kept = exported.empty() || exported == b.syntax.local;
    if (kept && through.empty()) return;  // the import is the declaration's own name: nothing stops there
    std::string primary = kept ? through.front() : "local:" + m.relative + "#import@" + std::to_string(b.syntax.localAt);
    std::vector<std::string> expanded(through.begin() + (kept ? 1 : 0), through.end());
    for (uint32_t offset : b.localSites) addSite(out, m, b, offset, b.syntax.local, primary, expanded);
    importedName(m, b, through, out);
  }

  // The imported name of `{ I as L }` belongs to the export it names (the first stop on the way),
  // and to everything beyond.
  static void importedName(const ModuleBindings& m, const Bound& b, const std::vector<std::string>& through, AliasPlan& out) {
    if (b.importedSite && !through.empty())
      addSite(out, m, b, *b.importedSite, b.syntax.imported, through.front(),
              std::vector<std::string>(through.begin() + 1, through.end()));
  }

  // `import L from "m"` where m says `export default EXPRESSION;`: scip-typescript declares a
  // local L, TypeScript's server names m's default export there and at each use, whatever name
  // each importer gives it, and declares it at the statement.
  void expressionImportSites(const ModuleBindings& m, const Bound& b, AliasPlan& out) const {
    if (b.syntax.exported || b.syntax.imported != "default") return;
    // The file a relative specifier names decides (the indexer writes no module symbol at a
    // folder's specifier); its document here, else its file read (a module of another project:
    // an inferred project's tests import what the tsconfig.json project indexes). The module
    // symbol decides where the specifier is not relative (a path mapping).
    const ModuleBindings* source = nullptr;
    if (!b.sourceFile.empty()) {
      auto it = byPath_.find(b.sourceFile);
      if (it != byPath_.end()) source = it->second;
      else if (!expressionDefault_(b.sourceFile)) return;
    } else if (auto it = byModule_.find(b.source); it != byModule_.end()) {
      source = it->second;
    } else {
      return;
    }
    if (source && (!source->defaultAssignment || !source->defaultAssignment->statement)) return;
    const std::string& file = source ? source->relative : b.sourceFile;
    // The local is not kept beside: a definition would go through it to the import.
    for (uint32_t offset : b.localSites) {
      addSite(out, m, b, offset, b.syntax.local, expressionSymbol(file), {});
      out.sites.back().reference = true;
      out.sites.back().expanded.clear();
    }
  }

  void exportSites(const ModuleBindings& m, const Bound& b, AliasPlan& out) const {
    if (b.syntax.local == b.syntax.imported || m.module.empty()) return;  // `export { a }`: no rename
    std::vector<std::string> through = chain(b.source, b.syntax.imported);
    for (uint32_t offset : b.localSites) addSite(out, m, b, offset, b.syntax.local, exportSymbol(m.module, b.syntax.local), through);
    importedName(m, b, through, out);
  }

  const std::vector<ModuleBindings>& modules_;
  const std::function<std::string(const std::string&)>& nameOf_;
  const std::function<bool(const std::string&)>& expressionDefault_;
  std::unordered_map<std::string, const ModuleBindings*> byModule_, byPath_;
  std::unordered_map<std::string, std::map<std::string, const Bound*>> renamed_;
};

}  // namespace

AliasPlan planAliases(const std::vector<ModuleBindings>& modules, const std::function<std::string(const std::string&)>& nameOf,
                      const std::function<bool(const std::string&)>& expressionDefault) {
  return Planner(modules, nameOf, expressionDefault).plan();
}

}  // namespace nib::typescript_exports
