package expr

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// DeletedSet remembers the entities DELETE removed earlier in the
// statement. Their ids stay in the rows of later clauses; reading their
// properties or labels is an error (Cypher's DeletedEntityAccess), while
// type(), startNode() and endNode() of a deleted relationship still
// answer from what is remembered here.
type DeletedSet struct {
	nodes map[uint64]struct{}
	rels  map[uint64]DeletedRel
}

// DeletedRel is what a deleted relationship still answers: its type and
// endpoints.
type DeletedRel struct {
	T        catalog.TypeID
	Src, Dst uint64
}

// HasNodes reports whether the statement deleted a node.
func (d *DeletedSet) HasNodes() bool { return len(d.nodes) > 0 }

// HasRels reports whether the statement deleted a relationship.
func (d *DeletedSet) HasRels() bool { return len(d.rels) > 0 }

// AddNode remembers a deleted node.
func (d *DeletedSet) AddNode(id uint64) {
	if d.nodes == nil {
		d.nodes = map[uint64]struct{}{}
	}
	d.nodes[id] = struct{}{}
}

// AddRel remembers a deleted relationship.
func (d *DeletedSet) AddRel(id uint64, r DeletedRel) {
	if d.rels == nil {
		d.rels = map[uint64]DeletedRel{}
	}
	d.rels[id] = r
}

// Node reports whether the statement deleted node id.
func (d *DeletedSet) Node(id uint64) bool {
	_, ok := d.nodes[id]
	return ok
}

// Rel returns what a relationship the statement deleted still answers.
func (d *DeletedSet) Rel(id uint64) (DeletedRel, bool) {
	r, ok := d.rels[id]
	return r, ok
}

// errDeleted is the error of reading what the statement deleted.
func errDeleted(what string, id uint64) error {
	return errs.Data("the %s with id %d was deleted earlier in this statement; its properties and labels cannot be read", what, id)
}

// CheckDeletedValue fails when v is an entity the statement deleted.
func (c *Env) CheckDeletedValue(v vector.Value) error {
	switch x := v.(type) {
	case vector.NodeRef:
		if c.Deleted.Node(uint64(x)) {
			return errDeleted("node", uint64(x))
		}
	case vector.RelRef:
		if _, ok := c.Deleted.Rel(uint64(x)); ok {
			return errDeleted("relationship", uint64(x))
		}
	}
	return nil
}

// CheckDeleted fails when a row of ids (a Node or Rel vector) holds an
// entity the statement deleted. It costs nothing until something is
// deleted.
func (c *Env) CheckDeleted(ids *vector.Vector, sel []int32, n int) error {
	var err error
	switch {
	case ids.Type == vector.Node && c.Deleted.HasNodes():
		vector.ForRows(sel, n, func(r int) {
			if err == nil && !ids.IsNull(r) && c.Deleted.Node(ids.IDs[r]) {
				err = errDeleted("node", ids.IDs[r])
			}
		})
	case ids.Type == vector.Rel && c.Deleted.HasRels():
		vector.ForRows(sel, n, func(r int) {
			if _, ok := c.Deleted.Rel(ids.IDs[r]); err == nil && !ids.IsNull(r) && ok {
				err = errDeleted("relationship", ids.IDs[r])
			}
		})
	}
	return err
}
