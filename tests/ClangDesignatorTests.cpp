// Members an `offsetof` designator names: clang's indexer reports them as references, which
// clangd's index lists too, but clangd 14 answers nothing asked there (its selection has no node
// for a designator; checked against it with `offsetof(struct outer, data.second)`, directly and
// through a macro). The index answers the member, in the agreement category `designator`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "ClangTesting.h"
#include "TestRepo.h"
#include "providers/StaticProvider.h"
#include "views/ClangView.h"

namespace nib::test {
using namespace clangview;

TEST_CASE("a member an offsetof designator names answers in the category designator", "[clang]") {
  TestRepo repo;
  const char* main =
      "#include <stddef.h>\n"
      "struct inner { int first; int second; };\n"
      "struct outer { int head; struct inner data; };\n"
      "static const size_t at_second = offsetof(struct outer, data.second);\n"
      "#define ENTRY(field) offsetof(struct outer, data.field)\n"
      "static const size_t via_macro = ENTRY(first);\n"
      "static const struct outer init = { .head = 1 };\n"
      "int main(void) { struct outer o = init; return (int)(at_second + via_macro) + o.data.second; }\n";
  repo.write("main.c", main);
  writeDatabase(repo, {"main.c"});
  repo.commitAll();
  build(repo);
  auto view = currentClangView(repo);
  REQUIRE(view.hasValue());
  CHECK((*view)->designatorAt("main.c", offsetOf(main, "second);")));
  CHECK((*view)->designatorAt("main.c", offsetOf(main, "data.second);")));
  CHECK((*view)->designatorAt("main.c", offsetOf(main, "first);")));
  CHECK(!(*view)->designatorAt("main.c", offsetOf(main, "head = 1")));
  CHECK(!(*view)->designatorAt("main.c", offsetOf(main, "second; }")));
  auto provider = StaticProvider::open(repo.root() / ".nib");
  REQUIRE(provider.hasValue());
  auto defines = [&](const Expected<NavigationResult>& r, const char* at) {
    return r.hasValue() && std::any_of(r->locations.begin(), r->locations.end(), [&](const SymbolLocation& l) {
             return l.path == "main.c" && l.range.startByte == offsetOf(main, at);
           });
  };
  // In a designator, directly and through the macro: the member, labelled.
  auto second = (*provider)->definition("main.c", offsetOf(main, "second);"));
  CHECK(defines(second, "second; }"));
  CHECK(second->facet == kDesignatorFacet);
  auto first = (*provider)->references("main.c", offsetOf(main, "first);"), true);
  CHECK(defines(first, "first;"));
  CHECK(first->facet == kDesignatorFacet);
  // A designated initializer's member and a member access keep the member's category (every
  // site in this one file: file-local); the designator stays one of the member's references.
  auto head = (*provider)->definition("main.c", offsetOf(main, "head = 1"));
  CHECK(defines(head, "head;"));
  CHECK(head->facet == "file-local");
  auto access = (*provider)->references("main.c", offsetOf(main, "second;"), true);
  CHECK(defines(access, "second);"));
  CHECK(access->facet == "file-local");
}

}  // namespace nib::test
