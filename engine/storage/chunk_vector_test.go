package storage

import (
	"encoding/binary"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// floats is a LIST of FLOAT.
func floats(xs ...float64) []vector.Value {
	l := make([]vector.Value, len(xs))
	for i, x := range xs {
		l[i] = x
	}
	return l
}

// expectRows fails unless c holds exactly want (row → value) and passes
// check; dim is the flat dimension c must have (0: boxed).
func expectRows(t *testing.T, step string, c *chunk, want map[int]vector.Value, dim int) {
	t.Helper()
	if c.dim != dim {
		t.Fatalf("%s: dimension %d, want %d", step, c.dim, dim)
	}
	for r := range GroupSize {
		got, w := c.get(r), want[r]
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("%s: row %d = %#v, want %#v", step, r, got, w)
		}
		if c.has(r) != (w != nil) {
			t.Fatalf("%s: has(%d) = %v", step, r, c.has(r))
		}
	}
	if err := c.check(GroupSize, c.sealed, nil); err != nil {
		t.Fatalf("%s: check: %v", step, err)
	}
}

// TestFlatChunk: a chunk of FLOAT lists of one dimension is flat from its
// first value; a value that does not fit turns it boxed with every value
// kept; sealing flattens it again once the odd value is gone; side
// values of other types leave it flat.
func TestFlatChunk(t *testing.T) {
	want := map[int]vector.Value{}
	c := newChunk(1, vector.Any)
	for r := range 5 {
		want[r] = floats(float64(r), -0.5, 1e300)
		c.set(r, want[r])
	}
	expectRows(t, "five vectors", c, want, 3)
	want[7] = "a string"
	c.set(7, want[7])
	expectRows(t, "a side value", c, want, 3)
	delete(want, 2)
	c.clear(2)
	expectRows(t, "a cleared row", c, want, 3)
	for _, odd := range []vector.Value{
		[]vector.Value{int64(1), 2.0, 3.0}, floats(1, 2), []vector.Value{1.0, nil, 3.0},
		map[string]vector.Value{"a": 1.0}, []vector.Value{},
	} {
		n := c.openCopy(2)
		n.set(9, odd)
		w := copyRows(want)
		w[9] = odd
		expectRows(t, "odd value", n, w, 0)
		n.clear(9)
		delete(w, 9)
		expectRows(t, "odd value cleared", n, w, 0)
		expectRows(t, "odd value cleared, sealed", n.seal(), w, 3)
	}
	expectRows(t, "the original after the copies", c, want, 3)
	sealed := c.seal()
	expectRows(t, "sealed", sealed, want, 3)
	if sealed.rows() != GroupSize {
		t.Fatalf("sealed flat chunk has %d rows", sealed.rows())
	}
	n := sealed.openCopy(3)
	want[4] = floats(4, 4, 4)
	n.set(4, want[4])
	expectRows(t, "an update of a sealed chunk's copy", n, want, 3)
	if got := sealed.get(4); !reflect.DeepEqual(got, floats(4, -0.5, 1e300)) {
		t.Fatalf("the update changed the sealed chunk: %v", got)
	}
}

func copyRows(m map[int]vector.Value) map[int]vector.Value {
	n := make(map[int]vector.Value, len(m))
	for k, v := range m {
		n[k] = v
	}
	return n
}

// TestFlatChunkSharing: a version appending to an open flat chunk shares
// its rows (extendCopy); a write among them copies them first, and an
// odd value boxes them into a new slice, so older versions read what
// they had.
func TestFlatChunkSharing(t *testing.T) {
	c := newChunk(1, vector.Any)
	old := map[int]vector.Value{}
	for r := range 4 {
		old[r] = floats(float64(r), float64(r))
		c.set(r, old[r])
	}
	n := c.extendCopy(2, 4)
	if n.shared != 4 || &n.vec[0] != &c.vec[0] {
		t.Fatalf("the appending copy does not share the rows (shared %d)", n.shared)
	}
	nw := copyRows(old)
	nw[4] = floats(9, 9)
	n.set(4, nw[4])
	expectRows(t, "old after the append", c, old, 2)
	expectRows(t, "new after the append", n, nw, 2)
	m := n.extendCopy(3, 5)
	if &m.vec[0] != &n.vec[0] {
		t.Fatal("the second appending copy does not share the rows")
	}
	mw := copyRows(nw)
	mw[5] = []vector.Value{int64(1), int64(2)}
	m.set(5, mw[5])
	expectRows(t, "boxed by an odd value", m, mw, 0)
	expectRows(t, "new after its copy turned boxed", n, nw, 2)
	n.privatize()
	nw[1] = floats(-1, -1)
	n.set(1, nw[1])
	expectRows(t, "old after a write below", c, old, 2)
	expectRows(t, "new after a write below", n, nw, 2)
}

// TestFlatChunkRoundTrip: flat and boxed chunks, open and sealed, come
// back from their base encoding with the same values and the same form.
func TestFlatChunkRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	for _, tc := range []struct {
		name    string
		odd     vector.Value // one odd Any value, nil for none
		rows    int
		format2 bool // written boxed, as format 2 did
	}{{"flat open", nil, 700, false}, {"flat complete", nil, GroupSize, false},
		{"boxed", []vector.Value{int64(1), 2.0}, GroupSize, false},
		{"format 2 complete", nil, GroupSize, true}, {"format 2 open", nil, 900, true}} {
		c := newChunk(0, vector.Any)
		want := map[int]vector.Value{}
		for r := range tc.rows {
			if rnd.Intn(5) == 0 {
				continue
			}
			want[r] = floats(rnd.NormFloat64(), rnd.NormFloat64(), rnd.NormFloat64(), rnd.NormFloat64())
			c.set(r, want[r])
		}
		want[tc.rows-1] = int64(42) // a side value
		c.set(tc.rows-1, want[tc.rows-1])
		dim := 4
		if tc.odd != nil {
			want[3] = tc.odd
			c.set(3, tc.odd)
			dim = 0
		}
		complete := tc.rows == GroupSize
		if complete {
			c = c.seal()
		}
		if tc.format2 && c.dim > 0 {
			c.unflatten() // the record format 2 wrote: boxed lists
		}
		b := c.appendEncoded(binary.AppendUvarint([]byte{1}, 0))
		col, err := decodeColumn(b, uint64(tc.rows))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := col.groups.at(0)
		if got.sealed != complete {
			t.Fatalf("%s: sealed %v", tc.name, got.sealed)
		}
		if tc.format2 && !complete {
			dim = 0 // boxed until its group is sealed
		}
		expectRows(t, tc.name, got, want, dim)
	}
}

// TestFlatChunkDecodeRefuses: a flat record with no dimension, a
// dimension the bytes cannot hold, or elements in a row without a value
// is refused.
func TestFlatChunkDecodeRefuses(t *testing.T) {
	record := func(rows, dim uint64, valid []byte, elems []float64) []byte {
		b := []byte{1, 0, chunkFlatVectors}
		b = append(b, valid...)
		b = binary.AppendUvarint(b, rows)
		b = binary.AppendUvarint(b, dim)
		for _, x := range elems {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		return append(b, 0) // no side values
	}
	oneRow := make([]byte, validBytes)
	oneRow[0] = 1
	for name, b := range map[string][]byte{
		"no dimension":     record(1, 0, oneRow, nil),
		"huge dimension":   record(1, 1<<40, oneRow, []float64{1}),
		"truncated":        record(2, 3, oneRow, []float64{1, 2, 3, 4}),
		"invalid nonzero":  record(2, 1, oneRow, []float64{1, 5}),
		"valid past rows":  record(0, 1, oneRow, nil),
		"rows past groups": record(GroupSize+1, 1, oneRow, nil),
	} {
		if _, err := decodeColumn(b, GroupSize); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	if _, err := decodeColumn(record(2, 1, oneRow, []float64{1, 0}), 10); err != nil {
		t.Fatalf("a good record: %v", err)
	}
}

// TestFlatVectorView: a view read from flat chunks equals the view of
// the same values boxed, and the store's columns of FLOAT lists are flat
// once their groups are sealed.
func TestFlatVectorView(t *testing.T) {
	s := New()
	cat := s.Catalog()
	l := cat.EnsureLabel("D")
	k := cat.EnsureKey("e")
	tx := s.Begin()
	rnd := rand.New(rand.NewSource(3))
	n := 2*GroupSize + 100
	for i := range n {
		var v vector.Value
		switch {
		case i%97 == 0:
			v = "not a vector"
		case i == 5:
			v = floats(1, 2) // another dimension: group 0 stays boxed
		default:
			v = floats(rnd.Float64(), rnd.Float64(), rnd.Float64())
		}
		if _, err := tx.CreateNode([]catalog.LabelID{l}, []catalog.KeyID{k}, []vector.Value{v}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	col := snap.nodeCol(k)
	flat := 0
	for _, ch := range col.groups.all() {
		if ch.dim > 0 {
			flat++
		}
	}
	// Group 0 holds a 2-list and stays boxed; group 1 is sealed flat,
	// group 2 is open and flat.
	if flat != 2 {
		t.Fatalf("%d flat chunks, want 2", flat)
	}
	got := snap.NodeVectorView(k, 3)
	want := &VectorView{Dim: 3}
	for id := range uint64(n) {
		if x := col.get(id); x != nil && !want.add(id, x) {
			want.Odd = append(want.Odd, id)
		}
	}
	if !slices.Equal(got.IDs, want.IDs) || !slices.Equal(got.Vals, want.Vals) || !slices.Equal(got.Odd, want.Odd) {
		t.Fatalf("view of flat chunks differs: %d ids, %d odd; want %d, %d", len(got.IDs), len(got.Odd), len(want.IDs), len(want.Odd))
	}
	if err := snap.Check(); err != nil {
		t.Fatal(err)
	}
}
