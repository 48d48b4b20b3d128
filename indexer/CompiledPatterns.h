// Each language's extraction patterns (indexer/queries/*.scm) compiled once per process, with
// their capture names decoded into the roles the extractor acts on. Internal to indexer/: the
// Extractor's walk (Extractor.cpp) reads them.
#pragma once

#include <cstdint>
#include <vector>

#include "indexer/LanguageSpec.h"
#include "indexer/PatternMatcher.h"
#include "support/Language.h"
#include "support/Status.h"
#include "views/FileFacts.h"

namespace nib::extraction {

// What a capture name (`@definition.function`, `@scope.block`, ...) makes of the node it captures.
enum class Role : uint8_t {
  Ignore, Name, Container, ScopeFunction, ScopeBlock, ScopeClass, ScopeNamespace, Definition, Declaration,
  RefMember, RefQualified, Receiver, Call, CallName, Import, ImportModule, ImportName, ImportAlias, Include,
  IncludePath, Skip, RequireCheck, SelfCheck,
};

struct CaptureInfo {
  Role role = Role::Ignore;
  SymbolKind kind = SymbolKind::Unknown;
};

// A language's patterns compiled once per process, with their capture names decoded.
struct CompiledLanguage {
  const LanguageSpec* spec = nullptr;
  PatternSet patterns;
  std::vector<CaptureInfo> captures;
  std::vector<bool> identifierSymbols;  // indexed by TSSymbol
  Status status;
};

// The compiled patterns of `lang` (compiled on first use, thread-safe); `status` says why a
// language has none.
const CompiledLanguage& compiled(Language lang);

// Compiles every language's patterns, and checks that each pattern file is still a valid
// tree-sitter query too (editors and tools read them); the first failure names the language.
Status checkCompiledLanguages();

}  // namespace nib::extraction
