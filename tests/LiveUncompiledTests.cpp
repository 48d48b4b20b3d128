// A live references answer leaves out what clangd only remembers: sites in files no compile
// command builds that are not open. clangd keeps the references of every file it once opened
// and never reads such a file again (its background index covers the compilation database
// only), so what it says there depends on its history — a fresh clangd says nothing — and may
// be stale. Real clangd, through `nib serve`.
#include <catch2/catch.hpp>

#include <thread>

#include "LspClient.h"
#include "TestRepo.h"

namespace nib::test {
namespace {
using json = nlohmann::json;

const char* kLibC = "#include \"lib.h\"\nint shared(int x) { return x + 1; }\nint twice(int x) { return shared(shared(x)); }\n";
const char* kToolC = "#include \"lib.h\"\nint main(void) { return shared(1); }\n";

int sitesIn(const json& locations, const std::string& uri) {
  int n = 0;
  for (const json& l : locations) n += l["uri"] == uri;
  return n;
}

}  // namespace

TEST_CASE("live references leave out sites clangd remembers from closed files no command builds", "[live][clang]") {
  TestRepo repo;
  repo.writeAll({{"lib.h", "int shared(int x);\n"}, {"lib.c", kLibC}, {"tool.c", kToolC}});
  std::string dir = repo.root().string();
  json db = json::array({{{"directory", dir}, {"file", "lib.c"}, {"arguments", {"cc", "-c", "lib.c"}}}});
  repo.write("compile_commands.json", db.dump());
  repo.commitAll();
  REQUIRE(runNibIn(repo, "", "index -q --no-dense").rc == 0);
  // tool.c has no command: its made-up unit comes with the follow-up version.
  std::string facts;
  for (int i = 0; i < 300 && facts != "clang"; ++i) {
    NibRun def = runNibIn(repo, "", "def --json tool.c:2:26");
    if (def.rc == 0) facts = json::parse(def.out).value("facts", std::string());
    if (facts != "clang") std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  REQUIRE(facts == "clang");

  LspClient nib(repo.root(), {"--provider", "live", "--live-timeout-ms", "60000"});
  nib.initialize(repo.root());
  const std::string tool = LspClient::uri(repo.root() / "tool.c");
  json at = {{"textDocument", {{"uri", LspClient::uri(repo.root() / "lib.c")}}},
             {"position", {{"line", 1}, {"character", 5}}},  // `shared` where lib.c defines it
             {"request", "references"},
             {"includeDeclaration", true}};
  auto ask = [&] {
    json r;
    // Until clangd's background index has ended: while it loads, nib merges the index's
    // references into its answer (not partial then), and the note says it was still indexing.
    for (int i = 0; i < 300; ++i) {
      r = nib.request("nib/locate", at, 90000);
      bool indexing = r["result"].value("note", std::string()).find("still indexing") != std::string::npos;
      if (!r["result"]["partial"].get<bool>() && !indexing) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    INFO(r.dump(2));
    REQUIRE(r["result"]["provider"] == "live");
    REQUIRE(r["result"]["partial"] == false);
    return r["result"];
  };
  // Open in the editor, tool.c is clangd's to parse and keep fresh: its call is listed.
  nib.notify("textDocument/didOpen", {{"textDocument", {{"uri", tool}, {"languageId", "c"}, {"version", 1}, {"text", kToolC}}}});
  json open = ask();
  INFO(open.dump(2));
  CHECK(sitesIn(open["locations"], tool) == 1);
  CHECK(sitesIn(open["locations"], LspClient::uri(repo.root() / "lib.c")) == 3);
  // Closed, clangd still lists it from memory; nib leaves it out and says so.
  nib.notify("textDocument/didClose", {{"textDocument", {{"uri", tool}}}});
  json closed = ask();
  INFO(closed.dump(2));
  CHECK(sitesIn(closed["locations"], tool) == 0);
  CHECK(sitesIn(closed["locations"], LspClient::uri(repo.root() / "lib.c")) == 3);
  CHECK(closed.value("note", std::string()).find("left out 1 reference clangd gave in files no project builds that are "
                                                 "not open") != std::string::npos);
  CHECK(nib.shutDown() == 0);
}

}  // namespace nib::test
