// Where a repository's compile_commands.json is: one answer for the clang view (nib-indexer) and
// for the clangd that `nib serve` runs, so that both see the same compile commands.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "support/ProjectConfig.h"

namespace nib {

// The folder holding the compilation database: `given` (a command's option) when set; else
// `config`'s clang.compile-commands-dir, a folder inside the repository (one outside it is
// ignored and `warn` says why: an out-of-tree build is the user's to give); else the root; else
// the first `build*/` folder (sorted) that has one. Empty when there is none.
std::filesystem::path findCompilationDatabase(const std::filesystem::path& root, const std::filesystem::path& given,
                                              const ProjectConfig* config = nullptr,
                                              const std::function<void(const std::string&)>& warn = {});

}  // namespace nib
