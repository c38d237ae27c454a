// Package plan turns a parsed GQL statement into an inert logical plan: it
// binds variables to columns, checks semantics (undefined variables,
// misplaced aggregates, type conflicts), orders the operators and applies
// the optimizer rules (rules.go) with the counts the engine gives it
// (GraphStats).
//
// A plan is plain data: operators with their output columns and bound
// expressions that refer to input columns by position. Labels, types and
// property keys stay names: engine/exec resolves them against the catalog
// of the snapshot the statement runs on, so a plan holds no storage state
// and never imports storage, the catalog or exec.
package plan
