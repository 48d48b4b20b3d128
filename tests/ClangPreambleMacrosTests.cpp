// ClangPreambleMacros: where clangd's preamble ends, and the macros it answers there.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "support/PreprocessorText.h"
#include "views/ClangPreambleMacros.h"
#include "views/FileFacts.h"

namespace nib::test {
namespace {

TEST_CASE("the preamble ends at the first token of code, inside an #if still open there too", "[clang]") {
  std::string text = "/* licence */\n#include \"a.h\"\n// note\n#define X \\\n  1\nint x;\n";
  CHECK(preambleEnd(text) == text.find("int x"));
  // clangd 14 keeps the directives inside an include guard in the preamble (checked with a probe).
  std::string guarded = "#ifndef A_H\n#define A_H\n#include <b.h>\nint a;\n#endif\n";
  CHECK(preambleEnd(guarded) == guarded.find("int a"));
  std::string closed = "#if 0\n#endif\n#define Y 2\nstatic int y;\n";
  CHECK(preambleEnd(closed) == closed.find("static"));
  std::string directives = "#define Z 1\n#undef Z\n";
  CHECK(preambleEnd(directives) == directives.size());
}

ClangOccurrence macroAt(uint32_t offset, uint32_t usr, ClangRole role) {
  ClangOccurrence o;
  o.offset = offset;
  o.usr = usr;
  o.role = role;
  o.kind = static_cast<uint8_t>(SymbolKind::Macro);
  return o;
}

// One unit's facts of simd.c: macros named `names` (USRs by their definitions' offsets).
TuFacts simdFacts(std::vector<std::pair<std::string, uint32_t>> names, std::vector<ClangOccurrence> occurrences) {
  TuFacts facts;
  facts.files = {"/r/simd.c"};
  for (const auto& [name, at] : names) {
    facts.usrs.push_back("c:simd.c@" + std::to_string(at) + "@macro@" + name);
    facts.names.push_back(name);
  }
  facts.occurrences = std::move(occurrences);
  return facts;
}

TEST_CASE("a macro redefined in the preamble answers there with its last definition", "[clang]") {
  // The names lie at offsets 8, 21 (the #undef), 33 and 47 (the use after the preamble).
  std::string text = "#define RGB 1\n#undef RGB\n#define RGB 2\nint v = RGB;\n";
  TuFacts facts = simdFacts({{"RGB", 8}, {"RGB", 33}}, {macroAt(8, 0, ClangRole::Definition), macroAt(21, 0, ClangRole::Reference),
                                                       macroAt(33, 1, ClangRole::Definition), macroAt(47, 1, ClangRole::Reference)});
  answerPreambleMacrosAsClangd(facts, 0, text);
  for (size_t k : {0, 1}) {
    CHECK(facts.occurrences[k].usr == 1);
    CHECK(facts.occurrences[k].role == ClangRole::Reference);
    CHECK(facts.occurrences[k].unlisted);
  }
  CHECK(facts.occurrences[2].role == ClangRole::Definition);
  CHECK_FALSE(facts.occurrences[3].unlisted);  // after the preamble: as anywhere
}

TEST_CASE("a macro the preamble leaves undefined, or defines once, keeps its answers", "[clang]") {
  std::string text = "#define RGB 1\n#define ONE 2\n#undef RGB\nint v;\n";
  TuFacts facts = simdFacts({{"RGB", 8}, {"ONE", 22}}, {macroAt(8, 0, ClangRole::Definition), macroAt(22, 1, ClangRole::Definition),
                                                       macroAt(35, 0, ClangRole::Reference)});
  answerPreambleMacrosAsClangd(facts, 0, text);
  CHECK(facts.occurrences[0].role == ClangRole::Definition);
  CHECK(facts.occurrences[1].role == ClangRole::Definition);
  CHECK_FALSE(facts.occurrences[2].unlisted);
}

}  // namespace
}  // namespace nib::test
