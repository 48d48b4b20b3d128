// DonorIndex: the database entry whose command a file the database does not list borrows, as
// clangd 14 chooses it (each configuration below is one whose choice was read from `clangd
// --check` on a real code base, or follows clang's InterpolatingCompilationDatabase).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "indexer/CommandInterpolation.h"

namespace nib::test {
namespace {

std::vector<CompileCommand> database(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<CompileCommand> out;
  for (const auto& [file, flag] : entries) out.push_back({"/r", "/r/" + file, {"cc", flag, "-c", "/r/" + file}});
  return out;
}

std::string donor(const std::vector<CompileCommand>& units, const std::string& file) {
  const CompileCommand* c = DonorIndex(units).donorFor("/r/" + file);
  REQUIRE(c);
  return c->file.substr(3) + " " + c->arguments[1];
}

TEST_CASE("a file the database lacks borrows the command clangd would borrow", "[clang]") {
  // pcre2: sljit's sources and pcre2demo.c tie on points with every file in src/; the longest
  // common prefix ties too ("src/pcre2"), and the earliest path wins — the library's command,
  // with its -DPCRE2_CODE_UNIT_WIDTH=8, not pcre2grep's, which comes first in the database.
  auto pcre2 = database({{"src/pcre2grep.c", "-DGREP"},
                         {"src/pcre2_auto_possess.c", "-DWIDTH8"},
                         {"src/pcre2_compile.c", "-DWIDTH8"}});
  CHECK(donor(pcre2, "src/sljit/sljitLir.c") == "src/pcre2_auto_possess.c -DWIDTH8");
  CHECK(donor(pcre2, "src/pcre2demo.c") == "src/pcre2_auto_possess.c -DWIDTH8");
  // zlib: examples/enough.c shares only the root with adler32.c and test/example.c.
  auto zlib = database({{"test/example.c", "-I."}, {"adler32.c", "-DLIB"}});
  CHECK(donor(zlib, "examples/enough.c") == "adler32.c -DLIB");
  // The same name (a header beside its source) outweighs a longer common prefix.
  auto named = database({{"lib/parse_tree.c", "-DTREE"}, {"lib/parser.c", "-DPARSER"}});
  CHECK(donor(named, "lib/parser.h") == "lib/parser.c -DPARSER");
  // A name the candidate's starts with earns a point too, and each shared folder one more.
  auto folders = database({{"tools/http2.c", "-DTOOL"}, {"src/net/sock.c", "-DNET"}});
  CHECK(donor(folders, "src/net/http.c") == "src/net/sock.c -DNET");
  // Among candidates with points, a .cc file prefers a C++ command over a C file of its own
  // name; a .h has no preference; a candidate without a point is none.
  auto languages = database({{"src/a.c", "-DC"}, {"src/b.cc", "-DCXX"}, {"other/c.cc", "-DOTHER"}});
  CHECK(donor(languages, "src/a.cc") == "src/b.cc -DCXX");
  CHECK(donor(languages, "src/a.h") == "src/a.c -DC");
  CHECK(donor(database({{"x/a.c", "-DC"}, {"y/b.cc", "-DCXX"}}), "x/a.cc") == "x/a.c -DC");
  // A file listed twice lends its first command.
  auto twice = database({{"a.c", "-DFIRST"}, {"a.c", "-DSECOND"}});
  CHECK(donor(twice, "b.c") == "a.c -DFIRST");
  CHECK(DonorIndex({}).donorFor("/r/x.c") == nullptr);
}

}  // namespace
}  // namespace nib::test
