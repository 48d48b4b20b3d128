#include "TestRepo.h"

#include <catch2/catch.hpp>

#include "indexer/IndexBuilder.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nib::test {
namespace fs = std::filesystem;

namespace {
// The test binary lives apart from `nib`: point the loader (support/Module.h) at the dense
// module this build made, before any test asks for a dense view. Commands the tests run inherit it.
const bool kDenseModuleFound = [] {
  ::setenv("NIB_DENSE_MODULE", NIB_DENSE_MODULE_PATH, /*overwrite=*/0);
  // No SCIP indexer unless a test asks for one (PreciseViewTests.cpp, `# precise` fixtures):
  // the other tests' TypeScript and Python answers are tree-sitter's, which they check, and
  // each build would start Node. Commands the tests run inherit it.
  ::setenv("NIB_SCIP_TYPESCRIPT", "", /*overwrite=*/0);
  ::setenv("NIB_SCIP_PYTHON", "", /*overwrite=*/0);
  ::setenv("NIB_SCIP_WORKER", NIB_SCIP_WORKER_PATH, /*overwrite=*/0);
  // No agreement sampling unless a test asks for it (AgreementTests.cpp): `nib serve` would
  // start the live backends after two idle seconds in every test that talks to it.
  ::setenv("NIB_CALIBRATION_SAMPLES_PER_HOUR", "0", /*overwrite=*/0);
  return true;
}();
}  // namespace

std::string readText(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

NibRun runNibIn(const TestRepo& repo, const std::string& env, const std::string& args) {
  NibRun r;
  r.rc = runCommand("cd " + shellQuote(repo.root().string()) + " && " + env + " " + shellQuote(nibBinary()) + " " + args,
                    &r.out, /*mergeStderr=*/true);
  return r;
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

int runCommand(const std::string& command, std::string* out, bool mergeStderr) {
  std::string cmd = command + (mergeStderr ? " 2>&1" : "");
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + command);
  std::array<char, 4096> buf;
  size_t n;
  if (out) out->clear();
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0)
    if (out) out->append(buf.data(), n);
  int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

std::string nibBinary() {
  const char* env = std::getenv("NIB_BINARY");
  return env ? env : NIB_TEST_BINARY;
}

TestRepo::TestRepo() {
  std::string tmpl = (fs::temp_directory_path() / "nib-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  root_ = fs::canonical(tmpl);
  if (git("init -q") != 0) throw std::runtime_error("git init failed");
}

TestRepo::~TestRepo() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

void TestRepo::write(const std::string& path, const std::string& content) {
  fs::path p = root_ / path;
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f << content;
}

void TestRepo::writeAll(const std::map<std::string, std::string>& files) {
  for (const auto& [p, c] : files) write(p, c);
}

void TestRepo::remove(const std::string& path) { fs::remove(root_ / path); }

int TestRepo::git(const std::string& args) {
  std::string out;
  return runCommand("git -C " + shellQuote(root_.string()) +
                        " -c user.name=nib-test -c user.email=nib@test -c commit.gpgsign=false " + args,
                    &out, true);
}

void TestRepo::commitAll(const std::string& message) {
  if (git("add -A") != 0 || git("commit -q --allow-empty -m " + shellQuote(message)) != 0)
    throw std::runtime_error("git commit failed");
}

std::vector<RankingCase> readRankingCases() {
  std::ifstream in(fs::path(NIB_FIXTURE_DIR) / "search" / "ranking.txt");
  std::vector<RankingCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t a = line.find(" | "), b = line.rfind(" | ");
    if (a == std::string::npos || b == a) throw std::runtime_error("ranking.txt: bad line: " + line);
    cases.push_back({line.substr(0, a), line.substr(a + 3, b - a - 3), std::stoi(line.substr(b + 3))});
  }
  return cases;
}

std::unique_ptr<Engine> indexAndOpen(TestRepo& repo, unsigned threads) {
  IndexOptions options;
  options.threads = threads;
  auto r = buildIndex(repo.root(), options);
  INFO(r.status().toString());
  REQUIRE(r.hasValue());
  auto e = Engine::open(repo.root());
  REQUIRE(e.hasValue());
  return std::move(*e);
}

}  // namespace nib::test
