// Protocol transcripts: whole sessions with `nib serve`, every response compared as a JSON
// value against the expected one in tests/fixtures/lsp/*.transcript ("<- " lines), and the
// requests the server sent the client in order ("<= " lines); UPDATE_GOLDEN=1 rewrites the
// expectations from the actual session; review the diff like code.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "LspClient.h"
#include "LspProject.h"
#include "TestRepo.h"

namespace nib::test {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

void runTranscript(const fs::path& file) {
  TestRepo repo;
  repo.write("app/geometry.py",
             "class Point:\n    \"\"\"A point.\"\"\"\n\n    def __init__(self, x):\n        self.x = x\n\n\n"
             "def distance(a, b):\n    return abs(a.x - b.x)\n");
  repo.write("app/main.py",
             "from geometry import Point, distance\n\n\ndef run():\n    p = Point(1)\n    return distance(p, Point(2))\n");
  repo.commitAll();
  std::string out;
  // With the precise view: the transcript shows Python answered by the compiler's facts (and so
  // renamed), as a user with the pinned indexers installed sees it.
  REQUIRE(runCommand("cd " + shellQuote(repo.root().string()) + " && " + preciseEnv() + " " + shellQuote(nibBinary()) +
                         " index -q --wait-dense",
                     &out, true) == 0);
  std::string root = LspClient::uri(repo.root());

  std::ifstream in(file);
  std::vector<std::string> header, sent;
  std::map<std::string, json> expected;
  std::vector<json> expectedFromServer;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("-> ", 0) == 0) sent.push_back(line.substr(3));
    else if (line.rfind("<= ", 0) == 0) expectedFromServer.push_back(json::parse(replaceAll(line.substr(3), "${ROOT}", root)));
    else if (line.rfind("<- ", 0) == 0) {
      json e = json::parse(replaceAll(line.substr(3), "${ROOT}", root));
      expected[e["id"].dump()] = e;
    } else if (sent.empty()) header.push_back(line);
  }
  REQUIRE_FALSE(sent.empty());
  LspClient c(repo.root());
  std::vector<json> requests;
  for (const std::string& s : sent) {
    json m = json::parse(replaceAll(s, "${ROOT}", root));
    c.send(m);
    if (m.contains("id") && m.contains("method")) requests.push_back(m);  // not the client's answers
  }
  bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  std::vector<json> actual;
  for (const json& r : requests) {
    json got = c.waitResponse(r["id"]);
    actual.push_back(got);
    if (update) continue;
    INFO("request " << r.dump());
    REQUIRE(expected.count(r["id"].dump()));
    CHECK(got == expected[r["id"].dump()]);
  }
  std::vector<json> fromServer = c.serverRequests();
  if (!update) CHECK(fromServer == expectedFromServer);
  CHECK(c.finish() == 0);
  if (update) {
    std::ofstream o(file);
    for (const std::string& h : header) o << h << "\n";
    for (const std::string& s : sent) o << "-> " << s << "\n";
    for (const json& a : actual) o << "<- " << replaceAll(a.dump(), root, "${ROOT}") << "\n";
    for (const json& r : fromServer) o << "<= " << replaceAll(r.dump(), root, "${ROOT}") << "\n";
    WARN("updated " << file.string());
  }
}

}  // namespace

TEST_CASE("protocol transcripts", "[lsp][golden]") {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(NIB_FIXTURE_DIR) / "lsp"))
    if (e.path().extension() == ".transcript") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE_FALSE(files.empty());
  for (const fs::path& f : files) {
    DYNAMIC_SECTION(f.filename().string()) { runTranscript(f); }
  }
}

}  // namespace nib::test
