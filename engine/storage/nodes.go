package storage

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// CreateNode creates a node with the given labels and properties (keys[i]
// = vals[i]; nil values are skipped) and returns its id. Labels and keys
// must come from the store's catalog. Invalid values are a 22000 error and
// leave the transaction unchanged.
func (tx *Tx) CreateNode(labels []catalog.LabelID, keys []catalog.KeyID, vals []vector.Value) (uint64, error) {
	if tx.done {
		return 0, errDone
	}
	cat := tx.s.cat
	nl := cat.NumLabels()
	for _, l := range labels {
		if int(l) >= nl {
			return 0, errs.Data("storage: cannot create node: unknown label id %d", l)
		}
	}
	if err := checkKeys(cat, keys); err != nil {
		return 0, errs.Wrap(errs.CodeData, errs.CatData, err, "storage: cannot create node")
	}
	pk, pv, err := props(keys, vals)
	if err != nil {
		return 0, errs.Wrap(errs.CodeData, errs.CatData, err, "storage: cannot create node")
	}
	w, err := tx.begin()
	if err != nil {
		return 0, err
	}
	if pv, err = tx.sealNode(w, 0, labels, pk, pv); err != nil {
		return 0, err
	}
	id := tx.s.nextNode.Add(1) - 1
	if id > maxNodeID {
		tx.s.nextNode.Store(maxNodeID + 1) // keep the counter from wrapping
		return 0, errs.New(errs.CodeOutOfMemory, errs.CatResource,
			"storage: cannot create node: node id space exhausted (at most 2^32 node ids)")
	}
	op := Op{Kind: OpCreateNode, ID: id, Labels: append([]catalog.LabelID(nil), labels...), Keys: pk, Vals: pv}
	w.mu.Lock()
	w.applyLocked(&op)
	w.mu.Unlock()
	w.ops = append(w.ops, op)
	return id, nil
}

func checkKeys(cat *catalog.Catalog, keys []catalog.KeyID) error {
	nk := cat.NumKeys()
	for _, k := range keys {
		if int(k) >= nk {
			return errs.Data("unknown property key id %d", k)
		}
	}
	return nil
}

// applyLocked applies one validated op to the working version. It is the
// single place writes change data, so WAL replay can call it with logged
// ops.
func (w *work) applyLocked(op *Op) {
	switch op.Kind {
	case OpCreateNode:
		w.createNodeLocked(op)
	case OpCreateRel:
		w.createRelLocked(op)
	case OpSetNodeProps:
		w.maintainNodeLocked(op.ID, func() { w.applySetNodeProps(op) })
	case OpSetRelProps:
		w.applySetRelProps(op)
	case OpAddLabels:
		w.maintainNodeLocked(op.ID, func() { w.applyAddLabels(op) })
	case OpRemoveLabels:
		w.maintainNodeLocked(op.ID, func() { w.applyRemoveLabels(op) })
	case OpDeleteRel:
		w.applyDeleteRel(op)
	case OpDeleteNode:
		w.maintainNodeLocked(op.ID, func() { w.applyDeleteNode(op) })
	case OpSetSystem:
		w.setSystemLocked(op)
	default:
		panic("BUG: storage: unknown op kind")
	}
}

func (w *work) createNodeLocked(op *Op) {
	v := &w.v
	id := op.ID
	if v.nodeLive(id) {
		panic("BUG: storage: node id handed out twice")
	}
	w.ownLiveLocked(id).Add(uint32(id))
	v.nodeCount++
	if id >= v.nodeBound {
		v.nodeBound = id + 1
	}
	for _, l := range op.Labels {
		w.ownLabelLocked(l, id).Add(uint32(id))
	}
	setProps(&v.nodeCols, id, op.Keys, op.Vals, w.epoch)
	w.indexNodeLocked(id, nil, &nodeState{labels: op.Labels, keys: op.Keys, vals: op.Vals})
}

// setProps stores validated properties of entity id in cols.
func setProps(cols *[]*column, id uint64, keys []catalog.KeyID, vals []vector.Value, epoch uint64) {
	for i, k := range keys {
		for int(k) >= len(*cols) {
			*cols = append(*cols, nil)
		}
		slot := &(*cols)[k]
		c := ownedColumn(slot, epoch)
		c.set(id, vals[i], epoch)
		if c.typ() == vector.Null {
			*slot = nil
		}
	}
}
