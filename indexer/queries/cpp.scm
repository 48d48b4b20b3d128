(function_definition) @scope.function
(lambda_expression) @scope.function
(compound_statement) @scope.block
(for_statement) @scope.block
(for_range_loop) @scope.block
(template_declaration) @scope.block
(field_declaration_list) @scope.class
(enumerator_list) @scope.namespace
(namespace_definition body: (declaration_list) @scope.namespace)

(namespace_definition name: (namespace_identifier) @name) @definition.namespace
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(function_definition declarator: (function_declarator declarator: (operator_name) @name)) @definition.method
(function_definition declarator: (function_declarator declarator: (destructor_name) @name)) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @container name: (identifier) @name))) @definition.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @container name: (destructor_name) @name))) @definition.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @container name: (operator_name) @name))) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @container name: (identifier) @name)))) @definition.method
(function_definition declarator: (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @container name: (identifier) @name)))) @definition.method
(declaration declarator: (function_declarator declarator: (identifier) @name)) @declaration.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @declaration.function
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @declaration.method
(field_declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))) @declaration.method
(field_declaration declarator: (reference_declarator (function_declarator declarator: (field_identifier) @name))) @declaration.method
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_params (identifier) @name @definition.parameter)
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum-member
(type_definition declarator: (type_identifier) @name) @definition.type-alias
(alias_declaration name: (type_identifier) @name) @definition.type-alias
(type_parameter_declaration (type_identifier) @name) @definition.type-parameter
(optional_type_parameter_declaration name: (type_identifier) @name) @definition.type-parameter
(variadic_type_parameter_declaration (type_identifier) @name) @definition.type-parameter
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (reference_declarator (field_identifier) @name)) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
(parameter_declaration declarator: (identifier) @name) @definition.parameter
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @name)) @definition.parameter
(parameter_declaration declarator: (reference_declarator (identifier) @name)) @definition.parameter
(optional_parameter_declaration declarator: (identifier) @name) @definition.parameter
(optional_parameter_declaration declarator: (reference_declarator (identifier) @name)) @definition.parameter
(declaration declarator: (identifier) @name) @definition.variable
(declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable
(declaration declarator: (pointer_declarator declarator: (identifier) @name)) @definition.variable
(declaration declarator: (reference_declarator (identifier) @name)) @definition.variable
(declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))) @definition.variable
(declaration declarator: (init_declarator declarator: (reference_declarator (identifier) @name))) @definition.variable
(declaration declarator: (array_declarator declarator: (identifier) @name)) @definition.variable
(for_range_loop declarator: (identifier) @name) @definition.variable
(for_range_loop declarator: (reference_declarator (identifier) @name)) @definition.variable

(field_expression argument: (_) @receiver field: (field_identifier) @reference.member)
(qualified_identifier scope: (_) @receiver name: (identifier) @reference.qualified)
(qualified_identifier scope: (_) @receiver name: (type_identifier) @reference.qualified)
(call_expression function: (identifier) @call.name) @call
(call_expression function: (field_expression field: (field_identifier) @call.name)) @call
(call_expression function: (qualified_identifier name: (identifier) @call.name)) @call
(labeled_statement label: (statement_identifier) @skip)
(goto_statement label: (statement_identifier) @skip)

(preproc_include path: (_) @include.path) @include
