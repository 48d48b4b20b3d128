(function_declaration) @scope.function
(generator_function_declaration) @scope.function
(function_expression) @scope.function
(arrow_function) @scope.function
(method_definition) @scope.function
(statement_block) @scope.block
(for_statement) @scope.block
(for_in_statement) @scope.block
(class_body) @scope.class
(interface_body) @scope.class
(enum_body) @scope.class
(internal_module body: (statement_block) @scope.namespace)

(function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @declaration.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(class name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type-alias
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body (property_identifier) @name @definition.enum-member)
(enum_body (enum_assignment name: (property_identifier) @name) @definition.enum-member)
(internal_module name: (identifier) @name) @definition.namespace
(method_definition name: (property_identifier) @name) @definition.method
(method_signature name: (property_identifier) @name) @declaration.method
(abstract_method_signature name: (property_identifier) @name) @declaration.method
(public_field_definition name: (property_identifier) @name) @definition.field
(property_signature name: (property_identifier) @name) @definition.field
(type_parameter name: (type_identifier) @name) @definition.type-parameter
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
(variable_declarator name: (identifier) @name) @definition.variable
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name)) @definition.variable
(variable_declarator name: (array_pattern (identifier) @name)) @definition.variable
(required_parameter pattern: (identifier) @name) @definition.parameter
(optional_parameter pattern: (identifier) @name) @definition.parameter
(required_parameter pattern: (rest_pattern (identifier) @name)) @definition.parameter
(arrow_function parameter: (identifier) @name @definition.parameter)
(for_in_statement left: (identifier) @name @definition.variable)
(catch_clause parameter: (identifier) @name @definition.variable)

(member_expression object: (_) @receiver property: (property_identifier) @reference.member)
(nested_type_identifier module: (_) @receiver name: (type_identifier) @reference.qualified)
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
