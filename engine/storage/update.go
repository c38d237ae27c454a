package storage

import (
	"slices"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// This file holds the writes that change or delete existing entities:
// property updates, label changes and deletions. Each Tx method validates
// against the transaction's view (after begin, which may move the Tx to
// the latest version), records one Op and applies it through
// applyLocked; each op kind has one small apply function (apply*), the
// place a hook that must see every change (index maintenance) attaches.

// SetNodeProps sets properties of node id: keys[i] = vals[i], where a nil
// value removes the property. A missing node is a 22000 error.
func (tx *Tx) SetNodeProps(id uint64, keys []catalog.KeyID, vals []vector.Value) error {
	return tx.setProps(OpSetNodeProps, id, keys, vals)
}

// SetRelProps is SetNodeProps for relationship id.
func (tx *Tx) SetRelProps(id uint64, keys []catalog.KeyID, vals []vector.Value) error {
	return tx.setProps(OpSetRelProps, id, keys, vals)
}

func (tx *Tx) setProps(kind OpKind, id uint64, keys []catalog.KeyID, vals []vector.Value) error {
	if tx.done {
		return errDone
	}
	if err := checkKeys(tx.s.cat, keys); err != nil {
		return errs.Wrap(errs.CodeData, errs.CatData, err, "storage: cannot set property")
	}
	if len(keys) != len(vals) {
		return errs.Data("storage: %d property keys but %d values", len(keys), len(vals))
	}
	pk := make([]catalog.KeyID, 0, len(keys))
	pv := make([]vector.Value, 0, len(keys))
	for i, k := range keys {
		c, err := storeValue(vals[i])
		if err != nil {
			return errs.Wrap(errs.CodeData, errs.CatData, err, "storage: cannot set property")
		}
		pk, pv = append(pk, k), append(pv, c)
	}
	w, err := tx.begin()
	if err != nil {
		return err
	}
	if kind == OpSetNodeProps && !w.v.nodeLive(id) {
		return errs.Data("storage: cannot set property: node %d does not exist", id)
	}
	if kind == OpSetRelProps && !w.v.relLive(id) {
		return errs.Data("storage: cannot set property: relationship %d does not exist", id)
	}
	if len(pk) == 0 {
		return nil
	}
	if kind == OpSetNodeProps {
		if pv, err = tx.sealNode(w, id, nil, pk, pv); err != nil {
			return err
		}
	}
	tx.log(w, Op{Kind: kind, ID: id, Keys: pk, Vals: pv})
	return nil
}

// AddLabels adds labels to node id and returns how many it did not carry
// already. A missing node is a 22000 error.
func (tx *Tx) AddLabels(id uint64, labels []catalog.LabelID) (int, error) {
	return tx.changeLabels(OpAddLabels, id, labels)
}

// RemoveLabels removes labels from node id and returns how many it
// carried. A missing node is a 22000 error.
func (tx *Tx) RemoveLabels(id uint64, labels []catalog.LabelID) (int, error) {
	return tx.changeLabels(OpRemoveLabels, id, labels)
}

func (tx *Tx) changeLabels(kind OpKind, id uint64, labels []catalog.LabelID) (int, error) {
	if tx.done {
		return 0, errDone
	}
	nl := tx.s.cat.NumLabels()
	for _, l := range labels {
		if int(l) >= nl {
			return 0, errs.Data("storage: cannot change labels: unknown label id %d", l)
		}
	}
	w, err := tx.begin()
	if err != nil {
		return 0, err
	}
	if !w.v.nodeLive(id) {
		return 0, errs.Data("storage: cannot change labels: node %d does not exist", id)
	}
	var change, seen []catalog.LabelID
	for _, l := range labels {
		if slices.Contains(seen, l) {
			continue
		}
		seen = append(seen, l)
		if w.v.HasLabel(id, l) == (kind == OpRemoveLabels) {
			change = append(change, l)
		}
	}
	if len(change) == 0 {
		return 0, nil
	}
	tx.log(w, Op{Kind: kind, ID: id, Labels: change})
	if kind == OpAddLabels {
		if err := tx.resealAfterLabels(w, id); err != nil {
			return 0, err
		}
	}
	return len(change), nil
}

// DeleteRel deletes relationship id and its properties. It reports false
// when no such relationship exists (already deleted: deleting twice is
// not an error).
func (tx *Tx) DeleteRel(id uint64) (bool, error) {
	if tx.done {
		return false, errDone
	}
	w, err := tx.begin()
	if err != nil {
		return false, err
	}
	t, src, dst, ok := w.v.Rel(id)
	if !ok {
		return false, nil
	}
	tx.log(w, Op{Kind: OpDeleteRel, ID: id, Type: t, Src: src, Dst: dst})
	return true, nil
}

// DeleteNode deletes node id with its labels and properties. A node that
// still has relationships is a 23000 error unless detach is set, in which
// case they are deleted first. It reports whether the node existed
// (deleting twice is not an error) and how many relationships detach
// deleted.
func (tx *Tx) DeleteNode(id uint64, detach bool) (bool, int, error) {
	if tx.done {
		return false, 0, errDone
	}
	w, err := tx.begin()
	if err != nil {
		return false, 0, err
	}
	if !w.v.nodeLive(id) {
		return false, 0, nil
	}
	w.mu.Lock()
	rels := w.nodeRelsLocked(id)
	w.mu.Unlock()
	if len(rels) > 0 && !detach {
		return false, 0, errs.New(errs.CodeConstraint, errs.CatConstraint,
			"cannot delete node %d: it still has %d relationship(s); delete them first or use DETACH DELETE", id, len(rels))
	}
	n := 0
	for _, rel := range rels {
		ok, err := tx.DeleteRel(rel)
		if err != nil {
			return false, n, err
		}
		if ok {
			n++
		}
	}
	tx.log(w, Op{Kind: OpDeleteNode, ID: id})
	return true, n, nil
}

// nodeRelsLocked lists the relationships of node id in every type and
// direction (a self-loop appears twice).
func (w *work) nodeRelsLocked(id uint64) []uint64 {
	var out, nbrs, rels []uint64
	for t := 0; t < max(len(w.v.adj), len(w.mu.pending)); t++ {
		// Pending inserts are flushed (amortized: once per batch of
		// creates); pending deletions are not, since flushing them per
		// node would cost an Apply per node: the adjacency may still list
		// them, and the table (where they are tombstones) filters them.
		if t < len(w.mu.pending) && len(w.mu.pending[t]) > 0 {
			w.flushLocked(catalog.TypeID(t))
		}
		if t >= len(w.v.adj) {
			continue
		}
		for _, a := range w.v.adj[t] {
			if a != nil && a.Degree(id) > 0 {
				nbrs, rels = a.AppendNeighbors(nbrs[:0], rels[:0], id)
				for _, r := range rels {
					if w.v.relLive(r) {
						out = append(out, r)
					}
				}
			}
		}
	}
	return out
}

// log applies a validated op to the working version and records it.
func (tx *Tx) log(w *work, op Op) {
	w.mu.Lock()
	w.applyLocked(&op)
	w.mu.Unlock()
	w.ops = append(w.ops, op)
}

// applySetNodeProps: OpSetNodeProps.
func (w *work) applySetNodeProps(op *Op) {
	if !w.v.nodeLive(op.ID) {
		panic("BUG: storage: property set on a node that does not exist")
	}
	setProps(&w.v.nodeCols, op.ID, op.Keys, op.Vals, w.epoch)
}

// applySetRelProps: OpSetRelProps.
func (w *work) applySetRelProps(op *Op) {
	if !w.v.relLive(op.ID) {
		panic("BUG: storage: property set on a relationship that does not exist")
	}
	setProps(&w.v.relCols, op.ID, op.Keys, op.Vals, w.epoch)
}

// applyAddLabels: OpAddLabels.
func (w *work) applyAddLabels(op *Op) {
	for _, l := range op.Labels {
		w.ownLabelLocked(l, op.ID).Add(uint32(op.ID))
	}
}

// applyRemoveLabels: OpRemoveLabels. A label bitmap left empty stays (an
// empty bitmap and a nil one mean the same).
func (w *work) applyRemoveLabels(op *Op) {
	for _, l := range op.Labels {
		w.ownLabelLocked(l, op.ID).Remove(uint32(op.ID))
	}
}

// applyDeleteRel: OpDeleteRel. The table row becomes a tombstone (noRel,
// as an id that was never committed), the properties are cleared, and
// the adjacency deletion waits in pendingDel for the next flush of the
// type; pending inserts of the type are flushed first so that the
// deletion always finds the edge in the adjacency.
func (w *work) applyDeleteRel(op *Op) {
	v := &w.v
	id := op.ID
	t := int(op.Type)
	if rt, _, _, ok := v.Rel(id); !ok || int(rt) != t {
		panic("BUG: storage: delete of a relationship that does not exist")
	}
	if t < len(w.mu.pending) && len(w.mu.pending[t]) > 0 {
		w.flushLocked(op.Type) // the edge may still be a pending insert
	}
	c := w.ownRelChunkLocked(int(id >> groupShift))
	c.typ[id&groupMask] = noRel
	v.relCount--
	v.typeRels[t]--
	clearProps(&v.relCols, id, w.epoch)
	for len(w.mu.pendingDel) <= t {
		w.mu.pendingDel = append(w.mu.pendingDel, nil)
	}
	w.mu.pendingDel[t] = append(w.mu.pendingDel[t], id)
}

// applyDeleteNode: OpDeleteNode. The node must have no relationships
// left (the Tx deletes them first, as ops of their own).
func (w *work) applyDeleteNode(op *Op) {
	v := &w.v
	id := op.ID
	if !v.nodeLive(id) {
		panic("BUG: storage: delete of a node that does not exist")
	}
	w.ownLiveLocked(id).Remove(uint32(id))
	v.nodeCount--
	for l, b := range v.labels {
		if b != nil && b.Contains(uint32(id)) {
			w.ownLabelLocked(catalog.LabelID(l), id).Remove(uint32(id))
		}
	}
	clearProps(&v.nodeCols, id, w.epoch)
}

// clearProps removes every property of entity id.
func clearProps(cols *[]*column, id uint64, epoch uint64) {
	for k, c := range *cols {
		if !c.has(id) {
			continue
		}
		slot := &(*cols)[k]
		c = ownedColumn(slot, epoch)
		c.set(id, nil, epoch)
		if c.typ() == vector.Null {
			*slot = nil
		}
	}
}

// NodeRels calls fn once for each relationship of node id, of any type
// and direction, in the transaction's view.
func (tx *Tx) NodeRels(id uint64, fn func(rel uint64)) {
	tx.reads.markFlag(readAllTypes)
	var rels []uint64
	if w := tx.w; w != nil {
		w.mu.Lock()
		rels = w.nodeRelsLocked(id)
		w.mu.Unlock()
	} else {
		var nbrs, rs []uint64
		for _, p := range tx.snap.adj {
			for _, a := range p {
				if a != nil && a.Degree(id) > 0 {
					nbrs, rs = a.AppendNeighbors(nbrs[:0], rs[:0], id)
					rels = append(rels, rs...)
				}
			}
		}
	}
	slices.Sort(rels)
	for i, r := range rels {
		if i == 0 || rels[i-1] != r { // a self-loop is listed in both directions
			fn(r)
		}
	}
}

// StartBounds are the node and relationship id bounds of the version the
// running statement started from (MarkStatement), or else of the version
// the transaction's writes apply to: an id at or above them was created
// since (by this transaction, or by one that committed before its first
// write).
func (tx *Tx) StartBounds() (nodes, rels uint64) {
	if tx.stmt.marked {
		return tx.stmt.nodes, tx.stmt.rels
	}
	s := tx.snap
	if tx.w != nil {
		s = tx.w.base
	}
	return s.nodeBound, s.relBound
}

// MarkStatement records the bounds of the transaction's view as a
// statement starts (StartBounds): in a multi-statement transaction,
// entities an earlier statement created existed before this one.
func (tx *Tx) MarkStatement() {
	v := tx.view()
	tx.stmt.nodes, tx.stmt.rels, tx.stmt.marked = v.nodeBound, v.relBound, true
}

// BeginWrite takes the writer lock now instead of at the first write, so
// that every read of the transaction sees the latest committed version
// and no other writer commits until this transaction ends. A read-write
// statement calls it before it reads: its reads and writes are then one
// atomic step (MERGE's match-or-create cannot race another MERGE, and
// SET n.c = n.c + 1 loses no update). Committing without writes
// publishes nothing.
func (tx *Tx) BeginWrite() error {
	_, err := tx.begin()
	return err
}
