package exec

import "github.com/quiverdb/quiver/vector"

// pool is the statement's vector pool (vector.Pool), taken on the first
// vector an operator asks for. Operators build their batches through it
// and never give them back: Close returns everything at once, when no
// batch of the statement can be read any more (Result.Next's batch is
// valid until the following call, and the last call is the one that
// closes). A parallel worker's context has no pool: its batches cross to
// the consumer's goroutine, and a worker's context is never closed, so it
// allocates them as before.
//
// The vectors are charged as before: Build charges each operator's
// batches (operatorBatchBytes) whether they are lent or made.
func (c *Context) pool() *vector.Pool {
	if c.vecs == nil && c.worker == nil {
		c.vecs = vector.GetPool()
	}
	return c.vecs
}
