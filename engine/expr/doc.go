// Package expr evaluates bound expressions (plan.Expr) over batches: an
// Evaluator computes one expression for every selected row of a
// vector.Batch with typed loops, falling back to generic values only for
// lists, maps, mixed-type columns and other rare cases. Function calls run
// the kernels of the catalog (engine/functions) row by row, or an
// evaluator of this package where a function has a typed or lazy one
// (registerCompiler); comprehensions, quantifiers, reduce and map
// projections are evaluated here.
//
// The evaluators of one compiled expression share their output vectors
// and scratch arrays (scratch.go): what an expression holds grows with its
// depth, not with its number of terms.
//
// It reads the graph through the statement's storage.Tx (properties,
// labels, degrees) and charges what it builds and holds to the
// statement's memory.Tracker. It runs no operators: a sub-plan inside an expression
// (pattern predicate, EXISTS, pattern comprehension) is compiled by the
// executor through Env.Subqueries.
package expr
