// The merge of units' facts (indexer/UnitMerge): what it builds does not depend on the order in
// which the builder numbered the units' USRs as their facts came in.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "indexer/UnitMerge.h"

namespace nib::test {

namespace {

// A unit of `file` (under /r/) naming `usrs` in that order, each once, a declaration at offset
// 10 * k of the file.
TuFacts unitNaming(const std::string& file, const std::vector<std::string>& usrs) {
  TuFacts f;
  f.mainFile = "/r/" + file;
  f.files = {f.mainFile};
  for (size_t k = 0; k < usrs.size(); ++k) {
    f.usrs.push_back(usrs[k]);
    f.names.push_back(usrs[k].substr(usrs[k].rfind('@') + 1));
    ClangOccurrence o;
    o.offset = static_cast<uint32_t>(10 * k);
    o.column = o.offset;
    o.length = 1;
    o.usr = static_cast<uint32_t>(k);
    o.role = ClangRole::Declaration;
    f.occurrences.push_back(o);
  }
  return f;
}

std::vector<std::string> symbolUsrs(const ClangViewContents& contents) {
  std::vector<std::string> out;
  for (const ClangSymbol& s : contents.symbols) out.push_back(s.usr);
  return out;
}

}  // namespace

TEST_CASE("the merge numbers symbols in the order its units name them whatever order the builder numbered them in",
          "[clang]") {
  std::vector<std::optional<TuFacts>> results;
  results.push_back(unitNaming("a.c", {"c:@F@g", "c:@F@f"}));
  results.push_back(unitNaming("b.c", {"c:@F@h", "c:@F@f", "c:@F@g"}));
  const std::map<std::string, std::string> blobIds = {{"a.c", "1"}, {"b.c", "2"}};
  ClangViewContents plain = mergeUnitFacts("/r/", blobIds, results, results.size());
  // The builder met b.c's facts first: h, f and g took numbers 0, 1 and 2.
  UsrNumbers numbers;
  std::vector<std::vector<uint32_t>> unitNumbers(2);
  unitNumbers[1] = numbers.number(results[1]->usrs);
  unitNumbers[0] = numbers.number(results[0]->usrs);
  CHECK(unitNumbers[0] == std::vector<uint32_t>{2, 1});
  MergeOptions options;
  options.numbers = &numbers;
  options.unitNumbers = &unitNumbers;
  ClangViewContents numbered = mergeUnitFacts("/r/", blobIds, results, results.size(), options);
  const std::vector<std::string> expected = {"c:@F@g", "c:@F@f", "c:@F@h"};
  CHECK(symbolUsrs(plain) == expected);
  CHECK(symbolUsrs(numbered) == expected);
  REQUIRE(numbered.files.size() == 2);
  CHECK(numbered.files[1].second.size() == 3);  // b.c's three declarations, by the merge's ids
  CHECK(numbered.files[1].second[0].symbol == 2);
  // A unit the builder did not number (its numbers missing) is numbered by the merge, alike.
  unitNumbers[1].clear();
  CHECK(symbolUsrs(mergeUnitFacts("/r/", blobIds, results, results.size(), options)) == expected);
}

}  // namespace nib::test
