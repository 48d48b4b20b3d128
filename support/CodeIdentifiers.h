// Where a user might click: the identifiers of a source file that lie in code — not in a
// comment, a string literal or an #include line, and not a keyword of the language — found in
// the text alone, never from nib's index. The agreement sampler (server/AgreementSampler) and
// `nib bench live-vs-static` draw their positions from these, so what they measure does not
// depend on what the index recognised (bench/agreement_bench.py draws the same way).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "support/Language.h"

namespace nib {

// Byte offsets of the identifiers' first bytes, in order. Heuristic where the languages are
// hard to scan without a parser: a regular-expression literal in JavaScript is code, and a
// Rust lifetime is not a character literal only when no quote closes it within four bytes.
std::vector<uint32_t> codeIdentifierStarts(std::string_view text, Language language);

// Whether `word` is a keyword of the language (reserved, contextual, or a preprocessor word).
bool isLanguageKeyword(std::string_view word, Language language);

}  // namespace nib
