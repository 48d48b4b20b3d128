(function_declaration) @scope.function
(method_declaration) @scope.function
(func_literal) @scope.function
(block) @scope.block
(for_statement) @scope.block
(if_statement) @scope.block
(type_switch_statement) @scope.block
(field_declaration_list) @scope.class
(interface_type) @scope.class

(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration type: [(type_identifier) @container (pointer_type (type_identifier) @container) (generic_type type: (type_identifier) @container) (pointer_type (generic_type type: (type_identifier) @container))])) name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (pointer_type) (slice_type) (map_type) (function_type) (channel_type) (array_type) (generic_type)]) @definition.type-alias
(type_alias name: (type_identifier) @name) @definition.type-alias
(field_declaration name: (field_identifier) @name) @definition.field
(method_elem name: (field_identifier) @name) @declaration.method
(parameter_declaration name: (identifier) @name) @definition.parameter
(variadic_parameter_declaration name: (identifier) @name) @definition.parameter
(const_spec name: (identifier) @name) @definition.constant
(var_spec name: (identifier) @name) @definition.variable
(short_var_declaration left: (expression_list (identifier) @name)) @definition.variable
(range_clause left: (expression_list (identifier) @name)) @definition.variable
(type_parameter_declaration name: (identifier) @name) @definition.type-parameter

(selector_expression operand: (_) @receiver field: (field_identifier) @reference.member)
(qualified_type package: (package_identifier) @receiver name: (type_identifier) @reference.member)
(call_expression function: (identifier) @call.name) @call
(call_expression function: (selector_expression field: (field_identifier) @call.name)) @call
(package_clause (package_identifier) @skip)
(labeled_statement label: (label_name) @skip)
(keyed_element . (literal_element (identifier) @skip))

(import_spec name: (package_identifier) @import.alias path: (interpreted_string_literal (interpreted_string_literal_content) @import.module)) @import
(import_spec !name path: (interpreted_string_literal (interpreted_string_literal_content) @import.module)) @import
