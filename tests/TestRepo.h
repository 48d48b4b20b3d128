// A throw-away git repository for tests: created in a fresh temporary folder, removed at the
// end. Uses the real git command, as a user would.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "server/Engine.h"

namespace nib::test {

class TestRepo {
 public:
  TestRepo();
  ~TestRepo();
  TestRepo(const TestRepo&) = delete;
  TestRepo& operator=(const TestRepo&) = delete;

  const std::filesystem::path& root() const { return root_; }
  void write(const std::string& path, const std::string& content);
  void writeAll(const std::map<std::string, std::string>& files);
  void remove(const std::string& path);
  // Runs `git <args>` in the repository; returns its exit status.
  int git(const std::string& args);
  void commitAll(const std::string& message = "test");

 private:
  std::filesystem::path root_;
};

// Builds the repository's index (REQUIREs success) and opens an Engine on it.
std::unique_ptr<Engine> indexAndOpen(TestRepo& repo, unsigned threads = 2);

// One line of tests/fixtures/search/ranking.txt: a query, the unit it must find (path#name, or
// a path for a whole file) and the rank it must reach.
struct RankingCase {
  std::string query, target;
  int maxRank = 1;
};
std::vector<RankingCase> readRankingCases();

// Runs a shell command, capturing stdout (and stderr when asked); returns the exit status.
int runCommand(const std::string& command, std::string* out, bool mergeStderr = false);
// Path to the nib binary under test (set by CMake).
std::string nibBinary();
// A file's bytes; "" when it cannot be read (a test checks what it expects in them).
std::string readText(const std::filesystem::path& p);

// A small Python module whose functions have doc comments: enough text for the dense view's
// model, shared by the tests of the dense module and its follow-up build.
inline constexpr const char* kDocumentedGeometry =
    "def distance(a, b):\n"
    "    \"\"\"How far apart two points are.\"\"\"\n"
    "    return abs(a - b)\n"
    "\n"
    "\n"
    "def midpoint(a, b):\n"
    "    \"\"\"The point halfway between two points.\"\"\"\n"
    "    return (a + b) / 2\n";
std::string shellQuote(const std::string& s);

class TestRepo;
// `nib ARGS` run in the repository with the environment assignments ENV before it ("" for
// none), standard error merged into `out`.
struct NibRun {
  int rc = 0;
  std::string out;
};
NibRun runNibIn(const TestRepo& repo, const std::string& env, const std::string& args);

}  // namespace nib::test
