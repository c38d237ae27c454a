// Package opt is the optimizer: an ordered list of named passes
// (optimize.go) that rewrite a bound plan — endpoint-only variable-length
// expansions, count push-down, index selection, index joins, ordered
// seeks in place of sorts, and the join hints. Each pass says
// which optimizer rule switches it off and how to tell that it fired, so
// EXPLAIN can list it.
//
// It reads only the plan, the hints bound into it and the statistics of
// the snapshot's indexes (plan.IndexInfo): it never parses, binds or
// reaches storage, and plan never imports it.
package opt
