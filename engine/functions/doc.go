// Package functions is the one catalog of scalar functions: each
// function's signature (arity, result type), its type rules (the kinds of
// argument it takes) and its row kernel are registered together, once, by
// the file that implements it. The planner reads signatures and type
// rules from it; engine/expr runs the kernels, and adds typed or lazy
// evaluators of its own for some functions, by catalog name. Cypher's
// value semantics the kernels need (equality, ordering, arithmetic over
// generic values, temporal values) live here too.
//
// Kernels reach the graph, the clock and the memory accountant only
// through Env, so the package imports nothing above vector, temporal,
// errs and memory: the planner never reaches storage through it.
package functions
