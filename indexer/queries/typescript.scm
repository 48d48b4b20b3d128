; TypeScript/TSX-only patterns (ecmascript.scm holds the shared ones).
(interface_body) @scope.class
(enum_body) @scope.class
(internal_module body: (statement_block) @scope.namespace)

(function_signature name: (identifier) @name) @declaration.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(class name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type-alias
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body (property_identifier) @name @definition.enum-member)
(enum_body (enum_assignment name: (property_identifier) @name) @definition.enum-member)
(internal_module name: (identifier) @name) @definition.namespace
(method_signature name: (property_identifier) @name) @declaration.method
(abstract_method_signature name: (property_identifier) @name) @declaration.method
(public_field_definition name: (property_identifier) @name) @definition.field
(property_signature name: (property_identifier) @name) @definition.field
(type_parameter name: (type_identifier) @name) @definition.type-parameter
(required_parameter pattern: (identifier) @name) @definition.parameter
(optional_parameter pattern: (identifier) @name) @definition.parameter
(required_parameter pattern: (rest_pattern (identifier) @name)) @definition.parameter

(nested_type_identifier module: (_) @receiver name: (type_identifier) @reference.qualified)
