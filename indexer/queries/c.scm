(function_definition) @scope.function
(compound_statement) @scope.block
(for_statement) @scope.block
(field_declaration_list) @scope.class
(enumerator_list) @scope.namespace

(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @declaration.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @declaration.function
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_params (identifier) @name @definition.parameter)
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum-member
(type_definition declarator: (type_identifier) @name) @definition.type-alias
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type-alias
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
(parameter_declaration declarator: (identifier) @name) @definition.parameter
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @name)) @definition.parameter
(parameter_declaration declarator: (array_declarator declarator: (identifier) @name)) @definition.parameter
(declaration declarator: (identifier) @name) @definition.variable
(declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable
(declaration declarator: (pointer_declarator declarator: (identifier) @name)) @definition.variable
(declaration declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))) @definition.variable
(declaration declarator: (array_declarator declarator: (identifier) @name)) @definition.variable
(declaration declarator: (init_declarator declarator: (array_declarator declarator: (identifier) @name))) @definition.variable

(field_expression argument: (_) @receiver field: (field_identifier) @reference.member)
(call_expression function: (identifier) @call.name) @call
(call_expression function: (field_expression field: (field_identifier) @call.name)) @call
(labeled_statement label: (statement_identifier) @skip)
(goto_statement label: (statement_identifier) @skip)

(preproc_include path: (_) @include.path) @include
