package storage

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
)

// Conflict detection for optimistic transactions (first committer wins).
//
// Every commit leaves a history entry: its write set (the entities it
// changed that existed before it, at property, label and deletion
// granularity) and its write footprint (the labels, relationship types
// and property keys it changed, and whether it created or deleted
// nodes). An optimistic transaction committing on top of newer versions
// than its snapshot checks its own write set against the entries of the
// commits it did not see:
//
//   - both set the same property of the same entity, or changed the
//     same label of the same node, or
//   - one deleted an entity the other changed
//
// is a write–write conflict: 40001, and nothing of the transaction is
// applied. Created entities never conflict (nobody else can see them);
// a relationship created on a node another transaction deleted is caught
// when the writes are replayed onto the latest version (rebase), as is a
// plain DELETE of a node that gained a relationship meanwhile.
//
// A SERIALIZABLE transaction also records what it read (its read
// footprint, at label, relationship type and property key granularity)
// and fails with 40001 when a commit it did not see wrote anything in
// that footprint. The granularity is coarse (reading :Person and another
// transaction creating any :Person conflict) but never misses a
// dependency, so a serializable history is the outcome.
//
// Entries are kept while an open optimistic transaction may need them:
// from the oldest snapshot such a transaction reads (history.from says
// where the entries start; older snapshots fail with 40001 as too old).

// entityKey is a node id (even) or a relationship id (odd) shifted left.
type entityKey uint64

func nodeKey(id uint64) entityKey { return entityKey(id << 1) }
func relKey(id uint64) entityKey  { return entityKey(id<<1 | 1) }

func (k entityKey) String() string {
	if k&1 == 1 {
		return "relationship " + itoa(uint64(k>>1))
	}
	return "node " + itoa(uint64(k>>1))
}

func itoa(x uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + x%10)
		x /= 10
		if x == 0 {
			return string(b[i:])
		}
	}
}

// entityWrites is what one transaction changed of one entity.
type entityWrites struct {
	deleted bool
	keys    []catalog.KeyID
	labels  []catalog.LabelID
}

// writeSet maps entities that existed before the transaction to what it
// changed of them.
type writeSet map[entityKey]*entityWrites

// bitset is a growable set of small ids.
type bitset []uint64

func (b *bitset) add(i uint32) {
	w := int(i >> 6)
	for len(*b) <= w {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (i & 63)
}

func (b bitset) intersects(o bitset) bool {
	for i := range min(len(b), len(o)) {
		if b[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

func (b bitset) empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

// footprint is a coarse description of what a transaction read or wrote.
// The all* flags stand for every id of their kind.
type footprint struct {
	labels, types, nodeKeys, relKeys             bitset
	nodes                                        bool // node existence (the live set)
	allLabels, allTypes, allNodeKeys, allRelKeys bool
}

func (f *footprint) overlaps(o *footprint) bool {
	if o == nil {
		return false
	}
	meet := func(a, b bitset, allA, allB bool) bool {
		return (allA && (allB || !b.empty())) || (allB && !a.empty()) || a.intersects(b)
	}
	return f.nodes && o.nodes ||
		meet(f.labels, o.labels, f.allLabels, o.allLabels) ||
		meet(f.types, o.types, f.allTypes, o.allTypes) ||
		meet(f.nodeKeys, o.nodeKeys, f.allNodeKeys, o.allNodeKeys) ||
		meet(f.relKeys, o.relKeys, f.allRelKeys, o.allRelKeys)
}

// readTracker is the footprint of a SERIALIZABLE transaction's reads,
// marked from any goroutine (parallel workers read one Tx).
type readTracker struct {
	mu sync.Mutex
	f  footprint
	// seen avoids the lock for marks already made: one bit per kind+id
	// below 64 (the common case of few labels, types and keys).
	seen [5]atomic.Uint64
}

const (
	readLabel = iota
	readType
	readNodeKey
	readRelKey
	readFlags
)

func (r *readTracker) mark(kind int, id uint32) {
	if r == nil {
		return
	}
	if id < 64 && r.seen[kind].Load()&(1<<id) != 0 {
		return
	}
	r.mu.Lock()
	switch kind {
	case readLabel:
		r.f.labels.add(id)
	case readType:
		r.f.types.add(id)
	case readNodeKey:
		r.f.nodeKeys.add(id)
	case readRelKey:
		r.f.relKeys.add(id)
	}
	r.mu.Unlock()
	if id < 64 {
		r.seen[kind].Or(1 << id)
	}
}

// flag bits of readFlags.
const (
	readNodes = 1 << iota
	readAllLabels
	readAllTypes
	readAllNodeKeys
	readAllRelKeys
)

func (r *readTracker) markFlag(flag uint64) {
	if r == nil || r.seen[readFlags].Load()&flag != 0 {
		return
	}
	r.mu.Lock()
	switch flag {
	case readNodes:
		r.f.nodes = true
	case readAllLabels:
		r.f.allLabels = true
	case readAllTypes:
		r.f.allTypes = true
	case readAllNodeKeys:
		r.f.allNodeKeys = true
	case readAllRelKeys:
		r.f.allRelKeys = true
	}
	r.mu.Unlock()
	r.seen[readFlags].Or(flag)
}

func (r *readTracker) footprint() *footprint {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.f
	return &f
}

// writeEffects computes the write set and write footprint of ops applied
// to base: entities at or above base's bounds were created by the
// transaction and are left out of the write set.
func writeEffects(ops []Op, base *Snapshot) (writeSet, *footprint) {
	var ws writeSet
	f := &footprint{}
	entity := func(k entityKey) *entityWrites {
		if ws == nil {
			ws = writeSet{}
		}
		e := ws[k]
		if e == nil {
			e = &entityWrites{}
			ws[k] = e
		}
		return e
	}
	for i := range ops {
		op := &ops[i]
		oldNode := op.ID < base.nodeBound
		oldRel := op.ID < base.relBound
		switch op.Kind {
		case OpCreateNode:
			f.nodes = true
			for _, l := range op.Labels {
				f.labels.add(uint32(l))
			}
			for _, k := range op.Keys {
				f.nodeKeys.add(uint32(k))
			}
		case OpCreateRel:
			f.types.add(uint32(op.Type))
			for _, k := range op.Keys {
				f.relKeys.add(uint32(k))
			}
		case OpSetNodeProps, OpSetRelProps:
			isNode := op.Kind == OpSetNodeProps
			for _, k := range op.Keys {
				if isNode {
					f.nodeKeys.add(uint32(k))
				} else {
					f.relKeys.add(uint32(k))
				}
			}
			if isNode && oldNode || !isNode && oldRel {
				key := relKey(op.ID)
				if isNode {
					key = nodeKey(op.ID)
				}
				e := entity(key)
				e.keys = append(e.keys, op.Keys...)
			}
		case OpAddLabels, OpRemoveLabels:
			for _, l := range op.Labels {
				f.labels.add(uint32(l))
			}
			if oldNode {
				e := entity(nodeKey(op.ID))
				e.labels = append(e.labels, op.Labels...)
			}
		case OpDeleteRel:
			f.types.add(uint32(op.Type))
			f.allRelKeys = true
			if oldRel {
				entity(relKey(op.ID)).deleted = true
			}
		case OpDeleteNode:
			f.nodes, f.allLabels, f.allNodeKeys = true, true, true
			if oldNode {
				entity(nodeKey(op.ID)).deleted = true
			}
		case OpSetSystem:
			// System records are no graph data: no reader's footprint
			// holds them, and no write set (system.go).
		default: // schema ops change what every reader may see
			f.nodes, f.allLabels, f.allTypes, f.allNodeKeys, f.allRelKeys = true, true, true, true, true
		}
	}
	return ws, f
}

// conflictWith returns a description of the first write–write conflict
// between ws and a committed transaction's write set o, or "".
func (ws writeSet) conflictWith(o writeSet) string {
	if len(o) < len(ws) {
		ws, o = o, ws
	}
	for k, a := range ws {
		b := o[k]
		if b == nil {
			continue
		}
		switch {
		case a.deleted || b.deleted:
			return k.String() + " was deleted"
		case slicesMeet(a.keys, b.keys):
			return "a property of " + k.String() + " was changed"
		case slicesMeet(a.labels, b.labels):
			return "a label of " + k.String() + " was changed"
		}
	}
	return ""
}

func slicesMeet[T comparable](a, b []T) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// history holds the conflict entries of recent commits, by ts.
type history struct {
	mu      sync.Mutex
	from    uint64 // entries exist for every commit ts >= from
	entries []histEntry
}

type histEntry struct {
	ts uint64
	ws writeSet
	fp *footprint
}

func (h *history) reset(ts uint64) {
	h.mu.Lock()
	h.entries, h.from = nil, ts+1
	h.mu.Unlock()
}

func (h *history) add(e histEntry) {
	h.mu.Lock()
	h.entries = append(h.entries, e)
	h.mu.Unlock()
}

// prune drops the entries at or below ts.
func (h *history) prune(ts uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := 0
	for i < len(h.entries) && h.entries[i].ts <= ts {
		i++
	}
	if i == 0 {
		return
	}
	h.entries = slices.Delete(h.entries, 0, i)
	h.from = max(h.from, ts+1)
}

// conflictError is the 40001 a failed validation returns.
func conflictError(format string, args ...any) error {
	return errs.New(errs.CodeSerialization, errs.CatTransaction,
		"could not serialize access: "+format+"; retry the transaction", args...)
}

// validate checks a transaction's writes (and, when reads is set, its
// reads) made on base against the commits after base up to head.
func (h *history) validate(ops []Op, base *Snapshot, head uint64, reads *footprint) error {
	if head == base.ts {
		return nil
	}
	ws, _ := writeEffects(ops, base)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.from > base.ts+1 {
		return conflictError("the transaction's snapshot (ts %d) is older than the conflict history kept (from ts %d)", base.ts, h.from)
	}
	for _, e := range h.entries {
		if e.ts <= base.ts || e.ts > head {
			continue
		}
		if what := ws.conflictWith(e.ws); what != "" {
			return conflictError("%s by a transaction that committed at ts %d, after this one's snapshot", what, e.ts)
		}
		if reads != nil && reads.overlaps(e.fp) {
			return conflictError("a transaction that committed at ts %d wrote data this SERIALIZABLE transaction read", e.ts)
		}
	}
	return nil
}
