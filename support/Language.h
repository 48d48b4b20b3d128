// The languages nib extracts, and how a file's language is detected (extension first, then a
// shebang line for extension-less scripts).
#pragma once

#include <cstdint>
#include <string_view>

namespace nib {

enum class Language : uint8_t {
  Unknown = 0,
  C,
  Cpp,
  Python,
  JavaScript,
  TypeScript,
  Tsx,
  Go,
  Rust,
  Java,
};
inline constexpr int kLanguageCount = 10;

const char* languageName(Language lang);  // "c", "cpp", "python", ...
Language languageFromName(std::string_view name);
// `head` is the start of the file (a few KiB is enough; may be empty). It decides the language
// of extension-less scripts (shebang) and of ".h" headers, which are C++ when they use C++
// syntax (class, namespace, template, access specifiers, `::`).
Language detectLanguage(std::string_view path, std::string_view head);
bool looksLikeCpp(std::string_view text);
// A C or C++ file a compiler builds as a translation unit (`.c`, `.cc`, `.cpp`, `.cxx`, `.c++`),
// as opposed to a header or another file only ever #included.
bool isCFamilySourceFile(std::string_view path);

}  // namespace nib
