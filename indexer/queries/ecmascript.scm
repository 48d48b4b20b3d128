; Patterns shared by JavaScript and TypeScript/TSX: both grammars name these nodes alike.
; LanguageSpec prepends this file to javascript.scm and typescript.scm.
(member_expression object: (_) @receiver property: (property_identifier) @reference.member)
(call_expression function: (identifier) @call.name) @call
(call_expression function: (member_expression property: (property_identifier) @call.name)) @call
(new_expression constructor: (identifier) @call.name) @call
(labeled_statement label: (statement_identifier) @skip)
(pair key: (property_identifier) @skip)

(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name !alias))) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name alias: (identifier) @import.alias))) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (identifier) @import.alias) source: (string (string_fragment) @import.module)) @import
(lexical_declaration (variable_declarator name: (identifier) @import.alias value: (call_expression function: (identifier) @_req arguments: (arguments (string (string_fragment) @import.module))))) @import
(variable_declaration (variable_declarator name: (identifier) @import.alias value: (call_expression function: (identifier) @_req arguments: (arguments (string (string_fragment) @import.module))))) @import

(function_declaration) @scope.function
(generator_function_declaration) @scope.function
(function_expression) @scope.function
(arrow_function) @scope.function
(method_definition) @scope.function
(statement_block) @scope.block
(for_statement) @scope.block
(for_in_statement) @scope.block
(class_body) @scope.class

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (property_identifier) @name) @definition.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
(variable_declarator name: (identifier) @name) @definition.variable
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name)) @definition.variable
(variable_declarator name: (array_pattern (identifier) @name)) @definition.variable
(arrow_function parameter: (identifier) @name @definition.parameter)
(for_in_statement left: (identifier) @name @definition.variable)
(catch_clause parameter: (identifier) @name @definition.variable)
(expression_statement (assignment_expression left: (member_expression object: (this) @_self property: (property_identifier) @name)) @definition.field)
