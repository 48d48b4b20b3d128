// What nib's clang worker hands libclang for a compile command: nothing that writes into the
// user's build tree, no warning options (every warning is suppressed), the working directory.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ClangTesting.h"
#include "TestRepo.h"
#include "indexer/ClangArguments.h"

namespace nib::test {
using clangindex::compilerArguments;
using Args = std::vector<std::string>;

TEST_CASE("the worker's arguments leave out what writes files and what only warns", "[clang]") {
  CompileCommand command{"/build", "/src/a.c",
                         {"cc", "-DX=1", "-Wall", "-Wno-unused", "-Werror", "-Werror=format", "-Wlogical-op", "-Wp,-D_FORTIFY_SOURCE=2",
                          "-Wl,--as-needed", "-w", "-MD", "-MF", "a.d", "-MTa.o", "-Wp,-MD,deps/a.d", "-Wp,-MMD,b.d,-DY",
                          "--serialize-diagnostics", "a.dia", "-I", "inc", "-c", "/src/a.c"}};
  CHECK(compilerArguments(command) == Args{"cc", "-working-directory=/build", "-DX=1", "-Wp,-D_FORTIFY_SOURCE=2", "-Wl,--as-needed",
                                           "-w", "-Wp,-DY", "-I", "inc", "-c", "/src/a.c"});
  // The compiler itself is never taken for an option, whatever its name.
  CompileCommand odd{"/b", "/b/x.c", {"-Wrapper-cc", "-c", "x.c"}};
  CHECK(compilerArguments(odd) == Args{"-Wrapper-cc", "-working-directory=/b", "-c", "x.c"});
}

TEST_CASE("indexing a unit whose command writes dependency lists writes nothing into the build tree", "[clang]") {
  using namespace clangview;
  TestRepo repo;
  repo.writeAll({{"a.c", "#include \"a.h\"\nint main(void) { return f(); }\n"}, {"a.h", "static inline int f(void) { return 0; }\n"}});
  // The Linux kernel's spelling (-Wp,-MMD,file) and the plain one; GCC-only warnings that clang
  // does not know, under -Werror, must not keep the unit from being indexed either.
  writeDatabase(repo, {"a.c"}, "-Wp,-MMD,out/a.d -MD -MF out/b.d -Werror -Wlogical-op -Wformat-signedness");
  repo.commitAll();
  std::filesystem::create_directories(repo.root() / "out");
  Manifest m = build(repo);
  CHECK(stat(m, "clang.indexed") == "1");
  CHECK(stat(m, "clang.failed") == "0");
  CHECK_FALSE(std::filesystem::exists(repo.root() / "out" / "a.d"));
  CHECK_FALSE(std::filesystem::exists(repo.root() / "out" / "b.d"));
}

}  // namespace nib::test
