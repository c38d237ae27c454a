package storage

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// memLog is a Log that keeps records in memory: the storage side of
// logging, tested without files (the wal package tests the files).
type memLog struct {
	mu      sync.Mutex
	recs    [][]byte
	ends    []uint64
	end     uint64
	syncs   int
	failing error
}

func (l *memLog) Append(rec []byte) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failing != nil {
		return 0, l.failing
	}
	l.recs = append(l.recs, append([]byte(nil), rec...))
	l.end += uint64(len(rec))
	l.ends = append(l.ends, l.end)
	return l.end, nil
}

func (l *memLog) Sync(uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.syncs++
	return l.failing
}

// replayInto applies every record of l to a new store.
func (l *memLog) replayInto(t *testing.T) *Store {
	t.Helper()
	s := New()
	r := s.Recover()
	for i, rec := range l.recs {
		if err := r.Apply(rec, l.ends[i]); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	r.Finish()
	if got, want := s.LSN(), l.end; got != want {
		t.Fatalf("replayed store at lsn %d, want %d", got, want)
	}
	return s
}

// Replaying the log of a random history rebuilds every committed version
// exactly, including index and constraint changes, whether each record is
// sealed alone, runs of a few records are, or the whole log is one run.
func TestReplayRebuildsStore(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		for _, run := range []int{1, 3, 1 << 30} {
			t.Run(fmt.Sprintf("seed=%d/run=%d", seed, run), func(t *testing.T) {
				n := recoveryRunRecords
				recoveryRunRecords = run
				defer func() { recoveryRunRecords = n }()
				replayRebuildsStore(t, seed)
			})
		}
	}
}

func replayRebuildsStore(t *testing.T, seed int64) {
	l := &memLog{}
	s, m := runModelLogged(t, seed, seed == 1, l, false)
	addTemporalAndSchema(t, s, m)
	r := l.replayInto(t)
	equalSnapshots(t, s.Snapshot(), r.Snapshot())
	compare(t, "replayed", r.Snapshot(), m, r.Catalog())
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	if got, want := r.Snapshot().Schema(), s.Snapshot().Schema(); !reflect.DeepEqual(got, want) {
		t.Fatalf("schema after replay %+v, want %+v", got, want)
	}
	if r.LSN() != l.end || s.LSN() != l.end {
		t.Fatalf("lsn %d / %d, want %d", r.LSN(), s.LSN(), l.end)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	ops := []Op{
		{Kind: OpCreateNode, ID: 7, Labels: []catalog.LabelID{0, 3}, Keys: []catalog.KeyID{1, 2},
			Vals: []vector.Value{int64(-5), []vector.Value{"x", 1.5, map[string]vector.Value{"a": true}}}},
		{Kind: OpCreateRel, ID: 1 << 33, Type: 2, Src: 7, Dst: 8, Keys: []catalog.KeyID{4}, Vals: []vector.Value{temporal.Date{Days: 19000}}},
		{Kind: OpSetNodeProps, ID: 7, Keys: []catalog.KeyID{1, 2}, Vals: []vector.Value{nil, "y"}},
		{Kind: OpSetRelProps, ID: 3, Keys: []catalog.KeyID{1}, Vals: []vector.Value{false}},
		{Kind: OpAddLabels, ID: 9, Labels: []catalog.LabelID{1}},
		{Kind: OpRemoveLabels, ID: 9, Labels: []catalog.LabelID{0, 1}},
		{Kind: OpDeleteRel, ID: 3, Type: 1, Src: 2, Dst: 2},
		{Kind: OpDeleteNode, ID: 9},
		{Kind: OpCreateIndex, Index: &catalog.Index{Name: "ix", Type: catalog.Hash, Label: "P", Keys: []string{"a", "b"}}},
		{Kind: OpCreateIndex, Index: &catalog.Index{Name: "ft", Type: catalog.FullText, Label: "T", Keys: []string{"x"}, Rel: true, Analyzer: "english"}},
		{Kind: OpCreateIndex, Index: &catalog.Index{Name: "vx", Type: catalog.Vector, Label: "P", Keys: []string{"e"},
			Vector: &catalog.VectorOptions{Dimensions: 768, Similarity: "dot", M: 24, EfConstruction: 300}}},
		{Kind: OpCreateConstraint, Constraint: &catalog.Constraint{Name: "c", Kind: catalog.Unique, Label: "P", Key: "a"}},
		{Kind: OpDropIndex, Name: "ix"},
		{Kind: OpDropConstraint, Name: "c"},
		{Kind: OpSetSystem, Name: "user/ann", Value: []byte{0, 1, 0xff}},
		{Kind: OpSetSystem, Name: "empty", Value: []byte{}},
		{Kind: OpSetSystem, Name: "gone"},
	}
	names := catalogTail{firstLabel: 2, labels: []string{"A", "B"}, firstType: 0, firstKey: 5, keys: []string{"k"}}
	b := encodeRecord(nil, 42, names, ops)
	r, err := decodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.ts != 42 || !reflect.DeepEqual(r.names, names) {
		t.Fatalf("header %d %+v", r.ts, r.names)
	}
	for i := range ops {
		if !reflect.DeepEqual(r.ops[i], ops[i]) {
			t.Fatalf("op %d: got %+v, want %+v", i, r.ops[i], ops[i])
		}
	}
	// Every truncation is an error, never a panic or a shorter record.
	for n := 0; n < len(b); n++ {
		if _, err := decodeRecord(b[:n]); err == nil {
			t.Fatalf("a record cut at %d of %d bytes decoded", n, len(b))
		}
	}
}

// FuzzDecodeRecord: arbitrary bytes decode to an error or to a record
// that encodes back to the same bytes; replaying one never panics.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(encodeRecord(nil, 1, catalogTail{labels: []string{"L"}, keys: []string{"k"}},
		[]Op{{Kind: OpCreateNode, ID: 0, Labels: []catalog.LabelID{0}, Keys: []catalog.KeyID{0}, Vals: []vector.Value{int64(1)}}}))
	f.Add(encodeRecord(nil, 1, catalogTail{}, []Op{{Kind: OpDeleteNode, ID: 3}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(b)
		if err != nil {
			return
		}
		s := New()
		rc := s.Recover()
		if rc.Apply(b, 1) == nil {
			rc.Finish()
		}
		if err := s.Check(); err != nil {
			t.Fatalf("a replayed record broke the store: %v", err)
		}
		_ = r
	})
}

// Two optimistic transactions that set the same property: the second to
// commit fails with 40001 and changes nothing; disjoint writes both
// commit, the later one replayed onto the earlier.
func TestOptimisticFirstCommitterWins(t *testing.T) {
	s := New()
	cat := s.Catalog()
	k, j := cat.EnsureKey("k"), cat.EnsureKey("j")
	setup := s.Begin()
	a := mustNode(t, setup, nil, []catalog.KeyID{k}, int64(0))
	b := mustNode(t, setup, nil, []catalog.KeyID{k}, int64(0))
	mustCommit(t, setup)

	t1, t2 := s.BeginOptimistic(false), s.BeginOptimistic(false)
	if err := t1.SetNodeProps(a, []catalog.KeyID{k}, []vector.Value{int64(1)}); err != nil {
		t.Fatal(err)
	}
	if err := t2.SetNodeProps(a, []catalog.KeyID{k}, []vector.Value{int64(2)}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, t1)
	_, err := t2.Commit()
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeSerialization {
		t.Fatalf("second committer: %v, want 40001", err)
	}
	if got := s.Snapshot().NodeProp(a, k); got != int64(1) {
		t.Fatalf("a.k = %v, want 1", got)
	}

	// Disjoint: another key of the same node, and another node.
	t3, t4 := s.BeginOptimistic(false), s.BeginOptimistic(false)
	if err := t3.SetNodeProps(a, []catalog.KeyID{j}, []vector.Value{"x"}); err != nil {
		t.Fatal(err)
	}
	c := mustNode(t, t3, nil, nil)
	if err := t4.SetNodeProps(b, []catalog.KeyID{k}, []vector.Value{int64(9)}); err != nil {
		t.Fatal(err)
	}
	d := mustNode(t, t4, nil, nil)
	mustCommit(t, t4)
	mustCommit(t, t3) // rebased onto t4's version
	v := s.Snapshot()
	if v.NodeProp(a, j) != "x" || v.NodeProp(b, k) != int64(9) || !v.nodeLive(c) || !v.nodeLive(d) || v.NodeCount() != 4 {
		t.Fatalf("after disjoint commits: a.j=%v b.k=%v count=%d", v.NodeProp(a, j), v.NodeProp(b, k), v.NodeCount())
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}

	// Deleting a node another transaction changed conflicts.
	t5, t6 := s.BeginOptimistic(false), s.BeginOptimistic(false)
	if _, _, err := t5.DeleteNode(c, false); err != nil {
		t.Fatal(err)
	}
	if err := t6.SetNodeProps(c, []catalog.KeyID{k}, []vector.Value{int64(3)}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, t6)
	if _, err := t5.Commit(); err == nil {
		t.Fatal("deleting a node another transaction changed committed")
	}
	// A relationship to a node deleted meanwhile fails at rebase.
	rt := cat.EnsureType("R")
	t7, t8 := s.BeginOptimistic(false), s.BeginOptimistic(false)
	if _, err := t7.CreateRel(rt, a, d, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := t8.DeleteNode(d, false); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, t8)
	if _, err := t7.Commit(); err == nil {
		t.Fatal("a relationship to a deleted node committed")
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// SERIALIZABLE: write skew (each reads both, writes one) fails the second
// committer; without read tracking both commit.
func TestSerializableWriteSkew(t *testing.T) {
	for _, serializable := range []bool{false, true} {
		s := New()
		cat := s.Catalog()
		k := cat.EnsureKey("v")
		setup := s.Begin()
		a := mustNode(t, setup, nil, []catalog.KeyID{k}, int64(1))
		b := mustNode(t, setup, nil, []catalog.KeyID{k}, int64(1))
		mustCommit(t, setup)
		t1, t2 := s.BeginOptimistic(serializable), s.BeginOptimistic(serializable)
		for _, tx := range []*Tx{t1, t2} {
			if tx.NodeProp(a, k) != int64(1) || tx.NodeProp(b, k) != int64(1) {
				t.Fatal("setup not visible")
			}
		}
		if err := t1.SetNodeProps(a, []catalog.KeyID{k}, []vector.Value{int64(0)}); err != nil {
			t.Fatal(err)
		}
		if err := t2.SetNodeProps(b, []catalog.KeyID{k}, []vector.Value{int64(0)}); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, t1)
		_, err := t2.Commit()
		if serializable != (err != nil) {
			t.Fatalf("serializable=%v: second commit error %v", serializable, err)
		}
	}
}

// Rolling back to a savepoint keeps the writes before it only.
func TestSavepointRollback(t *testing.T) {
	s := New()
	k := s.Catalog().EnsureKey("k")
	tx := s.BeginOptimistic(false)
	a := mustNode(t, tx, nil, []catalog.KeyID{k}, int64(1))
	sp := tx.Savepoint()
	b := mustNode(t, tx, nil, nil)
	if err := tx.SetNodeProps(a, []catalog.KeyID{k}, []vector.Value{int64(2)}); err != nil {
		t.Fatal(err)
	}
	if err := tx.RollbackTo(sp); err != nil {
		t.Fatal(err)
	}
	if tx.NodeProp(a, k) != int64(1) || tx.view().nodeLive(b) || tx.NodeCount() != 1 {
		t.Fatal("savepoint rollback kept later writes")
	}
	mustCommit(t, tx)
	if s.Snapshot().NodeCount() != 1 || s.Snapshot().NodeProp(a, k) != int64(1) {
		t.Fatal("committed state wrong after a savepoint rollback")
	}
}

// A failed log stops commits for good and publishes nothing.
func TestLogFailureStopsCommits(t *testing.T) {
	s := New()
	l := &memLog{}
	s.SetLog(l)
	tx := s.Begin()
	mustNode(t, tx, nil, nil)
	mustCommit(t, tx)
	l.failing = errors.New("disk on fire")
	tx = s.Begin()
	mustNode(t, tx, nil, nil)
	if _, err := tx.Commit(); err == nil {
		t.Fatal("commit succeeded on a failed log")
	}
	l.failing = nil
	tx = s.Begin()
	if _, err := tx.CreateNode(nil, nil, nil); err == nil {
		tx.Rollback()
		t.Fatal("a write started after the log failed")
	}
	if s.Snapshot().NodeCount() != 1 {
		t.Fatalf("%d nodes visible, want the 1 durable one", s.Snapshot().NodeCount())
	}
}

// Creates append to their group's chunk in place (extendCopy): older
// versions keep their values, two transactions extending one version
// each get their own copy, and an update among shared rows copies them
// first.
func TestAppendSharesChunkTail(t *testing.T) {
	s := New()
	k := s.Catalog().EnsureKey("k")
	tx := s.Begin()
	a := mustNode(t, tx, nil, []catalog.KeyID{k}, int64(1))
	mustCommit(t, tx)
	s1 := s.Snapshot()
	t1, t2 := s.BeginOptimistic(false), s.BeginOptimistic(false)
	b := mustNode(t, t1, nil, []catalog.KeyID{k}, int64(2)) // claims the tail
	c := mustNode(t, t2, nil, []catalog.KeyID{k}, int64(3)) // copies
	if err := t1.SetNodeProps(a, []catalog.KeyID{k}, []vector.Value{int64(10)}); err != nil {
		t.Fatal(err) // a row below the shared ones: copies them first
	}
	mustCommit(t, t1)
	mustCommit(t, t2)
	v := s.Snapshot()
	if s1.NodeProp(a, k) != int64(1) || s1.nodeLive(b) || s1.nodeLive(c) {
		t.Fatal("an older version changed")
	}
	if v.NodeProp(a, k) != int64(10) || v.NodeProp(b, k) != int64(2) || v.NodeProp(c, k) != int64(3) {
		t.Fatalf("latest: a=%v b=%v c=%v", v.NodeProp(a, k), v.NodeProp(b, k), v.NodeProp(c, k))
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
