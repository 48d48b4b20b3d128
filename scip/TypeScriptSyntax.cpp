#include "scip/TypeScriptSyntax.h"

#include <tree_sitter/api.h>

#include <algorithm>

#include "support/Language.h"

extern "C" {
const TSLanguage* tree_sitter_typescript();
const TSLanguage* tree_sitter_tsx();
const TSLanguage* tree_sitter_javascript();
}

namespace nib::typescript_syntax {

namespace {

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

std::string_view textOf(std::string_view text, TSNode node) {
  uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
  return start <= end && end <= text.size() ? text.substr(start, end - start) : std::string_view();
}

// Every node under `root`, in document order.
template <typename Visit>
void forEachNode(TSNode root, Visit visit) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (bool more = true; more;) {
    visit(ts_tree_cursor_current_node(&cursor));
    if (ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor))
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
  }
  ts_tree_cursor_delete(&cursor);
}

bool isIdentifier(TSNode node) {
  return !ts_node_is_null(node) && std::string_view(ts_node_type(node)) == "identifier";
}

// `{ I as L }` of an import or export clause; names written as strings (`"a-b" as c`) are left
// out: no symbol of the indexer's is spelled so.
void addSpecifier(std::string_view text, TSNode specifier, std::optional<uint32_t> sourceAt, bool exported,
                  std::vector<Binding>& out) {
  TSNode name = ts_node_child_by_field_name(specifier, "name", 4);
  TSNode alias = ts_node_child_by_field_name(specifier, "alias", 5);
  if (!isIdentifier(name) || (!ts_node_is_null(alias) && !isIdentifier(alias))) return;
  Binding b;
  b.imported = std::string(textOf(text, name));
  b.importedAt = ts_node_start_byte(name);
  b.local = ts_node_is_null(alias) ? b.imported : std::string(textOf(text, alias));
  b.localAt = ts_node_is_null(alias) ? b.importedAt : ts_node_start_byte(alias);
  b.sourceAt = sourceAt;
  b.exported = exported;
  out.push_back(std::move(b));
}

void importStatement(std::string_view text, TSNode statement, ModuleSyntax& out) {
  TSNode source = ts_node_child_by_field_name(statement, "source", 6);
  if (ts_node_is_null(source)) return;  // `import x = require(...)`
  const uint32_t sourceAt = ts_node_start_byte(source);
  for (uint32_t i = 0; i < ts_node_named_child_count(statement); ++i) {
    TSNode clause = ts_node_named_child(statement, i);
    if (std::string_view(ts_node_type(clause)) != "import_clause") continue;
    for (uint32_t j = 0; j < ts_node_named_child_count(clause); ++j) {
      TSNode part = ts_node_named_child(clause, j);
      std::string_view type = ts_node_type(part);
      if (type == "identifier") {  // `import L from "m"`: the module's default export
        Binding b;
        b.imported = "default";
        b.local = std::string(textOf(text, part));
        b.importedAt = b.localAt = ts_node_start_byte(part);
        b.sourceAt = sourceAt;
        out.bindings.push_back(std::move(b));
      } else if (type == "named_imports") {
        for (uint32_t k = 0; k < ts_node_named_child_count(part); ++k) {
          TSNode specifier = ts_node_named_child(part, k);
          if (std::string_view(ts_node_type(specifier)) == "import_specifier")
            addSpecifier(text, specifier, sourceAt, false, out.bindings);
        }
      }
    }
  }
}

// A value TypeScript declares as a function or class of its own (`export default function () {}`,
// `export default class {}`, an arrow function), or follows as an alias (`export default a.b`, a
// name's member): not an expression that only the statement declares.
bool declaresItself(TSNode value) {
  std::string_view type = ts_node_type(value);
  return type == "function" || type == "function_expression" || type == "arrow_function" || type == "class" ||
         type == "generator_function" || type == "member_expression";
}

// `export default VALUE;`: a name, or an expression whose declaration is the statement.
void defaultExport(std::string_view text, TSNode statement, TSNode value, ModuleSyntax& out) {
  bool named = isIdentifier(value);
  if (!named && declaresItself(value)) return;
  for (uint32_t i = 0; i < ts_node_child_count(statement); ++i) {
    TSNode keyword = ts_node_child(statement, i);
    if (std::string_view(ts_node_type(keyword)) != "default") continue;
    TSPoint at = ts_node_start_point(keyword);
    DefaultAssignment assignment{named ? std::string(textOf(text, value)) : std::string(), ts_node_start_byte(keyword),
                                 at.row, at.column, std::nullopt};
    if (!named) {
      // TypeScript's server answers the statement's extent; nib's sites lie on one line.
      uint32_t start = ts_node_start_byte(statement), end = ts_node_end_byte(statement);
      size_t newline = text.find('\n', start);
      if (newline != std::string_view::npos && newline < end) end = static_cast<uint32_t>(newline);
      if (end > start && text[end - 1] == '\r') --end;
      TSPoint s = ts_node_start_point(statement);
      assignment.statement = DefaultAssignment::Statement{start, s.row, s.column, end - start};
    }
    out.defaultAssignment = std::move(assignment);
    break;
  }
}

void exportStatement(std::string_view text, TSNode statement, ModuleSyntax& out) {
  TSNode value = ts_node_child_by_field_name(statement, "value", 5);
  if (!ts_node_is_null(value)) {
    defaultExport(text, statement, value, out);
    return;
  }
  TSNode source = ts_node_child_by_field_name(statement, "source", 6);
  std::optional<uint32_t> sourceAt;
  if (!ts_node_is_null(source)) sourceAt = ts_node_start_byte(source);
  for (uint32_t i = 0; i < ts_node_named_child_count(statement); ++i) {
    TSNode clause = ts_node_named_child(statement, i);
    if (std::string_view(ts_node_type(clause)) != "export_clause") continue;
    for (uint32_t k = 0; k < ts_node_named_child_count(clause); ++k) {
      TSNode specifier = ts_node_named_child(clause, k);
      if (std::string_view(ts_node_type(specifier)) == "export_specifier") addSpecifier(text, specifier, sourceAt, true, out.bindings);
    }
  }
}

}  // namespace

Dialect dialectOf(std::string_view path) {
  switch (detectLanguage(path, "")) {
    case Language::Tsx: return Dialect::Tsx;
    case Language::TypeScript: return Dialect::TypeScript;
    default: return Dialect::JavaScript;
  }
}

std::unique_ptr<SyntaxTree> SyntaxTree::parse(std::string_view text, Dialect dialect) {
  const TSLanguage* language = dialect == Dialect::Tsx        ? tree_sitter_tsx()
                               : dialect == Dialect::TypeScript ? tree_sitter_typescript()
                                                                : tree_sitter_javascript();
  std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser(ts_parser_new(), ts_parser_delete);
  if (!ts_parser_set_language(parser.get(), language)) return nullptr;
  TSTree* tree = ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<uint32_t>(text.size()));
  if (!tree) return nullptr;
  return std::unique_ptr<SyntaxTree>(new SyntaxTree(text, tree));
}

SyntaxTree::~SyntaxTree() { ts_tree_delete(tree_); }

Meaning SyntaxTree::meaningAt(uint32_t offset) const {
  if (offset >= text_.size()) return Meaning::Both;
  TSNode node = ts_node_named_descendant_for_byte_range(ts_tree_root_node(tree_), offset, offset + 1);
  if (ts_node_is_null(node) || ts_node_start_byte(node) != offset || inSpecifier(node)) return Meaning::Both;
  std::string_view type = ts_node_type(node);
  // tree-sitter-typescript spells a name in a type (an annotation, `extends` of an interface,
  // `implements`, a type argument, `x as T`) as type_identifier; `typeof X` in a type is an
  // identifier, as TypeScript reads it: a value.
  if (type == "type_identifier") return Meaning::Type;
  if (type == "identifier" || type == "shorthand_property_identifier" || type == "property_identifier")
    return Meaning::Value;
  return Meaning::Both;
}

namespace {

// Each identifier node that spells `word` whole (not a longer name's part, nor in a string or a
// comment), found from the text: cheaper than walking every node for a rare word.
template <typename Visit>
void forEachIdentifier(std::string_view text, TSTree* tree, std::string_view word, Visit visit) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    TSNode node = ts_node_named_descendant_for_byte_range(ts_tree_root_node(tree), static_cast<uint32_t>(at),
                                                          static_cast<uint32_t>(at + word.size()));
    if (!ts_node_is_null(node) && std::string_view(ts_node_type(node)) == "identifier" && ts_node_start_byte(node) == at &&
        ts_node_end_byte(node) == at + word.size())
      visit(node);
  }
}

}  // namespace

std::vector<uint32_t> SyntaxTree::argumentsUses() const {
  std::vector<uint32_t> out;
  forEachIdentifier(text_, tree_, "arguments", [&](TSNode node) { out.push_back(ts_node_start_byte(node)); });
  return out;
}

std::vector<uint32_t> SyntaxTree::requireCalls() const {
  std::vector<uint32_t> out;
  forEachIdentifier(text_, tree_, "require", [&](TSNode node) {
    TSNode call = ts_node_parent(node);
    if (ts_node_is_null(call) || std::string_view(ts_node_type(call)) != "call_expression") return;
    TSNode function = ts_node_child_by_field_name(call, "function", 8);
    if (!ts_node_is_null(function) && ts_node_eq(function, node)) out.push_back(ts_node_start_byte(node));
  });
  return out;
}

std::vector<uint32_t> SyntaxTree::shorthandBindings() const {
  std::vector<uint32_t> out;
  forEachNode(ts_tree_root_node(tree_), [&](TSNode node) {
    if (std::string_view(ts_node_type(node)) == "shorthand_property_identifier_pattern") out.push_back(ts_node_start_byte(node));
  });
  return out;
}

std::vector<uint32_t> SyntaxTree::objectShorthands() const {
  std::vector<uint32_t> out;
  forEachNode(ts_tree_root_node(tree_), [&](TSNode node) {
    if (std::string_view(ts_node_type(node)) == "shorthand_property_identifier") out.push_back(ts_node_start_byte(node));
  });
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> SyntaxTree::typeNames() const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  forEachNode(ts_tree_root_node(tree_), [&](TSNode node) {
    if (std::string_view(ts_node_type(node)) != "type_identifier") return;
    // The type an interface extends or a class implements (`extends NodeJS.Process`, `implements
    // ArrayLike<T>`; not its type arguments) is a heritage name, not a type reference.
    TSNode up = node, parent = ts_node_parent(node);
    while (!ts_node_is_null(parent)) {
      std::string_view kind = ts_node_type(parent);
      if (kind != "nested_type_identifier" && kind != "generic_type") break;
      TSNode name = ts_node_child_by_field_name(parent, "name", 4);
      if (ts_node_is_null(name) || !ts_node_eq(name, up)) break;
      up = parent;
      parent = ts_node_parent(parent);
    }
    if (!ts_node_is_null(parent)) {
      std::string_view kind = ts_node_type(parent);
      if (kind == "extends_type_clause" || kind == "implements_clause") return;
    }
    out.emplace_back(ts_node_start_byte(node), ts_node_end_byte(node) - ts_node_start_byte(node));
  });
  return out;
}

std::vector<SyntaxTree::ObjectArgument> SyntaxTree::objectArguments() const {
  std::vector<ObjectArgument> out;
  forEachNode(ts_tree_root_node(tree_), [&](TSNode call) {
    std::string_view type = ts_node_type(call);
    if (type != "call_expression" && type != "new_expression") return;
    TSNode callee = ts_node_child_by_field_name(call, type == "new_expression" ? "constructor" : "function",
                                                type == "new_expression" ? 11 : 8);
    TSNode arguments = ts_node_child_by_field_name(call, "arguments", 9);
    if (ts_node_is_null(callee) || ts_node_is_null(arguments)) return;
    if (std::string_view(ts_node_type(callee)) == "member_expression") callee = ts_node_child_by_field_name(callee, "property", 8);
    if (ts_node_is_null(callee)) return;
    std::string_view calleeType = ts_node_type(callee);
    if (calleeType != "identifier" && calleeType != "property_identifier") return;
    size_t index = 0;
    for (uint32_t i = 0; i < ts_node_named_child_count(arguments); ++i) {
      TSNode argument = ts_node_named_child(arguments, i);
      std::string_view kind = ts_node_type(argument);
      if (kind == "comment") continue;
      if (kind == "object") {
        ObjectArgument a{ts_node_start_byte(callee), index, {}};
        for (uint32_t k = 0; k < ts_node_named_child_count(argument); ++k) {
          TSNode pair = ts_node_named_child(argument, k);
          if (std::string_view(ts_node_type(pair)) != "pair") continue;
          TSNode key = ts_node_child_by_field_name(pair, "key", 3);
          if (ts_node_is_null(key) || std::string_view(ts_node_type(key)) != "property_identifier") continue;
          a.keys.emplace_back(ts_node_start_byte(key), std::string(textOf(text_, key)));
        }
        if (!a.keys.empty()) out.push_back(std::move(a));
      }
      ++index;
    }
  });
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> SyntaxTree::docComments() const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  forEachNode(ts_tree_root_node(tree_), [&](TSNode node) {
    if (std::string_view(ts_node_type(node)) != "comment") return;
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    if (end - start >= 5 && text_.compare(start, 3, "/**") == 0) out.emplace_back(start, end);
  });
  return out;
}

std::optional<std::pair<uint32_t, uint32_t>> SyntaxTree::scopeOf(uint32_t offset) const {
  TSNode name = ts_node_named_descendant_for_byte_range(ts_tree_root_node(tree_), offset, offset + 1);
  if (ts_node_is_null(name) || ts_node_start_byte(name) != offset) return std::nullopt;
  static const std::string_view kScopes[] = {"statement_block", "program", "arrow_function", "function_declaration",
                                             "function_expression", "function", "generator_function_declaration",
                                             "method_definition", "class_body", "for_statement", "for_in_statement",
                                             "catch_clause", "switch_body"};
  for (TSNode up = ts_node_parent(name); !ts_node_is_null(up); up = ts_node_parent(up)) {
    std::string_view type = ts_node_type(up);
    if (std::find(std::begin(kScopes), std::end(kScopes), type) == std::end(kScopes)) continue;
    // A function's own name is declared in the scope around it, not in its body.
    TSNode own = ts_node_child_by_field_name(up, "name", 4);
    if (!ts_node_is_null(own) && ts_node_eq(own, name)) continue;
    return std::pair{ts_node_start_byte(up), ts_node_end_byte(up)};
  }
  return std::nullopt;
}

std::vector<SyntaxTree::ModifiedConstructor> SyntaxTree::modifiedConstructors() const {
  std::vector<ModifiedConstructor> out;
  forEachNode(ts_tree_root_node(tree_), [&](TSNode cls) {
    std::string_view type = ts_node_type(cls);
    if (type != "class_declaration" && type != "abstract_class_declaration" && type != "class") return;
    TSNode name = ts_node_child_by_field_name(cls, "name", 4), body = ts_node_child_by_field_name(cls, "body", 4);
    if (ts_node_is_null(name) || ts_node_is_null(body)) return;
    for (uint32_t i = 0; i < ts_node_named_child_count(body); ++i) {
      TSNode member = ts_node_named_child(body, i);
      TSNode method = ts_node_child_by_field_name(member, "name", 4);
      if (std::string_view(ts_node_type(member)) != "method_definition" || textOf(text_, method) != "constructor") continue;
      TSNode first = ts_node_child(member, 0);
      if (ts_node_eq(first, method)) continue;  // no modifier: the indexer declares it
      TSPoint at = ts_node_start_point(first);
      out.push_back({ts_node_start_byte(name), ts_node_start_byte(first), at.row, at.column,
                     ts_node_end_byte(first) - ts_node_start_byte(first)});
    }
  });
  return out;
}

ModuleSyntax SyntaxTree::moduleSyntax() const {
  ModuleSyntax out;
  TSNode root = ts_tree_root_node(tree_);
  for (uint32_t i = 0; i < ts_node_named_child_count(root); ++i) {
    TSNode statement = ts_node_named_child(root, i);
    std::string_view type = ts_node_type(statement);
    if (type == "import_statement") importStatement(text_, statement, out);
    else if (type == "export_statement") exportStatement(text_, statement, out);
  }
  return out;
}

}  // namespace nib::typescript_syntax
