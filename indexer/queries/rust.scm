(function_item) @scope.function
(closure_expression) @scope.function
(block) @scope.block
(for_expression) @scope.block
(match_arm) @scope.block
(if_expression) @scope.block
(field_declaration_list) @scope.class
(enum_variant_list) @scope.class
(trait_item body: (declaration_list) @scope.class)
(impl_item type: [(type_identifier) @container (generic_type type: (type_identifier) @container) (scoped_type_identifier name: (type_identifier) @container)] body: (declaration_list) @scope.class)
(mod_item body: (declaration_list) @scope.namespace)

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @declaration.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.union
(enum_item name: (type_identifier) @name) @definition.enum
(enum_variant name: (identifier) @name) @definition.enum-member
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type-alias
(mod_item name: (identifier) @name) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(macro_definition name: (identifier) @name) @definition.macro
(field_declaration name: (field_identifier) @name) @definition.field
(associated_type name: (type_identifier) @name) @definition.type-alias
(type_parameter name: (type_identifier) @name) @definition.type-parameter
(parameter pattern: (identifier) @name) @definition.parameter
(parameter pattern: (mut_pattern (identifier) @name)) @definition.parameter
(let_declaration pattern: (identifier) @name) @definition.variable
(let_declaration pattern: (mut_pattern (identifier) @name)) @definition.variable
(let_declaration pattern: (tuple_pattern (identifier) @name)) @definition.variable
(closure_parameters (identifier) @name @definition.parameter)
(closure_parameters (parameter pattern: (identifier) @name) @definition.parameter)
(for_expression pattern: (identifier) @name) @definition.variable
(for_expression pattern: (tuple_pattern (identifier) @name)) @definition.variable
(tuple_struct_pattern (identifier) @name @definition.variable)
(let_condition pattern: (identifier) @name) @definition.variable

(field_expression value: (_) @receiver field: (field_identifier) @reference.member)
(scoped_identifier path: (_) @receiver name: (identifier) @reference.qualified)
(scoped_type_identifier path: (_) @receiver name: (type_identifier) @reference.qualified)
(call_expression function: (identifier) @call.name) @call
(call_expression function: (field_expression field: (field_identifier) @call.name)) @call
(call_expression function: (scoped_identifier name: (identifier) @call.name)) @call
(macro_invocation macro: (identifier) @call.name) @call
(field_initializer field: (field_identifier) @skip)
(lifetime (identifier) @skip)

(use_declaration argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
(use_declaration argument: (use_as_clause path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name) alias: (identifier) @import.alias)) @import
(use_declaration argument: (scoped_use_list path: (_) @import.module list: (use_list (identifier) @import.name))) @import
(use_declaration argument: (scoped_use_list path: (_) @import.module list: (use_list (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias)))) @import
(use_declaration argument: (identifier) @import.module) @import
