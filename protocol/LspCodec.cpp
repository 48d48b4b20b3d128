// JSON <-> typed LSP messages. Decoding is defensive: every field is type-checked, nothing
// throws out of this file, and a malformed message becomes an Invalid (or InvalidParams)
// result that the server answers with an error instead of dying.
#include "protocol/JsonValues.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "support/Text.h"

#include "protocol/LspMessages.h"

namespace nib::lsp {
namespace {
using json = nlohmann::json;

struct DecodeError {
  std::string message;
};

const json& member(const json& obj, const char* key) {
  static const json null;
  if (!obj.is_object()) return null;
  auto it = obj.find(key);
  return it == obj.end() ? null : *it;
}

std::string str(const json& obj, const char* key, bool required = true) {
  const json& v = member(obj, key);
  if (v.is_string()) return v.get<std::string>();
  if (required) throw DecodeError{std::string("'") + key + "' must be a string"};
  return {};
}

// An optional array of strings `obj[key]`, appended to `out`; `prefix` names the enclosing
// object in the error ("filters.").
void strings(const json& obj, const char* key, const char* prefix, std::vector<std::string>& out) {
  const json& a = member(obj, key);
  if (a.is_null()) return;
  auto bad = [&] { return DecodeError{std::string("'") + prefix + key + "' must be an array of strings"}; };
  if (!a.is_array()) throw bad();
  for (const json& e : a) {
    if (!e.is_string()) throw bad();
    out.push_back(e.get<std::string>());
  }
}

uint32_t uint(const json& obj, const char* key) {
  const json& v = member(obj, key);
  if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0)) {
    int64_t n = v.get<int64_t>();
    if (n <= UINT32_MAX) return static_cast<uint32_t>(n);
  }
  throw DecodeError{std::string("'") + key + "' must be a non-negative integer"};
}

Position position(const json& p) {
  if (!p.is_object()) throw DecodeError{"'position' must be an object"};
  return {uint(p, "line"), uint(p, "character")};
}

Range range(const json& r) {
  if (!r.is_object()) throw DecodeError{"'range' must be an object"};
  return {position(member(r, "start")), position(member(r, "end"))};
}

TextDocumentPosition textDocumentPosition(const json& params) {
  TextDocumentPosition t;
  t.uri = str(member(params, "textDocument"), "uri");
  t.position = position(member(params, "position"));
  return t;
}

CallHierarchyItem callHierarchyItem(const json& j) {
  if (!j.is_object()) throw DecodeError{"'item' must be an object"};
  CallHierarchyItem item;
  item.name = str(j, "name");
  const json& kind = member(j, "kind");
  item.kind = kind.is_number_integer() ? kind.get<int>() : 12;
  item.detail = str(j, "detail", false);
  item.uri = str(j, "uri");
  item.range = range(member(j, "range"));
  item.selectionRange = range(member(j, "selectionRange"));
  const json& data = member(j, "data");
  if (!data.is_string()) throw DecodeError{"'item.data' is missing: the item was not produced by nib"};
  item.data = data.get<std::string>();
  return item;
}

Params decodeParams(const std::string& method, const json& p) {
  if (method == "initialize") {
    InitializeParams init;
    init.rootUri = str(p, "rootUri", false);
    init.rootPath = str(p, "rootPath", false);
    const json& folders = member(p, "workspaceFolders");
    if (init.rootUri.empty() && folders.is_array() && !folders.empty()) init.rootUri = str(folders[0], "uri", false);
    const json& encodings = member(member(member(p, "capabilities"), "general"), "positionEncodings");
    if (encodings.is_array())
      for (const json& e : encodings)
        if (e.is_string()) init.positionEncodings.push_back(e.get<std::string>());
    init.provider = str(member(p, "initializationOptions"), "provider", false);
    const json& progress = member(member(member(p, "capabilities"), "window"), "workDoneProgress");
    init.workDoneProgress = progress.is_boolean() && progress.get<bool>();
    const json& watched =
        member(member(member(member(p, "capabilities"), "workspace"), "didChangeWatchedFiles"), "dynamicRegistration");
    init.watchedFilesRegistration = watched.is_boolean() && watched.get<bool>();
    return init;
  }
  if (method == "textDocument/definition" || method == "textDocument/declaration" || method == "textDocument/hover" ||
      method == "textDocument/documentHighlight" || method == "textDocument/prepareRename" ||
      method == "textDocument/implementation" || method == "textDocument/typeDefinition" ||
      method == "textDocument/prepareCallHierarchy" || method == "textDocument/prepareTypeHierarchy")
    return textDocumentPosition(p);
  if (method == "textDocument/rename") {
    RenameParams r;
    r.at = textDocumentPosition(p);
    r.newName = str(p, "newName");
    return r;
  }
  if (method == "textDocument/references") {
    ReferenceParams r;
    r.at = textDocumentPosition(p);
    const json& inc = member(member(p, "context"), "includeDeclaration");
    r.includeDeclaration = !inc.is_boolean() || inc.get<bool>();
    return r;
  }
  if (method == "textDocument/didOpen") {
    const json& doc = member(p, "textDocument");
    DidOpenParams d;
    d.uri = str(doc, "uri");
    d.languageId = str(doc, "languageId", false);
    d.text = str(doc, "text");
    const json& v = member(doc, "version");
    d.version = v.is_number_integer() ? v.get<int>() : 0;
    return d;
  }
  if (method == "textDocument/didChange") {
    DidChangeParams d;
    d.uri = str(member(p, "textDocument"), "uri");
    const json& v = member(member(p, "textDocument"), "version");
    d.version = v.is_number_integer() ? v.get<int>() : 0;
    const json& changes = member(p, "contentChanges");
    if (!changes.is_array()) throw DecodeError{"'contentChanges' must be an array"};
    // A change that cannot be read makes the notification unusable, but the document is known:
    // the server rejects this notification for it instead of losing track of every document.
    try {
      for (const json& c : changes) {
        ContentChange change;
        change.text = str(c, "text");
        if (!member(c, "range").is_null()) change.range = range(member(c, "range"));
        d.changes.push_back(std::move(change));
      }
    } catch (const DecodeError& e) {
      d.changes.clear();
      d.invalid = e.message;
    }
    return d;
  }
  if (method == "textDocument/didClose" || method == "textDocument/didSave" || method == "textDocument/documentSymbol" ||
      method == "textDocument/foldingRange") {
    DocumentParams d;
    d.uri = str(member(p, "textDocument"), "uri");
    const json& text = member(p, "text");
    if (text.is_string()) d.text = text.get<std::string>();
    return d;
  }
  if (method == "workspace/didChangeWatchedFiles") {
    const json& changes = member(p, "changes");
    if (!changes.is_array()) throw DecodeError{"'changes' must be an array"};
    WatchedFilesParams w;
    for (const json& c : changes) w.uris.push_back(str(c, "uri"));
    return w;
  }
  if (method == "textDocument/selectionRange") {
    SelectionRangeParams s;
    s.uri = str(member(p, "textDocument"), "uri");
    const json& positions = member(p, "positions");
    if (!positions.is_array()) throw DecodeError{"'positions' must be an array"};
    if (positions.size() > SelectionRangeParams::kMaxPositions)
      throw DecodeError{"at most " + std::to_string(SelectionRangeParams::kMaxPositions) + " positions per request"};
    for (const json& at : positions) s.positions.push_back(position(at));
    return s;
  }
  if (method == "workspace/symbol") return WorkspaceSymbolParams{str(p, "query", false)};
  // A type hierarchy item has a call hierarchy item's shape (LSP 3.17).
  if (method == "callHierarchy/incomingCalls" || method == "callHierarchy/outgoingCalls" ||
      method == "typeHierarchy/supertypes" || method == "typeHierarchy/subtypes")
    return CallHierarchyParams{callHierarchyItem(member(p, "item"))};
  if (method == "$/cancelRequest") {
    const json& id = member(p, "id");
    if (!id.is_string() && !id.is_number_integer()) throw DecodeError{"'id' must be a string or an integer"};
    return CancelParams{id.dump()};
  }
  if (method == "nib/search") {
    SearchParams s;
    s.query = str(p, "query");
    std::string route = str(p, "route", false);
    if (!route.empty()) s.route = route;
    static const std::set<std::string> kRoutes = {"auto", "lexical", "trigram", "semantic", "hybrid", "structural"};
    if (!kRoutes.count(s.route))
      throw DecodeError{"'route' must be one of auto, lexical, trigram, semantic, hybrid, structural"};
    const json& regex = member(p, "regex");
    s.regex = regex.is_boolean() && regex.get<bool>();
    const json& cs = member(p, "caseSensitive");
    s.caseSensitive = !cs.is_boolean() || cs.get<bool>();
    if (!member(p, "k").is_null()) s.k = std::min<uint32_t>(uint(p, "k"), 10000);
    const json& filters = member(p, "filters");
    strings(filters, "paths", "filters.", s.paths);
    strings(filters, "languages", "filters.", s.languages);
    strings(filters, "kinds", "filters.", s.kinds);
    return s;
  }
  if (method == "nib/callers" || method == "nib/callees" || method == "nib/impact" || method == "nib/trace") {
    StructuralParams sp;
    if (method == "nib/trace") {
      sp.symbol = str(p, "from");
      sp.to = str(p, "to");
    } else if (!member(p, "textDocument").is_null()) {
      sp.at = textDocumentPosition(p);
    } else {
      sp.symbol = str(p, "symbol");
    }
    if (!member(p, "depth").is_null()) sp.depth = std::clamp<uint32_t>(uint(p, "depth"), 1, 50);
    if (!member(p, "limit").is_null()) sp.limit = std::clamp<uint32_t>(uint(p, "limit"), 1, 100000);
    return sp;
  }
  if (method == "nib/context") {
    ContextParamsWire c;
    strings(p, "symbols", "", c.symbols);
    strings(p, "paths", "", c.paths);
    c.intent = str(p, "intent", false);
    if (!member(p, "budgetTokens").is_null()) c.budgetTokens = uint(p, "budgetTokens");
    return c;
  }
  if (method == "nib/locate") {
    LocateParams l;
    l.at = textDocumentPosition(p);
    std::string request = str(p, "request", false);
    if (!request.empty()) l.request = request;
    if (l.request != "definition" && l.request != "references" && l.request != "typeDefinition" &&
        l.request != "implementation")
      throw DecodeError{"'request' must be \"definition\", \"references\", \"typeDefinition\" or \"implementation\""};
    const json& inc = member(p, "includeDeclaration");
    l.includeDeclaration = !inc.is_boolean() || inc.get<bool>();
    l.provider = str(p, "provider", false);
    if (!l.provider.empty() && l.provider != "auto" && l.provider != "static" && l.provider != "live" &&
        l.provider != "compare")
      throw DecodeError{"'provider' must be \"auto\", \"static\", \"live\" or \"compare\""};
    return l;
  }
  return std::monostate{};
}

json rangeJson(const Range& r) {
  return {{"start", {{"line", r.start.line}, {"character", r.start.character}}},
          {"end", {{"line", r.end.line}, {"character", r.end.character}}}};
}

json locationJson(const WireLocation& l) { return {{"uri", l.uri}, {"range", rangeJson(l.range)}}; }

json itemJson(const CallHierarchyItem& i) {
  json j = {{"name", i.name}, {"kind", i.kind}, {"uri", i.uri}, {"range", rangeJson(i.range)},
            {"selectionRange", rangeJson(i.selectionRange)}, {"data", i.data}};
  if (!i.detail.empty()) j["detail"] = i.detail;
  return j;
}

json symbolJson(const DocumentSymbol& s) {
  json j = {{"name", s.name}, {"kind", s.kind}, {"range", rangeJson(s.range)}, {"selectionRange", rangeJson(s.selectionRange)}};
  if (!s.detail.empty()) j["detail"] = s.detail;
  if (!s.children.empty()) {
    j["children"] = json::array();
    for (const DocumentSymbol& c : s.children) j["children"].push_back(symbolJson(c));
  }
  return j;
}

json idJson(const RequestId& id) {
  json j = json::parse(id, nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// A request id as response text: ids are kept as the JSON their message spelled (a string's
// or an integer's dump), so they are copied as they are; anything else is parsed, or null.
// Parsing every id again cost a definition request a tenth of its time in nib.
std::string idText(const RequestId& id) {
  bool integer = !id.empty() && std::all_of(id.begin() + (id[0] == '-' ? 1 : 0), id.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
                 id != "-";
  bool string = id.size() >= 2 && id.front() == '"' && id.back() == '"';
  return integer || string ? id : idJson(id).dump();
}

std::string response(const RequestId& id, const json& result) {
  // Assembled as text: the envelope as a JSON object cost more than the locations it carries.
  return "{\"id\":" + idText(id) + ",\"jsonrpc\":\"2.0\",\"result\":" + dump(result) + "}";
}

}  // namespace

Incoming decodeMessage(std::string_view body) {
  Incoming in;
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    in.errorCode = ParseError;
    in.error = "the message is not valid JSON";
    return in;
  }
  if (!j.is_object()) {
    in.errorCode = InvalidRequest;
    in.error = "a message must be a JSON object";
    return in;
  }
  const json& id = member(j, "id");
  bool hasId = id.is_string() || id.is_number_integer();
  if (hasId) in.id = id.dump();
  const json& method = member(j, "method");
  if (!method.is_string()) {
    if (hasId && (j.contains("result") || j.contains("error"))) {
      in.kind = Incoming::Kind::Response;  // an answer to one of our own requests
      if (const json& error = member(j, "error"); error.is_object()) {
        const json& code = member(error, "code");
        in.errorCode = code.is_number_integer() ? code.get<int>() : InternalError;
        in.error = str(error, "message", false);
      }
      return in;
    }
    in.errorCode = InvalidRequest;
    in.error = "a message needs a string 'method'";
    return in;
  }
  in.method = method.get<std::string>();
  in.kind = hasId ? Incoming::Kind::Request : Incoming::Kind::Notification;
  if (!id.is_null() && !hasId) {
    in.kind = Incoming::Kind::Invalid;
    in.errorCode = InvalidRequest;
    in.error = "'id' must be a string or an integer";
    return in;
  }
  try {
    in.params = decodeParams(in.method, member(j, "params"));
  } catch (const DecodeError& e) {
    in.errorCode = InvalidParams;
    in.error = "invalid params for " + in.method + ": " + e.message;
  } catch (const std::exception& e) {
    in.errorCode = InvalidParams;
    in.error = "invalid params for " + in.method + ": " + e.what();
  }
  return in;
}

std::string encodeNullResult(const RequestId& id) { return response(id, nullptr); }

std::string encodeResult(const RequestId& id, const InitializeResult& r) {
  json caps = {
      {"positionEncoding", r.positionEncoding},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"definitionProvider", true},
      {"declarationProvider", true},
      {"referencesProvider", true},
      {"documentSymbolProvider", true},
      {"documentHighlightProvider", true},
      {"renameProvider", {{"prepareProvider", true}}},
      {"foldingRangeProvider", true},
      {"selectionRangeProvider", true},
      {"implementationProvider", true},
      {"typeDefinitionProvider", true},
      {"workspaceSymbolProvider", true},
      {"hoverProvider", true},
      {"callHierarchyProvider", true},
      {"typeHierarchyProvider", true},
      {"experimental", {{"nibLocateProvider", true}, {"nibSearchProvider", true}}},
  };
  return response(id, {{"capabilities", caps}, {"serverInfo", {{"name", "nib"}, {"version", r.serverVersion}}}});
}

std::string encodeResult(const RequestId& id, const std::vector<WireLocation>& r) {
  json a = json::array();
  for (const WireLocation& l : r) a.push_back(locationJson(l));
  return response(id, a);
}

std::string encodeResult(const RequestId& id, const std::vector<FoldingRange>& r) {
  json a = json::array();
  for (const FoldingRange& f : r) a.push_back({{"startLine", f.startLine}, {"endLine", f.endLine}});
  return response(id, a);
}

std::string encodeResult(const RequestId& id, const std::vector<SelectionRange>& r) {
  json a = json::array();
  for (const SelectionRange& s : r) {
    json node;  // built from the outermost range in
    for (auto it = s.chain.rbegin(); it != s.chain.rend(); ++it) {
      json inner = {{"range", rangeJson(*it)}};
      if (!node.is_null()) inner["parent"] = std::move(node);
      node = std::move(inner);
    }
    a.push_back(node.is_null() ? json::object() : node);
  }
  return response(id, a);
}

std::string encodeResult(const RequestId& id, const PrepareRename& r) {
  return response(id, {{"range", rangeJson(r.range)}, {"placeholder", r.placeholder}});
}

std::string encodeResult(const RequestId& id, const std::map<std::string, std::vector<TextEdit>>& changes) {
  json c = json::object();
  for (const auto& [uri, edits] : changes) {
    json a = json::array();
    for (const TextEdit& e : edits) a.push_back({{"range", rangeJson(e.range)}, {"newText", e.newText}});
    c[uri] = a;
  }
  return response(id, {{"changes", c}});
}

std::string encodeResult(const RequestId& id, const std::vector<DocumentHighlight>& r) {
  json a = json::array();
  for (const DocumentHighlight& h : r) a.push_back({{"range", rangeJson(h.range)}, {"kind", h.kind}});
  return response(id, a);
}

std::string encodeResult(const RequestId& id, const std::vector<DocumentSymbol>& r) {
  json a = json::array();
  for (const DocumentSymbol& s : r) a.push_back(symbolJson(s));
  return response(id, a);
}

std::string encodeResult(const RequestId& id, const std::vector<SymbolInformation>& r) {
  json a = json::array();
  for (const SymbolInformation& s : r) {
    json j = {{"name", s.name}, {"kind", s.kind}, {"location", locationJson(s.location)}};
    if (!s.containerName.empty()) j["containerName"] = s.containerName;
    a.push_back(j);
  }
  return response(id, a);
}

std::string encodeResult(const RequestId& id, const Hover& r) {
  json j = {{"contents", {{"kind", "markdown"}, {"value", r.markdown}}}};
  if (r.range) j["range"] = rangeJson(*r.range);
  return response(id, j);
}

std::string encodeResult(const RequestId& id, const std::vector<CallHierarchyItem>& r) {
  json a = json::array();
  for (const CallHierarchyItem& i : r) a.push_back(itemJson(i));
  return response(id, a);
}

std::string encodeResult(const RequestId& id, const std::vector<CallHierarchyCall>& r, bool incoming) {
  json a = json::array();
  for (const CallHierarchyCall& c : r) {
    json ranges = json::array();
    for (const Range& fr : c.fromRanges) ranges.push_back(rangeJson(fr));
    a.push_back({{incoming ? "from" : "to", itemJson(c.item)}, {"fromRanges", ranges}});
  }
  return response(id, a);
}

std::string encodeResult(const RequestId& id, const LocateResult& r) {
  json locs = json::array();
  for (const WireLocation& l : r.locations) locs.push_back(locationJson(l));
  json j = {{"locations", locs},         {"provider", r.provider},       {"confidence", r.confidence},
            {"indexCommit", r.indexCommit}, {"headCommit", r.headCommit}, {"indexVersion", r.indexVersion},
            {"worktreeTree", r.worktreeTree}, {"fresh", r.fresh}, {"partial", r.partial}};
  if (!r.note.empty()) j["note"] = r.note;
  if (!r.policy.empty()) j["policy"] = r.policy;
  if (!r.facts.empty()) j["facts"] = r.facts;
  if (!r.backend.empty()) j["backend"] = r.backend;
  if (!r.liveError.empty()) j["liveError"] = r.liveError;
  if (r.liveMilliseconds >= 0) j["liveMilliseconds"] = r.liveMilliseconds;
  if (r.agree) j["agree"] = *r.agree;
  if (!r.reason.empty()) j["reason"] = r.reason;
  if (!r.category.empty()) j["category"] = r.category;
  if (!r.agreement.empty()) j["agreement"] = r.agreement;
  return response(id, j);
}

namespace {
// Search answers can hold thousands of hits: they are written straight to text (the generic
// JSON tree costs more than the search itself). Strings are escaped as JSON requires; invalid
// UTF-8 is replaced, as the JSON library does elsewhere.
void appendString(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    // Plain ASCII runs (most of source code) are copied whole.
    size_t run = i;
    while (run < s.size()) {
      auto b = static_cast<unsigned char>(s[run]);
      if (b < 0x20 || b >= 0x80 || b == '"' || b == '\\') break;
      ++run;
    }
    if (run > i) {
      out.append(s.data() + i, run - i);
      i = run - 1;
      continue;
    }
    auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else if (c < 0x80) {
          out += static_cast<char>(c);
        } else {
          // Copy a valid UTF-8 sequence whole; replace a broken one with U+FFFD.
          size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
          bool ok = n > 0 && i + n <= s.size();
          for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
          if (ok && isValidUtf8(s.substr(i, n))) {
            out.append(s.substr(i, n));
            i += n - 1;
          } else {
            out += "\xEF\xBF\xBD";
          }
        }
    }
  }
  out += '"';
}

void appendRange(std::string& out, const Range& r) {
  out += "{\"start\":{\"line\":" + std::to_string(r.start.line) + ",\"character\":" + std::to_string(r.start.character) +
         "},\"end\":{\"line\":" + std::to_string(r.end.line) + ",\"character\":" + std::to_string(r.end.character) + "}}";
}
}  // namespace

std::string encodeResult(const RequestId& id, const SearchAnswer& r) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":" + idText(id) + ",\"result\":{\"route\":";
  appendString(out, r.route);
  out += ",\"truncated\":";
  out += r.truncated ? "true" : "false";
  out += ",\"notes\":[";
  for (size_t i = 0; i < r.notes.size(); ++i) {
    if (i) out += ',';
    appendString(out, r.notes[i]);
  }
  out += "],\"freshness\":{";
  bool first = true;
  for (const auto& [k, v] : r.freshness) {
    if (!first) out += ',';
    first = false;
    appendString(out, k);
    out += ':';
    if (v == "true" || v == "false") out += v;
    else appendString(out, v);
  }
  out += "},\"hits\":[";
  char score[32];
  for (size_t i = 0; i < r.hits.size(); ++i) {
    const SearchHitAnswer& h = r.hits[i];
    if (i) out += ',';
    out += "{\"path\":";
    appendString(out, h.path);
    if (!h.uri.empty()) {
      out += ",\"uri\":";
      appendString(out, h.uri);
    }
    out += ",\"range\":";
    appendRange(out, h.range);
    std::snprintf(score, sizeof score, "%.6g", h.score);
    out += ",\"score\":";
    out += score;
    out += ",\"route\":";
    appendString(out, h.route);
    if (!h.name.empty()) {
      out += ",\"name\":";
      appendString(out, h.name);
    }
    if (!h.kind.empty()) {
      out += ",\"kind\":";
      appendString(out, h.kind);
    }
    out += ",\"snippetLine\":" + std::to_string(h.snippetLine) + ",\"snippet\":";
    appendString(out, h.snippet);
    out += '}';
  }
  out += "]}}";
  return out;
}

std::string encodeError(const RequestId& id, int code, std::string_view message) {
  return dump({{"jsonrpc", "2.0"}, {"id", id.empty() ? json(nullptr) : idJson(id)},
               {"error", {{"code", code}, {"message", std::string(message)}}}});
}

std::string encodeLogMessage(int type, std::string_view message) {
  return dump({{"jsonrpc", "2.0"}, {"method", "window/logMessage"},
               {"params", {{"type", type}, {"message", std::string(message)}}}});
}

std::string encodeCreateProgress(const RequestId& id, std::string_view token) {
  return dump({{"jsonrpc", "2.0"}, {"id", idJson(id)}, {"method", "window/workDoneProgress/create"},
               {"params", {{"token", std::string(token)}}}});
}

std::string encodeRegisterWatchedFiles(const RequestId& id) {
  json registration = {{"id", "nib-watched-files"},
                       {"method", "workspace/didChangeWatchedFiles"},
                       {"registerOptions", {{"watchers", json::array({{{"globPattern", "**/*"}}})}}}};
  return dump({{"jsonrpc", "2.0"}, {"id", idJson(id)}, {"method", "client/registerCapability"},
               {"params", {{"registrations", json::array({registration})}}}});
}

std::string encodeProgress(std::string_view token, std::string_view kind, std::string_view title,
                           std::string_view message, int percentage) {
  json value = {{"kind", std::string(kind)}};
  if (!title.empty()) value["title"] = std::string(title);
  if (!message.empty()) value["message"] = std::string(message);
  if (percentage >= 0 && kind != "end") value["percentage"] = percentage;
  return dump({{"jsonrpc", "2.0"}, {"method", "$/progress"}, {"params", {{"token", std::string(token)}, {"value", value}}}});
}

std::string encodeResult(const RequestId& id, const StructuralAnswer& r) { return response(id, structuralValue(r)); }
std::string encodeResult(const RequestId& id, const ContextAnswerWire& r) { return response(id, contextValue(r)); }
std::string encodeResult(const RequestId& id, const StatusAnswer& r) { return response(id, json::parse(toJson(r))); }

}  // namespace nib::lsp
