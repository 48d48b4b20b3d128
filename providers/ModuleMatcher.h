// Decides whether a repository file is the module an import statement names, per language
// convention (Python dotted and relative modules, JS/TS relative specifiers with index files,
// Go import paths ending in the package folder, Java packages, Rust `crate::` paths, C/C++
// include paths). Pure string logic over repository paths.
#pragma once

#include <string>
#include <string_view>

#include "support/Language.h"
#include "views/FileFacts.h"

namespace nib {

// `module` is the module path to match (for `import m; m.f` it is "m"; for a Python
// `from p import m; m.f` it is "p.m"). `importer` is the importing file's repository path.
bool moduleMatches(Language lang, std::string_view importer, std::string_view module, std::string_view candidate);

// The module a name reached through `imp` lives in: the import's module, extended by the
// imported name when the name itself was used as a module (`from p import m; m.f`).
std::string importedModule(Language lang, const Import& imp, bool viaReceiver);

}  // namespace nib
