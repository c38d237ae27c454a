// Package plan turns a parsed GQL statement into an inert logical plan: it
// binds variables to columns, checks semantics (undefined variables,
// misplaced aggregates, type conflicts), orders the operators and makes
// the choices that need the query's text (rules.go: the selective start,
// label tests on expansions, constant folding), and estimates costs with
// the counts the engine gives it (GraphStats). The statement's hints are
// bound into the plan; the rewrites that need only the plan run after, in
// engine/plan/opt. Function signatures come from engine/functions.
//
// A plan is plain data: operators with their output columns and bound
// expressions that refer to input columns by position. Labels, types and
// property keys stay names: engine/exec resolves them against the catalog
// of the snapshot the statement runs on, so a plan holds no storage state
// and never imports storage, the catalog, the optimizer or exec.
package plan
