// What a C or C++ file's text says of its preprocessor directives, without a parse: shared by
// the clang view's facts (views/ClangPreambleMacros) and its answers (providers/ClangNavigatorWords).
#pragma once

#include <cstdint>
#include <string_view>

namespace nib {

// The directive `offset` lies in, after its keyword (its continuation lines included): "define",
// "if", "ifndef", ... — or "" outside any. A macro's text is not compiled where it is written,
// nor are the words of a condition.
std::string_view directiveAt(std::string_view text, uint32_t offset);

// Where a file's preamble ends, as clang computes it (ComputePreamble): its leading run of
// blank space, comments and preprocessor directives, continuation lines included. An `#if`
// still open there does not end it (checked against clangd 14: the directives inside an include
// guard are its preamble too).
uint32_t preambleEnd(std::string_view text);

}  // namespace nib
