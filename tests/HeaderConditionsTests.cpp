// HeaderConditions: which headers get a parse of their own because an includer's #define turns
// their `#if` sections on (the lz4 pattern: lz4frame.c defines LZ4F_STATIC_LINKING_ONLY, then
// includes lz4frame.h, whose static section tests it).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "indexer/HeaderConditions.h"

namespace nib::test {
namespace {

TEST_CASE("the names a file's #define directives define", "[clang]") {
  std::string text =
      "#define A 1\n"
      "  #  define B(x) (x)\n"
      "#define C \\\n  continued\n"
      "int define_not_a_directive;\n"
      "// #define D: a comment, no directive\n"
      "#undef E\n";
  CHECK(directivesOf(text).defined == std::set<std::string>{"A", "B", "C"});
}

TEST_CASE("the names a file's conditions test", "[clang]") {
  std::string text =
      "#ifndef GUARD_H\n"
      "#if defined(STATIC_ONLY) && !defined(DONE_1) /* NOT_THIS */\n"
      "#elif VERSION >= 0x10UL || \\\n   OTHER\n"
      "#ifdef X // Y\n"
      "#else\n"
      "int IN_CODE;\n"
      "#endif\n";
  CHECK(directivesOf(text).tested == std::set<std::string>{"GUARD_H", "STATIC_ONLY", "DONE_1", "VERSION", "OTHER", "X"});
}

TEST_CASE("an include guard or #pragma once makes a header one meant to stand alone", "[clang]") {
  CHECK(directivesOf("// comment\n#ifndef A_H\n#define A_H\nint a;\n#endif\n").guarded);
  CHECK(directivesOf("#if !defined(A_H)\n#define A_H 1\n#endif\n").guarded);
  CHECK(directivesOf("#if ! defined A_H\n#  define A_H\n#endif\n").guarded);
  CHECK(directivesOf("#pragma once\nint a;\n").guarded);
  CHECK_FALSE(directivesOf("/* 0x00 */ BT_NONXML, BT_NONXML,\n").guarded);     // a table's rows
  CHECK_FALSE(directivesOf("#define ONE 1\n#define TWO 2\n").guarded);         // definitions only
  CHECK_FALSE(directivesOf("#ifndef A_H\n#define B_H\n#endif\n").guarded);    // another macro
  CHECK_FALSE(directivesOf("#ifdef A_H\n#define A_H\n#endif\n").guarded);     // tests it is defined
  CHECK_FALSE(directivesOf("#include \"x.h\"\n#ifndef A_H\n#define A_H\n#endif\n").guarded);
}

TEST_CASE("a header is parsed alone when a macro defined elsewhere decides one of its sections", "[clang]") {
  std::map<std::string, std::string> files = {
      {"lib/frame.h", "#ifndef FRAME_H\n#define FRAME_H\n#if defined(FRAME_STATIC)\nint size(void);\n#endif\n#endif\n"},
      {"lib/plain.h", "#ifndef PLAIN_H\n#define PLAIN_H\nint plain(void);\n#endif\n"},
      // Its own #define decides its section, as an include guard does: nothing to parse apart.
      {"lib/self.h", "#define FRAME_STATIC\n#ifdef FRAME_STATIC\nint self(void);\n#endif\n"},
  };
  std::vector<std::pair<std::string, FileDirectives>> headers;
  for (const auto& [path, text] : files) headers.emplace_back(path, directivesOf(text));
  // A source file's #define before its #include, or a configuration header's.
  std::map<std::string, size_t> build;
  for (const std::string& name : directivesOf("#define FRAME_STATIC\n#include \"frame.h\"\n").defined) ++build[name];
  CHECK(headersConfiguredElsewhere(headers, build) == std::vector<std::string>{"lib/frame.h"});
  CHECK(headersConfiguredElsewhere(headers, {}).empty());
  CHECK(headersConfiguredElsewhere(headers, {{"UNRELATED", 1}}).empty());
}

TEST_CASE("a header using a macro a configured header defines in alternatives is parsed alone too", "[clang]") {
  // LuaJIT: lj_def.h makes LJ_FUNC `static` where the amalgamation defined ljamalg_c first.
  std::map<std::string, std::string> texts = {
      {"src/def.h", "#pragma once\n#if defined(amalg_c)\n#define FUNC static\n#else\n#define FUNC extern\n#endif\n#define ONCE 1\n"},
      {"src/p.h", "#pragma once\n#include \"def.h\"\nFUNC int prng(int);\n"},
      // Named only in a comment, a string and a character literal, or defined by the header itself.
      {"src/q.h", "#pragma once\n/* FUNC */ // FUNC\nconst char* s = \"FUNC\"; char c = 'F';\nint q(int);\n"},
      {"src/r.h", "#pragma once\n#define FUNC inline\nFUNC int r(int);\n"},
      // A macro the configured header defines once is no alternative.
      {"src/s.h", "#pragma once\nint s[ONCE];\n"},
  };
  std::vector<std::pair<std::string, FileDirectives>> headers;
  for (const auto& [path, text] : texts) headers.emplace_back(path, directivesOf(text));
  CHECK(headers[0].second.redefined == std::set<std::string>{"FUNC"});
  CHECK(headersUsingConfiguredMacros(headers, {"src/def.h"}, texts) == std::vector<std::string>{"src/p.h"});
  CHECK(headersUsingConfiguredMacros(headers, {}, texts).empty());
}

TEST_CASE("a header's default that an includer defines first decides a section too", "[clang]") {
  // LZO's config1a.h: `#if !defined(DDBITS)` / `#define DDBITS 0`, and lzo1a_99.c defines DDBITS
  // 3 before its #include; the include guard is no default.
  const char* config = "#ifndef CONFIG_H\n#define CONFIG_H\n#if !defined(DD)\n#  define DD 0\n#endif\n#if (DD > 6)\n#endif\n#endif\n";
  FileDirectives d = directivesOf(config);
  CHECK(d.guarded);
  CHECK(d.defaulted == std::set<std::string>{"DD"});
  std::vector<std::pair<std::string, FileDirectives>> headers = {{"config.h", d}};
  CHECK(headersConfiguredElsewhere(headers, {{"CONFIG_H", 1}, {"DD", 1}}).empty());  // its own definitions only
  CHECK(headersConfiguredElsewhere(headers, {{"CONFIG_H", 1}, {"DD", 2}}) == std::vector<std::string>{"config.h"});
}

TEST_CASE("the names a file's #include directives spell", "[clang]") {
  FileDirectives d = directivesOf("#include \"../jpeglib.h\"\n#  include <stdio.h>\n#include HEADER\n#import \"x.h\"\n");
  CHECK(d.includes == std::vector<std::string>{"../jpeglib.h", "stdio.h", "x.h"});
}

// A unit's facts of one main file and two headers: `names` in `from` at `at`, declared in `in`.
TuFacts unitNaming(uint32_t from, uint32_t in) {
  TuFacts unit;
  unit.files = {"/r/mgr.c", "/r/include/lib.h", "/r/sys.h"};
  unit.usrs = {"c:@T@ptr"};
  unit.names = {"ptr"};
  ClangOccurrence declaration;
  declaration.file = in;
  declaration.role = ClangRole::Definition;
  ClangOccurrence use;
  use.file = from;
  use.offset = 10;
  use.role = ClangRole::Reference;
  unit.occurrences = {declaration, use};
  return unit;
}

TEST_CASE("a guarded header naming what only its includer's #includes declare is tried alone", "[clang]") {
  // libjpeg's jmemsys.h names jpeglib.h's j_common_ptr and #includes nothing: the unit that
  // #includes jpeglib.h first compiles it, clangd's parse of it alone does not.
  std::map<std::string, FileDirectives> directives = {
      {"/r/mgr.c", directivesOf("#include \"include/lib.h\"\n#include \"sys.h\"\n")},
      {"/r/include/lib.h", directivesOf("#pragma once\ntypedef struct s *ptr;\n")},
      {"/r/sys.h", directivesOf("#pragma once\nvoid *get(ptr p);\n")},
  };
  std::set<std::string> guarded = {"/r/include/lib.h", "/r/sys.h"};
  TuFacts relies = unitNaming(2, 1);
  CHECK(headersNamingIncludersNames({&relies}, directives, guarded) == std::set<std::string>{"/r/sys.h"});
  // The same header with its own #include (a path from another directory) stands alone.
  directives["/r/sys.h"] = directivesOf("#pragma once\n#include \"../r/include/lib.h\"\nvoid *get(ptr p);\n");
  CHECK(headersNamingIncludersNames({&relies}, directives, guarded).empty());
  // An entity the header declares itself, or one only the main file names, tells nothing.
  TuFacts own = unitNaming(2, 2), fromMain = unitNaming(0, 1);
  directives["/r/sys.h"] = directivesOf("#pragma once\nvoid *get(ptr p);\n");
  CHECK(headersNamingIncludersNames({&own, &fromMain}, directives, guarded).empty());
  // Nor does a header that is no candidate (an unguarded one is tried anyway).
  CHECK(headersNamingIncludersNames({&relies}, directives, {"/r/include/lib.h"}).empty());
}

TEST_CASE("a guarded header naming what only its includer's system #includes declare is tried alone", "[clang]") {
  // CLI11's FormatterFwd.hpp names std::function, declared in bits/std_function.h, which its
  // <string> never reaches; the unit's main file #includes <functional> first.
  std::map<std::string, FileDirectives> directives = {
      {"/r/app.cpp", directivesOf("#include <functional>\n#include \"fmt.hpp\"\n")},
      {"/r/fmt.hpp", directivesOf("#pragma once\n#include <string>\n")},
  };
  std::map<std::string, std::string> system = {
      {"/sys/functional", "#include <bits/std_function.h>\n"},
      {"/sys/bits/std_function.h", "#pragma once\n"},
      {"/sys/string", "#include <bits/basic_string.h>\n"},
      {"/sys/bits/basic_string.h", "#pragma once\n"},
  };
  std::vector<std::string> read;
  OutsideReader reader = [&](const std::string& path) -> std::optional<std::string> {
    read.push_back(path);
    auto it = system.find(path);
    return it == system.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  TuFacts unit;
  unit.files = {"/r/app.cpp", "/r/fmt.hpp", "/sys/functional", "/sys/bits/std_function.h", "/sys/string",
                "/sys/bits/basic_string.h"};
  unit.usrs = {"c:@N@std@ST>1#T@function"};
  unit.names = {"function"};
  ClangOccurrence use;
  use.file = 1;
  use.role = ClangRole::Reference;
  unit.occurrences = {use};
  ClangOutsideTarget target;
  target.path = "/sys/bits/std_function.h";
  unit.outsideTargets = {target};
  std::set<std::string> guarded = {"/r/fmt.hpp"};
  CHECK(headersNamingIncludersNames({&unit}, directives, guarded, reader) == std::set<std::string>{"/r/fmt.hpp"});
  // Only the system headers the header's walk reached were read, each once.
  std::sort(read.begin(), read.end());
  CHECK(read == std::vector<std::string>{"/sys/bits/basic_string.h", "/sys/string"});
  // Without a reader, a name declared outside the repository tells nothing.
  CHECK(headersNamingIncludersNames({&unit}, directives, guarded).empty());
  // A header whose system #includes reach the declaration stands alone.
  system["/sys/string"] = "#include <bits/basic_string.h>\n#if __cplusplus > 201703L\n#include <functional>\n#endif\n";
  read.clear();
  CHECK(headersNamingIncludersNames({&unit}, directives, guarded, reader).empty());
}

}  // namespace
}  // namespace nib::test
