// A unit's facts with its main file's taken from another parse of the same unit: what clangd's
// open file shows beside what its background index holds of the headers.
//
// clangd parses an open file in two steps, its preamble (the #includes at the top) and then the
// rest with the preamble loaded, each with its own diagnostics. A fatal error in the preamble
// (a header that includes one the command cannot find: jsonnet's vendored c4core tests without
// doctest) stays there, and the file's own code is parsed as the compiler goes on. libclang's
// indexing parse is one step: after such an error it enters no further system header (<vector>
// after the failing #include) and reports no reference in the bodies whose types those headers
// declare. clangd also corrects typos (an unknown type name one edit from a known one declares
// its variable with the known type; a failed correction drops the expression around it), which
// libclang's indexing parse never does. So the `nib-clang` worker parses a unit again with a
// preamble and typo correction, as clangd does, when the first parse met a fatal error or an
// error in the main file; that parse reports the main file only (what the preamble declares
// comes from the precompiled header, which the indexer does not walk), so its facts of the main
// file replace the first parse's, and the first parse's stand for every other file.
#pragma once

#include <string>

#include "views/ClangFacts.h"

namespace nib {

// Replaces `whole`'s facts of its main file (`mainPath`, as both name it in `files`) with
// `main`'s, a parse of the same unit: occurrences, skipped ranges and the main file's #includes;
// `main`'s errors become the unit's (they describe the main file as clangd shows it); USR-keyed
// edges are the union of both; files only `main` read are added. Nothing changes when `main`
// read no such file.
void layMainFile(TuFacts& whole, const TuFacts& main, const std::string& mainPath);

}  // namespace nib
