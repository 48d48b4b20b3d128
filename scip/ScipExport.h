// SCIP out: a version of the index written as one SCIP index (`nib export scip`), for tools that
// ingest SCIP (Sourcegraph). Every indexed file is a document:
// - TypeScript, JavaScript and Python files the precise view covers: its occurrences, with the
//   SCIP indexers' own symbols;
// - C and C++ files the clang view covers: libclang's occurrences, a USR as the symbol
//   `nib-clang . . . `<usr>`.` (function-local entities as the document's local symbols);
// - every other file: tree-sitter's definitions as local symbols, with the occurrences that
//   resolve to them inside the file (what tree-sitter resolves across files is not exact, and
//   SCIP has no way to say so).
// Each symbol defined in the repository gets its SymbolInformation (display name, kind, and its
// relationships: what it overrides or implements, its base classes, its type) in the document of
// its first definition. Positions are UTF-16 code units, as SCIP's readers assume, when the
// file's text is stored (else UTF-8 bytes, said in the document's position_encoding). The index's
// tool arguments name the version, the commit and whether the worktree differed from it.
#pragma once

#include <filesystem>
#include <string>

#include "support/Status.h"

namespace nib {

struct ScipExportStats {
  size_t documents = 0, occurrences = 0, symbols = 0;
  std::string versionId, commit;
  bool dirty = false;
};

// Writes the current version of the index in `indexDir` (a `.nib` folder) for the repository at
// `root` to `out` (replaced atomically).
Status exportScip(const std::filesystem::path& root, const std::filesystem::path& indexDir, const std::filesystem::path& out,
                  ScipExportStats* stats = nullptr);

}  // namespace nib
