#include "indexer/CompiledPatterns.h"

#include <tree_sitter/api.h>

#include <array>
#include <mutex>
#include <string>
#include <string_view>

namespace nib::extraction {
namespace {

CaptureInfo decodeCapture(std::string_view name) {
  auto starts = [&](std::string_view p) { return name.substr(0, p.size()) == p; };
  if (name == "name") return {Role::Name};
  if (name == "container") return {Role::Container};
  if (name == "scope.function") return {Role::ScopeFunction};
  if (name == "scope.block") return {Role::ScopeBlock};
  if (name == "scope.class") return {Role::ScopeClass};
  if (name == "scope.namespace") return {Role::ScopeNamespace};
  if (starts("definition.")) return {Role::Definition, symbolKindFromName(name.substr(11))};
  if (starts("declaration.")) return {Role::Declaration, symbolKindFromName(name.substr(12))};
  if (name == "reference.member") return {Role::RefMember};
  if (name == "reference.qualified") return {Role::RefQualified};
  if (name == "receiver") return {Role::Receiver};
  if (name == "call") return {Role::Call};
  if (name == "call.name") return {Role::CallName};
  if (name == "import") return {Role::Import};
  if (name == "import.module") return {Role::ImportModule};
  if (name == "import.name") return {Role::ImportName};
  if (name == "import.alias") return {Role::ImportAlias};
  if (name == "include") return {Role::Include};
  if (name == "include.path") return {Role::IncludePath};
  if (name == "skip") return {Role::Skip};
  if (name == "_req") return {Role::RequireCheck};
  if (name == "_self") return {Role::SelfCheck};
  return {Role::Ignore};
}

const char* queryErrorName(TSQueryError e) {
  switch (e) {
    case TSQueryErrorSyntax: return "syntax error";
    case TSQueryErrorNodeType: return "unknown node type";
    case TSQueryErrorField: return "unknown field";
    case TSQueryErrorCapture: return "unknown capture";
    case TSQueryErrorStructure: return "impossible pattern";
    default: return "error";
  }
}

CompiledLanguage compile(const LanguageSpec* spec) {
  CompiledLanguage c;
  c.spec = spec;
  const TSLanguage* lang = spec->grammar();
  uint32_t abi = ts_language_version(lang);
  if (abi < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION || abi > TREE_SITTER_LANGUAGE_VERSION) {
    c.status = Status(ErrorCode::Unsupported, std::string("grammar for ") + languageName(spec->language) +
                                                  " has ABI " + std::to_string(abi) + ", the runtime accepts " +
                                                  std::to_string(TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION) + "-" +
                                                  std::to_string(TREE_SITTER_LANGUAGE_VERSION));
    return c;
  }
  auto patterns = PatternSet::compile(lang, spec->query());
  if (!patterns) {
    c.status = Status(ErrorCode::Internal, std::string("patterns for ") + languageName(spec->language) + ": " +
                                               patterns.status().message());
    return c;
  }
  c.patterns = std::move(*patterns);
  for (const std::string& name : c.patterns.captureNames()) c.captures.push_back(decodeCapture(name));
  uint32_t symbols = ts_language_symbol_count(lang);
  c.identifierSymbols.assign(symbols, false);
  for (TSSymbol s = 0; s < symbols; ++s) {
    if (ts_language_symbol_type(lang, s) != TSSymbolTypeRegular) continue;
    std::string_view name = ts_language_symbol_name(lang, s);
    for (std::string_view t : spec->identifierTypes)
      if (name == t) c.identifierSymbols[s] = true;
  }
  return c;
}

}  // namespace

const CompiledLanguage& compiled(Language lang) {
  static std::array<CompiledLanguage, kLanguageCount> table;
  static std::array<std::once_flag, kLanguageCount> once;
  auto i = static_cast<size_t>(lang);
  std::call_once(once[i], [&] {
    const LanguageSpec* spec = languageSpec(lang);
    if (!spec) {
      table[i].status = Status(ErrorCode::Unsupported, std::string("no grammar for ") + languageName(lang));
      return;
    }
    table[i] = compile(spec);
  });
  return table[i];
}


Status checkCompiledLanguages() {
  for (int i = 1; i < kLanguageCount; ++i) {
    const CompiledLanguage& c = compiled(static_cast<Language>(i));
    if (!c.status.isOk()) return c.status;
    // tree-sitter's own compiler also rejects impossible parent/child combinations.
    uint32_t errorOffset = 0;
    TSQueryError error = TSQueryErrorNone;
    std::string q = c.spec->query();
    TSQuery* query = ts_query_new(c.spec->grammar(), q.data(), static_cast<uint32_t>(q.size()), &errorOffset, &error);
    if (!query)
      return Status(ErrorCode::Internal, std::string("query for ") + languageName(c.spec->language) + ": " +
                                             queryErrorName(error) + " at offset " + std::to_string(errorOffset));
    ts_query_delete(query);
  }
  return Status::ok();
}

}  // namespace nib::extraction
