// Package expr evaluates bound expressions (plan.Expr) over batches: an
// Evaluator computes one expression for every selected row of a
// vector.Batch with typed loops, falling back to generic values
// (value.go) only for lists, maps, mixed-type columns and other rare
// cases. It owns the scalar functions' kernels, temporal arithmetic,
// comprehensions and map projections, and Cypher's value semantics
// (equality, ordering, type names) that operators share.
//
// It reads the graph through the statement's storage.Tx (properties,
// labels, degrees) and charges what it builds to the statement's
// memory.Tracker. It runs no operators: a sub-plan inside an expression
// (pattern predicate, EXISTS, pattern comprehension) is compiled by the
// executor through Env.Subqueries.
package expr
