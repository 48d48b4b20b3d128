// End-to-end tests of `nib serve`: the real binary over stdio, driven by a small client.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "LspClient.h"
#include "LspProject.h"
#include "TestRepo.h"
#include "views/IndexLayout.h"

namespace nib::test {
using json = nlohmann::json;

TEST_CASE("the server follows the LSP lifecycle and rejects bad input without dying", "[lsp]") {
  TestRepo repo;
  makeProject(repo);
  LspClient c(repo.root());
  json early = c.request("textDocument/definition", at(repo, "app/main.py", 5, 11));
  CHECK(early["error"]["code"] == -32002);

  json init = c.initialize(repo.root(), {{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}});
  REQUIRE(init.contains("result"));
  const json& caps = init["result"]["capabilities"];
  CHECK(caps["positionEncoding"] == "utf-8");
  for (const char* p : {"definitionProvider", "declarationProvider", "referencesProvider", "documentSymbolProvider",
                        "workspaceSymbolProvider", "hoverProvider", "callHierarchyProvider"})
    CHECK(caps[p] == true);
  CHECK(init["result"]["serverInfo"]["name"] == "nib");

  CHECK(c.request("initialize", {{"capabilities", json::object()}})["error"]["code"] == -32600);
  CHECK(c.request("workspace/executeCommand", json::object())["error"]["code"] == -32601);
  CHECK(c.request("textDocument/definition", {{"textDocument", {{"uri", "file:///x"}}}})["error"]["code"] == -32602);
  // A file outside the workspace is nothing nib knows about: an empty answer, not an error.
  CHECK(c.request("textDocument/hover", at(repo, "../outside.py", 0, 0))["result"].is_null());
  json http = c.request("textDocument/definition", {{"textDocument", {{"uri", "http://example.com/a.py"}}},
                                                    {"position", {{"line", 0}, {"character", 0}}}});
  CHECK(http["error"]["code"] == -32602);

  // Malformed frames and bodies: answered or logged, and the next request still works.
  std::string bad = "{not json";
  c.sendRaw("Content-Length: " + std::to_string(bad.size()) + "\r\n\r\n" + bad);
  json parseError = c.waitResponse(nullptr);
  CHECK(parseError["error"]["code"] == -32700);
  c.sendRaw("X-Nonsense: 1\r\n\r\n");
  c.send({{"jsonrpc", "2.0"}, {"id", "s1"}, {"method", 7}});
  CHECK(c.waitResponse("s1")["error"]["code"] == -32600);
  json ok = c.request("textDocument/definition", at(repo, "app/main.py", 5, 11));
  REQUIRE(ok["result"].is_array());
  CHECK(ok["result"].size() == 1);
  auto logs = c.waitMessage("window/logMessage", 5000);
  REQUIRE(logs.has_value());
  CHECK((*logs)["params"]["message"].get<std::string>().find("Content-Length") != std::string::npos);

  CHECK(c.request("shutdown", nullptr)["result"].is_null());
  CHECK(c.request("textDocument/definition", at(repo, "app/main.py", 5, 11))["error"]["code"] == -32600);
  c.notify("exit", nullptr);
  CHECK(c.finish() == 0);

  LspClient abrupt(repo.root());
  abrupt.initialize(repo.root());
  abrupt.notify("exit", nullptr);
  CHECK(abrupt.finish() == 1);  // exit without shutdown
}

TEST_CASE("the server answers navigation requests from the index", "[lsp]") {
  TestRepo repo;
  makeProject(repo);
  // The index's answers (under auto, tree-sitter's references, not measured yet, go to pylsp).
  LspClient c(repo.root(), {"--provider", "static"});
  c.initialize(repo.root());
  std::string geometry = LspClient::uri(repo.root() / "app/geometry.py");
  std::string main = LspClient::uri(repo.root() / "app/main.py");

  json def = c.request("textDocument/definition", at(repo, "app/main.py", 5, 11));
  CHECK(def["result"] == json::array({{{"uri", geometry}, {"range", range(13, 4, 13, 12)}}}));
  json decl = c.request("textDocument/declaration", at(repo, "app/main.py", 5, 11));
  CHECK(decl["result"] == def["result"]);  // Python has no separate declarations

  json refs = c.request("textDocument/references",
                        {{"textDocument", {{"uri", main}}}, {"position", {{"line", 5}, {"character", 11}}},
                         {"context", {{"includeDeclaration", true}}}});
  CHECK(refs["result"] == json::array({{{"uri", geometry}, {"range", range(13, 4, 13, 12)}},
                                       {{"uri", main}, {"range", range(0, 28, 0, 36)}},
                                       {{"uri", main}, {"range", range(5, 11, 5, 19)}}}));
  json refsNoDecl = c.request("textDocument/references",
                              {{"textDocument", {{"uri", main}}}, {"position", {{"line", 5}, {"character", 11}}},
                               {"context", {{"includeDeclaration", false}}}});
  CHECK(refsNoDecl["result"].size() == 2);

  json nothing = c.request("textDocument/definition", at(repo, "app/main.py", 1, 0));
  CHECK(nothing["result"].is_null());

  json symbols = c.request("textDocument/documentSymbol", {{"textDocument", {{"uri", geometry}}}});
  const json& tops = symbols["result"];
  REQUIRE(tops.size() == 2);
  CHECK(tops[0]["name"] == "Point");
  CHECK(tops[0]["kind"] == 5);
  CHECK(tops[0]["range"] == range(3, 0, 10, 33));
  std::vector<std::string> members;
  for (const json& ch : tops[0]["children"]) members.push_back(ch["name"]);
  CHECK(members == std::vector<std::string>{"__init__", "x", "moved"});
  CHECK(tops[1]["name"] == "distance");
  CHECK(tops[1]["kind"] == 12);

  json ws = c.request("workspace/symbol", {{"query", "dist"}});
  REQUIRE_FALSE(ws["result"].empty());
  CHECK(ws["result"][0]["name"] == "distance");
  CHECK(ws["result"][0]["location"]["uri"] == geometry);

  json hover = c.request("textDocument/hover", at(repo, "app/main.py", 5, 11));
  std::string md = hover["result"]["contents"]["value"];
  CHECK(hover["result"]["contents"]["kind"] == "markdown");
  CHECK(md.find("def distance(a, b):") != std::string::npos);
  CHECK(md.find("The distance between two points.") != std::string::npos);

  json prepared = c.request("textDocument/prepareCallHierarchy", at(repo, "app/geometry.py", 13, 5));
  REQUIRE(prepared["result"].size() == 1);
  json item = prepared["result"][0];
  CHECK(item["name"] == "distance");
  json incoming = c.request("callHierarchy/incomingCalls", {{"item", item}});
  REQUIRE(incoming["result"].size() == 1);
  CHECK(incoming["result"][0]["from"]["name"] == "run");
  CHECK(incoming["result"][0]["fromRanges"] == json::array({range(5, 11, 5, 19)}));
  json run = incoming["result"][0]["from"];
  json outgoing = c.request("callHierarchy/outgoingCalls", {{"item", run}});
  std::vector<std::string> callees;
  for (const json& o : outgoing["result"]) callees.push_back(o["to"]["name"]);
  CHECK(callees == std::vector<std::string>{"Point", "distance", "moved"});
  json stale = c.request("callHierarchy/incomingCalls", {{"item", {{"name", "x"}, {"kind", 12}, {"uri", main},
                                                                   {"range", range(0, 0, 0, 1)},
                                                                   {"selectionRange", range(0, 0, 0, 1)},
                                                                   {"data", "app/main.py#999#x"}}}});
  CHECK(stale["error"]["code"] == -32801);

  json locate = c.request("nib/locate", {{"textDocument", {{"uri", main}}},
                                         {"position", {{"line", 5}, {"character", 11}}},
                                         {"request", "references"}});
  CHECK(locate["result"]["provider"] == "static");
  CHECK(locate["result"]["confidence"] == "scope");  // tree-sitter's, not a compiler's
  CHECK(locate["result"]["fresh"] == true);
  CHECK(locate["result"]["indexCommit"] == locate["result"]["headCommit"]);
  CHECK(locate["result"]["locations"].size() == 3);
  CHECK(c.request("nib/locate", {{"textDocument", {{"uri", main}}}, {"position", {{"line", 0}, {"character", 0}}},
                                 {"request", "callers"}})["error"]["code"] == -32602);
}

TEST_CASE("nib/status says which version answers and how the worktree differs from it", "[lsp][freshness]") {
  TestRepo repo;
  makeProject(repo);
  LspClient c(repo.root());
  c.initialize(repo.root());
  json s = c.request("nib/status", json::object());
  REQUIRE(s.contains("result"));
  CHECK(s["result"]["freshness"]["fresh"] == true);
  CHECK(s["result"]["freshness"]["changedFiles"] == json::array());
  CHECK(s["result"]["manifest"]["sourceCommit"] == s["result"]["freshness"]["headCommit"]);
  // An edit on disk: not fresh, the file named, and the answers overlaid (not partial).
  repo.write("app/main.py", "from app.geometry import distance\n\nprint(distance)\n");
  json t = c.request("nib/status", nullptr);
  REQUIRE(t.contains("result"));
  CHECK(t["result"]["freshness"]["fresh"] == false);
  CHECK(t["result"]["freshness"]["changedFiles"] == json::array({"app/main.py"}));
  CHECK(t["result"]["freshness"]["overlaid"] == true);
  CHECK(t["result"]["freshness"]["partial"] == false);
}

TEST_CASE("an editor that watches files for the server: workspace/didChangeWatchedFiles", "[lsp][freshness]") {
  TestRepo repo;
  makeProject(repo);
  const json watching = {{"workspace", {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}};
  auto hits = [](LspClient& c, const std::string& query) {
    json r = c.request("nib/search", {{"query", query}, {"route", "trigram"}});
    REQUIRE(r.contains("result"));
    return r["result"]["hits"].size();
  };
  auto changed = [](LspClient& c) {
    json r = c.request("nib/status", json::object());
    REQUIRE(r.contains("result"));
    return r["result"]["freshness"];
  };
  {
    LspClient c(repo.root());
    c.initialize(repo.root(), watching);
    // The server asks the editor to watch every file, and takes its word for what changed.
    auto reg = c.waitMessage("client/registerCapability");
    REQUIRE(reg.has_value());
    const json& r = (*reg)["params"]["registrations"][0];
    CHECK(r["method"] == "workspace/didChangeWatchedFiles");
    CHECK(r["registerOptions"]["watchers"][0]["globPattern"] == "**/*");
    c.send({{"jsonrpc", "2.0"}, {"id", (*reg)["id"]}, {"result", nullptr}});
    CHECK(changed(c)["worktreeEvents"] == "client");
    CHECK(hits(c, "brand_new_helper") == 0);
    // An edit the editor has not reported yet is not looked for: no watches of its own.
    repo.write("app/main.py", "def brand_new_helper():\n    return 1\n");
    CHECK(changed(c)["changedFiles"] == json::array());
    c.notify("workspace/didChangeWatchedFiles",
             {{"changes", json::array({{{"uri", LspClient::uri(repo.root() / "app/main.py")}, {"type", 2}}})}});
    CHECK(changed(c)["changedFiles"] == json::array({"app/main.py"}));
    CHECK(hits(c, "brand_new_helper") == 1);
    // A file in a folder the index has never seen, reported created: the search says it was
    // not searched (new files wait for `nib index`), which it could not say unseen.
    repo.write("extra/more.py", "def another_new_helper():\n    return 2\n");
    auto notes = [&] {
      json r = c.request("nib/search", {{"query", "another_new_helper"}, {"route", "trigram"}});
      REQUIRE(r.contains("result"));
      return r["result"]["notes"].dump();
    };
    CHECK(notes().find("extra") == std::string::npos);
    c.notify("workspace/didChangeWatchedFiles",
             {{"changes", json::array({{{"uri", LspClient::uri(repo.root() / "extra/more.py")}, {"type", 1}}})}});
    CHECK(notes().find("extra") != std::string::npos);
    // Changes under .git are no change of the worktree; a malformed notification changes nothing.
    c.notify("workspace/didChangeWatchedFiles",
             {{"changes", json::array({{{"uri", LspClient::uri(repo.root() / ".git/index")}, {"type", 2}}})}});
    c.notify("workspace/didChangeWatchedFiles", {{"changes", "not a list"}});
    CHECK(hits(c, "brand_new_helper") == 1);
    CHECK(c.shutDown() == 0);
  }
  {
    // An editor that refuses the registration: the server watches by itself.
    LspClient c(repo.root());
    c.initialize(repo.root(), watching);
    auto reg = c.waitMessage("client/registerCapability");
    REQUIRE(reg.has_value());
    c.send({{"jsonrpc", "2.0"}, {"id", (*reg)["id"]}, {"error", {{"code", -32601}, {"message", "no watching here"}}}});
    CHECK(c.waitMessage("window/logMessage").has_value());
    CHECK(changed(c)["worktreeEvents"] == "inotify");
    repo.write("app/main.py", "def third_new_helper():\n    return 3\n");
    CHECK(hits(c, "third_new_helper") == 1);
  }
  {
    // An editor that does not offer it: no registration, inotify.
    LspClient c(repo.root());
    c.initialize(repo.root());
    CHECK(changed(c)["worktreeEvents"] == "inotify");
    CHECK(c.messages("client/registerCapability").empty());
  }
}

TEST_CASE("open buffers overlay the index: answers follow the edits", "[lsp]") {
  TestRepo repo;
  makeProject(repo);
  LspClient c(repo.root());
  c.initialize(repo.root());
  std::string main = LspClient::uri(repo.root() / "app/main.py");
  std::string edited =
      "from geometry import Point, distance\n"
      "\n"
      "\n"
      "def helper():\n"
      "    return 1\n"
      "\n"
      "\n"
      "def run():\n"
      "    p = Point(helper())\n"
      "    return distance(p, p.moved(2))\n";
  c.notify("textDocument/didOpen",
           {{"textDocument", {{"uri", main}, {"languageId", "python"}, {"version", 1}, {"text", edited}}}});
  json def = c.request("textDocument/definition", at(repo, "app/main.py", 8, 14));
  CHECK(def["result"] == json::array({{{"uri", main}, {"range", range(3, 4, 3, 10)}}}));
  json refs = c.request("textDocument/references",
                        {{"textDocument", {{"uri", main}}}, {"position", {{"line", 3}, {"character", 5}}},
                         {"context", {{"includeDeclaration", true}}}});
  CHECK(refs["result"].size() == 2);
  // The buffer's definitions are visible workspace-wide too.
  json ws = c.request("workspace/symbol", {{"query", "helper"}});
  REQUIRE(ws["result"].size() == 1);
  CHECK(ws["result"][0]["location"]["uri"] == main);

  // Incremental edit: two new lines at the top shift everything down.
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", main}, {"version", 2}}},
                                      {"contentChanges", {{{"range", range(0, 0, 0, 0)}, {"text", "\n\n"}}}}});
  json shifted = c.request("textDocument/definition", at(repo, "app/main.py", 10, 14));
  CHECK(shifted["result"] == json::array({{{"uri", main}, {"range", range(5, 4, 5, 10)}}}));
  // A whole-document change.
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", main}, {"version", 3}}},
                                      {"contentChanges", {{{"text", std::string(kMain)}}}}});
  json back = c.request("textDocument/definition", at(repo, "app/main.py", 5, 11));
  CHECK(back["result"][0]["uri"] == LspClient::uri(repo.root() / "app/geometry.py"));

  c.notify("textDocument/didClose", {{"textDocument", {{"uri", main}}}});
  CHECK(c.request("workspace/symbol", {{"query", "helper"}})["result"].empty());
  json disk = c.request("textDocument/definition", at(repo, "app/main.py", 5, 11));
  CHECK(disk["result"][0]["range"] == range(13, 4, 13, 12));
}

TEST_CASE("positions are converted to the negotiated encoding", "[lsp]") {
  TestRepo repo;
  makeProject(repo);
  std::string emoji = LspClient::uri(repo.root() / "app/emoji.py");
  {
    LspClient c(repo.root());
    c.initialize(repo.root());  // no encodings offered: UTF-16
    json def = c.request("textDocument/definition", at(repo, "app/emoji.py", 1, 7));
    CHECK(def["result"] == json::array({{{"uri", emoji}, {"range", range(0, 12, 0, 17)}}}));
    // A UTF-16 position after the emoji maps back to the right byte.
    json fromDef = c.request("textDocument/references",
                             {{"textDocument", {{"uri", emoji}}}, {"position", {{"line", 0}, {"character", 13}}},
                              {"context", {{"includeDeclaration", true}}}});
    CHECK(fromDef["result"].size() == 2);
  }
  {
    LspClient c(repo.root());
    c.initialize(repo.root(), {{"general", {{"positionEncodings", {"utf-32"}}}}});
    json def = c.request("textDocument/definition", at(repo, "app/emoji.py", 1, 7));
    CHECK(def["result"][0]["range"] == range(0, 10, 0, 15));
  }
  {
    LspClient c(repo.root());
    c.initialize(repo.root(), {{"general", {{"positionEncodings", {"utf-8"}}}}});
    json def = c.request("textDocument/definition", at(repo, "app/emoji.py", 1, 7));
    CHECK(def["result"][0]["range"] == range(0, 16, 0, 21));
  }
}

TEST_CASE("without an index the server builds one, reporting progress, then answers", "[lsp]") {
  TestRepo repo;
  makeProject(repo, /*index=*/false);
  LspClient c(repo.root());
  c.initialize(repo.root(), {{"window", {{"workDoneProgress", true}}}});
  json def = c.request("textDocument/definition", at(repo, "app/main.py", 5, 11));
  CHECK(def["result"][0]["range"] == range(13, 4, 13, 12));
  auto create = c.waitMessage("window/workDoneProgress/create", 5000);
  REQUIRE(create.has_value());
  std::string token = (*create)["params"]["token"];
  std::vector<std::string> kinds;
  for (const json& p : c.messages("$/progress")) {
    CHECK(p["params"]["token"] == token);
    kinds.push_back(p["params"]["value"]["kind"]);
  }
  REQUIRE(kinds.size() >= 2);
  CHECK(kinds.front() == "begin");
  CHECK(kinds.back() == "end");
}

TEST_CASE("cancelled requests are answered with RequestCancelled", "[lsp]") {
  TestRepo repo;
  makeProject(repo, /*index=*/false);
  // Hold the index's write lock: the server's background build waits for it, so requests wait
  // for the engine and a cancellation certainly arrives while the request is pending.
  IndexLayout layout = IndexLayout::forRepository(repo.root());
  auto acquired = IndexWriteLock::acquire(layout, false);
  REQUIRE(acquired.hasValue());
  auto lock = std::make_unique<IndexWriteLock>(std::move(acquired).value());
  LspClient c(repo.root());
  c.initialize(repo.root());
  c.send({{"jsonrpc", "2.0"}, {"id", "r1"}, {"method", "textDocument/definition"},
          {"params", at(repo, "app/main.py", 5, 11)}});
  c.notify("$/cancelRequest", {{"id", "r1"}});
  c.notify("$/cancelRequest", {{"id", "never-sent"}});  // unknown ids are ignored
  CHECK(c.waitResponse("r1")["error"]["code"] == -32800);
  lock.reset();  // the build proceeds; later requests are answered
  CHECK(c.request("textDocument/definition", at(repo, "app/main.py", 5, 11))["result"].size() == 1);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("declaration goes to the prototype, definition to the body (C)", "[lsp]") {
  TestRepo repo;
  repo.write("include/area.h", "int area(int w, int h);\n");
  repo.write("src/area.c", "#include \"area.h\"\nint area(int w, int h) { return w * h; }\n");
  repo.write("src/main.c", "#include \"../include/area.h\"\nint main(void) { return area(2, 3); }\n");
  repo.commitAll();
  indexWith(repo, "--wait-dense");
  LspClient c(repo.root());
  c.initialize(repo.root());
  json def = c.request("textDocument/definition", at(repo, "src/main.c", 1, 25));
  CHECK(def["result"] == json::array({{{"uri", LspClient::uri(repo.root() / "src/area.c")}, {"range", range(1, 4, 1, 8)}}}));
  json decl = c.request("textDocument/declaration", at(repo, "src/main.c", 1, 25));
  CHECK(decl["result"] ==
        json::array({{{"uri", LspClient::uri(repo.root() / "include/area.h")}, {"range", range(0, 4, 0, 8)}}}));
}

TEST_CASE("random garbage on the wire never kills the server", "[lsp]") {
  TestRepo repo;
  makeProject(repo);
  LspClient c(repo.root());
  c.initialize(repo.root());
  std::mt19937 rng(1234);
  auto randomString = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(rng()));
    return s;
  };
  std::vector<std::string> methods = {"textDocument/definition", "textDocument/references", "textDocument/hover",
                                      "textDocument/didOpen",    "textDocument/didChange",  "callHierarchy/incomingCalls",
                                      "workspace/symbol",        "nib/locate",              "$/cancelRequest"};
  std::vector<json> shapes = {nullptr, 1, "x", json::array({1, 2}), json::object(),
                              {{"textDocument", {{"uri", 5}}}, {"position", {{"line", -1}, {"character", "a"}}}},
                              {{"textDocument", {{"uri", "file:///%zz"}}}, {"position", {{"line", 1}, {"character", 1}}}},
                              {{"textDocument", {{"uri", LspClient::uri(repo.root() / "app/main.py")}, {"text", 3}}},
                               {"contentChanges", {{{"range", range(99, 0, 0, 0)}, {"text", "x"}}}}},
                              {{"item", {{"name", "x"}, {"data", "app/main.py#-5"}, {"uri", "file:///x"},
                                         {"range", range(0, 0, 0, 0)}, {"selectionRange", range(0, 0, 0, 0)}}}}};
  for (int i = 0; i < 300; ++i) {
    switch (rng() % 4) {
      case 0: {  // a frame with random bytes
        std::string body = randomString(rng() % 64);
        c.sendRaw("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
        break;
      }
      case 1:  // a broken header
        c.sendRaw("Content-Length: " + std::to_string(rng() % 3 ? -5 : 99999999999) + "\r\n\r\n");
        break;
      default: {  // a structurally valid message with hostile params
        json m = {{"jsonrpc", "2.0"}, {"method", methods[rng() % methods.size()]}, {"params", shapes[rng() % shapes.size()]}};
        if (rng() % 2) m["id"] = static_cast<int>(rng() % 100000);
        c.send(m);
      }
    }
  }
  // Whatever happened above, a well-formed request still gets its answer.
  c.sendRaw("\r\n\r\n");  // ends a dangling header
  json ok = c.request("textDocument/definition", at(repo, "app/main.py", 5, 11), 60000);
  REQUIRE(ok.contains("result"));
  CHECK(ok["result"].size() == 1);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("edits ending past the end of the buffer are clamped, not appended", "[lsp]") {
  TestRepo repo;
  makeProject(repo);
  LspClient c(repo.root());
  c.initialize(repo.root());
  std::string uri = LspClient::uri(repo.root() / "app/extra.py");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1},
                                                      {"text", "def alpha():\n    pass\ndef beta(): pass"}}}});
  // Delete from the end of line 0 to (2, 0)... and past the end: Neovim sends such ranges.
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                      {"contentChanges", {{{"range", range(0, 12, 9, 0)}, {"text", ""}}}}});
  json symbols = c.request("textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(symbols["result"].size() == 1);
  CHECK(symbols["result"][0]["name"] == "alpha");
  CHECK(symbols["result"][0]["range"] == range(0, 0, 0, 12));
}

TEST_CASE("call hierarchy expands a file's top-level calls", "[lsp]") {
  TestRepo repo;
  makeProject(repo);
  LspClient c(repo.root());
  c.initialize(repo.root());
  // run() is called from main.py's top level: that caller is the file.
  json prepared = c.request("textDocument/prepareCallHierarchy", at(repo, "app/main.py", 3, 4));
  json incoming = c.request("callHierarchy/incomingCalls", {{"item", prepared["result"][0]}});
  REQUIRE(incoming["result"].size() == 1);
  json file = incoming["result"][0]["from"];
  CHECK(file["name"] == "main.py");
  json outgoing = c.request("callHierarchy/outgoingCalls", {{"item", file}});
  REQUIRE(outgoing["result"].size() == 1);
  CHECK(outgoing["result"][0]["to"]["name"] == "run");
  CHECK(c.request("callHierarchy/incomingCalls", {{"item", file}})["result"].empty());
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("type hierarchy follows libclang's base classes (C++)", "[lsp][clang]") {
  TestRepo repo;
  repo.write("shapes.h",
             "struct Shape { virtual ~Shape(); };\n"
             "struct Round : Shape {};\n"
             "struct Circle : Round {};\n"
             "struct Square : Shape {};\n"
             "struct Lone {};\n");
  repo.write("shapes.cpp", "#include \"shapes.h\"\nShape::~Shape() {}\nint count = 0;\n");
  writeCompileCommands(repo, "shapes.cpp");
  repo.commitAll();
  indexWith(repo, "--wait-dense");
  LspClient c(repo.root());
  json init = c.initialize(repo.root());
  CHECK(init["result"]["capabilities"]["typeHierarchyProvider"] == true);
  auto names = [](const json& items) {
    std::set<std::string> n;
    for (const json& i : items) n.insert(i["name"].get<std::string>());
    return n;
  };

  json round = c.request("textDocument/prepareTypeHierarchy", at(repo, "shapes.h", 1, 8));
  REQUIRE(round["result"].size() == 1);
  json item = round["result"][0];
  CHECK(item["name"] == "Round");
  CHECK(item["uri"] == LspClient::uri(repo.root() / "shapes.h"));
  CHECK(item["selectionRange"] == range(1, 7, 1, 12));
  CHECK(names(c.request("typeHierarchy/supertypes", {{"item", item}})["result"]) == std::set<std::string>{"Shape"});
  CHECK(names(c.request("typeHierarchy/subtypes", {{"item", item}})["result"]) == std::set<std::string>{"Circle"});
  // From a use of the class in another file (the destructor's qualifier), down two branches.
  json shape = c.request("textDocument/prepareTypeHierarchy", at(repo, "shapes.cpp", 1, 2))["result"][0];
  CHECK(shape["name"] == "Shape");
  CHECK(shape["selectionRange"] == range(0, 7, 0, 12));
  CHECK(names(c.request("typeHierarchy/subtypes", {{"item", shape}})["result"]) == std::set<std::string>{"Round", "Square"});
  CHECK(c.request("typeHierarchy/supertypes", {{"item", shape}})["result"].empty());
  json lone = c.request("textDocument/prepareTypeHierarchy", at(repo, "shapes.h", 4, 8))["result"][0];
  CHECK(c.request("typeHierarchy/subtypes", {{"item", lone}})["result"].empty());
  // Not a class: no item.
  CHECK(c.request("textDocument/prepareTypeHierarchy", at(repo, "shapes.cpp", 2, 5))["result"].is_null());
  // Items of another version, or malformed ones, are refused.
  json other = item;
  other["data"] = "type#20000101T000000.000Z-1-0#0#Round";
  CHECK(c.request("typeHierarchy/supertypes", {{"item", other}})["error"]["code"] == -32801);
  other["data"] = "call#x";
  CHECK(c.request("typeHierarchy/subtypes", {{"item", other}})["error"]["code"] == -32602);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("implementation lists a virtual method's overriders and a class's derived classes (C++)", "[lsp][clang]") {
  TestRepo repo;
  //- shapes.h: Shape::area is overridden twice directly and once two levels down; Square::area
  //  is a namesake in a class outside the hierarchy.
  repo.write("shapes.h",
             "struct Shape { virtual ~Shape(); virtual double area() const = 0; };\n"
             "struct Round : Shape { double area() const override; };\n"
             "struct Circle : Round { double area() const override; };\n"
             "struct Rect : Shape { double area() const override { return 1; } };\n"
             "struct Square { double area() const { return 4; } };\n");
  repo.write("shapes.cpp",
             "#include \"shapes.h\"\n"
             "Shape::~Shape() {}\n"
             "double Round::area() const { return 3; }\n"
             "double Circle::area() const { return 3.14; }\n"
             "double total(const Shape& s) { return s.area(); }\n");
  repo.write("tool.py", "class Base:\n    def run(self):\n        pass\n");
  writeCompileCommands(repo, "shapes.cpp");
  repo.commitAll();
  indexWith(repo, "--no-dense");
  LspClient c(repo.root());
  json init = c.initialize(repo.root());
  CHECK(init["result"]["capabilities"]["implementationProvider"] == true);
  auto where = [](const json& locations) {
    std::set<std::string> w;
    for (const json& l : locations)
      w.insert(l["uri"].get<std::string>().substr(l["uri"].get<std::string>().rfind('/') + 1) + ":" +
               std::to_string(l["range"]["start"]["line"].get<int>()) + ":" +
               std::to_string(l["range"]["start"]["character"].get<int>()));
    return w;
  };
  // At the pure virtual method (its declaration, and a call through the base): every override,
  // at its definition — out of line in shapes.cpp, inline in the class for Rect.
  std::set<std::string> overriders = {"shapes.cpp:2:14", "shapes.cpp:3:15", "shapes.h:3:29"};
  CHECK(where(c.request("textDocument/implementation", at(repo, "shapes.h", 0, 49))["result"]) == overriders);
  CHECK(where(c.request("textDocument/implementation", at(repo, "shapes.cpp", 4, 41))["result"]) == overriders);
  // At Round::area: the one overriding it below.
  CHECK(where(c.request("textDocument/implementation", at(repo, "shapes.h", 1, 31))["result"]) ==
        std::set<std::string>{"shapes.cpp:3:15"});
  // At the class: every class deriving from it, two levels down too; none for the namesake.
  CHECK(where(c.request("textDocument/implementation", at(repo, "shapes.h", 0, 8))["result"]) ==
        std::set<std::string>{"shapes.h:1:7", "shapes.h:2:7", "shapes.h:3:7"});
  CHECK(c.request("textDocument/implementation", at(repo, "shapes.h", 4, 24))["result"].empty());
  // Python has no precise source yet: a clear refusal, not a guess by name.
  json py = c.request("textDocument/implementation", at(repo, "tool.py", 1, 9));
  REQUIRE(py.contains("error"));
  CHECK(py["error"]["message"].get<std::string>().find("compiler's view") != std::string::npos);
}

TEST_CASE("typeDefinition goes to the declaration of the type of what is at the position (C)", "[lsp][clang]") {
  TestRepo repo;
  repo.write("geo.h",
             "struct point { int x, y; };\n"
             "typedef struct point point_t;\n"
             "struct point *make_point(int x);\n");
  repo.write("geo.c",
             "#include \"geo.h\"\n"
             "struct point *make_point(int x) { static struct point p; p.x = x; return &p; }\n"
             "int use(void) { point_t q; struct point *r = make_point(1); return q.x + r->y; }\n");
  repo.write("tool.py", "class Base:\n    pass\n\nb = Base()\n");
  repo.write("compile_commands.json", "[{\"directory\":\"" + repo.root().string() +
                                          "\",\"file\":\"geo.c\",\"command\":\"cc -std=c11 -c geo.c\"}]");
  repo.commitAll();
  indexWith(repo, "--no-dense");
  LspClient c(repo.root());
  json init = c.initialize(repo.root());
  CHECK(init["result"]["capabilities"]["typeDefinitionProvider"] == true);
  const json point = {{"uri", LspClient::uri(repo.root() / "geo.h")}, {"range", range(0, 7, 0, 12)}};
  auto typeOf = [&](const std::string& file, int line, int character) {
    return c.request("textDocument/typeDefinition", at(repo, file, line, character))["result"];
  };
  CHECK(typeOf("geo.c", 1, 54) == json::array({point}));  // a static local, declared
  CHECK(typeOf("geo.c", 1, 14) == json::array({point}));  // a function: its return type, through the pointer
  CHECK(typeOf("geo.c", 2, 73) == json::array({point}));  // a use of a pointer variable
  CHECK(typeOf("geo.c", 2, 34) == json::array({point}));  // a type: itself
  // Through a typedef: the typedef's declaration, as the type is spelled.
  CHECK(typeOf("geo.c", 2, 24) ==
        json::array({{{"uri", LspClient::uri(repo.root() / "geo.h")}, {"range", range(1, 21, 1, 28)}}}));
  CHECK(typeOf("geo.c", 2, 69).empty());  // an int field: no declaration to go to
  json py = c.request("textDocument/typeDefinition", at(repo, "tool.py", 3, 0));
  REQUIRE(py.contains("error"));
  CHECK(py["error"]["message"].get<std::string>().find("compiler's view") != std::string::npos);
}

TEST_CASE("documentHighlight lists the symbol's occurrences in the file, bindings as writes", "[lsp]") {
  TestRepo repo;
  makeProject(repo);
  LspClient c(repo.root());
  c.initialize(repo.root());
  std::string main = LspClient::uri(repo.root() / "app/main.py");
  // An open buffer: a helper defined, then called twice; a local of the same name elsewhere is
  // another symbol and stays dark.
  std::string text =
      "def helper():\n"
      "    return 1\n"
      "\n"
      "\n"
      "def run():\n"
      "    return helper() + helper()\n"
      "\n"
      "\n"
      "def other():\n"
      "    helper = 2\n"
      "    return helper\n";
  c.notify("textDocument/didOpen",
           {{"textDocument", {{"uri", main}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  json h = c.request("textDocument/documentHighlight", at(repo, "app/main.py", 5, 12));
  CHECK(h["result"] == json::array({{{"range", range(0, 4, 0, 10)}, {"kind", 3}},
                                    {{"range", range(5, 11, 5, 17)}, {"kind", 2}},
                                    {{"range", range(5, 22, 5, 28)}, {"kind", 2}}}));
  json local = c.request("textDocument/documentHighlight", at(repo, "app/main.py", 10, 12));
  CHECK(local["result"] == json::array({{{"range", range(9, 4, 9, 10)}, {"kind", 3}},
                                        {{"range", range(10, 11, 10, 17)}, {"kind", 2}}}));
  // Nothing to highlight between names.
  json none = c.request("textDocument/documentHighlight", at(repo, "app/main.py", 2, 0));
  CHECK(none["result"].is_null());
  c.request("shutdown", nullptr);
  c.notify("exit", nullptr);
}

}  // namespace nib::test

namespace nib::test {

// Rename (issue 25): every occurrence when the index knows them exactly and fresh, a refusal
// naming why otherwise — never a partial edit.
TEST_CASE("rename edits every exact occurrence and refuses what it cannot make exactly", "[lsp][rename]") {
  TestRepo repo;
  makeProject(repo);
  repo.write("c/util.c", "int twice(int x) { return 2 * x; }\nint four(void) { return twice(2); }\n");
  repo.write("tool/main.go", "package main\n\nfunc helper() int { return 1 }\n\nfunc main() { helper() }\n");
  repo.commitAll();
  // Python from the precise view (scip-python): its occurrences are the compiler's.
  indexWith(repo, "", /*precise=*/true);
  LspClient c(repo.root());
  json init = c.initialize(repo.root());
  CHECK(init["result"]["capabilities"]["renameProvider"]["prepareProvider"] == true);
  std::string geometry = LspClient::uri(repo.root() / "app/geometry.py");
  std::string main = LspClient::uri(repo.root() / "app/main.py");

  // At the call of distance in main.py: its range and name, then the edit of all three
  // occurrences (the definition, the import, the call) in both files.
  json prepared = c.request("textDocument/prepareRename", at(repo, "app/main.py", 5, 13));
  CHECK(prepared["result"] == json({{"range", range(5, 11, 5, 19)}, {"placeholder", "distance"}}));
  json renamed = c.request("textDocument/rename", {{"textDocument", {{"uri", main}}},
                                                   {"position", {{"line", 5}, {"character", 13}}},
                                                   {"newName", "gap"}});
  INFO(renamed.dump());
  json edit = [](json r) { return json::array({{{"range", r}, {"newText", "gap"}}}); }(range(13, 4, 13, 12));
  CHECK(renamed["result"]["changes"][geometry] == edit);
  CHECK(renamed["result"]["changes"][main] ==
        json::array({{{"range", range(0, 28, 0, 36)}, {"newText", "gap"}}, {{"range", range(5, 11, 5, 19)}, {"newText", "gap"}}}));
  CHECK(renamed["result"]["changes"].size() == 2);

  auto renameTo = [&](const std::string& path, int line, int character, const std::string& name) {
    return c.request("textDocument/rename", {{"textDocument", {{"uri", LspClient::uri(repo.root() / path)}}},
                                             {"position", {{"line", line}, {"character", character}}},
                                             {"newName", name}});
  };
  // A name that is no identifier, or a keyword: the request is refused as invalid.
  json keyword = renameTo("app/main.py", 5, 13, "class");
  CHECK(keyword["error"]["code"] == -32602);
  CHECK(keyword["error"]["message"].get<std::string>().find("keyword") != std::string::npos);
  CHECK(renameTo("app/main.py", 5, 13, "2far")["error"]["code"] == -32602);
  // p.moved(2): the method of the object's type, which scip-python knows (tree-sitter could only
  // match the name): its definition and the call.
  json moved = renameTo("app/main.py", 5, 26, "shifted");
  INFO(moved.dump());
  CHECK(moved["result"]["changes"][geometry] == json::array({{{"range", range(9, 8, 9, 13)}, {"newText", "shifted"}}}));
  CHECK(moved["result"]["changes"][main] == json::array({{{"range", range(5, 25, 5, 30)}, {"newText", "shifted"}}}));
  // Go has no precise source: tree-sitter's resolution through scopes is no compiler's.
  json scope = renameTo("tool/main.go", 4, 15, "assist");
  INFO(scope.dump());
  REQUIRE(scope.contains("error"));
  CHECK(scope["error"]["message"].get<std::string>().find("resolved by scope only") != std::string::npos);
  // C without a compilation database: tree-sitter's occurrences are not exact enough.
  json c99 = renameTo("c/util.c", 1, 26, "double_it");
  INFO(c99.dump());
  REQUIRE(c99.contains("error"));
  CHECK(c99["error"]["message"].get<std::string>().find("clang index") != std::string::npos);
  // Nothing at the position (a comment): an error for prepareRename, which the editor shows.
  json none = c.request("textDocument/prepareRename", at(repo, "app/geometry.py", 0, 5));
  CHECK(none.contains("error"));
  CHECK(c.shutDown() == 0);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("folding ranges are the definitions over several lines, brace bodies up to their closing line", "[lsp]") {
  TestRepo repo;
  repo.write("src/shapes.c",
             "struct point {\n"
             "  int x;\n"
             "  int y;\n"
             "};\n"
             "\n"
             "int area(int w,\n"
             "         int h) {\n"
             "  return w * h;\n"
             "}\n"
             "int one(void) { return 1; }\n");
  repo.commitAll();
  indexWith(repo, "");
  LspClient c(repo.root());
  json init = c.initialize(repo.root());
  CHECK(init["result"]["capabilities"]["foldingRangeProvider"] == true);
  json folds = c.request("textDocument/foldingRange", {{"textDocument", {{"uri", LspClient::uri(repo.root() / "src/shapes.c")}}}});
  INFO(folds.dump());
  CHECK(folds["result"] == json::array({{{"startLine", 0}, {"endLine", 2}}, {{"startLine", 5}, {"endLine", 7}}}));
  // An open buffer folds as it is: a new function, not yet indexed.
  std::string uri = LspClient::uri(repo.root() / "src/shapes.c");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "c"}, {"version", 1},
                                                      {"text", "int two(void)\n{\n  return 2;\n}\n"}}}});
  json edited = c.request("textDocument/foldingRange", {{"textDocument", {{"uri", uri}}}});
  INFO(edited.dump());
  CHECK(edited["result"] == json::array({{{"startLine", 0}, {"endLine", 2}}}));
  CHECK(c.shutDown() == 0);
}

}  // namespace nib::test
