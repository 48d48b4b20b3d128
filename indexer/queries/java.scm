(method_declaration) @scope.function
(constructor_declaration) @scope.function
(lambda_expression) @scope.function
(block) @scope.block
(for_statement) @scope.block
(enhanced_for_statement) @scope.block
(catch_clause) @scope.block
(class_body) @scope.class
(interface_body) @scope.class
(enum_body) @scope.class
(record_declaration body: (class_body) @scope.class)

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_constant name: (identifier) @name) @definition.enum-member
(method_declaration name: (identifier) @name body: (block)) @definition.method
(method_declaration name: (identifier) @name !body) @declaration.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(formal_parameter name: (identifier) @name) @definition.parameter
(spread_parameter (variable_declarator name: (identifier) @name)) @definition.parameter
(catch_formal_parameter name: (identifier) @name) @definition.parameter
(local_variable_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.variable
(enhanced_for_statement name: (identifier) @name) @definition.variable
(lambda_expression parameters: (identifier) @name @definition.parameter)
(inferred_parameters (identifier) @name @definition.parameter)
(type_parameter (type_identifier) @name) @definition.type-parameter

(field_access object: (_) @receiver field: (identifier) @reference.member)
(method_invocation object: (_) @receiver name: (identifier) @reference.member)
(scoped_type_identifier (_) @receiver (type_identifier) @reference.qualified)
(method_invocation !object name: (identifier) @call.name) @call
(method_invocation object: (_) name: (identifier) @call.name) @call
(object_creation_expression type: (type_identifier) @call.name) @call
(package_declaration (_) @skip)
(labeled_statement (identifier) @skip)

(import_declaration (scoped_identifier scope: (_) @import.module name: (identifier) @import.name)) @import
