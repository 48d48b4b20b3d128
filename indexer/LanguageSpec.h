// Per-language knowledge the generic extractor needs beyond its query: the grammar, which leaf
// node types are names, what a receiver that means "this object" is spelled, and how imports
// bind names. Everything else about a language lives in its query file (indexer/queries/).
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <vector>

#include "support/Language.h"
#include "support/Status.h"

namespace nib {

enum class ImportStyle {
  Python,      // `import a.b` binds `a`
  JavaScript,  // whole-module imports bind only through an alias
  Go,          // `import "a/b"` binds `b`
  Rust,        // `use a::b` binds `b`
  Java,        // `import a.b.C` binds `C`
  CInclude,    // nothing is bound
};

struct LanguageSpec {
  Language language;
  const TSLanguage* (*grammar)();
  // nib's patterns (indexer/queries/*.scm), in order; JavaScript and TypeScript share
  // ecmascript.scm. Earlier patterns win when two define the same name.
  std::vector<std::string_view> queryParts;
  std::string query() const;
  std::vector<std::string_view> identifierTypes;
  std::vector<std::string_view> selfNames;  // receivers that denote the enclosing type's instance
  bool membersVisibleInMethods;             // bare names inside methods see class members
  std::string_view separator;               // joins containers: "::" or "."
  ImportStyle importStyle;
};

// The spec for `lang`, or nullptr for languages without a grammar.
const LanguageSpec* languageSpec(Language lang);
// "tree-sitter-c@0.23.6 ..." as pinned in third_party/grammars/package.json.
std::string_view grammarVersions();

}  // namespace nib
