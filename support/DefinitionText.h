// What a definition's text says of it, read from the source: its signature (the lines from where
// the definition starts to its name's line) and its documentation (the comment right above it,
// or a Python docstring). Hover (server/Engine) and the SCIP export's symbol documentation
// (scip/ScipExport) show the same words.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/Text.h"

namespace nib {

// The definition's first lines, from `fullStartLine` to its name's line (C puts the return type
// on a line of its own), at most four, trimmed and joined by spaces; at most ~300 bytes.
std::string definitionSignature(const LineTable& lines, uint32_t fullStartLine, uint32_t nameLine);

// The comment lines right above `defLine`, without their comment markers; "" when there are none.
std::string leadingComment(const LineTable& lines, uint32_t defLine);

// A Python docstring: the body's first statement (the body starts after the first colon at or
// after `bodyFrom`) when it is a string literal; "" otherwise.
std::string pythonDocstring(std::string_view text, uint32_t bodyFrom);

}  // namespace nib
