package storage

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// nodeState is a node's labels and properties at one moment: what index
// maintenance and constraint checks compare before and after a write.
type nodeState struct {
	labels []catalog.LabelID
	keys   []catalog.KeyID
	vals   []vector.Value
}

func (s *nodeState) hasLabel(l catalog.LabelID) bool {
	for _, x := range s.labels {
		if x == l {
			return true
		}
	}
	return false
}

func (s *nodeState) prop(k catalog.KeyID) vector.Value {
	for i, x := range s.keys {
		if x == k {
			return s.vals[i]
		}
	}
	return nil
}

// nodeStateLocked reads node id's labels and properties from the working
// version; nil when the node does not exist there.
func (w *work) nodeStateLocked(id uint64) *nodeState {
	if !w.v.nodeLive(id) {
		return nil
	}
	st := &nodeState{labels: w.v.AppendNodeLabels(nil, id)}
	w.v.NodeProps(id, func(k catalog.KeyID, v vector.Value) {
		st.keys = append(st.keys, k)
		st.vals = append(st.vals, v)
	})
	return st
}

// indexKey is the key of a node in state s for index x; ok is false when
// the node has no entry (it lacks the label or one of the properties).
func (x *nodeIndex) indexKey(s *nodeState) (string, bool) {
	if s == nil || !s.hasLabel(x.label) {
		return "", false
	}
	var b []byte
	for _, k := range x.keys {
		var ok bool
		if b, ok = AppendIndexKey(b, s.prop(k)); !ok {
			return "", false
		}
	}
	return string(b), true
}

// indexNodeLocked is the one index-maintenance hook of the write path:
// every op that changes a node's labels or properties, or creates or
// deletes a node, calls it from its apply function with the node's state
// before the op (nil: the node did not exist) and after it (nil: the node
// was deleted), both read from the working version w.v:
//
//	before := w.nodeStateLocked(id)   // before applying the op
//	… apply the op to w.v …
//	w.indexNodeLocked(id, before, w.nodeStateLocked(id))
//
// It moves the node's entry in every index whose key changed and records
// the node for the constraint checks at commit.
func (w *work) indexNodeLocked(id uint64, before, after *nodeState) {
	if w.v.schema == nil {
		return
	}
	if len(w.v.schema.Constraints) > 0 {
		w.touched = append(w.touched, id)
	}
	for slot, x := range w.v.indexes {
		if x == nil {
			continue
		}
		old, hadOld := x.indexKey(before)
		cur, hasCur := x.indexKey(after)
		if hadOld == hasCur && old == cur {
			continue
		}
		x = x.owned(w.epoch)
		w.v.indexes[slot] = x
		if hadOld {
			x.set(old, id, false)
		}
		if hasCur {
			x.set(cur, id, true)
		}
	}
}

// maintainNodeLocked runs apply, an op's change to node id in w.v, and
// keeps the indexes and the constraint bookkeeping current. It is how the
// apply path of an op that sets or removes node properties, adds or
// removes labels or deletes a node calls indexNodeLocked:
//
//	case OpSetNodeProps:
//		w.maintainNodeLocked(op.ID, func() { w.applySetNodeProps(op) })
//
// Without indexes or constraints it costs one nil check.
func (w *work) maintainNodeLocked(id uint64, apply func()) {
	if sc := w.v.schema; sc == nil || (len(sc.Indexes) == 0 && len(sc.Constraints) == 0) {
		apply()
		return
	}
	before := w.nodeStateLocked(id)
	apply()
	w.indexNodeLocked(id, before, w.nodeStateLocked(id))
}

// flushIndexesLocked merges the pending changes of the indexes the
// transaction touched into their deltas, folding grown deltas into new
// bases: before the transaction reads an index, checks constraints, and
// at commit.
func (w *work) flushIndexesLocked() {
	for _, x := range w.v.indexes {
		if x != nil && x.epoch == w.epoch {
			x.flush()
		}
	}
}
