package storage

import (
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

func mustNode(t *testing.T, tx *Tx, labels []catalog.LabelID, keys []catalog.KeyID, vals ...vector.Value) uint64 {
	t.Helper()
	id, err := tx.CreateNode(labels, keys, vals)
	if err != nil {
		t.Fatalf("CreateNode: %v", err)
	}
	return id
}

func mustCommit(t *testing.T, tx *Tx) uint64 {
	t.Helper()
	ts, err := tx.Commit()
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return ts
}

func TestSnapshotIsolation(t *testing.T) {
	s := New()
	cat := s.Catalog()
	person := cat.EnsureLabel("Person")
	name := cat.EnsureKey("name")
	knows := cat.EnsureType("KNOWS")

	tx := s.Begin()
	a := mustNode(t, tx, []catalog.LabelID{person}, []catalog.KeyID{name}, "a")
	b := mustNode(t, tx, nil, []catalog.KeyID{name}, "b")
	if _, err := tx.CreateRel(knows, a, b, nil, nil); err != nil {
		t.Fatal(err)
	}
	// Own writes are visible before commit, to the Tx only.
	if tx.NodeCount() != 2 || !tx.HasLabel(a, person) || tx.RelCount() != 1 {
		t.Fatal("tx does not see its own writes")
	}
	if adj := tx.Adjacency(knows, Outgoing); adj == nil || adj.Degree(a) != 1 {
		t.Fatal("tx adjacency misses its own relationship")
	}
	if s.Snapshot().NodeCount() != 0 || s.Snapshot().Adjacency(knows, Outgoing) != nil {
		t.Fatal("uncommitted writes visible to others")
	}
	before := s.Snapshot()
	ts := mustCommit(t, tx)
	if ts != 1 || s.Snapshot().TS() != 1 {
		t.Fatalf("commit ts %d", ts)
	}

	// A snapshot taken now keeps answering the same after more commits.
	snap := s.Snapshot()
	tx2 := s.Begin()
	c := mustNode(t, tx2, []catalog.LabelID{person}, []catalog.KeyID{name}, int64(3))
	if _, err := tx2.CreateRel(knows, c, a, nil, nil); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx2)
	if snap.NodeCount() != 2 || snap.LabelNodes(person).GetCardinality() != 1 ||
		snap.NodePropType(name) != vector.String || snap.Adjacency(knows, Incoming).Degree(a) != 0 {
		t.Fatal("old snapshot changed after a later commit")
	}
	if now := s.Snapshot(); now.NodePropType(name) != vector.Any || now.Adjacency(knows, Incoming).Degree(a) != 1 {
		t.Fatal("new snapshot misses the commit")
	}
	if before.NodeCount() != 0 {
		t.Fatal("empty snapshot changed")
	}

	// Rollback leaves nothing visible, and its ids are never reused.
	tx3 := s.Begin()
	d := mustNode(t, tx3, []catalog.LabelID{person}, []catalog.KeyID{name}, "gone")
	tx3.Rollback()
	if n := s.Snapshot().NodeCount(); n != 3 {
		t.Fatalf("%d nodes after rollback", n)
	}
	if tx3.NodeCount() != 3 || tx3.HasLabel(d, person) {
		t.Fatal("rolled-back tx still reads its writes")
	}
	if _, err := tx3.CreateNode(nil, nil, nil); err == nil {
		t.Fatal("write after rollback accepted")
	}
	tx4 := s.Begin()
	e := mustNode(t, tx4, nil, nil)
	mustCommit(t, tx4)
	if e == d || s.Snapshot().HasLabel(d, person) || s.Snapshot().LiveNodes().Contains(uint32(d)) {
		t.Fatalf("rolled-back id %d reused or live (new id %d)", d, e)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestReadOnlyTxTakesNoLock(t *testing.T) {
	s := New()
	w := s.Begin()
	mustNode(t, w, nil, nil) // w holds the writer lock
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := s.Begin()
		_ = r.NodeCount()
		_ = r.LiveNodes()
		if ts, err := r.Commit(); err != nil || ts != 0 {
			t.Errorf("read-only commit = %d, %v", ts, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("read-only transaction blocked on the writer")
	}
	mustCommit(t, w)
}

func TestTxRebasesOnFirstWrite(t *testing.T) {
	s := New()
	old := s.Begin() // snapshot at ts 0
	w := s.Begin()
	a := mustNode(t, w, nil, nil)
	mustCommit(t, w)
	ty := s.Catalog().EnsureType("T")
	// old now writes: it moves to ts 1 and sees node a.
	if _, err := old.CreateRel(ty, a, a, nil, nil); err == nil {
		// a was not live in old's snapshot: the endpoint check runs on
		// the view before the first write, so this must fail.
		t.Fatal("relationship to a node outside the snapshot accepted")
	}
	mustNode(t, old, nil, nil)
	if _, err := old.CreateRel(ty, a, a, nil, nil); err != nil {
		t.Fatalf("after rebase: %v", err)
	}
	if ts := mustCommit(t, old); ts != 2 {
		t.Fatalf("ts %d", ts)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestWriteErrors(t *testing.T) {
	s := New()
	cat := s.Catalog()
	k := cat.EnsureKey("k")
	ty := cat.EnsureType("T")
	tx := s.Begin()
	a := mustNode(t, tx, nil, nil)
	cases := []struct {
		name string
		err  func() error
	}{
		{"missing dst", func() error { _, err := tx.CreateRel(ty, a, 99, nil, nil); return err }},
		{"missing src", func() error { _, err := tx.CreateRel(ty, 1<<40, a, nil, nil); return err }},
		{"unknown type", func() error { _, err := tx.CreateRel(7, a, a, nil, nil); return err }},
		{"unknown label", func() error { _, err := tx.CreateNode([]catalog.LabelID{3}, nil, nil); return err }},
		{"unknown key", func() error { _, err := tx.CreateNode(nil, []catalog.KeyID{9}, []vector.Value{int64(1)}); return err }},
		{"node value", func() error {
			_, err := tx.CreateNode(nil, []catalog.KeyID{k}, []vector.Value{vector.NodeRef(1)})
			return err
		}},
		{"int value", func() error { _, err := tx.CreateNode(nil, []catalog.KeyID{k}, []vector.Value{7}); return err }},
		{"nested bad value", func() error {
			_, err := tx.CreateRel(ty, a, a, []catalog.KeyID{k}, []vector.Value{[]vector.Value{map[string]vector.Value{"x": int32(1)}}})
			return err
		}},
		{"key/value mismatch", func() error { _, err := tx.CreateNode(nil, []catalog.KeyID{k}, nil); return err }},
	}
	for _, c := range cases {
		err := c.err()
		e, ok := errs.As(err)
		if !ok || e.Code != errs.CodeData {
			t.Errorf("%s: got %v, want a 22000 error", c.name, err)
		}
	}
	if tx.NodeCount() != 1 || tx.RelCount() != 0 || len(tx.Ops()) != 1 {
		t.Fatal("failed writes changed the transaction")
	}
	mustCommit(t, tx)
	if _, err := tx.Commit(); err == nil {
		t.Fatal("second commit accepted")
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestValuesAreCopied(t *testing.T) {
	s := New()
	k := s.Catalog().EnsureKey("k")
	list := []vector.Value{int64(1)}
	tx := s.Begin()
	id := mustNode(t, tx, nil, []catalog.KeyID{k, k}, "first", list)
	mustCommit(t, tx)
	list[0] = int64(2)
	var got vector.Value
	s.Snapshot().NodeProps(id, func(_ catalog.KeyID, v vector.Value) { got = v })
	if l, ok := got.([]vector.Value); !ok || l[0] != int64(1) {
		t.Fatalf("stored value %v changed with the caller's slice (or last duplicate key lost)", got)
	}
	if s.Snapshot().NodePropType(k) != vector.Any {
		t.Fatal("list column is not Any")
	}
}

// A Tx that hands a bitmap to a reader must not change it by writing on.
func TestTxBitmapFrozenForReader(t *testing.T) {
	s := New()
	l := s.Catalog().EnsureLabel("L")
	tx := s.Begin()
	mustNode(t, tx, []catalog.LabelID{l}, nil)
	b, live := tx.LabelNodes(l), tx.LiveNodes()
	mustNode(t, tx, []catalog.LabelID{l}, nil)
	if b.GetCardinality() != 1 || live.GetCardinality() != 1 {
		t.Fatal("bitmap handed to a reader changed under it")
	}
	if tx.LabelNodes(l).GetCardinality() != 2 {
		t.Fatal("tx misses its second node")
	}
	mustCommit(t, tx)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestNodeIDLimit(t *testing.T) {
	s := New()
	l := s.Catalog().EnsureLabel("L")
	s.nextNode.Store(maxNodeID) // white-box: skip 2^32-1 ids
	tx := s.Begin()
	last := mustNode(t, tx, []catalog.LabelID{l}, nil)
	if last != maxNodeID {
		t.Fatalf("id %d", last)
	}
	_, err := tx.CreateNode(nil, nil, nil)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("past 2^32: %v", err)
	}
	if _, err := tx.CreateNode(nil, nil, nil); err == nil {
		t.Fatal("counter wrapped")
	}
	mustCommit(t, tx)
	if !s.Snapshot().HasLabel(maxNodeID, l) || s.Snapshot().NodeIDBound() != 1<<32 {
		t.Fatal("last id lost")
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
