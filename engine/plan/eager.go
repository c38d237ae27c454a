package plan

import "github.com/quiverdb/quiver/engine/gql"

// Eager runs its input to completion before it yields its first row, then
// yields the same rows. A clause that reads the graph after a clause that
// wrote it sits on an Eager, so that it sees every write of the earlier
// clauses (Cypher runs clauses one after the other), not only those of the
// rows the pipeline has pulled so far.
type Eager struct {
	Input Operator
}

func (o *Eager) Columns() []Column    { return o.Input.Columns() }
func (o *Eager) Children() []Operator { return []Operator{o.Input} }

// readAfterWrite puts an Eager on the plan so far when clause c reads the
// graph (MATCH, OPTIONAL MATCH, CALL) and an earlier clause wrote it since
// the last Eager.
func (b *binder) readAfterWrite(c gql.Clause) {
	switch c.(type) {
	case *gql.Match, *gql.Call:
	default:
		return
	}
	if b.root != nil && writesSinceEager(b.root) {
		b.set(&Eager{Input: b.root})
	}
}

// writesSinceEager reports whether op or an operator below it, down to an
// Eager, writes to the graph.
func writesSinceEager(op Operator) bool {
	switch op.(type) {
	case *Eager:
		return false
	case *Create:
		return true
	}
	for _, c := range op.Children() {
		if writesSinceEager(c) {
			return true
		}
	}
	return false
}
