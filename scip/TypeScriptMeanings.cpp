#include "scip/TypeScriptMeanings.h"

#include <memory>
#include <string_view>

#include <tree_sitter/api.h>

extern "C" {
const TSLanguage* tree_sitter_typescript();
const TSLanguage* tree_sitter_tsx();
const TSLanguage* tree_sitter_javascript();
}

namespace nib::typescript_meanings {

namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Specifiers bind a name with all its meanings: `import { Error }`, `export { Opts as O }`.
bool inSpecifier(TSNode node) {
  for (int depth = 0; depth < 3 && !ts_node_is_null(node); ++depth, node = ts_node_parent(node)) {
    std::string_view type = ts_node_type(node);
    if (type == "import_specifier" || type == "export_specifier" || type == "import_clause" || type == "namespace_import" ||
        type == "namespace_export")
      return true;
  }
  return false;
}

Meaning meaningOf(TSNode root, uint32_t offset) {
  TSNode node = ts_node_named_descendant_for_byte_range(root, offset, offset + 1);
  if (ts_node_is_null(node) || ts_node_start_byte(node) != offset) return Meaning::Both;
  if (inSpecifier(node)) return Meaning::Both;
  std::string_view type = ts_node_type(node);
  // tree-sitter-typescript spells a name in a type (an annotation, `extends` of an interface,
  // `implements`, a type argument, `x as T`) as type_identifier; `typeof X` in a type is an
  // identifier, as TypeScript reads it: a value.
  if (type == "type_identifier") return Meaning::Type;
  if (type == "identifier" || type == "shorthand_property_identifier" || type == "property_identifier")
    return Meaning::Value;
  return Meaning::Both;
}

}  // namespace

Dialect dialectOf(std::string_view path) {
  if (endsWith(path, ".tsx")) return Dialect::Tsx;
  if (endsWith(path, ".ts") || endsWith(path, ".mts") || endsWith(path, ".cts")) return Dialect::TypeScript;
  return Dialect::JavaScript;
}

std::vector<Meaning> meaningsAt(std::string_view text, Dialect dialect, const std::vector<uint32_t>& offsets) {
  std::vector<Meaning> out(offsets.size(), Meaning::Both);
  if (offsets.empty()) return out;
  const TSLanguage* language = dialect == Dialect::Tsx        ? tree_sitter_tsx()
                               : dialect == Dialect::TypeScript ? tree_sitter_typescript()
                                                                : tree_sitter_javascript();
  std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser(ts_parser_new(), ts_parser_delete);
  if (!ts_parser_set_language(parser.get(), language)) return out;
  std::unique_ptr<TSTree, decltype(&ts_tree_delete)> tree(
      ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<uint32_t>(text.size())), ts_tree_delete);
  if (!tree) return out;
  TSNode root = ts_tree_root_node(tree.get());
  for (size_t i = 0; i < offsets.size(); ++i)
    if (offsets[i] < text.size()) out[i] = meaningOf(root, offsets[i]);
  return out;
}

}  // namespace nib::typescript_meanings
