// Relative imports in Python (`from .color import Color`, `from . import util`), which
// scip-python names by the relative name alone (`util/__init__:` where the module is
// `pkg.util`): what the text says, to name the module its language's servers mean (ScipImport).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nib::python_imports {

// The `from` part of the import statement whose imported names hold `offset` (`from ..sub import
// a, b as c`: two dots, "sub"); nullopt when `offset` is not in such a list or the import is not
// relative.
struct RelativeFrom {
  size_t dots = 0;
  std::string module;  // after the dots; "" for `from . import x`
};
std::optional<RelativeFrom> relativeFromAt(std::string_view text, size_t offset);

// The package a module's relative imports start from: the module itself for a package's
// `__init__.py`, else the package holding it ("" at the top).
std::string packageOf(const std::string& module, bool initFile);

// The absolute name of `name` imported with `dots` leading dots from `package` ("" when the dots
// climb above the top).
std::string resolveRelative(const std::string& package, size_t dots, const std::string& name);

// The names a module's `__all__` lists (`__all__ = ["a", "b"]`, `__all__ += ("c",)`): each
// string's offset and length, its quotes left out — where pyright lists it among the named
// symbol's references. Strings with anything but a name in them are left out.
struct AllEntry {
  size_t offset = 0, length = 0;
};
std::vector<AllEntry> allEntries(std::string_view text);

}  // namespace nib::python_imports
