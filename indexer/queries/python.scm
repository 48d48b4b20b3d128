(function_definition) @scope.function
(lambda) @scope.function
[(list_comprehension) (set_comprehension) (dictionary_comprehension) (generator_expression)] @scope.block
(class_definition body: (block) @scope.class)

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(parameters (identifier) @name @definition.parameter)
(parameters (default_parameter name: (identifier) @name) @definition.parameter)
(parameters (typed_parameter (identifier) @name) @definition.parameter)
(parameters (typed_default_parameter name: (identifier) @name) @definition.parameter)
(parameters (list_splat_pattern (identifier) @name) @definition.parameter)
(parameters (dictionary_splat_pattern (identifier) @name) @definition.parameter)
(lambda_parameters (identifier) @name @definition.parameter)
(expression_statement (assignment left: (identifier) @name) @definition.variable)
(expression_statement (assignment left: (pattern_list (identifier) @name)) @definition.variable)
(expression_statement (assignment left: (tuple_pattern (identifier) @name)) @definition.variable)
(for_statement left: (identifier) @name @definition.variable)
(for_statement left: (pattern_list (identifier) @name) @definition.variable)
(for_in_clause left: (identifier) @name @definition.variable)
(for_in_clause left: (pattern_list (identifier) @name) @definition.variable)
(as_pattern_target (identifier) @name @definition.variable)
(except_clause (as_pattern alias: (as_pattern_target (identifier) @name)) @definition.variable)
(named_expression name: (identifier) @name) @definition.variable
(expression_statement (assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)) @definition.field)

(attribute object: (_) @receiver attribute: (identifier) @reference.member)
(call function: (identifier) @call.name) @call
(call function: (attribute attribute: (identifier) @call.name)) @call
(keyword_argument name: (identifier) @skip)

(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name) @import
(import_from_statement module_name: (_) @import.module name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
