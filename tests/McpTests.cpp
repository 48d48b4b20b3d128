// `nib mcp` driven by the official MCP TypeScript SDK client (@modelcontextprotocol/sdk, pinned
// in tests/mcp/package.json and installed by scripts/setup.sh): the real process over stdio,
// every tool called once, and the errors a model can make.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "Annotations.h"
#include "McpRun.h"
#include "TestRepo.h"
#include "support/FileIo.h"

namespace nib::test {
namespace fs = std::filesystem;
using json = nlohmann::json;

TEST_CASE("nib mcp answers the MCP SDK client: catalog, every tool, and errors", "[mcp]") {
  fs::path driver = fs::path(NIB_TESTS_DIR) / "mcp" / "drive.mjs";
  INFO("the MCP test driver needs `npm ci` in tests/mcp (scripts/setup.sh runs it)");
  REQUIRE(fs::exists(fs::path(NIB_TESTS_DIR) / "mcp" / "node_modules" / "@modelcontextprotocol" / "sdk"));

  TestRepo repo;
  Annotations fixture = parseAnnotations(*readFile(fs::path(NIB_FIXTURE_DIR) / "callgraph" / "python.fixture"));
  repo.writeAll(fixture.files);
  repo.commitAll();
  std::string out;
  REQUIRE(runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " index -q --wait-dense", &out,
                     true) == 0);
  json calls = json::array({
      {{"tool", "search"}, {"arguments", {{"query", "distance("}, {"route", "trigram"}}}},
      {{"tool", "context"}, {"arguments", {{"symbols", {"run"}}, {"budgetTokens", 600}}}},
      {{"tool", "definition"}, {"arguments", {{"path", "app/main.py"}, {"line", 7}, {"column", 12}}}},
      {{"tool", "references"}, {"arguments", {{"symbol", "distance"}}}},
      {{"tool", "callers"}, {"arguments", {{"symbol", "distance"}}}},
      {{"tool", "callees"}, {"arguments", {{"symbol", "run"}}}},
      {{"tool", "impact"}, {"arguments", {{"symbol", "distance"}}}},
      {{"tool", "status"}, {"arguments", json::object()}},
      {{"tool", "callers"}, {"arguments", {{"symbol", "no_such_symbol"}}}},
      {{"tool", "search"}, {"arguments", {{"query", 5}}}},
      {{"tool", "definition"}, {"arguments", {{"path", "../outside.py"}, {"line", 1}, {"column", 1}}}},
      {{"tool", "no_such_tool"}, {"arguments", json::object()}},
      {{"raw", "no/such/method"}, {"params", json::object()}},
  });
  fs::path callsFile = repo.root() / ".git" / "mcp-calls.json";
  std::ofstream(callsFile) << calls.dump();
  int rc = runCommand("node " + shellQuote(driver.string()) + " --command " + shellQuote(nibBinary()) + " --cwd " +
                          shellQuote(repo.root().string()) + " --calls " + shellQuote(callsFile.string()),
                      &out);
  INFO(out);
  REQUIRE(rc == 0);
  json d = json::parse(out);
  CHECK(d["protocolVersion"] == "2025-06-18");
  CHECK(d["serverVersion"]["name"] == "nib");
  CHECK(d["serverCapabilities"].contains("tools"));
  CHECK(d["transportErrors"].empty());
  std::vector<std::string> names;
  for (const json& t : d["tools"]) {
    names.push_back(t["name"]);
    CHECK(t["inputSchema"]["type"] == "object");
    CHECK(t["description"].get<std::string>().size() > 40);
  }
  CHECK(names == std::vector<std::string>{"search", "context", "definition", "references", "callers", "callees",
                                          "impact", "status"});
  const json& r = d["results"];
  REQUIRE(r.size() == calls.size());
  auto text = [&](size_t i) { return r[i]["result"]["content"][0]["text"].get<std::string>(); };
  auto ok = [&](size_t i) { return r[i].contains("result") && !r[i]["result"].value("isError", false); };
  REQUIRE(ok(0));
  CHECK(text(0).find("app/main.py:7:12:     return distance(p, q)") != std::string::npos);
  CHECK(r[0]["result"]["structuredContent"]["hits"].size() == 2);  // the call and the definition
  REQUIRE(ok(1));
  CHECK(text(1).find("## app/main.py:4-7  function run  [symbol]") != std::string::npos);
  CHECK(r[1]["result"]["structuredContent"]["tokensUsed"].get<int>() <= 600);
  REQUIRE(ok(2));
  CHECK(text(2).find("app/geometry.py:9:5: function distance") != std::string::npos);
  REQUIRE(ok(3));
  CHECK(r[3]["result"]["structuredContent"]["locations"].size() == 3);  // definition, import, call
  REQUIRE(ok(4));
  CHECK(text(4).rfind("1  call  function run  app/main.py:4", 0) == 0);
  REQUIRE(ok(5));
  CHECK(r[5]["result"]["structuredContent"]["hops"].size() == 3);
  REQUIRE(ok(6));
  CHECK(text(6).find("2  call  function main  app/main.py:11") != std::string::npos);  // where main calls run
  REQUIRE(ok(7));
  CHECK(text(7).find("fresh: yes") != std::string::npos);
  // The model's mistakes come back as readable tool errors ...
  CHECK(r[8]["result"]["isError"] == true);
  CHECK(text(8).find("no definition named 'no_such_symbol'") != std::string::npos);
  CHECK(r[9]["result"]["isError"] == true);
  CHECK(text(9).find("'query' must be a string") != std::string::npos);
  CHECK(r[10]["result"]["isError"] == true);
  // ... and protocol misuse as JSON-RPC errors.
  CHECK(r[11]["error"]["code"] == -32602);
  CHECK(r[12]["error"]["code"] == -32601);
}

TEST_CASE("nib mcp answers malformed messages instead of leaving the client waiting", "[mcp]") {
  TestRepo repo;
  repo.write("a.py", "def f():\n    return 1\n");
  repo.commitAll();
  std::string out;
  REQUIRE(runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " index -q --wait-dense", &out,
                     true) == 0);
  const char* lines =
      "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}\n"
      "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n"
      "not json\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n";
  // Arguments nested 100,000 deep (copying them once overflowed the stack), and a last message
  // without a newline.
  std::string deep = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"status\","
                     "\"arguments\":{\"zz\":" + std::string(100000, '[') + std::string(100000, ']') + "}}}\n";
  std::ofstream(repo.root() / ".git" / "mcp-in.txt") << lines << deep << "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}";
  std::vector<json> replies = mcpReplies(repo, ".git/mcp-in.txt");
  // One reply per request-like line; none for the notification.
  REQUIRE(replies.size() == 7);
  CHECK(replies[0]["error"]["code"] == -32600);
  CHECK(replies[0]["id"].is_null());
  CHECK(replies[1]["error"]["code"] == -32600);
  CHECK(replies[2]["error"]["code"] == -32600);
  CHECK(replies[3]["error"]["code"] == -32700);
  CHECK(replies[4]["id"] == 7);
  CHECK(replies[4]["result"] == json::object());
  CHECK(replies[5]["id"] == 8);
  CHECK(replies[5]["result"]["isError"] == true);
  CHECK(replies[6]["id"] == 9);
}

}  // namespace nib::test
