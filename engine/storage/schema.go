package storage

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Schema is the version's indexes and constraints (never nil).
func (s *Snapshot) Schema() *catalog.Schema {
	if s.schema == nil {
		return &catalog.Schema{}
	}
	return s.schema
}

// Schema: see Snapshot.Schema; a Tx sees its own schema changes.
func (tx *Tx) Schema() *catalog.Schema { return tx.view().Schema() }

func objectExists(format string, args ...any) error {
	return errs.New(errs.CodeObjectExists, errs.CatObjectExists, format, args...)
}

func noObject(format string, args ...any) error {
	return errs.New(errs.CodeNoObject, errs.CatNoObject, format, args...)
}

// CreateIndex adds index def (its Slot is assigned here) to the
// transaction and builds its entries from the nodes the transaction sees.
// An existing name, or an existing index of the same type on the same
// label and keys, is a 42S01 error.
func (tx *Tx) CreateIndex(def catalog.Index) error {
	return tx.schemaOp(Op{Kind: OpCreateIndex, Index: &def})
}

// schemaOp validates and applies a schema op and logs it. A failing op
// may have changed the working version (a UNIQUE constraint's index is
// built before its duplicates are found): the caller rolls the statement
// back.
func (tx *Tx) schemaOp(op Op) error {
	if tx.done {
		return errDone
	}
	w, err := tx.begin()
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.applySchemaLocked(&op); err != nil {
		return err
	}
	w.ops = append(w.ops, op)
	return nil
}

// applySchemaLocked is the apply function of the schema ops. Unlike the
// data ops it validates as it applies (names may clash with a concurrent
// transaction's), so a replay or rebase gets an error, never a panic.
func (w *work) applySchemaLocked(op *Op) error {
	switch op.Kind {
	case OpCreateIndex:
		def := *op.Index // the op keeps the definition as logged; Slot is per version
		return w.createIndexLocked(&def, w.cat)
	case OpDropIndex:
		return w.dropIndexNamedLocked(op.Name)
	case OpCreateConstraint:
		c := *op.Constraint
		return w.createConstraintLocked(&c)
	case OpDropConstraint:
		return w.dropConstraintLocked(op.Name)
	}
	panic("BUG: storage: not a schema op")
}

func (w *work) createIndexLocked(def *catalog.Index, cat *catalog.Catalog) error {
	sc := w.v.Schema()
	if sc.Index(def.Name) != nil {
		return objectExists("an index named %s already exists", def.Name)
	}
	for _, ix := range sc.Indexes {
		if ix.Type == def.Type && ix.Rel == def.Rel && ix.Label == def.Label && ix.Properties() == def.Properties() {
			return objectExists("%s index %s already indexes :%s(%s)", ix.Type, ix.Name, def.Label, ix.Properties())
		}
	}
	def.Slot = len(w.v.indexes)
	if def.Type.Secondary() {
		// Kept by the engine's secondary-index manager from commits
		// (engine/index): storage holds the definition and a nil slot.
		if len(def.Keys) == 0 {
			return errs.Semantic("index %s names no property", def.Name)
		}
		if def.Rel {
			cat.EnsureType(def.Label)
		} else {
			cat.EnsureLabel(def.Label)
		}
		for _, k := range def.Keys {
			cat.EnsureKey(k)
		}
		w.v.indexes = append(w.v.indexes, nil)
		w.v.schema = sc.WithIndex(def)
		return nil
	}
	label := cat.EnsureLabel(def.Label)
	keys := make([]catalog.KeyID, len(def.Keys))
	for i, k := range def.Keys {
		keys[i] = cat.EnsureKey(k)
	}
	x := &nodeIndex{def: def, label: label, keys: keys}
	x.setBase(x.scanEntries(&w.v, w.v.LabelNodes(label)))
	x.epoch = w.epoch
	w.v.indexes = append(w.v.indexes, x)
	w.v.schema = sc.WithIndex(def)
	return nil
}

// snapshotKey is node id's key in version v.
func (x *nodeIndex) snapshotKey(v *Snapshot, id uint64) (string, bool) {
	var b []byte
	for _, k := range x.keys {
		var ok bool
		if b, ok = AppendIndexKey(b, v.nodeCol(k).get(id)); !ok {
			return "", false
		}
	}
	return string(b), true
}

// DropIndex removes the index named name; unknown names are 42S02. An
// index a UNIQUE constraint checks through cannot be dropped while the
// constraint exists (42000 naming it), whether the constraint created it
// or adopted an index CREATE INDEX made, as Neo4j refuses it: the
// constraint could no longer be checked.
func (tx *Tx) DropIndex(name string) error {
	return tx.schemaOp(Op{Kind: OpDropIndex, Name: name})
}

func (w *work) dropIndexNamedLocked(name string) error {
	sc := w.v.Schema()
	ix := sc.Index(name)
	if ix == nil {
		return noObject("no index named %s", name)
	}
	if ix.Constraint != "" {
		return errs.Semantic("index %s belongs to constraint %s: drop the constraint instead", name, ix.Constraint)
	}
	if c := sc.ConstraintThrough(name); c != nil && !w.recovering {
		// Recovery replays what an older version allowed; the constraint
		// gets an index again at the end of it (adoptIndexesLocked).
		return errs.Semantic("index %s is used by constraint %s to check that %s is unique: drop the constraint first", name, c.Name, c.Key)
	}
	w.dropIndexLocked(ix)
	return nil
}

func (w *work) dropIndexLocked(ix *catalog.Index) {
	w.v.indexes[ix.Slot] = nil
	w.v.schema = w.v.Schema().WithoutIndex(ix.Name)
}

// CreateConstraint adds constraint c after checking that the nodes the
// transaction sees satisfy it (a 23000 error naming the offending nodes
// and values otherwise). A UNIQUE constraint checks through an index on
// its label and key: an existing one, or a BTREE index it creates, owns
// and names after itself.
func (tx *Tx) CreateConstraint(c catalog.Constraint) error {
	return tx.schemaOp(Op{Kind: OpCreateConstraint, Constraint: &c})
}

// createConstraintLocked creates constraint *cp. A UNIQUE constraint
// checks through cp.Index when that names an index on its label and key
// (a checkpoint's schema says which, so a restart binds the same), or
// through an index of its own when cp.Index is its own name; otherwise
// through the first index on its label and key, or one it creates.
func (w *work) createConstraintLocked(cp *catalog.Constraint) error {
	c := *cp
	c.Index = ""
	cat := w.cat
	sc := w.v.Schema()
	if sc.Constraint(c.Name) != nil {
		return objectExists("a constraint named %s already exists", c.Name)
	}
	for _, o := range sc.Constraints {
		if o.Kind == c.Kind && o.Label == c.Label && o.Key == c.Key {
			return objectExists("constraint %s already asserts %s of :%s(%s)", o.Name, c.Kind, c.Label, c.Key)
		}
	}
	label := cat.EnsureLabel(c.Label)
	key := cat.EnsureKey(c.Key)
	if c.Kind == catalog.Exists {
		it := w.v.LabelNodes(label).Iterator()
		for it.HasNext() {
			id := uint64(it.Next())
			if !w.v.nodeCol(key).has(id) {
				return violation("cannot create constraint %s: node %d (:%s) has no property %s", c.Name, id, c.Label, c.Key)
			}
		}
	} else {
		var ix *catalog.Index
		if x := sc.Index(cp.Index); x != nil && x.Constraint == "" && x.Label == c.Label && x.Properties() == c.Key {
			ix = x
		} else if cp.Index != c.Name {
			ix = sc.IndexOn(c.Label, []string{c.Key})
		}
		if ix == nil {
			ix = &catalog.Index{Name: c.Name, Type: catalog.BTree, Label: c.Label, Keys: []string{c.Key}, Constraint: c.Name}
			if err := w.createIndexLocked(ix, cat); err != nil {
				return err
			}
			ix = w.v.schema.Index(c.Name)
		}
		c.Index = ix.Name
		w.flushIndexesLocked()
		if err := w.v.indexes[ix.Slot].firstDuplicate(&w.v, &c); err != nil {
			return err
		}
	}
	w.v.schema = w.v.Schema().WithConstraint(&c)
	return nil
}

// firstDuplicate fails with the first key two nodes share.
func (x *nodeIndex) firstDuplicate(v *Snapshot, c *catalog.Constraint) error {
	es := x.entries()
	for i := 1; i < len(es); i++ {
		if es[i].key == es[i-1].key {
			val := v.nodeCol(x.keys[0]).get(es[i].id)
			return violation("cannot create constraint %s: nodes %d and %d (:%s) share %s = %s",
				c.Name, es[i-1].id, es[i].id, c.Label, c.Key, literal(val))
		}
	}
	return nil
}

// DropConstraint removes the constraint named name (and the index it
// created, if it created one); unknown names are 42S02.
func (tx *Tx) DropConstraint(name string) error {
	return tx.schemaOp(Op{Kind: OpDropConstraint, Name: name})
}

func (w *work) dropConstraintLocked(name string) error {
	sc := w.v.Schema()
	c := sc.Constraint(name)
	if c == nil {
		return noObject("no constraint named %s", name)
	}
	if ix := sc.Index(c.Index); ix != nil && ix.Constraint == name {
		w.dropIndexLocked(ix)
	}
	w.v.schema = w.v.Schema().WithoutConstraint(name)
	return nil
}

// adoptIndexesLocked gives every UNIQUE constraint whose index is gone
// an index again: one on its label and key, or one of its own. Older
// versions let DROP INDEX remove the index a constraint had adopted, and
// their logs may hold that; recovery replays it and ends here, so the
// constraint is checked again, as a restart of those versions did.
func (w *work) adoptIndexesLocked() error {
	for _, c := range w.v.Schema().Constraints {
		if c.Kind != catalog.Unique || w.v.Schema().Index(c.Index) != nil {
			continue
		}
		nc := *c
		ix := w.v.Schema().IndexOn(c.Label, []string{c.Key})
		if ix == nil {
			ix = &catalog.Index{Name: c.Name, Type: catalog.BTree, Label: c.Label, Keys: []string{c.Key}, Constraint: c.Name}
			if err := w.createIndexLocked(ix, w.cat); err != nil {
				return fmt.Errorf("cannot give constraint %s back an index: %w", c.Name, err)
			}
		}
		nc.Index = ix.Name
		w.v.schema = w.v.Schema().WithConstraintReplaced(&nc)
	}
	return nil
}

func hasConstraintWithoutIndex(sc *catalog.Schema) bool {
	for _, c := range sc.Constraints {
		if c.Kind == catalog.Unique && sc.Index(c.Index) == nil {
			return true
		}
	}
	return false
}

func violation(format string, args ...any) error {
	return errs.New(errs.CodeConstraint, errs.CatConstraint, format, args...)
}

// checkConstraintsLocked checks every constraint on the nodes the
// transaction changed, before its commit publishes anything.
func (w *work) checkConstraintsLocked() error {
	sc := w.v.schema
	if sc == nil || len(sc.Constraints) == 0 || len(w.touched) == 0 {
		return nil
	}
	ids := w.touched
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for i, id := range ids {
		if i > 0 && ids[i-1] == id {
			continue
		}
		st := w.nodeStateLocked(id)
		if st == nil {
			continue
		}
		for _, c := range sc.Constraints {
			if err := w.checkNodeLocked(c, id, st); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *work) checkNodeLocked(c *catalog.Constraint, id uint64, st *nodeState) error {
	if c.Kind == catalog.Exists {
		label, ok := w.cat.LookupLabel(c.Label)
		if !ok || !st.hasLabel(label) {
			return nil
		}
		if key, ok := w.cat.LookupKey(c.Key); !ok || st.prop(key) == nil {
			return violation("node %d with label %s must have the property %s (constraint %s)", id, c.Label, c.Key, c.Name)
		}
		return nil
	}
	ix := w.v.Schema().Index(c.Index)
	if ix == nil {
		panic("BUG: storage: constraint " + c.Name + " checks through index " + c.Index + ", which does not exist")
	}
	x := w.v.indexes[ix.Slot]
	key, ok := x.indexKey(st)
	if !ok {
		return nil
	}
	if ids := x.equal(key); ids.GetCardinality() > 1 {
		return violation("node %d (:%s) has %s = %s, which node %d already has (constraint %s)",
			id, c.Label, c.Key, literal(st.prop(x.keys[0])), firstOther(ids, id), c.Name)
	}
	return nil
}

func firstOther(ids *roaring.Bitmap, id uint64) uint64 {
	it := ids.Iterator()
	for it.HasNext() {
		if o := uint64(it.Next()); o != id {
			return o
		}
	}
	return id
}

// literal renders a value as a query literal for messages.
func literal(v vector.Value) string {
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(x, "'", "\\'") + "'"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
