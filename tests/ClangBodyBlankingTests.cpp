// A C header's function bodies are parsed once per worker session: later units read them blanked
// (ClangBodyBlanking.h), which must change nothing outside the bodies.
#include <catch2/catch.hpp>

#include <algorithm>

#include "ClangTesting.h"
#include "TestRepo.h"
#include "indexer/ClangBodyBlanking.h"
#include "indexer/ClangIndexer.h"

namespace nib::test {
using clangindex::blankBodies;
using clangindex::ByteRange;
using clangview::offsetOf;

namespace {
ByteRange bodyOf(const std::string& text, const std::string& opening) {
  auto begin = static_cast<uint32_t>(text.find(opening) + opening.size() - 1);
  int depth = 0;
  for (size_t i = begin; i < text.size(); ++i) {
    depth += text[i] == '{' ? 1 : text[i] == '}' ? -1 : 0;
    if (depth == 0) return {begin, static_cast<uint32_t>(i + 1)};
  }
  return {begin, begin};
}
}  // namespace

TEST_CASE("blanking a body keeps its braces, line breaks, directives and code left out", "[clang]") {
  const std::string text =
      "static int f(int x) {\n"
      "  /* a comment\n"
      "   # not a directive */ int y = x + 1; // }\n"
      "#if defined(A) /* spans\n"
      "   two lines */\n"
      "  return \"}\" [0] + y;\n"
      "#else\n"
      "  won't compile\n"
      "#endif\n"
      "  return y;\n"
      "}\n"
      "int g(void);\n";
  // (A brace in a comment or a literal ends no body: bodyOf would stop there.)
  ByteRange body{static_cast<uint32_t>(text.find('{')), static_cast<uint32_t>(text.find("\n}\n") + 2)};
  auto elseAt = static_cast<uint32_t>(text.find("#else"));
  auto endifEnd = static_cast<uint32_t>(text.find("#endif") + 6);
  auto blanked = blankBodies(text, {body}, {{elseAt, endifEnd}});
  REQUIRE(blanked.has_value());
  CHECK(blanked->size() == text.size());
  CHECK(std::count(blanked->begin(), blanked->end(), '\n') == std::count(text.begin(), text.end(), '\n'));
  CHECK(blanked->find("y = x") == std::string::npos);
  CHECK(blanked->find("return y;") == std::string::npos);
  CHECK(blanked->find("a comment") == std::string::npos);
  CHECK(blanked->find("# not a directive") == std::string::npos);
  CHECK(blanked->find("#if defined(A) /* spans\n   two lines */\n") != std::string::npos);
  CHECK(blanked->find("#else\n  won't compile\n#endif\n") != std::string::npos);  // left out: kept
  CHECK(blanked->compare(0, 21, text, 0, 21) == 0);                                 // up to the `{`
  CHECK(blanked->substr(body.second - 1) == text.substr(body.second - 1));           // from the `}`

  // An #include inside a body, a literal left open: the body stays whole.
  const std::string including = "void t(void) {\n#include \"rows.inc\"\n}\n";
  CHECK_FALSE(blankBodies(including, {bodyOf(including, "(void) {")}, {}).has_value());
  const std::string open = "void u(void) {\n  char c = 'x;\n}\n";
  CHECK_FALSE(blankBodies(open, {bodyOf(open, "(void) {")}, {}).has_value());
  // A range whose ends are not braces is no body.
  CHECK_FALSE(blankBodies(text, {{0, 10}}, {}).has_value());
}

TEST_CASE("a C header's bodies are parsed by the first unit of a worker's session only", "[clang]") {
  TestRepo repo;
  const std::string header =
      "#ifndef H_H\n#define H_H\nint shared(int x);\n"
      "static inline int twice(int x) {\n#ifdef NOT_SET\n  return 0;\n#endif\n  return shared(x) * 2;\n}\n#endif\n";
  repo.writeAll({{"h.h", header},
                 {"a.c", "#include \"h.h\"\nint a(void) { return twice(1); }\n"},
                 {"b.c", "#include \"h.h\"\nint b(void) { return twice(2) + shared(3); }\n"},
                 {"c.c", "#include \"h.h\"\nint c(void) { return twice(undeclared); }\n"}});
  repo.commitAll();
  auto command = [&](const char* file) {
    CompileCommand c;
    c.directory = repo.root().string();
    c.file = (repo.root() / file).string();
    c.arguments = {"clang", "-c", file};
    return c;
  };
  ClangSession session(/*skipParsedBodies=*/true);
  auto a = session.index(command("a.c"), repo.root());
  auto b = session.index(command("b.c"), repo.root());
  REQUIRE(a.hasValue());
  REQUIRE(b.hasValue());
  CHECK(b->errors.empty());
  auto inHeader = [&](const TuFacts& f, const std::string& needle, ClangRole role) {
    auto file = std::find_if(f.files.begin(), f.files.end(), [](const std::string& p) { return p.ends_with("/h.h"); });
    REQUIRE(file != f.files.end());
    auto id = static_cast<uint32_t>(file - f.files.begin());
    return std::count_if(f.occurrences.begin(), f.occurrences.end(), [&](const ClangOccurrence& o) {
      return o.file == id && o.offset == offsetOf(header, needle) && o.role == role;
    });
  };
  // The body's reference: the first unit's only.
  CHECK(inHeader(*a, "shared(x)", ClangRole::Reference) == 1);
  CHECK(inHeader(*b, "shared(x)", ClangRole::Reference) == 0);
  // What lies outside the body: both units'.
  CHECK(inHeader(*a, "twice(int", ClangRole::Definition) == 1);
  CHECK(inHeader(*b, "twice(int", ClangRole::Definition) == 1);
  CHECK(inHeader(*b, "shared(int", ClangRole::Declaration) == 1);
  // The code left out inside the body is the same for both.
  auto skippedIn = [](const TuFacts& f) {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (const ClangSkipped& s : f.skipped) out.emplace_back(s.start, s.end);
    return out;
  };
  CHECK(skippedIn(*a) == skippedIn(*b));
  CHECK(skippedIn(*b).size() == 1);
  // A unit reading blanked headers still reports its errors.
  auto c = session.index(command("c.c"), repo.root());
  REQUIRE(c.hasValue());
  CHECK(inHeader(*c, "shared(x)", ClangRole::Reference) == 0);
  REQUIRE_FALSE(c->errors.empty());
  CHECK(c->errors[0].find("undeclared") != std::string::npos);
  // As many as a unit that reads every header whole reports.
  auto alone = ClangSession(/*skipParsedBodies=*/true).index(command("c.c"), repo.root());
  REQUIRE(alone.hasValue());
  CHECK(c->errors == alone->errors);
}

}  // namespace nib::test
