// A Python name the precise indexer resolved nothing for, which tree-sitter could only guess by
// name (an attribute of a value of unknown type), answers nothing — as an identifier the index
// could not resolve (facet `unresolved`), not as "no identifier here": a category of its own, which
// `auto` sends to the live backend until measured.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "TestRepo.h"

namespace nib::test {

TEST_CASE("an attribute of an untyped value is an unresolved name: nothing from the index, labelled as such", "[python][precise]") {
  TestRepo repo;
  repo.writeAll({{"boxes.py",
                  "def size_of(box):\n"
                  "    return box.width\n"
                  "\n"
                  "class Box:\n"
                  "    def __init__(self):\n"
                  "        self.width = 1\n"}});
  repo.commitAll();
  // The tests run without SCIP indexers unless told which (TestRepo.cpp): scip-python here.
  const std::string env = "NIB_SCIP_PYTHON=" + shellQuote(std::string(NIB_BACKENDS_BIN) + "/scip-python");
  NibRun index = runNibIn(repo, env, "index -q --no-dense");
  INFO(index.out);
  REQUIRE(index.rc == 0);
  // `width` in `box.width`: tree-sitter would guess Box.width by its name alone.
  for (const char* request : {"def", "refs"}) {
    NibRun r = runNibIn(repo, env, std::string(request) + " --json boxes.py:2:16");
    INFO(request << ": " << r.out);
    REQUIRE(r.rc == 0);
    auto answer = nlohmann::json::parse(r.out);
    CHECK(answer["locations"].empty());
    CHECK(answer.value("facts", std::string()) == "scip");
    CHECK(answer.value("category", std::string()) == "scip exact unresolved");
    CHECK(answer.value("note", std::string()).find("resolved no symbol here") != std::string::npos);
  }
  // A resolved name nearby still answers from the precise view.
  NibRun self = runNibIn(repo, env, "def --json boxes.py:6:14");
  INFO(self.out);
  REQUIRE(self.rc == 0);
  CHECK(nlohmann::json::parse(self.out).value("facts", std::string()) == "scip");
}

}  // namespace nib::test
