package storage

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

func key(t *testing.T, vals ...vector.Value) string {
	t.Helper()
	var b []byte
	for _, v := range vals {
		var ok bool
		if b, ok = AppendIndexKey(b, v); !ok {
			t.Fatalf("no key for %v", v)
		}
	}
	return string(b)
}

func TestIndexKeyOrder(t *testing.T) {
	ordered := []vector.Value{int64(-1 << 62), -2.5, int64(-1), 0.0, int64(1), 1.5, int64(2),
		int64(1<<53 + 1), float64(1 << 60), int64(1<<62 + 1), int64(1<<63 - 1)}
	for i := 1; i < len(ordered); i++ {
		if !(key(t, ordered[i-1]) < key(t, ordered[i])) {
			t.Errorf("key(%v) !< key(%v)", ordered[i-1], ordered[i])
		}
	}
	negNaN := math.Float64frombits(0xFFF8000000000000)
	if !(key(t, math.Inf(1)) < key(t, negNaN) && key(t, negNaN) == key(t, math.NaN())) {
		t.Error("NaN does not sort after +Inf as one key")
	}
	if key(t, int64(1)) != key(t, 1.0) || key(t, 0.0) != key(t, math.Copysign(0, -1)) {
		t.Error("1 and 1.0 (or 0 and -0.0) have different keys")
	}
	if !(key(t, "a") < key(t, "a\x00") && key(t, "a\x00") < key(t, "ab") && key(t, "ab") < key(t, "b")) {
		t.Error("string keys out of order")
	}
	// A composite key's first component is a byte prefix.
	p := key(t, "ab")
	if k := key(t, "ab", int64(3)); k[:len(p)] != p {
		t.Error("composite key does not start with its first component")
	}
}

// TestIndexMVCC: a snapshot keeps seeing its own index entries after
// later commits, a Tx sees its own writes, and Check holds throughout.
func TestIndexMVCC(t *testing.T) {
	s := New()
	cat := s.Catalog()
	person := cat.EnsureLabel("Person")
	age := cat.EnsureKey("age")
	tx := s.Begin()
	a := mustNode(t, tx, []catalog.LabelID{person}, []catalog.KeyID{age}, int64(30))
	mustNode(t, tx, nil, []catalog.KeyID{age}, int64(30)) // no label: no entry
	mustCommit(t, tx)

	tx = s.Begin()
	if err := tx.CreateIndex(catalog.Index{Name: "ix", Type: catalog.BTree, Label: "Person", Keys: []string{"age"}}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	snap1 := s.Snapshot()
	ix := snap1.Schema().Index("ix")
	if ix == nil {
		t.Fatal("index missing from the schema")
	}
	if got := snap1.IndexEqual(ix, key(t, 30.0)).ToArray(); len(got) != 1 || uint64(got[0]) != a {
		t.Fatalf("seek 30 = %v, want [%d]", got, a)
	}
	tx = s.Begin()
	b := mustNode(t, tx, []catalog.LabelID{person}, []catalog.KeyID{age}, int64(30))
	if got := tx.IndexEqual(ix, key(t, int64(30))).GetCardinality(); got != 2 {
		t.Fatalf("tx sees %d entries, want 2", got)
	}
	mustCommit(t, tx)
	if got := snap1.IndexEqual(ix, key(t, int64(30))).GetCardinality(); got != 1 {
		t.Fatalf("old snapshot sees %d entries, want 1", got)
	}
	if got := s.Snapshot().IndexRange(ix, key(t, int64(29)), "").ToArray(); len(got) != 2 || uint64(got[1]) != b {
		t.Fatalf("range = %v", got)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	tx = s.Begin()
	if err := tx.CreateIndex(catalog.Index{Name: "ix", Type: catalog.Hash, Label: "Person", Keys: []string{"name"}}); !isCode(err, errs.CodeObjectExists) {
		t.Fatalf("duplicate name: %v", err)
	}
	if err := tx.DropIndex("nope"); !isCode(err, errs.CodeNoObject) {
		t.Fatalf("unknown name: %v", err)
	}
	tx.Rollback()
}

func isCode(err error, code string) bool {
	e, ok := errs.As(err)
	return ok && e.Code == code
}

// TestIndexRandom builds BTREE and HASH indexes over random nodes across
// many commits (enough to fold deltas) and compares seeks with a scan.
func TestIndexRandom(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	s := New()
	cat := s.Catalog()
	l := cat.EnsureLabel("L")
	kx, ky := cat.EnsureKey("x"), cat.EnsureKey("y")
	tx := s.Begin()
	for _, def := range []catalog.Index{
		{Name: "bx", Type: catalog.BTree, Label: "L", Keys: []string{"x"}},
		{Name: "hx", Type: catalog.Hash, Label: "L", Keys: []string{"x"}},
		{Name: "bxy", Type: catalog.BTree, Label: "L", Keys: []string{"x", "y"}},
	} {
		if err := tx.CreateIndex(def); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	val := func() vector.Value {
		switch r.Intn(4) {
		case 0:
			return float64(r.Intn(20))
		case 1:
			return string(rune('a' + r.Intn(5)))
		}
		return int64(r.Intn(20))
	}
	for c := 0; c < 60; c++ {
		tx := s.Begin()
		for i := r.Intn(30); i >= 0; i-- {
			var labels []catalog.LabelID
			if r.Intn(4) > 0 {
				labels = []catalog.LabelID{l}
			}
			mustNode(t, tx, labels, []catalog.KeyID{kx, ky}, val(), val())
		}
		mustCommit(t, tx)
	}
	snap := s.Snapshot()
	if err := snap.Check(); err != nil {
		t.Fatal(err)
	}
	sc := snap.Schema()
	for v := int64(0); v < 20; v++ {
		want := 0
		it := snap.LabelNodes(l).Iterator()
		for it.HasNext() {
			x := snap.nodeCol(kx).get(uint64(it.Next()))
			if f, ok := x.(float64); (ok && f == float64(v)) || x == v {
				want++
			}
		}
		k := key(t, v)
		for _, name := range []string{"bx", "hx"} {
			if got := snap.IndexEqual(sc.Index(name), k).GetCardinality(); int(got) != want {
				t.Fatalf("%s = %d: %d nodes, want %d", name, v, got, want)
			}
		}
		if got := snap.IndexRange(sc.Index("bxy"), k, PrefixEnd(k)).GetCardinality(); int(got) != want {
			t.Fatalf("bxy prefix %d: %d nodes, want %d", v, got, want)
		}
		if got := drain(snap.IndexCursor(sc.Index("bxy"), k, PrefixEnd(k), false)); len(got) != want {
			t.Fatalf("bxy ordered prefix %d: %d nodes, want %d", v, len(got), want)
		}
	}
}

func TestUniqueConstraint(t *testing.T) {
	s := New()
	cat := s.Catalog()
	l := cat.EnsureLabel("P")
	id := cat.EnsureKey("id")
	tx := s.Begin()
	if err := tx.CreateConstraint(catalog.Constraint{Name: "u", Kind: catalog.Unique, Label: "P", Key: "id"}); err != nil {
		t.Fatal(err)
	}
	mustNode(t, tx, []catalog.LabelID{l}, []catalog.KeyID{id}, int64(1))
	mustCommit(t, tx)
	tx = s.Begin()
	mustNode(t, tx, []catalog.LabelID{l}, []catalog.KeyID{id}, 1.0)
	if _, err := tx.Commit(); !isCode(err, errs.CodeConstraint) {
		t.Fatalf("duplicate commit: %v", err)
	}
	if s.Snapshot().NodeCount() != 1 {
		t.Fatal("a violating transaction changed the graph")
	}
	// The writer lock was released: a new transaction can write.
	tx = s.Begin()
	mustNode(t, tx, []catalog.LabelID{l}, []catalog.KeyID{id}, int64(2))
	mustCommit(t, tx)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestIndexMaintenanceHook drives maintainNodeLocked the way the apply
// functions of property, label and delete ops call it, through many
// commits (folding deltas), and checks the indexes against the columns
// after each commit; an old snapshot keeps its entries.
func TestIndexMaintenanceHook(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	s := New()
	cat := s.Catalog()
	la, lb := cat.EnsureLabel("A"), cat.EnsureLabel("B")
	kx, ky := cat.EnsureKey("x"), cat.EnsureKey("y")
	tx := s.Begin()
	var ids []uint64
	for i := 0; i < 200; i++ {
		ids = append(ids, mustNode(t, tx, []catalog.LabelID{la}, []catalog.KeyID{kx, ky}, int64(i%10), int64(i)))
	}
	for _, def := range []catalog.Index{
		{Name: "ax", Type: catalog.BTree, Label: "A", Keys: []string{"x"}},
		{Name: "bx", Type: catalog.Hash, Label: "B", Keys: []string{"x"}},
		{Name: "axy", Type: catalog.BTree, Label: "A", Keys: []string{"x", "y"}},
	} {
		if err := tx.CreateIndex(def); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	first := s.Snapshot()
	firstCount := first.IndexEqual(first.Schema().Index("ax"), key(t, int64(3))).GetCardinality()
	live := map[uint64]bool{}
	for _, id := range ids {
		live[id] = true
	}
	for c := 0; c < 50; c++ {
		tx := s.Begin()
		w, err := tx.begin()
		if err != nil {
			t.Fatal(err)
		}
		w.mu.Lock()
		for i := 0; i < 20; i++ {
			id := ids[r.Intn(len(ids))]
			if !live[id] {
				continue
			}
			switch r.Intn(5) {
			case 0: // set x
				w.maintainNodeLocked(id, func() {
					setProps(&w.v.nodeCols, id, []catalog.KeyID{kx}, []vector.Value{float64(r.Intn(10))}, w.epoch)
				})
			case 1: // remove y
				w.maintainNodeLocked(id, func() { clearProp(w, id, ky) })
			case 2: // add label B
				w.maintainNodeLocked(id, func() { w.ownLabelLocked(lb, id).Add(uint32(id)) })
			case 3: // remove label A
				w.maintainNodeLocked(id, func() { w.ownLabelLocked(la, id).Remove(uint32(id)) })
			case 4: // delete
				w.maintainNodeLocked(id, func() {
					w.ownLiveLocked(id).Remove(uint32(id))
					w.v.nodeCount--
					for _, l := range []catalog.LabelID{la, lb} {
						w.ownLabelLocked(l, id).Remove(uint32(id))
					}
					clearProp(w, id, kx)
					clearProp(w, id, ky)
				})
				live[id] = false
			}
		}
		w.ops = append(w.ops, Op{}) // make the commit publish
		w.mu.Unlock()
		mustCommit(t, tx)
		if err := s.Check(); err != nil {
			t.Fatalf("after commit %d: %v", c, err)
		}
	}
	// Ordered reads: every node once, in key order.
	snap := s.Snapshot()
	ax := snap.Schema().Index("ax")
	ordered := drain(snap.IndexCursor(ax, "", "", false))
	if uint64(len(ordered)) != snap.IndexRange(ax, "", "").GetCardinality() {
		t.Fatalf("ordered read has %d ids, the range %d", len(ordered), snap.IndexRange(ax, "", "").GetCardinality())
	}
	// Descending reads the same ids in reverse.
	for _, desc := range []bool{false, true} {
		got := drain(snap.IndexCursor(ax, "", "", desc))
		if len(got) != len(ordered) {
			t.Fatalf("cursor (desc %v) read %d ids, want %d", desc, len(got), len(ordered))
		}
		for i := range got {
			j := i
			if desc {
				j = len(ordered) - 1 - i
			}
			if got[i] != ordered[j] {
				t.Fatalf("cursor (desc %v) differs at %d", desc, i)
			}
		}
	}
	for i := 1; i < len(ordered); i++ {
		a, _ := AppendIndexKey(nil, snap.nodeCol(kx).get(ordered[i-1]))
		b, _ := AppendIndexKey(nil, snap.nodeCol(kx).get(ordered[i]))
		if string(a) > string(b) {
			t.Fatalf("ordered read out of order at %d", i)
		}
	}
	if got := first.IndexEqual(first.Schema().Index("ax"), key(t, int64(3))).GetCardinality(); got != firstCount || got != 20 {
		t.Fatalf("old snapshot sees %d entries for x = 3, had %d", got, firstCount)
	}
}

func clearProp(w *work, id uint64, k catalog.KeyID) {
	if c := w.v.nodeCol(k); c != nil && c.get(id) != nil {
		setProps(&w.v.nodeCols, id, []catalog.KeyID{k}, []vector.Value{nil}, w.epoch)
	}
}

// TestIndexConcurrentReaders: readers seek at the snapshots they hold
// while a writer commits (run under -race): each snapshot's seek agrees
// with its own label scan.
func TestIndexConcurrentReaders(t *testing.T) {
	s := New()
	cat := s.Catalog()
	l := cat.EnsureLabel("L")
	k := cat.EnsureKey("k")
	tx := s.Begin()
	if err := tx.CreateIndex(catalog.Index{Name: "ix", Type: catalog.BTree, Label: "L", Keys: []string{"k"}}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	done := make(chan struct{})
	errc := make(chan error, 4)
	for g := 0; g < 3; g++ {
		go func() {
			for {
				select {
				case <-done:
					errc <- nil
					return
				default:
				}
				snap := s.Snapshot()
				ix := snap.Schema().Index("ix")
				var want uint64
				it := snap.LabelNodes(l).Iterator()
				for it.HasNext() {
					if snap.nodeCol(k).get(uint64(it.Next())) == int64(3) {
						want++
					}
				}
				kk, _ := AppendIndexKey(nil, int64(3))
				if got := snap.IndexEqual(ix, string(kk)).GetCardinality(); got != want {
					errc <- fmt.Errorf("snapshot %d: seek %d, scan %d", snap.TS(), got, want)
					return
				}
			}
		}()
	}
	for c := 0; c < 200; c++ {
		tx := s.Begin()
		for i := 0; i < 5; i++ {
			mustNode(t, tx, []catalog.LabelID{l}, []catalog.KeyID{k}, int64((c+i)%7))
		}
		mustCommit(t, tx)
	}
	close(done)
	for g := 0; g < 3; g++ {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
}

// drain reads a cursor to its end, a few ids at a time.
func drain(c *IndexCursor) []uint64 {
	var out []uint64
	buf := make([]uint64, 3)
	for n := c.Next(buf); n > 0; n = c.Next(buf) {
		out = append(out, buf[:n]...)
	}
	return out
}
