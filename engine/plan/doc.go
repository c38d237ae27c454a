// Package plan turns a parsed GQL statement into an inert logical plan: it
// binds variables to columns, resolves labels, types and property keys
// against the catalog, checks semantics (undefined variables, misplaced
// aggregates, type conflicts) and orders the operators.
//
// A plan is plain data: operators with their output columns and bound
// expressions that refer to input columns by position. It executes nothing
// and holds no storage state beyond catalog ids; engine/exec builds
// physical operators from it. plan never imports exec.
package plan
