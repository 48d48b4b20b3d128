// What a worker's session leaves to the first unit that reads a header — its function bodies
// (libclang skips them after) and its macro definitions (reported once) — still reaches the view
// when that unit is gone, and the answers there do not depend on which unit came first.
#include <algorithm>
#include <catch2/catch.hpp>

#include <filesystem>

#include "ClangTesting.h"
#include "TestRepo.h"
#include "indexer/IndexBuilder.h"
#include "providers/StaticProvider.h"
#include "views/ClangView.h"

namespace nib::test {
using namespace clangview;
namespace fs = std::filesystem;

namespace {

// One thread, five units: one session (a, b, shared, c, d: the largest first). b reads h.h after a
// parsed its bodies, so b's facts lack them; with a gone from the build, b (cached) is indexed
// again on its own so that what h.h's body names is still listed (no other unit reads h.h).
// `ext`: the units' extension; `inlineWord` and `noArguments`: how the language spells an inline
// function and an empty parameter list.
void checkBodiesReachTheView(const std::string& ext, const std::string& inlineWord, const std::string& noArguments) {
  TestRepo repo;
  const std::string header = "#ifndef H_H\n#define H_H\nint shared(int x);\n" + inlineWord +
                             " int twice(int x) { return shared(x) * 2; }\n#endif\n";
  auto user = [&](const std::string& name) {
    return "#include \"h.h\"\nint " + name + "(" + noArguments + ") { return twice(1); }\n";
  };
  auto unit = [&](const char* name) { return std::string(name) + ext; };
  repo.writeAll({{"h.h", header}, {unit("a"), user("a")}, {unit("b"), user("b")},
                 {unit("c"), "int c(" + noArguments + ") { return 0; }\n"}, {unit("d"), "int d(" + noArguments + ") { return 0; }\n"},
                 {unit("shared"), "int shared(int x) { return x; }\n"}});
  writeDatabase(repo, {unit("a"), unit("b"), unit("c"), unit("d"), unit("shared")});
  repo.commitAll();
  IndexOptions one;
  one.threads = 1;
  auto inHeaderBody = [&] {
    auto provider = StaticProvider::open(repo.root() / ".nib");
    REQUIRE(provider.hasValue());
    auto refs = (*provider)->references("h.h", offsetOf(header, "shared(int"), true);
    REQUIRE(refs.hasValue());
    CHECK(refs->source == "clang");
    return std::count_if(refs->locations.begin(), refs->locations.end(), [&](const SymbolLocation& l) {
      return l.path == "h.h" && l.range.startByte == offsetOf(header, "shared(x)");
    });
  };
  Manifest first = build(repo, one);
  CHECK(stat(first, "clang.indexed") == "5");
  CHECK(inHeaderBody() == 1);

  fs::remove(repo.root() / unit("a"));
  writeDatabase(repo, {unit("b"), unit("c"), unit("d"), unit("shared")});
  repo.commitAll();
  Manifest second = build(repo, one);
  CHECK(stat(second, "clang.units") == "4");
  CHECK(stat(second, "clang.indexed") == "1");  // b, again, bodies kept
  CHECK(inHeaderBody() == 1);
}

}  // namespace

TEST_CASE("a header's bodies skipped by a worker's session still reach the view when their unit is gone", "[clang]") {
  // libclang 14 skips bodies in C++ only, and only in a header included once (guarded).
  checkBodiesReachTheView(".cc", "inline", "");
}

TEST_CASE("a C header's bodies blanked by a worker's session still reach the view when their unit is gone", "[clang]") {
  // libclang never skips C bodies: the session blanks them in the units after the first that read
  // the header (ClangBodyBlanking.h), and the builder covers a header whose first reader is gone
  // the same way.
  checkBodiesReachTheView(".c", "static inline", "void");
}

TEST_CASE("a parameter of a header's function is one symbol whether or not a unit skipped its body", "[clang]") {
  // One thread, one session: b.cc reads h.h after a.cc parsed its bodies, so libclang calls
  // b's Box(U&&) and twice(int) no definitions. Their parameters must not become a
  // prototype's there: a second symbol at the same place, in the view or not by the order a
  // session happened to see the units in (leveldb: 170 of them, a different count each build).
  TestRepo repo;
  const char* header = "#ifndef H_H\n#define H_H\ntemplate <typename T>\nstruct Box {\n"
                       "  template <typename U>\n  explicit Box(U&& u) { value = static_cast<T>(u); }\n"
                       "  int twice(int x) { return x * 2; }\n  T value;\n};\n#endif\n";
  auto user = [](const std::string& name) {
    return "#include \"h.h\"\nint " + name + "() { Box<int> b(1); return b.twice(1); }\n";
  };
  repo.writeAll({{"h.h", header}, {"a.cc", user("a")}, {"b.cc", user("b")}});
  writeDatabase(repo, {"a.cc", "b.cc"});
  repo.commitAll();
  IndexOptions one;
  one.threads = 1;
  Manifest m = build(repo, one);
  CHECK(stat(m, "clang.indexed") == "2");
  auto view = currentClangView(repo);
  REQUIRE(view.hasValue());
  for (const char* name : {"x", "u"}) {
    auto named = (*view)->symbolsNamed(name);
    REQUIRE(named.hasValue());
    CHECK(named->size() == 1);
  }
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  for (const char* at : {"x) {", "u) {"}) {
    auto refs = (*provider)->references("h.h", offsetOf(header, at), true);
    REQUIRE(refs.hasValue());
    CHECK(refs->source == "clang");
    // Its declaration and its use in the body.
    CHECK(refs->locations.size() == 2);
  }
}

TEST_CASE("a header's macro definitions a session reported once still reach the view when their unit is gone", "[clang]") {
  // One thread, one C session, the largest unit first: a.c reads h.h first and reports its
  // macros, its prototype's parameter and its expansion of LIMIT; e.c does not compile, so the session starts afresh (libclang's record of parsed
  // bodies goes, the session's reported sites stay); b.c then parses h.h's bodies itself but
  // leaves out the sites a.c reported, all but CHECK's definition, which it expands. With a.c
  // gone, b.c (cached, its bodies its own) is indexed again on its own for the macros alone.
  TestRepo repo;
  const std::string header = "#ifndef H_H\n#define H_H\n#define LIMIT 10\n#define UNUSED 1\n"
                             "#define CHECK(x) ((x) < LIMIT)\nint twice(int value);\nstatic const int kLimit = LIMIT;\n#endif\n";
  const std::string b = "#include \"h.h\"\nint b(int v) { return CHECK(v); }\n";
  repo.writeAll({{"h.h", header},
                 {"a.c", "#include \"h.h\"\n/* the largest unit: indexed first, ahead of e.c and b.c */\n"
                         "int a(int v) { return CHECK(v) + LIMIT; }\n"},
                 {"e.c", "/* the second largest unit, with an error: */\nint e(void) { return undefined; }\n"},
                 {"b.c", b}});
  writeDatabase(repo, {"a.c", "e.c", "b.c"});
  repo.commitAll();
  IndexOptions one;
  one.threads = 1;
  // How many of the references of the name at `at` in h.h lie at `site` there (`at` itself by default).
  auto listed = [&](const std::string& at, std::string site = "") {
    auto provider = StaticProvider::open(repo.root() / ".nib");
    REQUIRE(provider.hasValue());
    auto refs = (*provider)->references("h.h", offsetOf(header, at), true);
    REQUIRE(refs.hasValue());
    CHECK(refs->source == "clang");
    if (site.empty()) site = at;
    return std::count_if(refs->locations.begin(), refs->locations.end(), [&](const SymbolLocation& l) {
      return l.path == "h.h" && l.range.startByte == offsetOf(header, site);
    });
  };
  Manifest first = build(repo, one);
  CHECK(stat(first, "clang.indexed") == "3");
  for (const char* name : {"LIMIT 10", "UNUSED", "CHECK(x)", "value"}) CHECK(listed(name) == 1);
  CHECK(listed("LIMIT 10", "LIMIT;") == 1);  // h.h's own expansion

  fs::remove(repo.root() / "a.c");
  writeDatabase(repo, {"e.c", "b.c"});
  repo.commitAll();
  Manifest second = build(repo, one);
  CHECK(stat(second, "clang.units") == "2");
  CHECK(stat(second, "clang.indexed") == "1");  // b.c, again, reporting every macro
  for (const char* name : {"LIMIT 10", "UNUSED", "CHECK(x)", "value"}) CHECK(listed(name) == 1);
  CHECK(listed("LIMIT 10", "LIMIT;") == 1);  // h.h's own expansion
  // At b.c's use, the macro's definition (which b.c reported in the first build too).
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto def = (*provider)->definition("b.c", offsetOf(b, "CHECK(v)"));
  REQUIRE(def.hasValue());
  REQUIRE(def->locations.size() == 1);
  CHECK(def->locations[0].path == "h.h");
  CHECK(def->locations[0].range.startByte == offsetOf(header, "CHECK(x)"));
}

TEST_CASE("a site's line and column follow clang's line breaks, CR LF and a lone CR too, in every unit of a session",
          "[clang]") {
  // The worker counts a file's lines itself, once a session, rather than ask libclang at each
  // site; a file holding a '\r' is left to libclang, which takes a lone '\r' for a line break
  // (so does LSP). Two units of one session read each header.
  TestRepo repo;
  const std::string crlf = "int alpha(int x);\r\nint beta(int y);\r\n";
  const std::string lone = "int gamma(int z);\rint delta(int w);\n";
  const std::string plain = "int epsilon(int v);\n\nint zeta(int u);\n";
  const std::string user = "#include \"crlf.h\"\n#include \"lone.h\"\n#include \"plain.h\"\n"
                           "int use(void) { return beta(1) + delta(2) + zeta(3); }\n";
  repo.writeAll({{"crlf.h", crlf}, {"lone.h", lone}, {"plain.h", plain}, {"a.c", user}, {"b.c", user}});
  writeDatabase(repo, {"a.c", "b.c"});
  repo.commitAll();
  IndexOptions one;
  one.threads = 1;
  build(repo, one);
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto startOf = [&](const std::string& name, const std::string& header) {
    auto refs = (*provider)->references("a.c", offsetOf(user, name + "("), true);
    REQUIRE(refs.hasValue());
    CHECK(refs->source == "clang");
    for (const SymbolLocation& l : refs->locations)
      if (l.path == header) return l.range.start;
    FAIL("no site of " << name << " in " << header);
    return Position{};
  };
  CHECK(startOf("beta", "crlf.h") == Position{1, 4});
  CHECK(startOf("delta", "lone.h") == Position{1, 4});
  CHECK(startOf("zeta", "plain.h") == Position{2, 4});
  for (const char* unit : {"a.c", "b.c"}) {
    auto refs = (*provider)->references(unit, offsetOf(user, "delta("), true);
    REQUIRE(refs.hasValue());
    CHECK(std::count_if(refs->locations.begin(), refs->locations.end(), [&](const SymbolLocation& l) {
            return l.path == unit && l.range.start == Position{3, static_cast<uint32_t>(user.find("delta(") - user.rfind('\n', user.find("delta(")) - 1)};
          }) == 1);
  }
}

}  // namespace nib::test
