package storage

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// The concurrent-transaction model test: random interleavings of
// optimistic transactions (writes, savepoints, rollbacks, commits) run
// against the store and against a serial model that decides on its own,
// from first principles, which commits must conflict. After every step
// the store passes Check and equals the model's committed graph.

type occNode struct {
	props  map[catalog.KeyID]int64
	labels map[catalog.LabelID]bool
}

type occGraph map[uint64]*occNode

func (g occGraph) clone() occGraph {
	out := occGraph{}
	for id, n := range g {
		out[id] = &occNode{props: maps.Clone(n.props), labels: maps.Clone(n.labels)}
	}
	return out
}

// occOp is one write as the model replays it.
type occOp struct {
	kind  int // 0 set prop, 1 add label, 2 create, 3 delete
	id    uint64
	key   catalog.KeyID
	label catalog.LabelID
	val   int64
}

func (g occGraph) apply(op occOp) {
	switch op.kind {
	case 0:
		g[op.id].props[op.key] = op.val
	case 1:
		g[op.id].labels[op.label] = true
	case 2:
		g[op.id] = &occNode{props: map[catalog.KeyID]int64{op.key: op.val}, labels: map[catalog.LabelID]bool{}}
	case 3:
		delete(g, op.id)
	}
}

type occTx struct {
	tx       *Tx
	snapSeq  int      // commits the snapshot holds
	snap     occGraph // committed graph at begin
	ops      []occOp
	saves    []int // op counts at savepoints (store positions equal them)
	storeSPs []int
}

func (t *occTx) view() occGraph {
	g := t.snap.clone()
	for _, op := range t.ops {
		g.apply(op)
	}
	return g
}

// writes is what the transaction changed of nodes its snapshot held:
// property keys, labels, deletions.
type occWrites struct {
	props   map[[2]uint64]bool // node, key
	labels  map[[2]uint64]bool // node, label
	deleted map[uint64]bool
	touched map[uint64]bool
}

func (t *occTx) writes() occWrites {
	w := occWrites{props: map[[2]uint64]bool{}, labels: map[[2]uint64]bool{}, deleted: map[uint64]bool{}, touched: map[uint64]bool{}}
	for _, op := range t.ops {
		if _, old := t.snap[op.id]; !old {
			continue
		}
		w.touched[op.id] = true
		switch op.kind {
		case 0:
			w.props[[2]uint64{op.id, uint64(op.key)}] = true
		case 1:
			w.labels[[2]uint64{op.id, uint64(op.label)}] = true
		case 3:
			w.deleted[op.id] = true
		}
	}
	return w
}

func (a occWrites) conflicts(b occWrites) bool {
	for k := range a.props {
		if b.props[k] {
			return true
		}
	}
	for k := range a.labels {
		if b.labels[k] {
			return true
		}
	}
	for id := range a.deleted {
		if b.touched[id] {
			return true
		}
	}
	for id := range b.deleted {
		if a.touched[id] {
			return true
		}
	}
	return false
}

func TestOptimisticTransactionsModel(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun: go test -run TestOptimisticTransactionsModel ./engine/storage/ -seed %d)", seed, seed)
	rnd := rand.New(rand.NewSource(seed))
	s := New()
	cat := s.Catalog()
	keys := []catalog.KeyID{cat.EnsureKey("a"), cat.EnsureKey("b")}
	labels := []catalog.LabelID{cat.EnsureLabel("X"), cat.EnsureLabel("Y")}
	committed := occGraph{}
	setup := s.Begin()
	for i := 0; i < 6; i++ {
		id := mustNode(t, setup, nil, []catalog.KeyID{keys[0]}, int64(i))
		committed.apply(occOp{kind: 2, id: id, key: keys[0], val: int64(i)})
	}
	mustCommit(t, setup)
	var history []occWrites // writes of each commit, in commit order
	var open []*occTx
	commits, conflicts := 0, 0
	for step := 0; step < 3000; step++ {
		if len(open) < 4 && (len(open) == 0 || rnd.Intn(4) == 0) {
			open = append(open, &occTx{tx: s.BeginOptimistic(false), snapSeq: len(history), snap: committed.clone()})
			continue
		}
		i := rnd.Intn(len(open))
		tx := open[i]
		view := tx.view()
		ids := slices.Sorted(maps.Keys(view))
		switch r := rnd.Intn(20); {
		case r < 8 && len(ids) > 0: // set a property
			op := occOp{kind: 0, id: ids[rnd.Intn(len(ids))], key: keys[rnd.Intn(2)], val: rnd.Int63n(100)}
			if err := tx.tx.SetNodeProps(op.id, []catalog.KeyID{op.key}, []vector.Value{op.val}); err != nil {
				t.Fatalf("step %d: set: %v", step, err)
			}
			tx.ops = append(tx.ops, op)
		case r < 10 && len(ids) > 0: // add a label
			op := occOp{kind: 1, id: ids[rnd.Intn(len(ids))], label: labels[rnd.Intn(2)]}
			if view[op.id].labels[op.label] {
				continue
			}
			if _, err := tx.tx.AddLabels(op.id, []catalog.LabelID{op.label}); err != nil {
				t.Fatalf("step %d: label: %v", step, err)
			}
			tx.ops = append(tx.ops, op)
		case r < 12: // create
			v := rnd.Int63n(100)
			id := mustNode(t, tx.tx, nil, []catalog.KeyID{keys[1]}, v)
			tx.ops = append(tx.ops, occOp{kind: 2, id: id, key: keys[1], val: v})
		case r < 13 && len(ids) > 3: // delete
			op := occOp{kind: 3, id: ids[rnd.Intn(len(ids))]}
			if _, _, err := tx.tx.DeleteNode(op.id, false); err != nil {
				t.Fatalf("step %d: delete: %v", step, err)
			}
			tx.ops = append(tx.ops, op)
		case r < 15: // savepoint
			tx.saves = append(tx.saves, len(tx.ops))
			tx.storeSPs = append(tx.storeSPs, tx.tx.Savepoint())
		case r < 16 && len(tx.saves) > 0: // roll back to a savepoint
			k := rnd.Intn(len(tx.saves))
			if err := tx.tx.RollbackTo(tx.storeSPs[k]); err != nil {
				t.Fatalf("step %d: rollback to: %v", step, err)
			}
			tx.ops = tx.ops[:tx.saves[k]]
			tx.saves, tx.storeSPs = tx.saves[:k+1], tx.storeSPs[:k+1]
		case r < 17: // roll back
			tx.tx.Rollback()
			open = slices.Delete(open, i, i+1)
		default: // commit
			w := tx.writes()
			conflict := false
			for _, c := range history[tx.snapSeq:] {
				conflict = conflict || w.conflicts(c)
			}
			_, err := tx.tx.Commit()
			switch {
			case conflict:
				if e, ok := errs.As(err); !ok || e.Code != errs.CodeSerialization {
					t.Fatalf("step %d: the model sees a conflict, the commit said %v", step, err)
				}
				conflicts++
			case err != nil:
				t.Fatalf("step %d: commit failed without a conflict: %v", step, err)
			default:
				for _, op := range tx.ops {
					committed.apply(op)
				}
				history = append(history, w)
				commits++
			}
			open = slices.Delete(open, i, i+1)
		}
		// Reads inside each open transaction see its snapshot plus its
		// writes; the store equals the committed model.
		for _, o := range open {
			occCompare(t, fmt.Sprintf("step %d, inside a transaction", step), o.tx, o.view(), keys, labels)
		}
		occCompare(t, fmt.Sprintf("step %d, committed", step), s.Snapshot(), committed, keys, labels)
		if err := s.Check(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
	if commits < 50 || conflicts < 10 {
		t.Fatalf("a weak run: %d commits, %d conflicts", commits, conflicts)
	}
	t.Logf("%d commits, %d conflicts", commits, conflicts)
}

func occCompare(t *testing.T, what string, r Reader, want occGraph, keys []catalog.KeyID, labels []catalog.LabelID) {
	t.Helper()
	if r.NodeCount() != int64(len(want)) {
		t.Fatalf("%s: %d nodes, want %d", what, r.NodeCount(), len(want))
	}
	for id, n := range want {
		if !r.LiveNodes().Contains(uint32(id)) {
			t.Fatalf("%s: node %d missing", what, id)
		}
		for _, k := range keys {
			var got vector.Value
			switch x := r.(type) {
			case *Tx:
				got = x.NodeProp(id, k)
			case *Snapshot:
				got = x.NodeProp(id, k)
			}
			wv, has := n.props[k]
			if has != (got != nil) || has && got != wv {
				t.Fatalf("%s: node %d key %d = %v, want %v (set %v)", what, id, k, got, wv, has)
			}
		}
		for _, l := range labels {
			if r.HasLabel(id, l) != n.labels[l] {
				t.Fatalf("%s: node %d label %d = %v", what, id, l, !n.labels[l])
			}
		}
	}
}
