package exec

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// deleteOp runs DELETE and DETACH DELETE. Relationships (and, with
// DETACH, nodes with theirs) are deleted as rows arrive; nodes of a plain
// DELETE are marked deleted at once (later reads fail) but removed from
// storage only when the input is exhausted, so that
// `MATCH (a)-[r]-() DELETE a, r` works whatever the order of its rows:
// Cypher checks that a deleted node has no relationships at the end of
// the clause, not per row. The Eager barrier after the clause (or the
// end of the statement) guarantees the clause finishes before anything
// else reads.
type deleteOp struct {
	c      *Context
	in     Operator
	exprs  []expr.Evaluator
	detach bool
	nodes  []uint64 // nodes of a plain DELETE, in order
	done   bool
}

func newDelete(c *Context, p *plan.Delete, in Operator) (*deleteOp, error) {
	evs, err := compileAll(c, p.Exprs)
	if err != nil {
		return nil, err
	}
	return &deleteOp{c: c, in: in, exprs: evs, detach: p.Detach}, nil
}

func (o *deleteOp) Next() (*vector.Batch, error) {
	if o.done {
		return nil, nil
	}
	b, err := o.in.Next()
	if err != nil {
		return nil, err
	}
	if b == nil {
		o.done = true
		return nil, o.finish()
	}
	if err := o.c.CheckCancel(); err != nil {
		return nil, err
	}
	for _, e := range o.exprs {
		vals, err := e.Eval(b)
		if err != nil {
			return nil, err
		}
		for j := 0; j < b.Rows(); j++ {
			if err := o.value(vals.Get(b.Row(j))); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// value deletes what one value names.
func (o *deleteOp) value(v vector.Value) error {
	switch x := v.(type) {
	case nil:
		return nil
	case vector.NodeRef:
		return o.node(uint64(x))
	case vector.RelRef:
		return o.rel(uint64(x))
	case vector.Path:
		return o.path(&x)
	case *vector.Path:
		return o.path(x)
	case []vector.Value:
		for _, e := range x {
			if err := o.value(e); err != nil {
				return err
			}
		}
		return nil
	}
	return errs.Data("DELETE takes nodes, relationships, paths or lists of them, not a %s", functions.TypeName(v))
}

func (o *deleteOp) path(p *vector.Path) error {
	for _, r := range p.Rels {
		if err := o.rel(r); err != nil {
			return err
		}
	}
	for _, n := range p.Nodes {
		if err := o.node(n); err != nil {
			return err
		}
	}
	return nil
}

func (o *deleteOp) rel(id uint64) error {
	c := o.c
	t, src, dst, ok := c.Tx.Rel(id)
	if !ok {
		return nil // deleted already (twice in one statement is fine)
	}
	if _, err := c.Tx.DeleteRel(id); err != nil {
		return err
	}
	c.Deleted.AddRel(id, expr.DeletedRel{T: t, Src: src, Dst: dst})
	c.Counters.RelationshipsDeleted++
	return nil
}

func (o *deleteOp) node(id uint64) error {
	c := o.c
	if !o.detach {
		if !c.Deleted.Node(id) {
			c.Deleted.AddNode(id)
			o.nodes = append(o.nodes, id)
		}
		return nil
	}
	// Remember the relationships detach removes, so that type(r) of one
	// of them still answers.
	var rels []uint64
	c.Tx.NodeRels(id, func(rel uint64) { rels = append(rels, rel) })
	for _, r := range rels {
		if err := o.rel(r); err != nil {
			return err
		}
	}
	ok, _, err := c.Tx.DeleteNode(id, true)
	if err != nil {
		return err
	}
	if ok {
		c.Deleted.AddNode(id)
		c.Counters.NodesDeleted++
	}
	return nil
}

// finish deletes the nodes of a plain DELETE; one that still has
// relationships fails the statement (23000).
func (o *deleteOp) finish() error {
	for _, id := range o.nodes {
		ok, _, err := o.c.Tx.DeleteNode(id, false)
		if err != nil {
			return err
		}
		if ok {
			o.c.Counters.NodesDeleted++
		}
	}
	o.nodes = nil
	return nil
}
