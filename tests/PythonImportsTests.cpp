// The text rules for Python's relative imports (scip/PythonImports.h); end to end, the
// precise_python_relative_imports fixture.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "scip/PythonImports.h"

namespace nib::test {
namespace {

using python_imports::packageOf;
using python_imports::relativeFromAt;
using python_imports::resolveRelative;

// The relative `from` of the import list holding the last `name` in `text`.
std::optional<python_imports::RelativeFrom> fromOf(const std::string& text, const std::string& name) {
  return relativeFromAt(text, text.rfind(name));
}

TEST_CASE("a name in a relative import's list knows its from-module", "[python]") {
  auto plain = fromOf("from . import util\n", "util");
  REQUIRE(plain);
  CHECK((plain->dots == 1 && plain->module.empty()));
  auto deep = fromOf("from ..sub import a, b as c\n", "c");
  REQUIRE(deep);
  CHECK((deep->dots == 2 && deep->module == "sub"));
  auto wrapped = fromOf("from .m import (\n    a,\n    b,\n)\n", "b");
  REQUIRE(wrapped);
  CHECK(wrapped->module == "m");
  CHECK(fromOf("from .m import a, \\\n    b\n", "b").has_value());
  // Not in a relative import's list: an absolute import, the next statement, a class's bases
  // after an import, a call.
  CHECK_FALSE(fromOf("from m import a\n", "a").has_value());
  CHECK_FALSE(fromOf("from . import a\nb\n", "b").has_value());
  CHECK_FALSE(fromOf("from . import resources\n\n\nclass T(unittest.TestCase):\n", "unittest").has_value());
  CHECK_FALSE(fromOf("from . import a\nx = (b)\n", "b").has_value());
}

TEST_CASE("relative imports resolve from the document's package", "[python]") {
  CHECK(packageOf("rich.color", false) == "rich");
  CHECK(packageOf("rich", true) == "rich");
  CHECK(packageOf("top", false).empty());
  CHECK(resolveRelative("rich", 1, "color") == "rich.color");
  CHECK(resolveRelative("pkg.sub", 2, "util") == "pkg.util");
  CHECK(resolveRelative("pkg", 1, "") == "pkg");
  CHECK(resolveRelative("", 1, "sibling") == "sibling");
  CHECK(resolveRelative("pkg", 3, "x").empty());  // above the top
}

TEST_CASE("the names __all__ lists, without their quotes", "[python]") {
  std::string text = "__all__ = [\"a\", 'b',  # c\n    \"not a name\", \"d\"]\n__all__ += (\"e\",)\nx.__all__ = [\"f\"]\nif __all__ == [\"g\"]: pass\n";
  std::vector<std::string> names;
  for (const python_imports::AllEntry& e : python_imports::allEntries(text)) names.push_back(text.substr(e.offset, e.length));
  CHECK(names == std::vector<std::string>{"a", "b", "d", "e"});
}

}  // namespace
}  // namespace nib::test
