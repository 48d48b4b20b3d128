; JavaScript-only patterns (ecmascript.scm holds the shared ones).
(class_declaration name: (identifier) @name) @definition.class
(class name: (identifier) @name) @definition.class
(field_definition property: (property_identifier) @name) @definition.field
(formal_parameters (identifier) @name @definition.parameter)
(formal_parameters (assignment_pattern left: (identifier) @name) @definition.parameter)
(formal_parameters (rest_pattern (identifier) @name) @definition.parameter)
(assignment_expression left: (member_expression object: (identifier) @_m property: (property_identifier) @name) right: [(function_expression) (arrow_function)]) @definition.function
