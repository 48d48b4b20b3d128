// The light `nib` executable and the dense module it loads on demand (support/Module.h): what
// the executable maps at start-up is an explicit list, the semantic route still works through
// the module, and a missing module is a clear error for the dense routes alone.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>

#include "TestRepo.h"

namespace nib::test {
namespace {

// "libfoo.so.1" -> "libfoo"; "/lib64/ld-linux-x86-64.so.2" -> "ld-linux-x86-64".
std::string libraryStem(std::string name) {
  if (size_t slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  if (size_t so = name.find(".so"); so != std::string::npos) name = name.substr(0, so);
  return name;
}

// Every shared object the dynamic loader maps for `binary`, dependencies of dependencies too.
std::set<std::string> loadedLibraries(const std::string& binary) {
  std::string out;
  REQUIRE(runCommand("ldd " + shellQuote(binary), &out) == 0);
  std::set<std::string> libs;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string first;
    if (words >> first) libs.insert(libraryStem(first));
  }
  return libs;
}

using Run = NibRun;

Run nibIn(const TestRepo& repo, const std::string& env, const std::string& args) { return runNibIn(repo, env, args); }

}  // namespace

TEST_CASE("the light nib executable maps only what every query needs", "[cli][module]") {
  // Adding a library here is a decision: each one costs every command's start-up (FAISS, BLAS
  // and libcurl's chain took `nib --version` from 2 to 11 ms). Heavy code goes into a module;
  // LMDB, xxHash, libmd and RE2 are linked from their static archives (CMakeLists.txt).
  const std::set<std::string> allowed = {
      "linux-vdso", "libc", "libm", "libstdc++", "libgcc_s", "libpthread",  // the C++ runtime
  };
  auto libs = loadedLibraries(nibBinary());
  REQUIRE(libs.count("libc") == 1);  // the listing was read
  for (const std::string& lib : libs) {
    INFO(lib);
    CHECK((allowed.count(lib) == 1 || lib.rfind("ld-linux", 0) == 0));
  }
}

TEST_CASE("the dense module exports its entry points and carries the heavy libraries", "[module]") {
  std::string out;
  REQUIRE(runCommand("nm -D --defined-only " + shellQuote(NIB_DENSE_MODULE_PATH), &out) == 0);
  for (const char* symbol : {"nib_module_init", "nib_dense_open_view", "nib_dense_build_view"}) {
    INFO(symbol);
    CHECK(out.find(symbol) != std::string::npos);
  }
  // nib's own code inside the module stays hidden: nothing of namespace nib is exported.
  CHECK(out.find("_ZN3nib") == std::string::npos);
  CHECK(loadedLibraries(NIB_DENSE_MODULE_PATH).count("libfasttext") == 1);
}

TEST_CASE("FAISS runs on OpenBLAS, never on the reference BLAS", "[module]") {
  // libblas.so.3 is whatever Debian's alternatives point it at; scripts/setup.sh installs
  // OpenBLAS, without which training the IVF index of a large repository takes minutes.
  std::string out;
  REQUIRE(runCommand("ldd " + shellQuote(NIB_DENSE_MODULE_PATH), &out) == 0);
  size_t at = out.find("libblas.so.3 => ");
  REQUIRE(at != std::string::npos);
  std::string path = out.substr(at + 16, out.find(' ', at + 16) - (at + 16));
  std::error_code ec;
  std::string resolved = std::filesystem::canonical(path, ec).string();
  INFO(path << " -> " << resolved);
  CHECK(resolved.find("openblas") != std::string::npos);
}

TEST_CASE("semantic search loads the dense module on demand, without it only the dense routes fail", "[cli][module]") {
  TestRepo repo;
  repo.write("geometry.py", kDocumentedGeometry);
  repo.commitAll();
  const std::string missing = "NIB_DENSE_MODULE=" + shellQuote((repo.root() / "no-such-module.so").string());

  Run idx = nibIn(repo, "", "index --wait-dense");
  INFO(idx.out);
  REQUIRE(idx.rc == 0);
  auto semanticFinds = [&] {
    Run semantic = nibIn(repo, "", "search -r semantic 'halfway between points'");
    INFO(semantic.out);
    CHECK(semantic.rc == 0);
    CHECK(semantic.out.find("geometry.py") != std::string::npos);
  };
  semanticFinds();

  Run noModule = nibIn(repo, missing, "search -r semantic 'halfway between points'");
  INFO(noModule.out);
  CHECK(noModule.rc == 1);
  CHECK(noModule.out.find("cannot load the dense module") != std::string::npos);
  CHECK(noModule.out.find("no-such-module.so") != std::string::npos);
  CHECK(noModule.out.find("NIB_DENSE_MODULE") != std::string::npos);
  Run lexical = nibIn(repo, missing, "search -r lexical 'halfway between points'");
  INFO(lexical.out);
  CHECK(lexical.rc == 0);
  CHECK(lexical.out.find("geometry.py") != std::string::npos);

  // A build without the module still publishes a version; its dense view is failed, with the
  // reason, and the next build that has the module makes it again.
  Run rebuilt = nibIn(repo, missing, "index --force --wait-dense");
  INFO(rebuilt.out);
  REQUIRE(rebuilt.rc == 0);
  Run status = nibIn(repo, "", "status");
  INFO(status.out);
  CHECK(status.out.find("cannot load the dense module") != std::string::npos);
  Run again = nibIn(repo, "", "index --force --wait-dense");
  INFO(again.out);
  REQUIRE(again.rc == 0);
  semanticFinds();
}

}  // namespace nib::test
