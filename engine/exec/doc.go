// Package exec runs logical plans: it builds physical operators from a
// plan.Operator tree and pulls vector.Batches through them. Expressions
// evaluate over whole vectors with typed loops; the generic Value path
// (value.go) serves only lists, maps, mixed-type columns and other rare
// cases.
//
// exec reads and writes the graph only through storage.Reader and
// storage.Tx, and reports errors as errs.Error. It knows nothing of query
// text (that is gql and plan) or of wire formats (frontends).
package exec
