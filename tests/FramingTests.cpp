// Hostile input at the LSP transport and in document sync (issue 29): a broken frame is
// dropped alone and the stream resynchronizes on the next header; an edit that cannot be
// applied is rejected for that notification, and the document keeps answering.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <thread>

#include "LspClient.h"
#include "McpRun.h"
#include "TestRepo.h"
#include "protocol/MessageFraming.h"
#include "support/TextEncoder.h"

namespace nib::test {
using json = nlohmann::json;
namespace {

std::string frame(const std::string& body) { return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body; }

std::string request(int id) { return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}}.dump(); }

// Every message MessageReader reads from `bytes`: bodies, and "!" + dropped bytes per error.
std::vector<std::string> readAll(const std::string& bytes) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::thread writer([&] {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fds[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  MessageReader reader(fds[0]);
  std::vector<std::string> out;
  for (;;) {
    auto body = reader.next();
    if (!body && body.status().code() == ErrorCode::NotFound) break;
    out.push_back(body ? *body : "!" + reader.dropped());
  }
  writer.join();
  ::close(fds[0]);
  return out;
}

}  // namespace

TEST_CASE("a broken frame is dropped alone and the next frame is read", "[framing]") {
  const std::string good1 = request(1), good2 = request(2);
  struct Case {
    const char* what;
    std::string broken;
  };
  std::vector<Case> cases = {
      {"no Content-Length", "Content-Type: x\r\n\r\n" + request(9)},
      {"a non-numeric length", "Content-Length: abc\r\n\r\n" + request(9)},
      {"a negative length", "Content-Length: -5\r\n\r\n" + request(9)},
      {"an overflowing length", "Content-Length: 99999999999999999999999\r\n\r\n" + request(9)},
      {"a length over the limit", "Content-Length: 999999999\r\n\r\n" + request(9)},
      {"a line that is no header", "hello world\r\n\r\n"},
      {"a length too small", "Content-Length: 5\r\n\r\n" + request(9)},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.what) {
      std::vector<std::string> got = readAll(frame(good1) + c.broken + frame(good2));
      INFO(got.size());
      REQUIRE(got.size() >= 3);
      CHECK(got.front() == good1);
      CHECK(got.back() == good2);
      // Between them, nothing that is read as a valid message of its own but the cut body.
      for (size_t i = 1; i + 1 < got.size(); ++i) CHECK((got[i].rfind("!", 0) == 0 || got[i] == request(9).substr(0, 5)));
    }
  }
  // The body after a header without a length is handed back, so its request can be answered.
  std::vector<std::string> got = readAll("Content-Type: x\r\n\r\n" + request(9) + frame(good2));
  REQUIRE(got.size() == 2);
  CHECK(got[0] == "!" + request(9));
  // LF-only line ends, as some clients send them, are read as frames.
  got = readAll("Content-Length: " + std::to_string(good1.size()) + "\n\n" + good1 + frame(good2));
  CHECK(got == std::vector<std::string>{good1, good2});
}

TEST_CASE("nib serve answers every valid request after broken frames and rejected edits", "[lsp][framing]") {
  TestRepo repo;
  repo.write("app/geometry.py", "def distance(a, b):\n    return abs(a - b)\n");
  repo.write("app/main.py", "from geometry import distance\n\n\ndef run():\n    return distance(1, 2)\n");
  repo.commitAll();
  std::string out;
  REQUIRE(runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " index -q --no-dense",
                     &out, true) == 0);
  LspClient c(repo.root());
  c.initialize(repo.root());
  json at = {{"textDocument", {{"uri", LspClient::uri(repo.root() / "app/main.py")}}},
             {"position", {{"line", 4}, {"character", 12}}}};

  // A request behind a header without a length gets a parse error by its id; the next request
  // after each kind of broken frame is answered.
  c.sendRaw("Content-Type: x\r\n\r\n" + json{{"jsonrpc", "2.0"}, {"id", 77}, {"method", "textDocument/definition"},
                                                {"params", at}}.dump());
  CHECK(c.waitResponse(77)["error"]["code"] == -32700);
  for (const std::string& broken : {std::string("Content-Length: -3\r\n\r\n{}"), std::string("Content-Length: x\r\n\r\n{}"),
                                    std::string("garbage\r\n\r\n"), std::string("Content-Length: 2\r\n\r\n{\"jsonrpc\"")}) {
    c.sendRaw(broken);
    json r = c.request("textDocument/definition", at, 10000);
    INFO(broken);
    REQUIRE(r.contains("result"));
    CHECK(r["result"].size() == 1);
  }

  // An edit that cannot be applied is rejected for that notification; the document keeps
  // answering from its last good text, labelled, until a full text makes it whole again.
  std::string uri = LspClient::uri(repo.root() / "app/main.py");
  std::string text = "from geometry import distance\n\n\ndef run():\n    return distance(1, 2)\n";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", uri}, {"version", 2}}},
            {"contentChanges", {{{"range", {{"start", {{"line", -1}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                                 {"text", "x"}}}}});
  json def = c.request("textDocument/definition", at);
  REQUIRE(def.contains("result"));
  CHECK(def["result"].size() == 1);
  json located = c.request("nib/locate", at);
  CHECK(located["result"]["partial"] == true);
  CHECK(located["result"]["note"].get<std::string>().find("could not apply") != std::string::npos);
  bool logged = false;
  for (const json& m : c.messages("window/logMessage"))
    logged = logged || m["params"]["message"].get<std::string>().find("rejected a change to app/main.py") != std::string::npos;
  CHECK(logged);
  // Positions past the end of a line are clamped, as clients expect: the edit applies.
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", uri}, {"version", 3}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 0}, {"character", 500}}}, {"end", {{"line", 0}, {"character", 900}}}}},
                                 {"text", "  # imported"}}}}});
  CHECK(c.request("textDocument/definition", at)["result"].size() == 1);
  // The whole text: in sync again, no label.
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", uri}, {"version", 4}}}, {"contentChanges", {{{"text", text}}}}});
  located = c.request("nib/locate", at);
  CHECK(located["result"]["partial"] == false);
  CHECK(located["result"]["locations"].size() == 1);
  CHECK(c.request("shutdown", nullptr)["result"].is_null());
  c.notify("exit", nullptr);
  CHECK(c.finish() == 0);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("a repository's own configuration cannot send its code off the machine", "[security]") {
  CHECK(isLoopbackUrl("http://127.0.0.1:8080/v1/embeddings"));
  CHECK(isLoopbackUrl("http://localhost/v1"));
  CHECK(isLoopbackUrl("https://[::1]:9/x"));
  CHECK(isLoopbackUrl("http://user:pw@127.0.0.2:1/"));
  CHECK_FALSE(isLoopbackUrl("http://example.com/v1"));
  CHECK_FALSE(isLoopbackUrl("http://127.0.0.1.example.com/v1"));
  CHECK_FALSE(isLoopbackUrl("http://localhost@example.com/"));
  CHECK_FALSE(isLoopbackUrl("http://10.0.0.1:8080/"));

  TestRepo repo;
  repo.write("a.py", "def f():\n    return 1\n");
  repo.write(".nib.conf", "dense.encoder.url = http://example.invalid:9/v1/embeddings\n"
                          "clang.compile-commands-dir = ../elsewhere\n");
  repo.commitAll();
  NibRun run = runNibIn(repo, "", "index --wait-dense");
  INFO(run.out);
  REQUIRE(run.rc == 0);  // built, with the repository-trained model
  CHECK(run.out.find("dense.encoder.url (http://example.invalid:9/v1/embeddings) names a host outside this machine") !=
        std::string::npos);
  CHECK(run.out.find("clang.compile-commands-dir (../elsewhere) is outside the repository") != std::string::npos);
  NibRun status = runNibIn(repo, "", "status --json --no-daemon");
  CHECK(status.out.find("example.invalid") == std::string::npos);
}

}  // namespace nib::test

namespace nib::test {
namespace {

long rssKiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  long value = 0;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> value;
      return value;
    }
    status.ignore(1 << 16, '\n');
  }
  return -1;
}

}  // namespace

TEST_CASE("nib serve gives a large message's memory back once it is handled", "[lsp][memory]") {
  TestRepo repo;
  repo.write("a.py", "def f():\n    return 1\n");
  repo.commitAll();
  REQUIRE(runNibIn(repo, "", "index -q --no-dense").rc == 0);
  LspClient c(repo.root());
  c.initialize(repo.root());
  REQUIRE(c.request("nib/status", json::object()).contains("result"));
  long idle = rssKiB(c.pid());
  REQUIRE(idle > 0);
  // 50 MB of parameters to a method nib does not have: read, decoded, refused.
  json big = c.request("nib/no-such-method", {{"blob", std::string(50u << 20, 'x')}}, 60000);
  CHECK(big["error"]["code"] == -32601);
  // Handled and answered: the memory is given back (polled, not timed: a loaded machine may
  // take longer to schedule the server, never to free the memory).
  long after = rssKiB(c.pid());
  for (int i = 0; i < 100 && after > 2 * idle; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    after = rssKiB(c.pid());
  }
  INFO("idle " << idle << " KiB, after " << after << " KiB");
  CHECK(after <= 2 * idle);
  CHECK(c.request("shutdown", nullptr)["result"].is_null());
  c.notify("exit", nullptr);
  CHECK(c.finish() == 0);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("nib mcp refuses an over-long line whole and answers the next message", "[mcp][framing]") {
  TestRepo repo;
  repo.write("a.py", "def f():\n    return 1\n");
  repo.commitAll();
  REQUIRE(runNibIn(repo, "", "index -q --no-dense").rc == 0);
  {
    std::ofstream in(repo.root() / ".git" / "mcp-long.txt", std::ios::binary);
    in << "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"" << std::string(65u << 20, 'y')
       << "\"}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
  }
  std::vector<json> replies = mcpReplies(repo, ".git/mcp-long.txt");
  // One refusal for the long line (its remainder is not read as more messages), then the ping.
  REQUIRE(replies.size() == 2);
  CHECK(replies[0]["error"]["message"] == "message too large");
  CHECK(replies[1]["id"] == 2);
  CHECK(replies[1]["result"] == json::object());
}

}  // namespace nib::test
