#include "indexer/Extractor.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <array>
#include <set>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "indexer/CompiledPatterns.h"
#include "indexer/LanguageSpec.h"
#include "indexer/PatternMatcher.h"
#include "support/Hash.h"

namespace nib {
namespace {

using extraction::CaptureInfo;
using extraction::CompiledLanguage;
using extraction::Role;
using extraction::compiled;

// Bump when the extraction logic changes in a way that changes facts for the same input.
constexpr uint64_t kExtractorRevision = 2;
// Parsing is bounded so that a pathological file cannot stall an index build.
constexpr uint64_t kParseTimeoutMicros = Extractor::kDefaultParseTimeoutMicros;
constexpr size_t kMaxScopeDepth = 256;

enum class ScopeKind : uint8_t { File, Function, Block, Class, Namespace };

ByteRange rangeOf(TSNode n) {
  ByteRange r;
  r.startByte = ts_node_start_byte(n);
  r.endByte = ts_node_end_byte(n);
  TSPoint s = ts_node_start_point(n), e = ts_node_end_point(n);
  r.start = Position{s.row, s.column};
  r.end = Position{e.row, e.column};
  return r;
}

struct Scope {
  ScopeKind kind = ScopeKind::File;
  int parent = -1;
  int owner = -1;          // the innermost definition enclosing the scope node (its type, for classes)
  std::string container;   // the name this scope contributes to qualified names
  std::unordered_map<std::string_view, std::vector<int>> defs;
  std::unordered_map<std::string_view, std::vector<int>> imports;
};

struct PendingDef {
  TSNode node;
  TSNode name;
  SymbolKind kind;
  bool declaration;
  std::string explicitContainer;
  int scope = 0;
  int enclosing = -1;  // innermost definition enclosing this one (by node), before adjustment
  bool dropped = false;
  bool bindToClass = false;  // `self.x = ...`: a member of the enclosing class, not a local
};

struct PendingImport {
  Import record;
  std::string bound;                    // the local name it binds
  int scope = 0;
  const void* node = nullptr;
};

// Everything the matches said about one identifier node, found with one lookup.
struct NodeFacts {
  int def = -1;     // the pending definition it names
  int import = -1;  // the import it binds
  int member = -1;  // its MemberRef: it follows a receiver
  bool call = false;
  bool skip = false;
};

struct MemberRef {
  TSNode receiver;
  bool hasReceiver;
  bool qualified;
};

// One file's extraction state; lives for one extract() call.
class FileExtraction {
 public:
  FileExtraction(const CompiledLanguage& lang, std::string_view src) : lang_(lang), spec_(*lang.spec), src_(src) {}

  FileFacts run(TSNode root) {
    walk(root);
    finishDefinitions();
    bindNames();
    resolveOccurrences();
    buildUnits(root);
    return std::move(facts_);
  }

 private:
  std::string_view text(TSNode n) const {
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e > src_.size() || s > e) return {};
    return src_.substr(s, e - s);
  }

  // Records what one pattern match says about the nodes it captured. Called during the walk,
  // at the match's root, before any captured descendant is visited.
  void handleMatch(const std::vector<PatternCapture>& m) {
    {
      TSNode defNode{}, nameNode{}, containerNode{}, receiverNode{}, callNode{}, callName{}, memberName{},
          moduleNode{}, importName{}, importAlias{}, includePath{};
      bool haveDef = false, decl = false, haveName = false, haveContainer = false, haveReceiver = false,
           haveCall = false, haveCallName = false, haveMember = false, qualified = false, haveImport = false,
           haveModule = false, haveImportName = false, haveAlias = false, haveInclude = false, haveIncludePath = false,
           requireOk = true, selfOk = true, haveSelf = false;
      SymbolKind kind = SymbolKind::Unknown;
      ScopeKind scopeKind = ScopeKind::Block;
      TSNode scopeNode{};
      bool haveScope = false;
      for (const PatternCapture& c : m) {
        const CaptureInfo& info = lang_.captures[c.id];
        switch (info.role) {
          case Role::Definition: case Role::Declaration:
            defNode = c.node; haveDef = true; decl = info.role == Role::Declaration; kind = info.kind; break;
          case Role::Name: nameNode = c.node; haveName = true; break;
          case Role::Container: containerNode = c.node; haveContainer = true; break;
          case Role::ScopeFunction: scopeNode = c.node; haveScope = true; scopeKind = ScopeKind::Function; break;
          case Role::ScopeBlock: scopeNode = c.node; haveScope = true; scopeKind = ScopeKind::Block; break;
          case Role::ScopeClass: scopeNode = c.node; haveScope = true; scopeKind = ScopeKind::Class; break;
          case Role::ScopeNamespace: scopeNode = c.node; haveScope = true; scopeKind = ScopeKind::Namespace; break;
          case Role::RefMember: memberName = c.node; haveMember = true; break;
          case Role::RefQualified: memberName = c.node; haveMember = true; qualified = true; break;
          case Role::Receiver: receiverNode = c.node; haveReceiver = true; break;
          case Role::Call: callNode = c.node; haveCall = true; break;
          case Role::CallName: callName = c.node; haveCallName = true; break;
          case Role::Import: haveImport = true; break;
          case Role::ImportModule: moduleNode = c.node; haveModule = true; break;
          case Role::ImportName: importName = c.node; haveImportName = true; break;
          case Role::ImportAlias: importAlias = c.node; haveAlias = true; break;
          case Role::Include: haveInclude = true; break;
          case Role::IncludePath: includePath = c.node; haveIncludePath = true; break;
          case Role::Skip: addSkip(c.node); break;
          case Role::RequireCheck: requireOk = text(c.node) == "require"; break;
          case Role::SelfCheck:
            haveSelf = true;
            selfOk = std::find(spec_.selfNames.begin(), spec_.selfNames.end(), text(c.node)) != spec_.selfNames.end();
            break;
          case Role::Ignore: break;
        }
      }
      if (haveScope && !scopeNodes_.count(scopeNode.id)) {
        scopeNodes_[scopeNode.id] = {scopeKind, haveContainer ? std::string(text(containerNode)) : std::string()};
        markInteresting(scopeNode);
      }
      if (haveDef && haveName && selfOk && nodeFacts_[nameNode.id].def < 0) {
        nodeFacts_[nameNode.id].def = static_cast<int>(defs_.size());
        defsByNode_[defNode.id].push_back(static_cast<int>(defs_.size()));
        markInteresting(defNode);
        defs_.push_back(PendingDef{defNode, nameNode, kind, decl,
                                   haveContainer ? std::string(text(containerNode)) : std::string()});
        defs_.back().bindToClass = haveSelf;
      }
      if (haveMember) {
        NodeFacts& f = nodeFacts_[memberName.id];
        if (f.member < 0) {
          f.member = static_cast<int>(memberRefs_.size());
          memberRefs_.push_back(MemberRef{receiverNode, haveReceiver, qualified});
        }
      }
      if (haveCall && haveCallName) nodeFacts_[callName.id].call = true;
      (void)callNode;
      if (haveImport && haveModule && requireOk) addImport(moduleNode, haveImportName ? &importName : nullptr,
                                                           haveAlias ? &importAlias : nullptr, m);
      if (haveInclude && haveIncludePath) {
        std::string_view p = text(includePath);
        if (p.size() >= 2 && (p.front() == '"' || p.front() == '<')) p = p.substr(1, p.size() - 2);
        PendingImport imp;
        imp.record.module = std::string(p);
        imp.record.isInclude = true;
        imp.record.range = rangeOf(includePath);
        imports_.push_back(std::move(imp));
      }
    }
  }

  void markInteresting(TSNode n) {
    TSSymbol sym = ts_node_symbol(n);
    if (sym < interesting_.size()) interesting_[sym] = true;
  }

  void addSkip(TSNode n) {
    TSSymbol sym = ts_node_symbol(n);
    if (sym < lang_.identifierSymbols.size() && lang_.identifierSymbols[sym]) nodeFacts_[n.id].skip = true;
    else skipRanges_.emplace_back(ts_node_start_byte(n), ts_node_end_byte(n));
  }

  // Marks the identifier an import binds. A dotted or scoped name (`a.b`) binds its last
  // identifier; the ones before it are module path, not references.
  void bindImportNode(TSNode n, int index) {
    TSSymbol sym = ts_node_symbol(n);
    if (sym < lang_.identifierSymbols.size() && lang_.identifierSymbols[sym]) {
      nodeFacts_[n.id].import = index;
      return;
    }
    std::vector<TSNode> idents;
    std::function<void(TSNode)> collect = [&](TSNode x) {
      TSSymbol s = ts_node_symbol(x);
      if (s < lang_.identifierSymbols.size() && lang_.identifierSymbols[s]) {
        idents.push_back(x);
        return;
      }
      for (uint32_t i = 0, c = ts_node_named_child_count(x); i < c; ++i) collect(ts_node_named_child(x, i));
    };
    collect(n);
    for (size_t i = 0; i < idents.size(); ++i) {
      if (i + 1 == idents.size()) nodeFacts_[idents[i].id].import = index;
      else nodeFacts_[idents[i].id].skip = true;
    }
  }

  void addImport(TSNode module, const TSNode* name, const TSNode* alias, const std::vector<PatternCapture>& m) {
    PendingImport imp;
    imp.record.module = std::string(text(module));
    if (name) imp.record.name = std::string(text(*name));
    if (alias) imp.record.alias = std::string(text(*alias));
    // The statement's range: the capture named @import.
    for (const PatternCapture& c : m)
      if (lang_.captures[c.id].role == Role::Import) {
        imp.record.range = rangeOf(c.node);
        imp.node = c.node.id;
        markInteresting(c.node);
      }
    int index = static_cast<int>(imports_.size());
    if (name) bindImportNode(*name, index);
    if (alias) bindImportNode(*alias, index);
    if (imp.node) importByNode_[imp.node].push_back(index);
    // Module path identifiers are not references to anything nib indexes.
    addSkip(module);
    if (!imp.record.alias.empty()) imp.bound = imp.record.alias;
    else if (!imp.record.name.empty()) imp.bound = imp.record.name;
    else {
      std::string_view mod = imp.record.module;
      switch (spec_.importStyle) {
        case ImportStyle::Python: imp.bound = std::string(mod.substr(0, mod.find('.'))); break;
        case ImportStyle::Go: imp.bound = std::string(mod.substr(mod.rfind('/') == mod.npos ? 0 : mod.rfind('/') + 1)); break;
        case ImportStyle::Rust: imp.bound = std::string(mod.substr(mod.rfind(':') == mod.npos ? 0 : mod.rfind(':') + 1)); break;
        default: break;
      }
    }
    // A dotted name binds its last component ("a.b" imported from m is bound as... itself).
    imports_.push_back(std::move(imp));
  }

  void walk(TSNode root) {
    interesting_.assign(lang_.identifierSymbols.size(), false);
    scopes_.push_back(Scope{});  // the file scope
    std::vector<int> scopeStack{0};
    std::vector<int> defStack;
    struct Pushed { bool scope; bool def; };
    std::vector<Pushed> pushed;
    auto onMatch = [this](const std::vector<PatternCapture>& m) { handleMatch(m); };

    TSTreeCursor cursor = ts_tree_cursor_new(root);
    auto enter = [&](TSNode n) -> bool {  // returns false when the node's children are not visited
      Pushed p{false, false};
      const void* id = n.id;
      TSSymbol sym = ts_node_symbol(n);
      if (lang_.patterns.rootsAt(sym)) lang_.patterns.match(n, onMatch);
      bool isIdentifier = sym < lang_.identifierSymbols.size() && lang_.identifierSymbols[sym];
      // Only nodes of a type some match captured can be a scope, definition or import: checking
      // the symbol first spares the hash lookups for the vast majority of nodes.
      if (sym >= interesting_.size() || !interesting_[sym]) {
        pushed.push_back(p);
        if (isIdentifier) {
          addOccurrence(n, scopeStack.back(), defStack);
          return false;
        }
        return true;
      }
      if (auto it = defsByNode_.find(id); it != defsByNode_.end()) {
        for (int d : it->second) {
          defs_[d].scope = scopeStack.back();
          defs_[d].enclosing = defStack.empty() ? -1 : defStack.back();
        }
        defStack.push_back(it->second.front());
        p.def = true;
      }
      if (auto it = importByNode_.find(id); it != importByNode_.end())
        for (int i : it->second) imports_[i].scope = scopeStack.back();
      // Past kMaxScopeDepth nested scopes (generated or hostile code), deeper blocks share their
      // parent's scope: lookups stay bounded at a small cost in precision for such code.
      if (n.id != root.id && scopeStack.size() < kMaxScopeDepth) {
        if (auto it = scopeNodes_.find(id); it != scopeNodes_.end()) {
          Scope s;
          s.kind = it->second.kind;
          s.parent = scopeStack.back();
          s.owner = defStack.empty() ? -1 : defStack.back();
          s.container = it->second.container;
          scopeStack.push_back(static_cast<int>(scopes_.size()));
          scopes_.push_back(std::move(s));
          p.scope = true;
        }
      }
      pushed.push_back(p);
      if (isIdentifier) {
        addOccurrence(n, scopeStack.back(), defStack);
        return false;
      }
      return true;
    };
    auto leave = [&]() {
      Pushed p = pushed.back();
      pushed.pop_back();
      if (p.scope) scopeStack.pop_back();
      if (p.def) defStack.pop_back();
    };
    bool descend = enter(root);
    for (;;) {
      if (descend && ts_tree_cursor_goto_first_child(&cursor)) {
        descend = enter(ts_tree_cursor_current_node(&cursor));
        continue;
      }
      bool done = false;
      for (;;) {
        leave();
        if (ts_tree_cursor_goto_next_sibling(&cursor)) {
          descend = enter(ts_tree_cursor_current_node(&cursor));
          break;
        }
        if (!ts_tree_cursor_goto_parent(&cursor)) {
          done = true;
          break;
        }
      }
      if (done) break;
    }
    ts_tree_cursor_delete(&cursor);
  }

  // Skip ranges are registered in walk order, so the ones that ended before `start` can go.
  bool skippedByRange(uint32_t start, uint32_t end) {
    while (!skipRanges_.empty() && skipRanges_.back().second <= start) skipRanges_.pop_back();
    for (auto it = skipRanges_.rbegin(); it != skipRanges_.rend(); ++it)
      if (it->first <= start && end <= it->second) return true;
    return false;
  }

  void addOccurrence(TSNode n, int scope, const std::vector<int>& defStack) {
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e <= s) return;  // a missing node inserted by error recovery
    Occ o;
    if (auto it = nodeFacts_.find(n.id); it != nodeFacts_.end()) o.facts = it->second;
    bool bound = o.facts.def >= 0 || o.facts.import >= 0;
    if (!bound && (o.facts.skip || skippedByRange(s, e))) return;
    o.node = n;
    o.scope = scope;
    o.callable = -1;
    // The enclosing callable; a definition's own name belongs to its parent, not to itself.
    for (auto it = defStack.rbegin(); it != defStack.rend(); ++it)
      if (isCallableKind(defs_[*it].kind) && defs_[*it].name.id != n.id) {
        o.callable = *it;
        break;
      }
    occs_.push_back(o);
  }

  // Kind and scope adjustments that depend on where a definition landed.
  void finishDefinitions() {
    // `self.x = ...` binds x in the enclosing class, once: the first assignment defines the
    // field, later ones are uses of it (resolved through `self` like any member access).
    std::set<std::pair<int, std::string_view>> classFields;
    for (PendingDef& d : defs_) {
      if (!d.bindToClass) continue;
      int s = d.scope;
      while (s > 0 && scopes_[s].kind != ScopeKind::Class) s = scopes_[s].parent;
      if (s <= 0) {
        d.dropped = true;  // `self.x` outside any class: not a definition of anything
        continue;
      }
      d.scope = s;
      d.enclosing = scopes_[s].owner;  // the class, not the method the assignment is in
      if (!classFields.emplace(s, text(d.name)).second) d.dropped = true;
    }
    for (PendingDef& d : defs_) {
      const Scope& s = scopes_[d.scope];
      if (d.kind == SymbolKind::Function && s.kind == ScopeKind::Class) d.kind = SymbolKind::Method;
      if (auto it = nodeFacts_.find(d.name.id); it != nodeFacts_.end() && it->second.import >= 0)
        d.dropped = true;  // `const x = require(...)`
    }
    defIndex_.assign(defs_.size(), -1);
    // Matches arrive pattern by pattern; definitions are stored in source order.
    order_.resize(defs_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      return ts_node_start_byte(defs_[a].name) < ts_node_start_byte(defs_[b].name);
    });
    for (size_t i : order_) {
      PendingDef& d = defs_[i];
      if (d.dropped) continue;
      defIndex_[i] = static_cast<int>(facts_.definitions.size());
      Definition out;
      out.name = std::string(text(d.name));
      out.kind = d.kind;
      out.isDeclaration = d.declaration;
      out.range = rangeOf(d.node);
      out.nameRange = rangeOf(d.name);
      const Scope& s = scopes_[d.scope];
      switch (s.kind) {
        case ScopeKind::File: case ScopeKind::Namespace: out.scope = BindingScope::Global; break;
        case ScopeKind::Class: out.scope = BindingScope::Member; break;
        default: out.scope = BindingScope::Local; break;
      }
      if (d.kind == SymbolKind::Parameter && s.kind != ScopeKind::Function) out.scope = BindingScope::None;
      // Type parameters are visible only inside their generic entity, never across files.
      if (d.kind == SymbolKind::TypeParameter) out.scope = BindingScope::Local;
      if (!d.explicitContainer.empty()) out.scope = BindingScope::Member;
      out.container = containerOf(d);
      if ((out.kind == SymbolKind::Method || out.kind == SymbolKind::Function) && !out.container.empty()) {
        std::string_view c = out.container;
        size_t sep = c.rfind(spec_.separator);
        std::string_view last = sep == c.npos ? c : c.substr(sep + spec_.separator.size());
        if (last == out.name) out.kind = SymbolKind::Constructor;
      }
      facts_.definitions.push_back(std::move(out));
    }
    for (size_t i = 0; i < defs_.size(); ++i) {
      if (defIndex_[i] < 0) continue;
      int e = defs_[i].enclosing;
      while (e >= 0 && defIndex_[e] < 0) e = defs_[e].enclosing;
      facts_.definitions[defIndex_[i]].parent = e >= 0 ? defIndex_[e] : -1;
    }
  }

  std::string containerOf(const PendingDef& d) const {
    std::vector<std::string> parts;
    if (!d.explicitContainer.empty()) parts.push_back(d.explicitContainer);
    for (int s = d.scope; s > 0; s = scopes_[s].parent) {
      const Scope& sc = scopes_[s];
      if (sc.kind != ScopeKind::Class && sc.kind != ScopeKind::Namespace) continue;
      if (!sc.container.empty()) parts.push_back(sc.container);
      else if (sc.owner >= 0 && &defs_[sc.owner] != &d) parts.push_back(std::string(text(defs_[sc.owner].name)));
    }
    std::string out;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      if (!out.empty()) out += spec_.separator;
      out += *it;
    }
    return out;
  }

  void bindNames() {
    // In source order, so that each scope's bindings of one name are sorted by position.
    for (size_t i : order_) {
      if (defIndex_[i] < 0) continue;
      const Definition& d = facts_.definitions[defIndex_[i]];
      if (d.scope == BindingScope::None) continue;
      if (!defs_[i].explicitContainer.empty()) continue;  // `void A::m()` binds nothing in its scope
      scopes_[defs_[i].scope].defs[d.name].push_back(defIndex_[i]);
    }
    for (size_t i = 0; i < imports_.size(); ++i) {
      facts_.imports.push_back(imports_[i].record);
      if (!imports_[i].bound.empty()) scopes_[imports_[i].scope].imports[imports_[i].bound].push_back(static_cast<int>(i));
    }
    lookupParent_.assign(scopes_.size(), -1);
    for (size_t s = 1; s < scopes_.size(); ++s) {  // parents precede children in scopes_
      int p = scopes_[s].parent;
      lookupParent_[s] = (scopes_[p].defs.empty() && scopes_[p].imports.empty() && p != 0) ? lookupParent_[p] : p;
    }
    // Class scopes remember which definition owns them, so members can be found from a type.
    for (size_t s = 0; s < scopes_.size(); ++s)
      if (scopes_[s].kind == ScopeKind::Class && scopes_[s].owner >= 0 && defIndex_[scopes_[s].owner] >= 0)
        classScopeOf_[defIndex_[scopes_[s].owner]].push_back(static_cast<int>(s));
  }

  // Picks among same-named bindings of one scope: a definition over a declaration, and the
  // latest binding that precedes the use (Rust shadowing, Python reassignment), else the first.
  int pickBinding(const std::vector<int>& cands, uint32_t useAt, bool sameScopeOrdered) const {
    // Candidates are in source order. Only the first one and those just before the use can
    // win, so a scope with thousands of same-named bindings (generated code) is not scanned
    // whole for every use: look at the first, and at most kWindow starting before the use.
    constexpr size_t kWindow = 64;
    auto firstAfter = std::upper_bound(cands.begin(), cands.end(), useAt, [&](uint32_t at, int c) {
      return at < facts_.definitions[c].nameRange.startByte;
    });
    size_t end = static_cast<size_t>(firstAfter - cands.begin());
    size_t begin = end > kWindow ? end - kWindow : 0;
    int best = -1;
    bool bestDecl = true;
    auto consider = [&](int c) {
      const Definition& d = facts_.definitions[c];
      // A variable is in scope after its whole definition: in `let v = v + 1` the right-hand
      // `v` is still the previous binding.
      bool precedes = d.range.endByte <= useAt;
      bool orderMatters = sameScopeOrdered && (d.kind == SymbolKind::Variable || d.kind == SymbolKind::Constant ||
                                                d.kind == SymbolKind::Parameter);
      if (orderMatters && !precedes) return;
      if (best < 0 || (bestDecl && !d.isDeclaration) || (d.isDeclaration == bestDecl && precedes && orderMatters)) {
        best = c;
        bestDecl = d.isDeclaration;
      }
    };
    if (begin > 0) consider(cands.front());
    for (size_t i = begin; i < end; ++i) consider(cands[i]);
    // Hoisted kinds (functions, classes) may be used before they are defined.
    for (size_t i = end; i < cands.size() && i < end + kWindow && best < 0; ++i) consider(cands[i]);
    return best;
  }

  struct Resolved {
    Resolution resolution = Resolution::Free;
    int target = -1;
  };

  Resolved resolvePlain(std::string_view name, int scope, uint32_t at) const {
    // lookupParent_ skips scopes that bind nothing, so a use deep inside nested blocks does not
    // walk every level.
    for (int s = scope; s >= 0; s = lookupParent_[s]) {
      const Scope& sc = scopes_[s];
      if (sc.kind == ScopeKind::Class && s != scope && !spec_.membersVisibleInMethods) continue;
      if (auto it = sc.defs.find(name); it != sc.defs.end()) {
        int d = pickBinding(it->second, at, s != 0);
        if (d >= 0) {
          const Definition& def = facts_.definitions[d];
          // A file-level prototype defers to a definition wherever it is (often another file).
          if (def.isDeclaration && (sc.kind == ScopeKind::File || sc.kind == ScopeKind::Namespace)) return {Resolution::Free, -1};
          return {Resolution::Local, d};
        }
      }
      if (auto it = sc.imports.find(name); it != sc.imports.end()) return {Resolution::Import, it->second.front()};
    }
    return {Resolution::Free, -1};
  }

  bool isLocalBinding(const Resolved& r) const {
    if (r.resolution != Resolution::Local || r.target < 0) return false;
    BindingScope s = facts_.definitions[r.target].scope;
    return s == BindingScope::Local || s == BindingScope::None;
  }

  Resolved lookupMember(int classDef, std::string_view name) const {
    auto it = classScopeOf_.find(classDef);
    if (it != classScopeOf_.end())
      for (int s : it->second)
        if (auto d = scopes_[s].defs.find(name); d != scopes_[s].defs.end()) {
          int pick = pickBinding(d->second, UINT32_MAX, false);
          if (pick >= 0) return facts_.definitions[pick].isDeclaration ? Resolved{Resolution::Member, classDef}
                                                                       : Resolved{Resolution::Local, pick};
        }
    return {Resolution::Member, classDef};
  }

  Resolved resolveMember(const MemberRef& m, std::string_view name, int scope, uint32_t at, bool* viaReceiver) const {
    if (!m.hasReceiver) return {Resolution::Member, -1};
    std::string_view recv = text(m.receiver);
    bool self = std::find(spec_.selfNames.begin(), spec_.selfNames.end(), recv) != spec_.selfNames.end() ||
                (m.qualified && recv == "Self");
    if (self) {
      for (int s = scope; s >= 0; s = scopes_[s].parent)
        if (scopes_[s].kind == ScopeKind::Class) {
          int owner = scopes_[s].owner >= 0 ? defIndex_[scopes_[s].owner] : -1;
          if (auto d = scopes_[s].defs.find(name); d != scopes_[s].defs.end()) {
            int pick = pickBinding(d->second, UINT32_MAX, false);
            if (pick >= 0) return facts_.definitions[pick].isDeclaration ? Resolved{Resolution::Member, owner}
                                                                         : Resolved{Resolution::Local, pick};
          }
          return owner >= 0 ? lookupMember(owner, name) : Resolved{Resolution::Member, -1};
        }
      return {Resolution::Member, -1};
    }
    TSSymbol sym = ts_node_symbol(m.receiver);
    if (sym < lang_.identifierSymbols.size() && lang_.identifierSymbols[sym]) {
      Resolved r = resolvePlain(recv, scope, at);
      if (r.resolution == Resolution::Local) {
        const Definition& d = facts_.definitions[r.target];
        if (isTypeKind(d.kind) || d.kind == SymbolKind::Namespace || d.kind == SymbolKind::Module)
          return lookupMember(r.target, name);
      } else if (r.resolution == Resolution::Import) {
        *viaReceiver = true;
        return r;
      }
    }
    return {Resolution::Member, -1};
  }

  void resolveOccurrences() {
    facts_.occurrences.reserve(occs_.size());
    for (const Occ& o : occs_) {
      Occurrence out;
      out.range = rangeOf(o.node);
      std::string_view spelling = text(o.node);
      auto [slot, fresh] = nameIds_.try_emplace(spelling, static_cast<uint32_t>(facts_.names.size()));
      if (fresh) facts_.names.emplace_back(spelling);
      out.nameId = slot->second;
      const std::string& name = facts_.names[out.nameId];
      out.isCall = o.facts.call;
      if (o.facts.def >= 0 && defIndex_[o.facts.def] >= 0) {
        int d = defIndex_[o.facts.def];
        const Definition& def = facts_.definitions[d];
        out.role = def.isDeclaration ? OccurrenceRole::Declaration : OccurrenceRole::Definition;
        if (!def.isDeclaration) {
          out.resolution = Resolution::Local;
          out.target = d;
        } else if (def.scope == BindingScope::Member) {
          // A member declared here and (usually) defined elsewhere: find it through its type.
          out.resolution = Resolution::Member;
          out.target = def.parent >= 0 && isTypeKind(facts_.definitions[def.parent].kind) ? def.parent : -1;
        } else if (def.scope == BindingScope::Local || def.scope == BindingScope::None) {
          out.resolution = Resolution::Local;
          out.target = d;
        } else {
          out.resolution = Resolution::Free;
        }
      } else if (o.facts.import >= 0) {
        out.resolution = Resolution::Import;
        out.target = o.facts.import;
      } else if (o.facts.member >= 0) {
        const MemberRef& mem = memberRefs_[o.facts.member];
        bool via = false;
        Resolved r = resolveMember(mem, name, o.scope, out.range.startByte, &via);
        out.resolution = r.resolution;
        out.target = r.target;
        out.viaReceiver = via;
        out.qualified = mem.qualified;
        if (out.qualified && mem.hasReceiver) out.qualifier = std::string(text(mem.receiver));
      } else {
        Resolved r = resolvePlain(name, o.scope, out.range.startByte);
        out.resolution = r.resolution;
        out.target = r.target;
        // Inside an out-of-line member (`int Shape::scale() { return area(); }`) an unqualified
        // name that is not local names a member of the class first, then a global.
        if (spec_.membersVisibleInMethods && o.callable >= 0 && defIndex_[o.callable] >= 0 &&
            !defs_[o.callable].explicitContainer.empty() && !isLocalBinding(r)) {
          out.resolution = Resolution::Member;
          out.target = defIndex_[o.callable];
          out.qualified = true;
        }
      }
      if (out.isCall) {
        int caller = o.callable >= 0 ? defIndex_[o.callable] : -1;
        facts_.calls.push_back(CallSite{caller, static_cast<uint32_t>(facts_.occurrences.size())});
      }
      facts_.occurrences.push_back(std::move(out));
    }
  }

  void buildUnits(TSNode root) {
    SourceUnit file;
    file.granularity = Granularity::File;
    file.range = rangeOf(root);
    file.range.startByte = 0;
    file.range.start = Position{0, 0};
    facts_.units.push_back(std::move(file));
    for (size_t i = 0; i < facts_.definitions.size(); ++i) {
      const Definition& d = facts_.definitions[i];
      if (d.scope == BindingScope::Local || d.scope == BindingScope::None || d.isDeclaration) continue;
      bool callable = isCallableKind(d.kind);
      if (!callable && !isTypeKind(d.kind) && d.kind != SymbolKind::Namespace && d.kind != SymbolKind::Module) continue;
      SourceUnit u;
      u.granularity = callable ? Granularity::Callable : Granularity::Scope;
      u.kind = d.kind;
      u.range = d.range;
      u.definition = static_cast<int32_t>(i);
      facts_.units.push_back(std::move(u));
    }
  }

  struct Occ {
    TSNode node;
    int scope;
    int callable;
    NodeFacts facts;
  };

  const CompiledLanguage& lang_;
  const LanguageSpec& spec_;
  std::string_view src_;
  FileFacts facts_;

  struct ScopeCapture {
    ScopeKind kind;
    std::string container;
  };
  std::vector<bool> interesting_;  // node symbols that some match captured
  std::unordered_map<const void*, NodeFacts> nodeFacts_;  // what matches said about identifiers
  std::vector<MemberRef> memberRefs_;
  std::unordered_map<const void*, ScopeCapture> scopeNodes_;
  std::vector<PendingDef> defs_;
  std::vector<int> defIndex_;  // pending def -> index in facts_.definitions, -1 when dropped
  std::vector<size_t> order_;  // pending defs in source order
  std::vector<int> lookupParent_;  // nearest enclosing scope that binds anything
  std::unordered_map<std::string_view, uint32_t> nameIds_;  // spelling -> index in facts_.names
  std::unordered_map<const void*, std::vector<int>> defsByNode_;
  std::vector<PendingImport> imports_;
  std::unordered_map<const void*, std::vector<int>> importByNode_;
  std::vector<std::pair<uint32_t, uint32_t>> skipRanges_;
  std::vector<Scope> scopes_;
  std::unordered_map<int, std::vector<int>> classScopeOf_;
  std::vector<Occ> occs_;
};

}  // namespace

struct Extractor::Impl {
  TSParser* parser = ts_parser_new();
  Language current = Language::Unknown;
  ~Impl() { ts_parser_delete(parser); }
};

Extractor::Extractor(uint64_t parseTimeoutMicros) : impl_(std::make_unique<Impl>()) {
  ts_parser_set_timeout_micros(impl_->parser, parseTimeoutMicros ? parseTimeoutMicros : kParseTimeoutMicros);
}
Extractor::~Extractor() = default;

Expected<FileFacts> Extractor::extract(Language lang, std::string_view content) {
  const CompiledLanguage& c = compiled(lang);
  if (!c.status.isOk()) return c.status;
  if (content.size() > UINT32_MAX / 2) return Status(ErrorCode::InvalidArgument, "file too large to parse");
  if (impl_->current != lang) {
    if (!ts_parser_set_language(impl_->parser, c.spec->grammar()))
      return Status(ErrorCode::Unsupported, std::string("tree-sitter runtime rejected the ") + languageName(lang) + " grammar");
    impl_->current = lang;
  }
  TSTree* tree = ts_parser_parse_string(impl_->parser, nullptr, content.data(), static_cast<uint32_t>(content.size()));
  if (!tree) {
    ts_parser_reset(impl_->parser);
    return Status(ErrorCode::Unsupported, "parse timed out");
  }
  TSNode root = ts_tree_root_node(tree);
  FileFacts facts = FileExtraction(c, content).run(root);
  facts.language = lang;
  facts.parseErrors = ts_node_has_error(root);
  facts.ascii = isAscii(content);
  facts.validUtf8 = facts.ascii || isValidUtf8(content);
  facts.byteSize = static_cast<uint32_t>(content.size());
  facts.lineCount = static_cast<uint32_t>(std::count(content.begin(), content.end(), '\n')) +
                    (content.empty() || content.back() == '\n' ? 0 : 1);
  ts_tree_delete(tree);
  return facts;
}

const std::string& Extractor::profileDigest() {
  static const std::string digest = [] {
    Digester d;
    d.add("nib-extractor").add(kExtractorRevision).add(uint64_t(factsFormatVersion())).add(grammarVersions());
    for (int i = 1; i < kLanguageCount; ++i)
      if (const LanguageSpec* s = languageSpec(static_cast<Language>(i))) d.add(languageName(s->language)).add(s->query());
    return d.hex().substr(0, 16);
  }();
  return digest;
}

Status Extractor::selfCheck() { return extraction::checkCompiledLanguages(); }

}  // namespace nib
