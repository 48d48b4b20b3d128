// Macros in the preamble of an open file, as clangd 14 answers them.
//
// clangd parses an open file in two steps: its preamble — the directives and comments before the
// first token of code (support/PreprocessorText.h, preambleEnd) — is compiled once into a
// precompiled header, and the rest is parsed with it loaded. What it knows of a macro inside the
// preamble is then the preamble's end state: at any name of a macro there (a #define, an #undef,
// a use in another directive), go-to-definition answers the macro's last definition in the
// preamble, and its references are those the rest of the file makes (the main file's own index
// sees only the code after the preamble), that definition among them. A file made of
// configuration directives that redefine a macro several times (libjpeg-turbo's
// jdmerge-altivec.c, LZO's compressors) answers so at each of them. nib's facts name the macro in
// effect at each place; this rewrites the main file's preamble occurrences of a name the preamble
// defines more than once, or #undefs, to clangd's answer: each becomes an unlisted reference to
// the last definition (an answer at its place, no site of the macro's). A name the preamble
// leaves undefined is left as it is (clangd falls back to the word there).
#pragma once

#include <string_view>

#include "views/ClangFacts.h"

namespace nib {

// Rewrites `facts`' occurrences of macros in its main file's preamble as clangd answers them
// (see above). `main` is the main file's id in `facts.files`, `mainText` its text.
void answerPreambleMacrosAsClangd(TuFacts& facts, uint32_t main, std::string_view mainText);

}  // namespace nib
