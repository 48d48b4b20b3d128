#include "providers/StaticProvider.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

#include "providers/ModuleMatcher.h"
#include "support/Log.h"
#include "views/IndexLayout.h"

namespace nib {
namespace {

std::string_view dirOf(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

std::string_view lastComponent(std::string_view s) {
  size_t cut = s.find_last_of(".:/");
  return cut == std::string_view::npos ? s : s.substr(cut + 1);
}

// Names resolve only within one language family: a Python call never names a Java method.
int languageFamily(Language l) {
  switch (l) {
    case Language::C: case Language::Cpp: return 1;
    case Language::JavaScript: case Language::TypeScript: case Language::Tsx: return 2;
    default: return 10 + static_cast<int>(l);
  }
}

bool hasIncludeOf(const FileFacts& facts, Language lang, std::string_view importer, std::string_view candidate) {
  for (const Import& imp : facts.imports)
    if (imp.isInclude && moduleMatches(lang, importer, imp.module, candidate)) return true;
  return false;
}

}  // namespace

const char* navigationKindName(NavigationKind kind) {
  switch (kind) {
    case NavigationKind::Definition: return "definition";
    case NavigationKind::References: return "references";
    case NavigationKind::TypeDefinition: return "typeDefinition";
    case NavigationKind::Implementation: return "implementation";
  }
  return "definition";
}

const char* confidenceName(Confidence c) {
  switch (c) {
    case Confidence::Exact: return "exact";
    case Confidence::Import: return "import";
    case Confidence::Name: return "name";
    case Confidence::Scope: return "scope";
  }
  return "name";
}

StaticProvider::StaticProvider(Manifest manifest, std::unique_ptr<CommitView> view, std::unique_ptr<FactStore> facts)
    : manifest_(std::move(manifest)), view_(std::move(view)), factStore_(std::move(facts)) {}

StaticProvider::~StaticProvider() = default;

Expected<std::unique_ptr<StaticProvider>> StaticProvider::open(const std::filesystem::path& indexDir) {
  IndexLayout layout(indexDir);
  auto manifest = layout.currentManifest();
  if (!manifest) return manifest.status();
  auto view = CommitView::open(layout.versionDir(manifest->versionId) / CommitView::kDirectory);
  if (!view) return view.status();
  auto facts = FactStore::open(layout.factsDir(), /*readOnly=*/true);
  if (!facts) return facts.status();
  std::string versionId = manifest->versionId;
  const ViewRecord* clangView = manifest->view("clang");
  bool clang = clangView && clangView->status == ViewStatus::Complete;
  std::unique_ptr<StaticProvider> p(new StaticProvider(std::move(*manifest), std::move(*view), std::move(*facts)));
  // Which files a view's facts no longer describe: those the session overlays, and those the
  // version's delta changed unless the view was built for the version itself.
  StaticProvider* self = p.get();
  auto changedFor = [self](const ViewRecord& v) {
    return [self, ownDelta = v.coversDelta()](const std::string& path) {
      auto it = self->overlays_.find(path);
      return it != self->overlays_.end() && !(ownDelta && it->second->fromVersion) && !it->second->asOnDisk;
    };
  };
  if (clang) {
    // A clang view that cannot be read (another format, damage) costs its precision, not the
    // index: C/C++ then answers from tree-sitter facts, labelled as such.
    auto c = ClangView::open(layout.versionDir(versionId) / "clang");
    if (c)
      p->clang_ = std::make_unique<ClangNavigator>(std::move(*c), changedFor(*p->manifest_.view("clang")));
    else
      p->clangStatus_ = c.status();
    if (c) p->clang_->setText([self](const std::string& path) { return self->indexedText(path); });
  }
  // The precise view likewise: one that cannot be read leaves tree-sitter's answers.
  if (const ViewRecord* v = p->manifest_.view("precise"); v && v->status == ViewStatus::Complete) {
    if (auto c = ClangView::open(layout.versionDir(versionId) / "precise"))
      p->precise_ = std::make_unique<ClangNavigator>(std::move(*c), changedFor(*v), "scip");
    else
      logWarn("the precise view cannot be read (" + c.status().message() + "): TypeScript and Python answer from tree-sitter");
  }
  auto reader = p->factStore_->reader();
  if (!reader) return reader.status();
  p->reader_.emplace(std::move(*reader));
  // An index another nib wrote, with facts of another format, is refused here, whole: else
  // each answer that reads facts would fail on its own, and lists built from them (workspace
  // symbols) would come back empty instead of wrong. One record's first byte says it.
  if (auto first = p->view_->fileById(0))
    if (Status format = p->reader_->checkFormat(first->factKey()); format.is(Reason::OtherFormat)) return format;
  if (!p->manifest_.base.empty()) {
    auto delta = VersionDelta::open(layout.versionDir(versionId) / "delta");
    if (!delta) return Status(delta.status().code(), "version " + versionId + "'s delta: " + delta.status().message());
    p->delta_ = std::move(*delta);
    // In path order, so that files the base lacks get the same ids in every process.
    for (const DeltaEntry& e : p->delta_->entries()) NIB_RETURN_IF_ERROR(p->applyVersionEntry(e));
  }
  return p;
}

void StaticProvider::forEachFile(const std::function<bool(const FileRecord&)>& visit) {
  if (overlays_.empty()) return view_->forEachFile(visit);
  // The commit view's files in path order, merged with the overlays (also in path order).
  auto o = overlays_.begin();
  bool go = true;
  auto emitOverlaysBefore = [&](const std::string* path) {
    for (; go && o != overlays_.end() && (!path || o->first < *path); ++o)
      if (!o->second->tombstone && !view_->fileByPath(o->first)) go = visit(o->second->record);
  };
  view_->forEachFile([&](const FileRecord& r) {
    emitOverlaysBefore(&r.path);
    if (!go) return false;
    if (o != overlays_.end() && o->first == r.path) {
      if (!o->second->tombstone) go = visit(o->second->record);
      ++o;
      return go;
    }
    go = visit(r);
    return go;
  });
  emitOverlaysBefore(nullptr);
}

std::optional<FileRecord> StaticProvider::file(const std::string& path) {
  if (auto it = overlays_.find(path); it != overlays_.end()) {
    if (it->second->tombstone) return std::nullopt;
    return it->second->record;
  }
  return view_->fileByPath(path);
}

std::optional<std::string> StaticProvider::skipReason(const std::string& path) {
  if (delta_)
    if (const DeltaEntry* e = delta_->find(path)) {
      if (e->state == DeltaEntry::State::Skipped) return e->skipReason;
      return std::nullopt;
    }
  return view_->skipReason(path);
}

Expected<FileFacts> StaticProvider::facts(const std::string& path) {
  beginQuery();
  auto f = loadPath(path);
  if (!f) return f.status();
  return (*f)->facts;
}

Expected<uint32_t> StaticProvider::occurrenceAt(const LoadedFile& f, const std::string& path, uint32_t offset) {
  const auto& occs = f.facts.occurrences;
  // Occurrences are sorted by start: find the last one starting at or before the offset.
  auto it = std::upper_bound(occs.begin(), occs.end(), offset,
                             [](uint32_t off, const Occurrence& o) { return off < o.range.startByte; });
  if (it != occs.begin()) {
    --it;
    if (it->range.touches(offset)) return static_cast<uint32_t>(it - occs.begin());
  }
  return Status(ErrorCode::NotFound, Reason::NoSymbol, "no identifier at byte " + std::to_string(offset) + " of " + path);
}

const std::vector<DefinitionRef>& StaticProvider::definitionsNamed(const std::string& name, bool member) {
  auto key = std::make_pair(name, member);
  auto it = defCache_.find(key);
  if (it != defCache_.end()) return it->second;
  std::vector<DefinitionRef> refs = view_->definitions(name, member);
  if (!overlays_.empty()) {
    // Overlaid files answer for themselves: drop their indexed entries, add their current ones.
    std::erase_if(refs, [&](const DefinitionRef& d) { return overlayById_.count(d.fileId) > 0; });
    for (const auto& [path, file] : overlays_) {
      const auto& defs = file->facts.definitions;
      for (size_t i = 0; i < defs.size(); ++i) {
        const Definition& d = defs[i];
        bool visible = member ? d.scope == BindingScope::Member : d.scope == BindingScope::Global;
        if (visible && d.name == name)
          refs.push_back({file->record.fileId, static_cast<uint32_t>(i), d.kind, d.isDeclaration});
      }
    }
  }
  return defCache_.emplace(key, std::move(refs)).first->second;
}

std::vector<uint32_t> StaticProvider::filesMentioning(const std::string& name) {
  std::vector<uint32_t> ids = view_->filesMentioning(name);
  if (overlays_.empty()) return ids;
  std::erase_if(ids, [&](uint32_t id) { return overlayById_.count(id) > 0; });
  for (const auto& [path, file] : overlays_)
    if (std::find(file->facts.names.begin(), file->facts.names.end(), name) != file->facts.names.end())
      ids.push_back(file->record.fileId);
  return ids;
}

bool StaticProvider::targetsAreLocal(const std::set<Target>& targets) {
  if (targets.empty()) return false;
  for (const Target& t : targets) {
    auto file = load(t.fileId);
    if (!file || t.def < 0 || static_cast<size_t>(t.def) >= (*file)->facts.definitions.size()) return false;
    BindingScope scope = (*file)->facts.definitions[t.def].scope;
    if (scope != BindingScope::Local && scope != BindingScope::None) return false;
  }
  return true;
}

StaticProvider::Resolved StaticProvider::resolve(const LoadedFile& file, const Occurrence& occ) {
  switch (occ.resolution) {
    case Resolution::Local: {
      Resolved r;
      if (occ.target >= 0) r.targets.push_back({file.record.fileId, occ.target});
      return r;
    }
    case Resolution::Import: return resolveImport(file, occ);
    case Resolution::Member: return resolveMember(file, occ);
    case Resolution::Free: return resolveGlobal(file, file.facts.nameOf(occ));
  }
  return {};
}

StaticProvider::Resolved StaticProvider::resolveImport(const LoadedFile& file, const Occurrence& occ) {
  Resolved r;
  if (occ.target < 0 || occ.target >= static_cast<int32_t>(file.facts.imports.size())) return r;
  const Import& imp = file.facts.imports[occ.target];
  Language lang = file.record.language;
  std::string module = importedModule(lang, imp, occ.viaReceiver);
  // The name looked up in the module: the member after `m.`, or the imported name itself.
  std::string name = occ.viaReceiver ? file.facts.nameOf(occ) : std::string(lastComponent(imp.name));
  if (name.empty()) {
    // A whole-module binding (`import os`, `const u = require('./u')`): the answer is the
    // module's file when the repository has it.
    // A scan of all file records: cached per module and importing folder, since a references
    // query resolves every occurrence of a module alias.
    std::string key = std::string(languageName(lang)) + "|" + std::string(dirOf(file.record.path)) + "|" + module;
    auto cached = moduleFiles_.find(key);
    if (cached == moduleFiles_.end()) {
      std::vector<Target> files;
      // Overlays included: an added file can be the module, a deleted one cannot.
      forEachFile([&](const FileRecord& rec) {
        if (languageFamily(rec.language) == languageFamily(lang) && moduleMatches(lang, file.record.path, module, rec.path))
          files.push_back({rec.fileId, -1});
        return true;
      });
      cached = moduleFiles_.emplace(key, std::move(files)).first;
    }
    r.targets = cached->second;
    if (!r.targets.empty()) return r;
  } else {
    std::set<Target> found;
    for (bool member : {false, true}) {
      // Through a class import (`Strings.trim` in Java) the name is a member; through a module
      // or package it is a global of that module.
      if (member && !(occ.viaReceiver && lang == Language::Java)) break;
      for (const DefinitionRef& d : definitionsNamed(name, member)) {
        auto c = candidate(d, languageFamily(lang));
        if (!c || !moduleMatches(lang, file.record.path, module, c->file->record.path)) continue;
        found.insert({d.fileId, static_cast<int32_t>(d.index)});
      }
    }
    // `Point::new` / `Box.put` through an imported type: a member of that type in its module.
    if (found.empty() && occ.viaReceiver && !imp.name.empty()) {
      std::string_view owner = lastComponent(imp.name);
      for (const DefinitionRef& d : definitionsNamed(name, true)) {
        auto c = candidate(d, languageFamily(lang));
        if (c && lastComponent(c->def->container) == owner &&
            moduleMatches(lang, file.record.path, imp.module, c->file->record.path))
          found.insert({d.fileId, static_cast<int32_t>(d.index)});
      }
    }
    // Prefer definitions over declarations (a .d.ts signature, a prototype).
    std::vector<Target> defs, decls;
    for (const Target& t : found) {
      auto c = candidate({t.fileId, static_cast<uint32_t>(t.def)}, languageFamily(lang));
      if (c) (c->def->isDeclaration ? decls : defs).push_back(t);
    }
    r.targets = defs.empty() ? decls : defs;
    if (!r.targets.empty()) return r;
  }
  // The symbol comes from outside the repository (or nib cannot find the module): the import
  // statement is the most truthful answer.
  SymbolLocation site;
  site.path = file.record.path;
  site.range = imp.range;
  site.fullRange = imp.range;
  site.name = file.facts.nameOf(occ);
  site.kind = SymbolKind::Import;
  site.role = OccurrenceRole::Declaration;
  site.ascii = file.facts.ascii;
  r.importSite = site;
  r.confidence = Confidence::Import;
  return r;
}

StaticProvider::Resolved StaticProvider::resolveGlobal(const LoadedFile& file, const std::string& name) {
  // The same free name is resolved for every use in a file (references, call hierarchy): once
  // per (file, name) and query is enough.
  auto memoKey = std::make_pair(file.record.fileId, name);
  if (auto it = globalMemo_.find(memoKey); it != globalMemo_.end()) return it->second;
  Resolved r = resolveGlobalUncached(file, name);
  globalMemo_.emplace(memoKey, r);
  return r;
}

StaticProvider::Resolved StaticProvider::resolveGlobalUncached(const LoadedFile& file, const std::string& name) {
  Resolved r;
  const auto& cands = definitionsNamed(name, false);
  if (cands.empty()) return r;
  // Tiers, best first: this file, files it includes, its folder (Go and Java packages share
  // one), anywhere. Definitions beat declarations within the chosen candidates.
  std::vector<Target> tiers[4], declTiers[4];
  std::string_view dir = dirOf(file.record.path);
  int family = languageFamily(file.record.language);
  for (const DefinitionRef& d : cands) {
    auto c = candidate(d, family);
    if (!c) continue;
    const std::string& path = c->file->record.path;
    int tier = 3;
    if (d.fileId == file.record.fileId) tier = 0;
    else if (hasIncludeOf(file.facts, file.record.language, file.record.path, path)) tier = 1;
    else if (dirOf(path) == dir) tier = 2;
    (d.isDeclaration ? declTiers : tiers)[tier].push_back({d.fileId, static_cast<int32_t>(d.index)});
  }
  size_t total = 0;
  for (auto& t : tiers) total += t.size();
  auto* chosen = total ? tiers : declTiers;
  for (int t = 0; t < 4; ++t)
    if (!chosen[t].empty()) {
      r.targets = chosen[t];
      break;
    }
  size_t all = total;
  if (!all)
    for (auto& t : declTiers) all += t.size();
  r.confidence = all == 1 || (r.targets.size() == 1 && r.targets[0].fileId == file.record.fileId) ? Confidence::Exact
                                                                                                    : Confidence::Name;
  return r;
}

StaticProvider::Resolved StaticProvider::resolveMember(const LoadedFile& file, const Occurrence& occ) {
  Resolved r;
  // The type the member belongs to, when the extractor knew it: a class of this file, or the
  // class an out-of-line method belongs to; a qualified name's scope otherwise.
  std::string owner;
  if (occ.target >= 0 && occ.target < static_cast<int32_t>(file.facts.definitions.size())) {
    const Definition& t = file.facts.definitions[occ.target];
    owner = isCallableKind(t.kind) ? std::string(lastComponent(t.container)) : t.name;
  } else if (!occ.qualifier.empty()) {
    owner = std::string(lastComponent(occ.qualifier));
  }
  int family = languageFamily(file.record.language);
  auto collect = [&](bool member, std::vector<Target>& matching, std::vector<Target>& other) {
    std::vector<Target> matchingDecl, otherDecl;
    for (const DefinitionRef& d : definitionsNamed(file.facts.nameOf(occ), member)) {
      auto c = candidate(d, family);
      if (!c) continue;
      const Definition& def = *c->def;
      bool owned = !owner.empty() && lastComponent(def.container) == owner;
      Target t{d.fileId, static_cast<int32_t>(d.index)};
      (owned ? (def.isDeclaration ? matchingDecl : matching) : (def.isDeclaration ? otherDecl : other)).push_back(t);
    }
    if (matching.empty()) matching = matchingDecl;
    if (other.empty()) other = otherDecl;
  };
  std::vector<Target> ownedMembers, otherMembers;
  collect(true, ownedMembers, otherMembers);
  if (!ownedMembers.empty()) {
    r.targets = ownedMembers;
    return r;
  }
  if (occ.qualified) {
    // `ns::f` names a namespaced global; `Base::f` a member of another class.
    std::vector<Target> ownedGlobals, otherGlobals;
    collect(false, ownedGlobals, otherGlobals);
    if (!ownedGlobals.empty()) {
      r.targets = ownedGlobals;
      return r;
    }
    if (occ.target >= 0 || occ.qualifier.empty()) return resolveGlobal(file, file.facts.nameOf(occ));
    // A scope nib does not index (`std::move`): nothing in the repository is meant.
    return r;
  }
  r.targets = otherMembers;
  r.confidence = Confidence::Name;
  return r;
}

std::optional<StaticProvider::Candidate> StaticProvider::candidate(const DefinitionRef& d, int family) {
  auto rec = load(d.fileId);
  if (!rec || languageFamily((*rec)->record.language) != family) return std::nullopt;
  // An index past the file's definitions means the name table and the facts disagree (a
  // corrupt or foreign store): skip the entry rather than read past the end.
  if (d.index >= (*rec)->facts.definitions.size()) return std::nullopt;
  return Candidate{*rec, &(*rec)->facts.definitions[d.index]};
}

std::vector<StaticProvider::Target> StaticProvider::declarationsOf(const std::vector<Target>& targets) {
  // A definition's declarations are the same-named declarations of its language family with
  // the same container: the prototype in a header, the signature in an interface.
  std::vector<Target> out;
  for (const Target& t : targets) {
    auto f = load(t.fileId);
    if (!f || t.def < 0 || t.def >= static_cast<int32_t>((*f)->facts.definitions.size())) continue;
    const Definition& def = (*f)->facts.definitions[t.def];
    if (def.isDeclaration) {
      out.push_back(t);
      continue;
    }
    bool member = def.scope == BindingScope::Member;
    size_t before = out.size();
    for (const DefinitionRef& d : definitionsNamed(def.name, member)) {
      if (!d.isDeclaration) continue;
      auto c = candidate(d, languageFamily((*f)->record.language));
      if (c && lastComponent(c->def->container) == lastComponent(def.container))
        out.push_back({d.fileId, static_cast<int32_t>(d.index)});
    }
    if (out.size() == before) out.push_back(t);  // no separate declaration: the definition declares
  }
  return out;
}

std::optional<SymbolLocation> StaticProvider::locationOf(const Target& t) {
  auto rec = load(t.fileId);
  if (!rec) return std::nullopt;
  const LoadedFile& f = **rec;
  SymbolLocation loc;
  loc.path = f.record.path;
  loc.ascii = f.facts.ascii;
  if (t.def < 0 || t.def >= static_cast<int32_t>(f.facts.definitions.size())) {
    loc.kind = SymbolKind::Module;
    return loc;
  }
  const Definition& d = f.facts.definitions[t.def];
  loc.range = d.nameRange;
  loc.fullRange = d.range;
  loc.name = d.name;
  loc.container = d.container;
  loc.kind = d.kind;
  loc.role = d.isDeclaration ? OccurrenceRole::Declaration : OccurrenceRole::Definition;
  return loc;
}

namespace {
// The languages whose compiler's facts are the precise view's (SCIP indexers), not the clang view's.
bool scipLanguage(const std::string& path) {
  Language l = detectLanguage(path, "");
  return l == Language::TypeScript || l == Language::Tsx || l == Language::JavaScript || l == Language::Python;
}
}  // namespace

ClangNavigator* StaticProvider::preciseFor(const std::string& path) { return scipLanguage(path) ? precise_.get() : nullptr; }

ClangNavigator* StaticProvider::compilerFacts(const std::string& path) {
  return scipLanguage(path) ? precise_.get() : clang_.get();
}

Expected<NavigationResult> StaticProvider::definition(const std::string& path, uint32_t offset, bool declarations) {
  if (ClangNavigator* p = preciseFor(path)) {
    auto c = p->answer(path, offset, false, false, declarations);
    if (c && detectLanguage(path, "") != Language::Python) narrowOverloadCall(path, offset, *c);
    if (!isDeclined(c)) return c;
    if (p->covers(path)) return scoped(onlyIfResolved(definitionFromFacts(path, offset, declarations)));
  }
  return scoped(definitionFromFacts(path, offset, declarations));
}

// Tree-sitter's resolution through scopes and imports is not a compiler's: labelled `scope`,
// never `exact` (which the clang and precise views' answers alone carry).
Expected<NavigationResult> StaticProvider::scoped(Expected<NavigationResult> r) {
  if (r && r->source == "tree-sitter") r->confidence = fromTreeSitter(r->confidence);
  return r;
}

// Where the precise indexer read the file and resolved nothing at the position (scip-python
// leaves out some names pyright resolves: a star import's, a builtin's), tree-sitter's answer
// stands when it resolved the name through scopes and imports; a guess by name does not (an
// attribute of a value of unknown type, which pyright does not resolve either). Then the index
// answers nothing, as an identifier it could not resolve (facet `unresolved`): a category of its
// own, which the `auto` policy sends to the backend until measured (pylsp lists the name itself
// there), rather than "no identifier here".
Expected<NavigationResult> StaticProvider::onlyIfResolved(Expected<NavigationResult> r) {
  if (r && r->confidence != Confidence::Exact) {
    NavigationResult out;
    out.symbol = r->symbol;
    out.source = "scip";
    out.confidence = Confidence::Exact;
    out.facet = kUnresolvedFacet;
    out.note = "the precise indexer resolved no symbol here, and the name alone is no answer";
    return out;
  }
  return r;
}

Expected<NavigationResult> StaticProvider::definitionFromFacts(const std::string& path, uint32_t offset, bool declarations) {
  if (clang_)
    if (auto c = clang_->answer(path, offset, false, false, declarations); !isDeclined(c)) return c;
  if (std::optional<DiskFile> disk = tooLargeFile(path, offset))
    if (auto word = clang_->preprocessorDefinition(path, asked(*disk), offset, declarations); !isDeclined(word)) return word;
  beginQuery();
  auto f = loadPath(path);
  if (!f) return f.status();
  if (clang_)
    if (auto word = clang_->preprocessorDefinition(path, asked(**f), offset, declarations); !isDeclined(word))
      return word;
  auto idx = occurrenceAt(**f, path, offset);
  if (!idx) return idx.status();
  const Occurrence& occ = (*f)->facts.occurrences[*idx];
  const std::string& name = (*f)->facts.nameOf(occ);
  // Where libclang resolved no name in code it compiled, a use answers nothing, as clangd's does;
  // a declaration its indexer does not report (a function pointer's parameter) answers itself,
  // below, but another in a file parsed with errors was rejected (`local const ct_data tab[2]`).
  const auto& defs = (*f)->facts.definitions;
  const bool parameter = occ.target >= 0 && static_cast<size_t>(occ.target) < defs.size() && defs[occ.target].kind == SymbolKind::Parameter;
  // A parameter of a prototype the compiler rejected (libjpeg's `EXTERN(void *) f(j_common_ptr
  // cinfo)` in a header parsed alone, where the function's own name has no name either) is no
  // declaration of the compiler's: clangd answers nothing there too.
  const bool rejectedParameter = parameter && clang_ && clang_->parsedWithErrors(path) && defs[occ.target].parent >= 0 &&
                                 static_cast<size_t>(defs[occ.target].parent) < defs.size() &&
                                 clang_->resolvedNothingAt(path, defs[defs[occ.target].parent].nameRange.startByte);
  const bool useOrRejected =
      occ.role == OccurrenceRole::Reference || ((!parameter || rejectedParameter) && clang_ && clang_->parsedWithErrors(path));
  if (clang_ && useOrRejected && clang_->resolvedNothingAt(path, offset)) {
    if (std::optional<NavigationResult> local = recoveredLocal(path, (*f)->facts, occ)) return std::move(*local);
    if (std::optional<uint32_t> left = qualifierBefore(**f, occ, offset))
      if (auto q = clang_->answer(path, *left, false, false, declarations); !isDeclined(q)) return q;
    return unresolvedAnswer(name);
  }
  Resolved r = resolve(**f, occ);
  if (declarations) r.targets = declarationsOf(r.targets);
  NavigationResult out;
  out.symbol = name;
  out.confidence = r.confidence;
  for (const Target& t : r.targets)
    if (auto loc = locationOf(t)) out.locations.push_back(std::move(*loc));
  if (r.importSite) {
    out.locations.push_back(*r.importSite);
    out.note = "'" + name + "' is imported from outside the indexed repository";
  }
  if (out.locations.empty()) out.note = "no definition of '" + name + "' in the index";
  else if (out.confidence == Confidence::Name)
    out.note = "resolved by name: " + std::to_string(out.locations.size()) + " candidate(s)";
  labelWithoutClang(path, out);
  return out;
}

NavigationResult StaticProvider::unresolvedAnswer(const std::string& name) {
  NavigationResult out;
  out.symbol = name;
  out.source = "clang";
  out.facet = kUnresolvedFacet;
  out.note = "libclang resolved no name here (a declaration the compiler rejected, or one its indexer does not report)";
  return out;
}

void StaticProvider::referencesIn(const LoadedFile& file, const ReferenceQuery& q, std::vector<SymbolLocation>& found) {
  // The file's spellings that can name the symbol: its names, and aliases imports bind to them.
  std::set<std::string> localNames(q.names.begin(), q.names.end());
  for (const Import& imp : file.facts.imports)
    if (!imp.alias.empty() && q.names.count(std::string(lastComponent(imp.name)))) localNames.insert(imp.alias);
  std::vector<bool> candidate(file.facts.names.size(), false);
  bool any = false;
  for (size_t n = 0; n < file.facts.names.size(); ++n)
    if (localNames.count(file.facts.names[n])) any = candidate[n] = true;
  if (!any) return;
  for (const Occurrence& occ : file.facts.occurrences) {
    if (!candidate[occ.nameId]) continue;
    Resolved rr = resolve(file, occ);
    bool match = false;
    if (q.unresolved) match = rr.targets.empty() && file.facts.nameOf(occ) == q.startName;
    else
      match = std::any_of(rr.targets.begin(), rr.targets.end(), [&](const Target& t) { return q.targets.count(t) > 0; });
    if (!match) continue;
    if (!q.includeDeclaration && occ.role != OccurrenceRole::Reference) continue;
    SymbolLocation loc;
    loc.path = file.record.path;
    loc.range = occ.range;
    loc.fullRange = occ.range;
    loc.name = file.facts.nameOf(occ);
    loc.role = occ.role;
    loc.ascii = file.facts.ascii;
    found.push_back(std::move(loc));
  }
}

StaticProvider::ReferenceQuery StaticProvider::referenceQuery(const LoadedFile& origin, const Occurrence& start,
                                                              bool includeDeclaration) {
  ReferenceQuery q;
  q.startName = origin.facts.nameOf(start);
  q.includeDeclaration = includeDeclaration;
  Resolved r = resolve(origin, start);
  q.confidence = r.confidence;
  q.targets.insert(r.targets.begin(), r.targets.end());
  // The names a reference can carry: the definitions' names (an import alias is found through
  // the import statement, which mentions the original name).
  for (const Target& t : q.targets)
    if (auto loc = locationOf(t); loc && !loc->name.empty()) q.names.insert(loc->name);
  if (q.names.empty()) q.names.insert(q.startName);
  q.unresolved = q.targets.empty();
  return q;
}

namespace {

void sortByPlace(std::vector<SymbolLocation>& locations) {
  std::sort(locations.begin(), locations.end(), [](const SymbolLocation& a, const SymbolLocation& b) {
    return a.path != b.path ? a.path < b.path : a.range.startByte < b.range.startByte;
  });
}

}  // namespace

Expected<NavigationResult> StaticProvider::references(const std::string& path, uint32_t offset, bool includeDeclaration) {
  if (ClangNavigator* p = preciseFor(path)) {
    auto c = p->answer(path, offset, true, includeDeclaration, false);
    if (c && includeDeclaration) addJsDocParameterTags(*c);
    if (!isDeclined(c)) return c;
    if (p->covers(path)) return scoped(onlyIfResolved(referencesFromFacts(path, offset, includeDeclaration)));
  }
  return scoped(referencesFromFacts(path, offset, includeDeclaration));
}

Expected<NavigationResult> StaticProvider::referencesFromFacts(const std::string& path, uint32_t offset,
                                                              bool includeDeclaration) {
  if (clang_)
    if (auto c = clang_->answer(path, offset, true, includeDeclaration, false); !isDeclined(c)) {
      if (c && clang_->parsedWithErrors(path)) {
        beginQuery();
        addRecoveredUses(path, *c);
      }
      return c;
    }
  if (std::optional<DiskFile> disk = tooLargeFile(path, offset))
    if (auto word = clang_->preprocessorReferences(path, asked(*disk), offset, includeDeclaration); !isDeclined(word))
      return word;
  beginQuery();
  auto f = loadPath(path);
  if (!f) return f.status();
  auto idx = occurrenceAt(**f, path, offset);
  if (clang_)
    if (auto macro = clang_->preprocessorReferences(path, asked(**f), offset, includeDeclaration); !isDeclined(macro))
      return macro;
  if (!idx) return idx.status();
  // Where libclang resolved no name in code it compiled, clangd lists no references, not even
  // of a declaration there its indexer does not report — but for a name of a statement libclang
  // dropped for its error (recoveredReferences).
  if (clang_ && clang_->resolvedNothingAt(path, offset)) {
    const Occurrence& occ = (*f)->facts.occurrences[*idx];
    if (auto recovered = recoveredReferences(path, (*f)->facts, occ, includeDeclaration)) return std::move(*recovered);
    if (std::optional<uint32_t> left = qualifierBefore(**f, occ, offset))
      if (auto q = clang_->answer(path, *left, true, includeDeclaration, false); !isDeclined(q)) return q;
    return unresolvedAnswer((*f)->facts.nameOf(occ));
  }
  const LoadedFile* origin = *f;
  const Occurrence& start = origin->facts.occurrences[*idx];
  const ReferenceQuery query = referenceQuery(*origin, start, includeDeclaration);
  NavigationResult out;
  out.symbol = query.startName;
  out.confidence = query.confidence;
  if (query.unresolved) {
    out.confidence = Confidence::Name;
    out.note = "no definition of '" + query.startName + "' in the index: listing same-named unresolved uses";
  }

  std::set<uint32_t> files;
  if (targetsAreLocal(query.targets)) {
    // A local (or a parameter) is seen only inside its scope, in its own file: no other file
    // can refer to it, so no other file is read (a local named `type` is mentioned in 1,800 of
    // mesa's files, whose facts the query used to decode: 0.5 s and 150 MiB for 8 references).
    for (const Target& t : query.targets) files.insert(t.fileId);
  } else {
    for (const std::string& n : query.names)
      for (uint32_t id : filesMentioning(n)) files.insert(id);
  }
  std::vector<SymbolLocation> found;
  for (uint32_t id : files) {
    auto lf = load(id, /*occurrences=*/true);
    if (!lf) continue;
    referencesIn(**lf, query, found);
    // Nothing points into the files read so far but the origin (resolution gives targets by
    // value): a name in thousands of files need not keep all their facts until the end.
    trimCacheKeeping(origin->record.fileId);
  }
  sortByPlace(found);
  out.locations = std::move(found);
  if (!query.unresolved && out.confidence == Confidence::Name)
    out.note = "the symbol was resolved by name; references resolving to any of its " +
               std::to_string(query.targets.size()) + " candidate definitions are included";
  labelWithoutClang(path, out);
  return out;
}

Expected<NavigationResult> StaticProvider::highlights(const std::string& path, uint32_t offset) {
  // libclang's answer where it has one, cut to the file; else the file's own occurrences that
  // resolve as a references query resolves them (no other file is read).
  if (ClangNavigator* p = compilerFacts(path))
    if (auto c = p->answer(path, offset, true, true, false); !isDeclined(c)) {
      if (c) std::erase_if(c->locations, [&](const SymbolLocation& l) { return l.path != path; });
      return c;
    }
  beginQuery();
  auto f = loadPath(path);
  if (!f) return f.status();
  auto idx = occurrenceAt(**f, path, offset);
  if (!idx) return idx.status();
  const ReferenceQuery query = referenceQuery(**f, (*f)->facts.occurrences[*idx], /*includeDeclaration=*/true);
  NavigationResult out;
  out.symbol = query.startName;
  out.confidence = query.unresolved ? Confidence::Name : query.confidence;
  referencesIn(**f, query, out.locations);
  sortByPlace(out.locations);
  labelWithoutClang(path, out);
  return scoped(std::move(out));
}

}  // namespace nib
