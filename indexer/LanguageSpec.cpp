#include "indexer/LanguageSpec.h"

#include "indexer/EmbeddedQueries.h"

extern "C" {
const TSLanguage* tree_sitter_c();
const TSLanguage* tree_sitter_cpp();
const TSLanguage* tree_sitter_python();
const TSLanguage* tree_sitter_javascript();
const TSLanguage* tree_sitter_typescript();
const TSLanguage* tree_sitter_tsx();
const TSLanguage* tree_sitter_go();
const TSLanguage* tree_sitter_rust();
const TSLanguage* tree_sitter_java();
}

namespace nib {
namespace {
const std::vector<std::string_view> kCIdentifiers = {"identifier", "type_identifier", "field_identifier",
                                                     "statement_identifier"};
const std::vector<std::string_view> kCppIdentifiers = {"identifier", "type_identifier", "field_identifier",
                                                       "statement_identifier", "namespace_identifier",
                                                       "destructor_name", "operator_name"};
const std::vector<std::string_view> kJsIdentifiers = {"identifier", "property_identifier",
                                                      "shorthand_property_identifier",
                                                      "shorthand_property_identifier_pattern",
                                                      "statement_identifier", "private_property_identifier"};
const std::vector<std::string_view> kTsIdentifiers = {"identifier", "property_identifier", "type_identifier",
                                                      "shorthand_property_identifier",
                                                      "shorthand_property_identifier_pattern",
                                                      "statement_identifier", "private_property_identifier"};

const LanguageSpec kSpecs[] = {
    {Language::C, tree_sitter_c, {queries::c}, kCIdentifiers, {}, false, "::", ImportStyle::CInclude},
    {Language::Cpp, tree_sitter_cpp, {queries::cpp}, kCppIdentifiers, {"this"}, true, "::", ImportStyle::CInclude},
    {Language::Python, tree_sitter_python, {queries::python}, {"identifier"}, {"self", "cls"}, false, ".",
     ImportStyle::Python},
    {Language::JavaScript, tree_sitter_javascript, {queries::ecmascript, queries::javascript}, kJsIdentifiers, {"this"}, false, ".",
     ImportStyle::JavaScript},
    {Language::TypeScript, tree_sitter_typescript, {queries::ecmascript, queries::typescript}, kTsIdentifiers, {"this"}, false, ".",
     ImportStyle::JavaScript},
    {Language::Tsx, tree_sitter_tsx, {queries::ecmascript, queries::typescript}, kTsIdentifiers, {"this"}, false, ".",
     ImportStyle::JavaScript},
    {Language::Go, tree_sitter_go, {queries::go},
     {"identifier", "field_identifier", "type_identifier", "package_identifier", "label_name"}, {}, false, ".",
     ImportStyle::Go},
    {Language::Rust, tree_sitter_rust, {queries::rust},
     {"identifier", "field_identifier", "type_identifier", "shorthand_field_identifier"}, {"self"}, false, "::",
     ImportStyle::Rust},
    {Language::Java, tree_sitter_java, {queries::java}, {"identifier", "type_identifier"}, {"this"}, true, ".",
     ImportStyle::Java},
};
}  // namespace

const LanguageSpec* languageSpec(Language lang) {
  for (const LanguageSpec& s : kSpecs)
    if (s.language == lang) return &s;
  return nullptr;
}

std::string_view grammarVersions() { return queries::grammarVersions; }

std::string LanguageSpec::query() const {
  std::string out;
  for (std::string_view part : queryParts) {
    out += part;
    out += '\n';
  }
  return out;
}

}  // namespace nib
