// The provider's side of the call and type-use graph: definitions as call-graph nodes (at a
// position, by name, by id) and every call site and type reference of the version resolved as
// references are (`forEachEdge`), which providers/CallGraph walks.
#include "providers/StaticProvider.h"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace nib {

CallNode StaticProvider::nodeOf(const LoadedFile& f, int32_t def) {
  CallNode n;
  n.path = f.record.path;
  n.definition = def;
  n.ascii = f.facts.ascii;
  if (def < 0 || def >= static_cast<int32_t>(f.facts.definitions.size())) {
    // Top-level code of a file (a script's statements) calls too: the file is the caller.
    n.definition = -1;
    n.name = std::string(f.record.path.substr(f.record.path.rfind('/') == std::string::npos ? 0 : f.record.path.rfind('/') + 1));
    n.kind = SymbolKind::Module;
    if (!f.facts.units.empty()) n.range = f.facts.units[0].range;
    n.nameRange = ByteRange{};
    return n;
  }
  const Definition& d = f.facts.definitions[def];
  n.name = d.name;
  n.container = d.container;
  n.kind = d.kind;
  n.range = d.range;
  n.nameRange = d.nameRange;
  return n;
}

Expected<std::vector<CallNode>> StaticProvider::callablesAt(const std::string& path, uint32_t offset, bool callableOnly) {
  beginQuery();
  auto f = loadPath(path);
  if (!f) return f.status();
  auto idx = occurrenceAt(**f, path, offset);
  if (!idx) return idx.status();
  Resolved r = resolve(**f, (*f)->facts.occurrences[*idx]);
  std::vector<CallNode> out;
  for (const Target& t : r.targets) {
    auto tf = load(t.fileId, /*occurrences=*/true);
    if (!tf || t.def < 0 || t.def >= static_cast<int32_t>((*tf)->facts.definitions.size())) continue;
    if (!callableOnly || isCallableKind((*tf)->facts.definitions[t.def].kind)) out.push_back(nodeOf(**tf, t.def));
  }
  return out;
}

Expected<CallNode> StaticProvider::node(const std::string& path, int32_t definition) {
  beginQuery();
  auto f = loadPath(path);
  if (!f) return f.status();
  if (definition < -1 || definition >= static_cast<int32_t>((*f)->facts.definitions.size()))
    return Status(ErrorCode::NotFound, "no definition #" + std::to_string(definition) + " in " + path);
  return nodeOf(**f, definition);
}

std::vector<CallNode> StaticProvider::nodesNamed(const std::string& name, const std::string& qualifier) {
  beginQuery();
  std::vector<CallNode> defs, decls;
  for (bool member : {false, true}) {
    for (const DefinitionRef& r : definitionsNamed(name, member)) {
      auto f = load(r.fileId, /*occurrences=*/false);
      if (!f || r.index >= (*f)->facts.definitions.size()) continue;
      const Definition& d = (*f)->facts.definitions[r.index];
      if (!qualifier.empty()) {
        const std::string& c = d.container;
        bool matches = c.size() >= qualifier.size() && c.compare(c.size() - qualifier.size(), qualifier.size(), qualifier) == 0 &&
                       (c.size() == qualifier.size() || c[c.size() - qualifier.size() - 1] == '.' ||
                        c[c.size() - qualifier.size() - 1] == ':');
        if (!matches) continue;
      }
      (d.isDeclaration ? decls : defs).push_back(nodeOf(**f, static_cast<int32_t>(r.index)));
    }
  }
  std::vector<CallNode>& out = defs.empty() ? decls : defs;
  std::sort(out.begin(), out.end(), [](const CallNode& a, const CallNode& b) {
    return a.path != b.path ? a.path < b.path : a.range.startByte < b.range.startByte;
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const CallNode& a, const CallNode& b) { return a.path == b.path && a.definition == b.definition; }),
            out.end());
  return out;
}

Expected<CallNode> StaticProvider::nodeById(uint32_t fileId, int32_t definition) {
  auto f = load(fileId, /*occurrences=*/false);
  if (!f) return f.status();
  return nodeOf(**f, definition);
}

std::vector<StaticProvider::Target> StaticProvider::preferDefinitions(std::vector<Target> targets) {
  // A callee is its definition where one exists: a prototype in a header is not a second callee.
  std::vector<Target> defs;
  for (const Target& t : targets) {
    auto tf = load(t.fileId, /*occurrences=*/false);
    if (!tf || t.def < 0 || t.def >= static_cast<int32_t>((*tf)->facts.definitions.size())) continue;
    if (!(*tf)->facts.definitions[t.def].isDeclaration) defs.push_back(t);
  }
  return defs.empty() ? targets : defs;
}

std::set<uint32_t> StaticProvider::callEdgesOf(const LoadedFile& file, std::map<uint32_t, std::vector<Target>>& clangCallees,
                                               const std::function<void(SymbolEdge&&)>& visit) {
  const FileFacts& facts = file.facts;
  // C and C++ files libclang indexed: a call's callee is the entity clang resolved there.
  std::vector<ClangFileOccurrence> clangOccurrences;
  if (hasClangFacts(file.record.path))
    if (auto o = clang_->view().occurrences(file.record.path)) clangOccurrences = std::move(*o);
  std::set<uint32_t> callOccurrences;
  for (const CallSite& call : facts.calls) {
    callOccurrences.insert(call.occurrence);
    const Occurrence& occ = facts.occurrences[call.occurrence];
    if (!clangOccurrences.empty()) {
      std::vector<Target> callees = clangCalleesAt(clangOccurrences, occ.range, clangCallees);
      if (!callees.empty()) {
        for (const Target& t : callees)
          visit(SymbolEdge{file.record.fileId, call.caller, t.fileId, t.def, false, Confidence::Exact, occ.range});
        continue;
      }
    }
    Resolved r = resolve(file, occ);
    for (const Target& t : preferDefinitions(r.targets)) {
      auto tf = load(t.fileId, /*occurrences=*/false);
      // Calling a class constructs it: an edge to the class, as the call hierarchy shows it.
      if (!tf || t.def < 0) continue;
      SymbolKind kind = (*tf)->facts.definitions[t.def].kind;
      if (!isCallableKind(kind) && !isTypeKind(kind)) continue;
      visit(SymbolEdge{file.record.fileId, call.caller, t.fileId, t.def, false, fromTreeSitter(r.confidence), occ.range});
    }
  }
  return callOccurrences;
}

void StaticProvider::typeUseEdgesOf(const LoadedFile& file, const std::unordered_set<std::string>& typeNames,
                                    const std::set<uint32_t>& callOccurrences,
                                    const std::function<void(SymbolEdge&&)>& visit) {
  const FileFacts& facts = file.facts;
  // The innermost enclosing callable or type of each type reference: definitions nest, so a
  // stack swept along the (start-sorted) occurrences finds it.
  std::vector<int32_t> enclosing;
  for (size_t i = 0; i < facts.definitions.size(); ++i)
    if (!facts.definitions[i].isDeclaration &&
        (isCallableKind(facts.definitions[i].kind) || isTypeKind(facts.definitions[i].kind)))
      enclosing.push_back(static_cast<int32_t>(i));
  std::stable_sort(enclosing.begin(), enclosing.end(), [&](int32_t a, int32_t b) {
    return facts.definitions[a].range.startByte < facts.definitions[b].range.startByte;
  });
  // Which of the file's spellings name a type somewhere: decided once per spelling, not per
  // occurrence.
  std::vector<bool> typeName(facts.names.size());
  for (size_t i = 0; i < facts.names.size(); ++i) typeName[i] = typeNames.count(facts.names[i]) > 0;
  std::vector<int32_t> stack;
  size_t nextDef = 0;
  for (size_t oi = 0; oi < facts.occurrences.size(); ++oi) {
    const Occurrence& occ = facts.occurrences[oi];
    uint32_t at = occ.range.startByte;
    while (!stack.empty() && facts.definitions[stack.back()].range.endByte <= at) stack.pop_back();
    while (nextDef < enclosing.size() && facts.definitions[enclosing[nextDef]].range.startByte <= at) {
      int32_t d = enclosing[nextDef++];
      while (!stack.empty() && facts.definitions[stack.back()].range.endByte <= facts.definitions[d].range.startByte)
        stack.pop_back();
      if (facts.definitions[d].range.endByte > at) stack.push_back(d);
    }
    if (occ.role != OccurrenceRole::Reference || callOccurrences.count(static_cast<uint32_t>(oi))) continue;
    if (occ.nameId >= typeName.size() || !typeName[occ.nameId]) continue;
    Resolved r = resolve(file, occ);
    for (const Target& t : preferDefinitions(r.targets)) {
      auto tf = load(t.fileId, /*occurrences=*/false);
      if (!tf || t.def < 0 || !isTypeKind((*tf)->facts.definitions[t.def].kind)) continue;
      int32_t from = stack.empty() ? -1 : stack.back();
      if (t.fileId == file.record.fileId && t.def == from) continue;  // a type naming itself
      visit(SymbolEdge{file.record.fileId, from, t.fileId, t.def, true, fromTreeSitter(r.confidence), occ.range});
    }
  }
}

Status StaticProvider::forEachEdge(const std::function<void(SymbolEdge&&)>& visit) {
  std::vector<uint32_t> ids;
  uint32_t n = view_->fileCount();
  for (uint32_t id = 0; id < n; ++id) ids.push_back(id);
  for (const auto& [path, file] : overlays_)
    if (file->record.fileId >= 0x80000000u) ids.push_back(file->record.fileId);
  // Type names first (definitions only, which decode fast): a reference can be a type use only
  // if its spelling names a type somewhere, which spares resolving every other identifier.
  std::unordered_set<std::string> typeNames;
  for (uint32_t id : ids) {
    beginQuery();
    auto f = load(id, /*occurrences=*/false);
    if (!f) continue;
    for (const Definition& d : (*f)->facts.definitions)
      if (isTypeKind(d.kind) && !d.name.empty()) typeNames.insert(d.name);
  }
  std::map<uint32_t, std::vector<Target>> clangCallees;  // clang symbol id -> its definitions
  for (uint32_t id : ids) {
    beginQuery();
    auto lf = load(id, /*occurrences=*/true);
    if (!lf) continue;
    std::set<uint32_t> callOccurrences = callEdgesOf(**lf, clangCallees, visit);
    typeUseEdgesOf(**lf, typeNames, callOccurrences, visit);
  }
  beginQuery();
  return Status::ok();
}

}  // namespace nib
