// Package exec runs logical plans: it builds physical operators from a
// plan.Operator tree and pulls vector.Batches through them. Operators
// evaluate their expressions through engine/expr, over whole vectors; the
// executor's Context embeds the expressions' environment, so both count
// and charge the statement in one place.
//
// exec reads and writes the graph only through storage.Reader and
// storage.Tx, and reports errors as errs.Error. It knows nothing of query
// text (that is gql and plan) or of wire formats (frontends).
package exec
