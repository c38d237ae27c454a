// Package functions is the one catalog of scalar and aggregate
// functions: each function's signature (arity, result type), its type
// rules (the kinds of argument it takes) and its row kernel are
// registered together, once, by the file that implements it; each
// aggregate (agg_*.go) likewise with its state over numbered groups and
// that state's update, merge and result kernels, which engine/exec's
// aggregation operators run without knowing which aggregate it is. The
// planner reads signatures and type rules from it; engine/expr runs the
// scalar kernels, and adds typed or lazy evaluators of its own for some
// functions, by catalog name. Cypher's
// value semantics the kernels need (equality, ordering, arithmetic over
// generic values, temporal values) live here too.
//
// Kernels reach the graph, the clock and the memory accountant only
// through Env, so the package imports nothing above vector, temporal,
// errs and memory: the planner never reaches storage through it.
package functions
