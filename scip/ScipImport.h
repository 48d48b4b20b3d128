// SCIP in: an index written by an SCIP indexer (scip-typescript, scip-python) read as nib's unit
// facts (TuFacts, the format the clang view's translation units use), so that the precise view
// is merged and stored exactly as the clang view is: one format for every precise source.
//
// - Documents outside the repository root, or whose file is gone, are left out.
// - Positions are converted to nib's (0-based lines, UTF-8 byte columns and offsets) against the
//   file on disk: SCIP counts columns in UTF-16 code units unless the document says otherwise.
// - Local symbols (`local 3`) are only unique within their document: nib names them by path.
// - Roles: Definition is a definition, ForwardDefinition a declaration, anything else a
//   reference. Relationships: is_implementation is a base class (for types) or an overridden
//   method (otherwise); is_type_definition is a type edge.
// Bytes that are not an SCIP index (truncated, another format) are Corrupt, never a partial read.
#pragma once

#include <string>
#include <string_view>

#include "support/Status.h"
#include "views/ClangFacts.h"

namespace nib {

struct ScipImportStats {
  size_t documents = 0, skippedDocuments = 0, occurrences = 0, skippedOccurrences = 0;
  std::string tool;  // the indexer's name and version, from the index's metadata
};

// `root`: the repository, absolute, ending in '/'.
Expected<TuFacts> importScip(std::string_view bytes, const std::string& root, ScipImportStats* stats = nullptr);

}  // namespace nib
