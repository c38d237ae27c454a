package expr

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Env is the environment of the function kernels: they read the graph of
// the statement's snapshot through these methods, and what the statement
// deleted answers as Cypher says it does.
var _ functions.Env = (*Env)(nil)

// Reserve charges n bytes a kernel is about to build.
func (c *Env) Reserve(n int64) error { return c.Mem.Reserve(n) }

// NodeLabels returns a node's label names.
func (c *Env) NodeLabels(id uint64) ([]string, error) {
	if err := c.CheckDeletedValue(vector.NodeRef(id)); err != nil {
		return nil, err
	}
	ids := c.Tx.AppendNodeLabels(nil, id)
	names := make([]string, len(ids))
	for i, l := range ids {
		names[i] = c.Catalog.LabelName(l)
	}
	return names, nil
}

// Rel returns a relationship's type name and endpoints; one the statement
// deleted keeps them.
func (c *Env) Rel(id uint64) (typ string, src, dst uint64, ok bool) {
	t, src, dst, ok := c.Tx.Rel(id)
	if !ok {
		d, deleted := c.Deleted.Rel(id)
		if !deleted {
			return "", 0, 0, false
		}
		t, src, dst = d.T, d.Src, d.Dst
	}
	return c.Catalog.TypeName(t), src, dst, true
}

// Properties calls fn for each property of a node or relationship.
func (c *Env) Properties(v vector.Value, fn func(key string, val vector.Value)) (bool, error) {
	if c.Fields == nil {
		return EntityProps(c, v, func(k catalog.KeyID, val vector.Value) { fn(c.Catalog.KeyName(k), val) })
	}
	var keys []string
	var vals []vector.Value
	ok, err := EntityProps(c, v, func(k catalog.KeyID, val vector.Value) {
		keys, vals = append(keys, c.Catalog.KeyName(k)), append(vals, val)
	})
	if !ok || err != nil {
		return ok, err
	}
	for i, k := range keys {
		// A value the principal may not read is absent, or an error
		// when its field says so.
		val, err := c.Fields.Open(k, vals[i])
		if err != nil {
			return true, err
		}
		if val != nil {
			fn(k, val)
		}
	}
	return true, nil
}

// EntityProps calls fn for each property of a node or relationship, by key
// id; isEntity is false for any other value.
func EntityProps(c *Env, v vector.Value, fn func(k catalog.KeyID, val vector.Value)) (isEntity bool, err error) {
	if err := c.CheckDeletedValue(v); err != nil {
		return true, err
	}
	switch x := v.(type) {
	case vector.NodeRef:
		c.Tx.NodeProps(uint64(x), fn)
	case vector.RelRef:
		c.Tx.RelProps(uint64(x), fn)
	default:
		return false, nil
	}
	return true, nil
}

// Degree counts a node's relationships of type typ ("" for every type).
func (c *Env) Degree(id uint64, typ string, outgoing bool) int64 {
	d := storage.Incoming
	if outgoing {
		d = storage.Outgoing
	}
	if typ != "" {
		t, ok := c.Catalog.LookupType(typ)
		if !ok {
			return 0
		}
		return int64(nodeDegree(c, id, t, d))
	}
	total := 0
	for _, t := range c.Catalog.Types() {
		total += nodeDegree(c, id, t, d)
	}
	return int64(total)
}

func nodeDegree(c *Env, id uint64, t catalog.TypeID, d storage.Direction) int {
	adj := c.Tx.Adjacency(t, d)
	if adj == nil {
		return 0
	}
	return adj.Degree(id)
}
