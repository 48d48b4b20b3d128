// The project the LSP and editor tests serve (a small Python package), and the helpers they share:
// indexing it, compile commands for C/C++ ones, positions and ranges on the wire, an editor
// script's JSON result.
#pragma once

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "LspClient.h"
#include "TestRepo.h"

namespace nib::test {
using json = nlohmann::json;

inline const char* kGeometry =
    "\"\"\"Shapes.\"\"\"\n"
    "\n"
    "\n"
    "class Point:\n"
    "    \"\"\"A point in the plane.\"\"\"\n"
    "\n"
    "    def __init__(self, x):\n"
    "        self.x = x\n"
    "\n"
    "    def moved(self, dx):\n"
    "        return Point(self.x + dx)\n"
    "\n"
    "\n"
    "def distance(a, b):\n"
    "    \"\"\"The distance between two points.\"\"\"\n"
    "    return abs(a.x - b.x)\n";

inline const char* kMain =
    "from geometry import Point, distance\n"
    "\n"
    "\n"
    "def run():\n"
    "    p = Point(1)\n"
    "    return distance(p, p.moved(2))\n"
    "\n"
    "\n"
    "run()\n";

// The environment that gives `nib index` the pinned SCIP indexers (the tests run without them).
inline std::string preciseEnv() {
  return "NIB_SCIP_PYTHON=" + shellQuote(std::string(NIB_BACKENDS_BIN) + "/scip-python") +
         " NIB_SCIP_TYPESCRIPT=" + shellQuote(std::string(NIB_BACKENDS_BIN) + "/scip-typescript");
}

// `nib index -q FLAGS` in the repository (with the precise view when asked); REQUIREs success.
inline void indexWith(const TestRepo& repo, const std::string& flags, bool precise = false) {
  std::string out;
  int rc = runCommand("cd " + shellQuote(repo.root().string()) + " && " + (precise ? preciseEnv() + " " : std::string()) +
                          shellQuote(nibBinary()) + " index -q " + flags,
                      &out, true);
  INFO(out);
  REQUIRE(rc == 0);
}

// compile_commands.json compiling `file` as C++17 from the repository's root.
inline void writeCompileCommands(TestRepo& repo, const std::string& file) {
  repo.write("compile_commands.json", "[{\"directory\":\"" + repo.root().string() + "\",\"file\":\"" + file +
                                          "\",\"command\":\"c++ -std=c++17 -c " + file + "\"}]");
}

// Runs an editor's test script (`command`), which writes what it saw as JSON to `out`: that
// JSON, after REQUIREing a clean run that reported no error.
inline json editorResult(const std::string& command, const std::string& out) {
  std::string log;
  int rc = runCommand(command, &log, true);
  INFO(log);
  REQUIRE(rc == 0);
  std::string text;
  REQUIRE(runCommand("cat " + shellQuote(out), &text) == 0);
  INFO(text);
  json result = json::parse(text);
  REQUIRE_FALSE(result.contains("error"));
  return result;
}

inline void makeProject(TestRepo& repo, bool index = true) {
  repo.write("app/geometry.py", kGeometry);
  repo.write("app/main.py", kMain);
  repo.write("app/emoji.py", "s = \"\xF0\x9F\x98\x80\xF0\x9F\x98\x80\"; value = 1\nprint(value)\n");
  repo.commitAll();
  if (index) indexWith(repo, "--wait-dense");
}

inline json at(const TestRepo& repo, const std::string& path, int line, int character) {
  return {{"textDocument", {{"uri", LspClient::uri(repo.root() / path)}}},
          {"position", {{"line", line}, {"character", character}}}};
}

inline json range(int l1, int c1, int l2, int c2) {
  return {{"start", {{"line", l1}, {"character", c1}}}, {"end", {{"line", l2}, {"character", c2}}}};
}

}  // namespace nib::test
