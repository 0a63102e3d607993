"""Bottom of the import graph: parameter validation, input coercion, seeds."""
