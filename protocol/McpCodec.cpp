#include "protocol/McpCodec.h"

#include <set>

#include <nlohmann/json.hpp>

namespace nib::mcp {
namespace {
using json = nlohmann::json;

struct Bad {
  std::string message;
};

std::string dump(const json& j) {
  // One line per message (the stdio transport's framing); invalid UTF-8 from file contents is
  // replaced rather than aborting the answer.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json idJson(const std::string& id) {
  json j = json::parse(id, nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

void readArgs(const json& a, ToolArgs* out) {
  if (a.is_null()) return;
  if (!a.is_object()) throw Bad{"'arguments' must be an object"};
  for (const auto& item : a.items()) {
    // Named references, not structured bindings: lambdas capture these in every compiler
    // (clang before 16 cannot capture a structured binding; the fuzz build uses clang 14).
    const std::string& key = item.key();
    const json& v = item.value();
    auto text = [&](std::string* field) {
      if (!v.is_string()) throw Bad{"'" + key + "' must be a string"};
      *field = v.get<std::string>();
    };
    auto number = [&](uint32_t* field, uint32_t lo, uint32_t hi) {
      if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
        throw Bad{"'" + key + "' must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi)};
      *field = static_cast<uint32_t>(v.get<int64_t>());
    };
    auto flag = [&](bool* field) {
      if (!v.is_boolean()) throw Bad{"'" + key + "' must be true or false"};
      *field = v.get<bool>();
    };
    auto list = [&](std::vector<std::string>* field) {
      if (!v.is_array()) throw Bad{"'" + key + "' must be an array of strings"};
      for (const json& e : v) {
        if (!e.is_string()) throw Bad{"'" + key + "' must be an array of strings"};
        field->push_back(e.get<std::string>());
      }
    };
    if (key == "symbol") text(&out->symbol);
    else if (key == "path") text(&out->path);
    else if (key == "query") text(&out->query);
    else if (key == "route") text(&out->route);
    else if (key == "intent") text(&out->intent);
    else if (key == "provider") {
      text(&out->provider);
      static const std::set<std::string> kPolicies = {"auto", "static", "live", "compare"};
      if (!kPolicies.count(out->provider)) throw Bad{"'provider' must be auto, static, live or compare"};
    }
    else if (key == "line") number(&out->line, 1, 100000000);
    else if (key == "column") number(&out->column, 1, 100000000);
    else if (key == "depth") number(&out->depth, 1, 50);
    else if (key == "limit") number(&out->limit, 1, 10000);
    else if (key == "k") number(&out->k, 1, 1000);
    else if (key == "budgetTokens") number(&out->budgetTokens, 200, 200000);
    else if (key == "regex") flag(&out->regex);
    else if (key == "ignoreCase") flag(&out->ignoreCase);
    else if (key == "includeDeclaration") flag(&out->includeDeclaration);
    else if (key == "symbols") list(&out->symbols);
    else if (key == "paths") list(&out->paths);
    else if (key == "languages") list(&out->languages);
    else if (key == "kinds") list(&out->kinds);
    else throw Bad{"unknown argument '" + key + "'"};
  }
}

// The catalog. Descriptions are written for a model deciding which tool to call: what it
// answers, when to prefer it, and what comes back.
json tools() {
  json provider = {{"type", "string"},
                   {"enum", {"auto", "static", "live", "compare"}},
                   {"description",
                    "Who answers: static (the index; the default unless .nib.conf's provider says otherwise), auto "
                    "(the index where its answer is exact and fresh, else a live language server), live, or compare "
                    "(as auto, and both asked). The answer names its provider and why."}};
  json position = {
      {"path", {{"type", "string"}, {"description", "Repository-relative file path, e.g. src/main.c"}}},
      {"line", {{"type", "integer"}, {"minimum", 1}, {"description", "1-based line"}}},
      {"column", {{"type", "integer"}, {"minimum", 1}, {"description", "1-based byte column of the identifier"}}}};
  json symbol = {{"type", "string"},
                 {"description", "A definition's name: name, Type.name or ns::name (instead of path/line/column)"}};
  auto target = [&](json extra) {
    json props = position;
    props["symbol"] = symbol;
    for (auto& [k, v] : extra.items()) props[k] = v;
    return json{{"type", "object"}, {"properties", props}, {"additionalProperties", false}};
  };
  json strings = {{"type", "array"}, {"items", {{"type", "string"}}}};
  return json::array({
      {{"name", "search"},
       {"title", "Search code"},
       {"description",
        "Search the repository. route 'trigram' returns every line containing a literal (or matching an RE2 regex with "
        "regex=true), exactly like grep; 'lexical' ranks functions, classes and files by BM25 over identifiers, "
        "comments and strings; 'semantic' ranks them by nearness in word vectors learned from this repository; 'hybrid' "
        "fuses lexical and semantic ranks; 'structural' adds the call-graph neighbours of the lexical hits; 'auto' "
        "(default) picks lexical for prose (hybrid when the index's vectors come from an external neural encoder) and trigram for code-like queries. Returns source-linked hits with 1-based lines."},
       {"inputSchema",
        {{"type", "object"},
         {"properties",
          {{"query", {{"type", "string"}, {"description", "Literal, regex, identifier or words"}}},
           {"route", {{"type", "string"}, {"enum", {"auto", "lexical", "trigram", "semantic", "hybrid", "structural"}}}},
           {"regex", {{"type", "boolean"}, {"description", "query is an RE2 regular expression (trigram route)"}}},
           {"ignoreCase", {{"type", "boolean"}}},
           {"k", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}, {"description", "At most this many hits (default 20)"}}},
           {"paths", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "Path globs or folders to search in"}}},
           {"languages", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "c, cpp, python, javascript, typescript, tsx, go, rust, java"}}},
           {"kinds", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "Unit kinds: function, method, class, ..."}}}}},
         {"required", {"query"}},
         {"additionalProperties", false}}}},
      {{"name", "context"},
       {"title", "Context bundle"},
       {"description",
        "The best first call for a task: give symbol names, file paths and/or the intent in words, and a token budget. "
        "Returns, in one answer, the call flow between the named symbols, the line-numbered source of the most relevant "
        "functions and types (whole units, cut to the budget), each named definition's blast radius (callers, type "
        "uses), and a follow-up request for what did not fit. Tokens are estimated as ceil(UTF-8 bytes / 4)."},
       {"inputSchema",
        {{"type", "object"},
         {"properties",
          {{"symbols", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "Definition names (name, Type.name, ns::name)"}}},
           {"paths", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "Repository-relative files"}}},
           {"intent", {{"type", "string"}, {"description", "What you are trying to do or find, in words"}}},
           {"budgetTokens", {{"type", "integer"}, {"minimum", 200}, {"maximum", 200000}, {"description", "Default 4000"}}}}},
         {"additionalProperties", false}}}},
      {{"name", "definition"},
       {"title", "Go to definition"},
       {"description", "Where the symbol at a position (path, 1-based line and column) or of a given name is defined. "
                       "Answers carry a confidence: exact, import (defined outside the repository) or name."},
       {"inputSchema", target({{"provider", provider}})}},
      {{"name", "references"},
       {"title", "Find references"},
       {"description", "Every reference to the symbol at a position (or of a given name) across the repository, with "
                       "its definition unless includeDeclaration is false."},
       {"inputSchema", target({{"includeDeclaration", {{"type", "boolean"}}}, {"provider", provider}})}},
      {{"name", "callers"},
       {"title", "Callers"},
       {"description", "Who calls a function (by name or position), with the call sites; depth walks further up "
                       "(default 1)."},
       {"inputSchema", target({{"depth", {{"type", "integer"}, {"minimum", 1}, {"maximum", 50}}},
                               {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10000}}}})}},
      {{"name", "callees"},
       {"title", "Callees"},
       {"description", "What a function (by name or position) calls, with the call sites; depth walks further down "
                       "(default 1)."},
       {"inputSchema", target({{"depth", {{"type", "integer"}, {"minimum", 1}, {"maximum", 50}}},
                               {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10000}}}})}},
      {{"name", "impact"},
       {"title", "Blast radius"},
       {"description", "What a change to a definition can affect: its transitive callers and the users of a type, "
                       "nearest first (depth hops, default 3)."},
       {"inputSchema", target({{"depth", {{"type", "integer"}, {"minimum", 1}, {"maximum", 50}}},
                               {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10000}}}})}},
      {{"name", "status"},
       {"title", "Index status"},
       {"description", "Which commit and worktree state the index reflects, whether it is fresh, and its views."},
       {"inputSchema", {{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}}}},
  });
}

}  // namespace

const std::vector<std::string>& toolNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const json& t : tools()) n.push_back(t["name"].get<std::string>());
    return n;
  }();
  return names;
}

Incoming decode(std::string_view line) {
  Incoming in;
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    in.errorCode = -32700;
    in.error = "the message is not valid JSON";
    return in;
  }
  if (!j.is_object()) {
    in.errorCode = -32600;
    in.error = j.is_array() ? "batches are not part of MCP 2025-06-18" : "a message must be a JSON object";
    return in;
  }
  auto id = j.find("id");
  bool hasId = id != j.end() && (id->is_string() || id->is_number_integer());
  if (hasId) in.id = id->dump();
  if (id != j.end() && !hasId) {
    // MCP ids are strings or integers, never null: answer (with a null id) rather than
    // mistaking the message for a notification and leaving the client waiting.
    in.errorCode = -32600;
    in.error = "'id' must be a string or an integer";
    return in;
  }
  auto method = j.find("method");
  if (method == j.end() || !method->is_string()) {
    if (hasId && (j.contains("result") || j.contains("error"))) {
      in.kind = Incoming::Kind::Response;
      return in;
    }
    in.errorCode = -32600;
    in.error = "a message needs a string 'method'";
    return in;
  }
  in.method = method->get<std::string>();
  in.kind = hasId ? Incoming::Kind::Request : Incoming::Kind::Notification;
  const json empty = json::object();
  auto p = j.find("params");
  const json& params = p == j.end() ? empty : *p;
  try {
    if (!params.is_object()) throw Bad{"'params' must be an object"};
    if (in.method == "initialize") {
      auto v = params.find("protocolVersion");
      if (v != params.end() && v->is_string()) in.protocolVersion = v->get<std::string>();
    } else if (in.method == "tools/call") {
      auto name = params.find("name");
      if (name == params.end() || !name->is_string()) throw Bad{"tools/call needs a string 'name'"};
      in.tool = name->get<std::string>();
      auto args = params.find("arguments");
      static const json none;
      try {
        // By reference: copying a deeply nested value recurses once per level.
        readArgs(args == params.end() ? none : *args, &in.args);
      } catch (const Bad& b) {
        // Arguments that do not fit the schema are the tool's error, which the model can read
        // and correct; the call itself was well formed.
        in.error = b.message;
      }
    }
  } catch (const Bad& b) {
    in.errorCode = -32602;
    in.error = b.message;
  }
  return in;
}

std::string encodeInitializeResult(const std::string& id, const std::string& serverVersion,
                                   const std::string& instructions) {
  json result = {{"protocolVersion", kProtocolVersion},
                 {"capabilities", {{"tools", {{"listChanged", false}}}}},
                 {"serverInfo", {{"name", "nib"}, {"title", "nib code intelligence"}, {"version", serverVersion}}},
                 {"instructions", instructions}};
  return dump({{"jsonrpc", "2.0"}, {"id", idJson(id)}, {"result", result}});
}

std::string encodeToolsList(const std::string& id) {
  return dump({{"jsonrpc", "2.0"}, {"id", idJson(id)}, {"result", {{"tools", tools()}}}});
}

std::string encodeToolResult(const std::string& id, const std::string& text, const std::string& structuredJson,
                             bool isError) {
  json result = {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", isError}};
  if (!structuredJson.empty()) {
    json s = json::parse(structuredJson, nullptr, false);
    if (s.is_object()) result["structuredContent"] = std::move(s);
  }
  return dump({{"jsonrpc", "2.0"}, {"id", idJson(id)}, {"result", result}});
}

std::string encodeEmptyResult(const std::string& id) {
  return dump({{"jsonrpc", "2.0"}, {"id", idJson(id)}, {"result", json::object()}});
}

std::string encodeError(const std::string& id, int code, const std::string& message) {
  return dump({{"jsonrpc", "2.0"}, {"id", idJson(id)}, {"error", {{"code", code}, {"message", message}}}});
}

}  // namespace nib::mcp
