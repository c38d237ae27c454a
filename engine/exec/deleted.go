package exec

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// deletedSet remembers the entities DELETE removed earlier in the
// statement. Their ids stay in the rows of later clauses; reading their
// properties or labels is an error (Cypher's DeletedEntityAccess), while
// type(), startNode() and endNode() of a deleted relationship still
// answer from what is remembered here.
type deletedSet struct {
	nodes map[uint64]struct{}
	rels  map[uint64]deletedRel
}

type deletedRel struct {
	t        catalog.TypeID
	src, dst uint64
}

func (d *deletedSet) addNode(id uint64) {
	if d.nodes == nil {
		d.nodes = map[uint64]struct{}{}
	}
	d.nodes[id] = struct{}{}
}

func (d *deletedSet) addRel(id uint64, r deletedRel) {
	if d.rels == nil {
		d.rels = map[uint64]deletedRel{}
	}
	d.rels[id] = r
}

func (d *deletedSet) node(id uint64) bool {
	_, ok := d.nodes[id]
	return ok
}

func (d *deletedSet) rel(id uint64) (deletedRel, bool) {
	r, ok := d.rels[id]
	return r, ok
}

// errDeleted is the error of reading what the statement deleted.
func errDeleted(what string, id uint64) error {
	return errs.Data("the %s with id %d was deleted earlier in this statement; its properties and labels cannot be read", what, id)
}

// checkDeletedValue fails when v is an entity the statement deleted.
func (c *Context) checkDeletedValue(v vector.Value) error {
	switch x := v.(type) {
	case vector.NodeRef:
		if c.deleted.node(uint64(x)) {
			return errDeleted("node", uint64(x))
		}
	case vector.RelRef:
		if _, ok := c.deleted.rel(uint64(x)); ok {
			return errDeleted("relationship", uint64(x))
		}
	}
	return nil
}

// checkDeleted fails when a row of ids (a Node or Rel vector) holds an
// entity the statement deleted. It costs nothing until something is
// deleted.
func (c *Context) checkDeleted(ids *vector.Vector, sel []int32, n int) error {
	var err error
	switch {
	case ids.Type == vector.Node && len(c.deleted.nodes) > 0:
		vector.ForRows(sel, n, func(r int) {
			if err == nil && !ids.IsNull(r) && c.deleted.node(ids.IDs[r]) {
				err = errDeleted("node", ids.IDs[r])
			}
		})
	case ids.Type == vector.Rel && len(c.deleted.rels) > 0:
		vector.ForRows(sel, n, func(r int) {
			if _, ok := c.deleted.rel(ids.IDs[r]); err == nil && !ids.IsNull(r) && ok {
				err = errDeleted("relationship", ids.IDs[r])
			}
		})
	}
	return err
}
