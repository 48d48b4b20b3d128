// The only code that calls libclang, linked into the `nib-clang` worker alone (a process that
// links libclang pays ~65 ms at start-up, and a translation unit that crashes or hangs libclang
// must take only its worker down). Reads compilation databases and indexes one translation unit.
#pragma once

#include <filesystem>
#include <vector>

#include "support/Status.h"
#include "views/ClangFacts.h"

namespace nib {

// Every entry of the compilation database in `directory` (compile_commands.json).
Expected<std::vector<CompileCommand>> readCompileCommands(const std::filesystem::path& directory);

// Indexes one translation unit: declarations, definitions and references keyed by USR (implicit
// template instantiations mapped to their templates, macros from the preprocessing record), call
// and base-class edges. Only occurrences in files under `root` are kept.
Expected<TuFacts> indexTranslationUnit(const CompileCommand& command, const std::filesystem::path& root);

}  // namespace nib
