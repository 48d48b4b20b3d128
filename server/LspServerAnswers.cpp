// The LSP server's answers to the requests other than navigation (definition, references,
// typeDefinition, implementation: LspServerLive.cpp): declaration, symbols, hover, the call and type hierarchies, and nib's
// extensions. Each handler decodes its parameters, asks the engine and encodes; `answer`
// dispatches by method. Called with the engine lock held.
#include <functional>
#include <map>

#include "server/ContextBuilder.h"
#include "server/LspServer.h"
#include "server/SearchAnswer.h"
#include "server/StructuralAnswer.h"

namespace nib {
namespace {

// LSP SymbolKind numbers.
int lspKind(SymbolKind k) {
  switch (k) {
    case SymbolKind::Module: return 2;
    case SymbolKind::Namespace: return 3;
    case SymbolKind::Class: return 5;
    case SymbolKind::Method: return 6;
    case SymbolKind::Property: return 7;
    case SymbolKind::Field: return 8;
    case SymbolKind::Constructor: return 9;
    case SymbolKind::Enum: return 10;
    case SymbolKind::Interface: case SymbolKind::Trait: return 11;
    case SymbolKind::Function: case SymbolKind::Macro: return 12;
    case SymbolKind::Variable: case SymbolKind::Parameter: return 13;
    case SymbolKind::Constant: return 14;
    case SymbolKind::EnumMember: return 22;
    case SymbolKind::Struct: case SymbolKind::Union: return 23;
    case SymbolKind::TypeAlias: case SymbolKind::TypeParameter: return 26;
    default: return 13;
  }
}

const char* languageTag(Language l) {
  switch (l) {
    case Language::Cpp: return "cpp";
    case Language::Tsx: return "tsx";
    default: return languageName(l);
  }
}

// An error the caller caused (an unknown symbol, a bad argument) is invalid params, said plainly;
// never an empty list passed off as "no callers".
int errorCodeFor(const Status& s) {
  return s.code() == ErrorCode::InvalidArgument ? lsp::InvalidParams : lsp::RequestFailed;
}

}  // namespace

std::string LspServer::answer(const Task& task, Engine& engine, std::optional<LiveJob>* live) {
  encoders_.clear();
  using Handler = std::string (LspServer::*)(const Task&, Engine&);
  static const std::map<std::string, Handler> kHandlers = {
      {"textDocument/declaration", &LspServer::answerDeclaration},
      {"nib/status", &LspServer::answerStatus},
      {"nib/search", &LspServer::answerSearch},
      {"nib/callers", &LspServer::answerStructural},
      {"nib/callees", &LspServer::answerStructural},
      {"nib/impact", &LspServer::answerStructural},
      {"nib/trace", &LspServer::answerStructural},
      {"nib/context", &LspServer::answerContext},
      {"textDocument/documentSymbol", &LspServer::answerDocumentSymbol},
      {"workspace/symbol", &LspServer::answerWorkspaceSymbol},
      {"textDocument/hover", &LspServer::answerHover},
      {"textDocument/documentHighlight", &LspServer::answerHighlights},
      {"textDocument/prepareRename", &LspServer::answerPrepareRename},
      {"textDocument/foldingRange", &LspServer::answerFoldingRanges},
      {"textDocument/selectionRange", &LspServer::answerSelectionRanges},
      {"textDocument/rename", &LspServer::answerRename},
      {"textDocument/prepareCallHierarchy", &LspServer::answerPrepareCallHierarchy},
      {"callHierarchy/incomingCalls", &LspServer::answerCalls},
      {"callHierarchy/outgoingCalls", &LspServer::answerCalls},
      {"textDocument/prepareTypeHierarchy", &LspServer::answerPrepareTypeHierarchy},
      {"typeHierarchy/supertypes", &LspServer::answerTypes},
      {"typeHierarchy/subtypes", &LspServer::answerTypes},
  };
  const std::string& m = task.method;
  if (m == "textDocument/definition" || m == "textDocument/references" || m == "textDocument/typeDefinition" ||
      m == "textDocument/implementation" || m == "nib/locate")
    return answerNavigation(task, engine, live);
  auto it = kHandlers.find(m);
  if (it == kHandlers.end()) return lsp::encodeError(task.id, lsp::MethodNotFound, "unknown method " + m);
  return (this->*(it->second))(task, engine);
}

std::string LspServer::answerDeclaration(const Task& task, Engine& engine) {
  auto pos = positionOf(engine, std::get<lsp::TextDocumentPosition>(task.params));
  if (!pos) return failure(task, pos.status());
  auto r = engine.definition(pos->first, pos->second, /*declarations=*/true);
  if (!r) return failure(task, r.status());
  return lsp::encodeResult(task.id, wireLocations(engine, r->locations));
}

std::string LspServer::answerStatus(const Task& task, Engine& engine) {
  // What `nib status --json` prints, from the comparison every request shares (cached while the
  // watcher sees no event), with the worktree overlaid as every answer is.
  auto f = engine.freshness(true);
  if (!f) return failure(task, f.status());
  lsp::StatusAnswer a = toStatusAnswer(engine, *f);
  // Who tells this server of changes: a property of the server, not of the index, so the
  // CLI's and the daemon's status (which must print alike) leave it out.
  a.freshness["worktreeEvents"] = f->worktreeEvents;
  return lsp::encodeResult(task.id, a);
}

std::string LspServer::answerSearch(const Task& task, Engine& engine) {
  const auto& p = std::get<lsp::SearchParams>(task.params);
  auto request = searchRequestOf(p.query, p.route, p.regex, !p.caseSensitive, p.k, p.paths, p.languages, p.kinds);
  if (!request) return lsp::encodeError(task.id, lsp::InvalidParams, request.status().message());
  auto r = engine.search(*request);
  if (!r) return failure(task, r.status());
  return lsp::encodeResult(task.id, toSearchAnswer(engine, *r, encoding_, /*withUris=*/true));
}

std::string LspServer::answerStructural(const Task& task, Engine& engine) {
  const auto& p = std::get<lsp::StructuralParams>(task.params);
  StructuralQuery query;
  parseStructuralQuery(std::string_view(task.method).substr(4), &query);
  StructuralTarget target{p.symbol, "", 0, false};
  if (p.at) {
    auto pos = positionOf(engine, *p.at);
    if (!pos) return lsp::encodeError(task.id, lsp::RequestFailed, pos.status().message());
    target = StructuralTarget{"", pos->first, pos->second, true};
  }
  StructuralTarget to{p.to, "", 0, false};
  StructuralOptions options;
  options.depth = static_cast<int>(p.depth);
  options.limit = p.limit;
  options.encoding = encoding_;
  options.withUris = true;
  auto r = structuralAnswer(engine, query, target, query == StructuralQuery::Trace ? &to : nullptr, options);
  if (!r) return lsp::encodeError(task.id, errorCodeFor(r.status()), r.status().message());
  return lsp::encodeResult(task.id, *r);
}

std::string LspServer::answerContext(const Task& task, Engine& engine) {
  const auto& p = std::get<lsp::ContextParamsWire>(task.params);
  auto r = buildContext(engine, ContextRequest{p.symbols, p.paths, p.intent, p.budgetTokens});
  if (!r) return lsp::encodeError(task.id, errorCodeFor(r.status()), r.status().message());
  return lsp::encodeResult(task.id, toContextAnswer(engine, *r, encoding_, /*withUris=*/true));
}

std::string LspServer::answerDocumentSymbol(const Task& task, Engine& engine) {
  const auto& p = std::get<lsp::DocumentParams>(task.params);
  auto path = repoPathOf(engine, p.uri);
  if (!path) return failure(task, path.status());
  FileFacts facts;
  auto tree = engine.documentSymbols(*path, &facts);
  if (!tree) return failure(task, tree.status());
  std::function<lsp::DocumentSymbol(const SymbolTreeNode&)> convert = [&](const SymbolTreeNode& n) {
    const Definition& d = facts.definitions[n.definition];
    lsp::DocumentSymbol s;
    s.name = d.name;
    s.detail = d.container;
    s.kind = lspKind(d.kind);
    s.range = wireRange(engine, *path, facts.ascii, d.range);
    s.selectionRange = wireRange(engine, *path, facts.ascii, d.nameRange);
    for (const SymbolTreeNode& c : n.children) s.children.push_back(convert(c));
    return s;
  };
  std::vector<lsp::DocumentSymbol> out;
  for (const SymbolTreeNode& n : *tree) out.push_back(convert(n));
  return lsp::encodeResult(task.id, out);
}

std::string LspServer::answerWorkspaceSymbol(const Task& task, Engine& engine) {
  const auto& p = std::get<lsp::WorkspaceSymbolParams>(task.params);
  std::vector<lsp::SymbolInformation> out;
  if (!p.query.empty())
    for (const SymbolMatch& s : engine.symbols(p.query, 200))
      out.push_back({s.location.name, lspKind(s.location.kind),
                     {uriOf(s.location.path), wireRange(engine, s.location.path, s.location.ascii, s.location.range)},
                     s.location.container});
  return lsp::encodeResult(task.id, out);
}

std::string LspServer::answerHover(const Task& task, Engine& engine) {
  auto pos = positionOf(engine, std::get<lsp::TextDocumentPosition>(task.params));
  if (!pos) return failure(task, pos.status());
  auto h = engine.hover(pos->first, pos->second);
  if (!h) {
    if (h.status().code() == ErrorCode::NotFound) return lsp::encodeNullResult(task.id);
    return failure(task, h.status());
  }
  lsp::Hover out;
  out.markdown = "```" + std::string(languageTag(h->language)) + "\n" + h->signature + "\n```";
  if (!h->doc.empty()) out.markdown += "\n\n" + h->doc;
  const SymbolLocation& l = h->location;
  out.markdown += "\n\n_" + std::string(symbolKindName(l.kind)) + "_ `" +
                  (l.container.empty() ? l.name : l.container + "." + l.name) + "` — " + l.path + ":" +
                  std::to_string(toDisplayLine(l.range.start.line));
  return lsp::encodeResult(task.id, out);
}

std::string LspServer::answerHighlights(const Task& task, Engine& engine) {
  auto pos = positionOf(engine, std::get<lsp::TextDocumentPosition>(task.params));
  if (!pos) return failure(task, pos.status());
  auto r = engine.highlights(pos->first, pos->second);
  if (!r) return failure(task, r.status());
  std::vector<lsp::DocumentHighlight> out;
  for (const SymbolLocation& l : r->locations) {
    // A definition binds the name (an assignment in Python is one): a write. Declarations
    // (prototypes, signatures) are text; every other occurrence reads it.
    int kind = l.role == OccurrenceRole::Definition ? 3 : l.role == OccurrenceRole::Declaration ? 1 : 2;
    out.push_back({wireRange(engine, l.path, l.ascii, l.range), kind});
  }
  return lsp::encodeResult(task.id, out);
}

std::string LspServer::answerFoldingRanges(const Task& task, Engine& engine) {
  auto path = repoPathOf(engine, std::get<lsp::DocumentParams>(task.params).uri);
  if (!path) return failure(task, path.status());
  auto folds = engine.foldingRanges(*path);
  if (!folds) return failure(task, folds.status());
  std::vector<lsp::FoldingRange> out;
  for (const FoldRange& f : *folds) out.push_back({f.startLine, f.endLine});
  return lsp::encodeResult(task.id, out);
}

std::string LspServer::answerSelectionRanges(const Task& task, Engine& engine) {
  const auto& p = std::get<lsp::SelectionRangeParams>(task.params);
  std::vector<lsp::SelectionRange> out;
  for (const lsp::Position& at : p.positions) {
    auto pos = positionOf(engine, {p.uri, at});
    if (!pos) return failure(task, pos.status());
    auto chain = engine.selectionRanges(pos->first, pos->second);
    if (!chain) return failure(task, chain.status());
    lsp::SelectionRange s;
    for (const ByteRange& r : chain->ranges) s.chain.push_back(wireRange(engine, pos->first, chain->ascii, r));
    out.push_back(std::move(s));
  }
  return lsp::encodeResult(task.id, out);
}

std::string LspServer::answerPrepareRename(const Task& task, Engine& engine) {
  auto pos = positionOf(engine, std::get<lsp::TextDocumentPosition>(task.params));
  if (!pos) return failure(task, pos.status());
  auto plan = engine.planRename(pos->first, pos->second, "");
  if (!plan) return renameFailure(task, plan.status());
  return lsp::encodeResult(task.id, lsp::PrepareRename{wireRange(engine, plan->at.path, plan->at.ascii, plan->at.range),
                                                       plan->oldName});
}

std::string LspServer::answerRename(const Task& task, Engine& engine) {
  const auto& p = std::get<lsp::RenameParams>(task.params);
  auto pos = positionOf(engine, p.at);
  if (!pos) return failure(task, pos.status());
  auto plan = engine.planRename(pos->first, pos->second, p.newName);
  if (!plan) return renameFailure(task, plan.status());
  std::map<std::string, std::vector<lsp::TextEdit>> changes;
  for (const SymbolLocation& l : plan->occurrences)
    changes[uriOf(l.path)].push_back({wireRange(engine, l.path, l.ascii, l.range), p.newName});
  return lsp::encodeResult(task.id, changes);
}

// A rename nib refuses is an error the editor shows, with the reason (never an empty edit,
// which an editor would apply as "nothing to change").
std::string LspServer::renameFailure(const Task& task, const Status& s) {
  if (s.is(Reason::Unsafe) || s.code() == ErrorCode::InvalidArgument || s.is(Reason::NoSymbol))
    return lsp::encodeError(task.id, s.code() == ErrorCode::InvalidArgument ? lsp::InvalidParams : lsp::RequestFailed,
                            s.message());
  return failure(task, s);
}

lsp::CallHierarchyItem LspServer::callItem(Engine& engine, const CallNode& n) {
  lsp::CallHierarchyItem i;
  i.name = n.name;
  i.kind = lspKind(n.kind);
  i.detail = n.container;
  i.uri = uriOf(n.path);
  i.range = wireRange(engine, n.path, n.ascii, n.range);
  i.selectionRange = wireRange(engine, n.path, n.ascii, n.definition >= 0 ? n.nameRange : n.range);
  // The name travels too, so that an item from before an edit is recognised as stale.
  i.data = n.path + "#" + std::to_string(n.definition) + "#" + n.name;
  return i;
}

std::string LspServer::answerPrepareCallHierarchy(const Task& task, Engine& engine) {
  auto pos = positionOf(engine, std::get<lsp::TextDocumentPosition>(task.params));
  if (!pos) return failure(task, pos.status());
  auto nodes = engine.callablesAt(pos->first, pos->second);
  if (!nodes) return failure(task, nodes.status());
  if (nodes->empty()) return lsp::encodeNullResult(task.id);
  std::vector<lsp::CallHierarchyItem> out;
  for (const CallNode& n : *nodes) out.push_back(callItem(engine, n));
  return lsp::encodeResult(task.id, out);
}

std::string LspServer::answerCalls(const Task& task, Engine& engine) {
  const auto& it = std::get<lsp::CallHierarchyParams>(task.params).item;
  size_t nameHash = it.data.rfind('#');
  size_t defHash = nameHash == std::string::npos || nameHash == 0 ? std::string::npos : it.data.rfind('#', nameHash - 1);
  if (defHash == std::string::npos) return lsp::encodeError(task.id, lsp::InvalidParams, "malformed call hierarchy item data");
  std::string path = it.data.substr(0, defHash);
  std::string name = it.data.substr(nameHash + 1);
  int32_t def = -2;
  try {
    def = std::stoi(it.data.substr(defHash + 1, nameHash - defHash - 1));
  } catch (...) {
    return lsp::encodeError(task.id, lsp::InvalidParams, "malformed call hierarchy item data");
  }
  if (def >= 0) {
    auto facts = engine.facts(path);
    if (!facts || def >= static_cast<int32_t>(facts->definitions.size()) || facts->definitions[def].name != name)
      return lsp::encodeError(task.id, lsp::ContentModified, "the call hierarchy item is stale: prepare it again");
  }
  bool incoming = task.method == "callHierarchy/incomingCalls";
  auto edges = incoming ? engine.incomingCalls(path, def) : engine.outgoingCalls(path, def);
  if (!edges) return failure(task, edges.status());
  std::vector<lsp::CallHierarchyCall> out;
  for (const CallEdge& e : *edges) {
    lsp::CallHierarchyCall c;
    c.item = callItem(engine, e.node);
    // fromRanges are in the caller's file: the edge's file when incoming, the item's when outgoing.
    const std::string& sitesPath = incoming ? e.node.path : path;
    for (const ByteRange& r : e.sites) c.fromRanges.push_back(wireRange(engine, sitesPath, false, r));
    out.push_back(std::move(c));
  }
  return lsp::encodeResult(task.id, out, incoming);
}

// The type hierarchy (C and C++ with libclang's facts): an item's data names the version and the
// clang symbol, so that an item from another version is refused rather than misread.
std::string LspServer::typeItems(const Task& task, Engine& engine, const Expected<std::vector<TypeNode>>& nodes) {
  if (!nodes) return lsp::encodeError(task.id, lsp::ContentModified, nodes.status().message());
  std::vector<lsp::CallHierarchyItem> out;
  for (const TypeNode& n : *nodes) {
    lsp::CallHierarchyItem i;
    i.name = n.name;
    i.kind = lspKind(n.kind);
    i.uri = uriOf(n.path);
    i.range = i.selectionRange = wireRange(engine, n.path, false, n.range);
    i.data = "type#" + engine.manifest().versionId + "#" + std::to_string(n.symbol) + "#" + n.name;
    out.push_back(std::move(i));
  }
  return lsp::encodeResult(task.id, out);
}

std::string LspServer::answerPrepareTypeHierarchy(const Task& task, Engine& engine) {
  auto pos = positionOf(engine, std::get<lsp::TextDocumentPosition>(task.params));
  if (!pos) return failure(task, pos.status());
  auto nodes = engine.typesAt(pos->first, pos->second);
  if (!nodes) return failure(task, nodes.status());
  if (nodes->empty()) return lsp::encodeNullResult(task.id);
  return typeItems(task, engine, nodes);
}

std::string LspServer::answerTypes(const Task& task, Engine& engine) {
  const std::string& data = std::get<lsp::CallHierarchyParams>(task.params).item.data;
  // "type#<version>#<symbol>#<name>": the name comes last, whatever it holds.
  size_t v = data.find('#'), s = v == std::string::npos ? v : data.find('#', v + 1),
         n = s == std::string::npos ? s : data.find('#', s + 1);
  if (data.compare(0, v, "type") != 0 || n == std::string::npos)
    return lsp::encodeError(task.id, lsp::InvalidParams, "malformed type hierarchy item data");
  if (data.substr(v + 1, s - v - 1) != engine.manifest().versionId)
    return lsp::encodeError(task.id, lsp::ContentModified, "the type hierarchy item is of another index version: prepare it again");
  uint32_t symbol = 0;
  try {
    symbol = static_cast<uint32_t>(std::stoul(data.substr(s + 1, n - s - 1)));
  } catch (...) {
    return lsp::encodeError(task.id, lsp::InvalidParams, "malformed type hierarchy item data");
  }
  std::string name = data.substr(n + 1);
  return typeItems(task, engine, task.method == "typeHierarchy/supertypes" ? engine.supertypes(symbol, name)
                                                                          : engine.subtypes(symbol, name));
}

}  // namespace nib
