package vector

import "testing"

// A pool lends vectors that look new, and Close takes them back poisoned
// (in test binaries) for the next statement, which gets them zeroed.
func TestPoolLendsNewVectorsAndPoisonsThemAtClose(t *testing.T) {
	if !poison.Load() {
		t.Fatal("test binaries poison recycled vectors")
	}
	p := GetPool()
	ints := p.New(Int64)
	strs := p.Batch(String).Cols[0]
	sel := p.Int32s()
	for i := range Capacity {
		ints.I64[i] = int64(i)
		strs.Str[i] = "kept"
	}
	ints.SetNull(1)
	sel = append(sel, 1, 2)
	p.Close()
	if ints.I64[0] != PoisonInt || strs.Str[0] != PoisonString || sel[0] == 1 {
		t.Fatalf("after Close: %d, %q, %d; want the poison values", ints.I64[0], strs.Str[0], sel[0])
	}
	if ints.Valid != nil {
		t.Fatal("a recycled vector keeps its validity bitmap")
	}

	q := &Pool{}
	again := q.New(Int64)
	for i, x := range again.I64 {
		if x != 0 {
			t.Fatalf("row %d of a fresh vector is %d", i, x)
		}
	}
	q.Close()
	reused := q.New(Int64)
	if reused != again {
		t.Fatal("the pool did not reuse the vector it took back")
	}
	if reused.I64[0] != 0 || reused.Valid != nil || len(reused.I64) != Capacity {
		t.Fatalf("a reused vector is not as New makes it: %d, %v, %d rows", reused.I64[0], reused.Valid, len(reused.I64))
	}
}

// An operator may point a lent vector at other memory; Close recycles the
// array it lent and never writes into what the vector points at then.
func TestPoolRecyclesWhatItLent(t *testing.T) {
	p := &Pool{}
	v := p.New(Int64)
	lentArray := v.I64
	foreign := []int64{7, 8, 9}
	v.I64 = foreign
	v.Type = Int64
	p.Close()
	if foreign[0] != 7 || foreign[2] != 9 {
		t.Fatalf("Close wrote into memory it did not lend: %v", foreign)
	}
	if &v.I64[0] != &lentArray[0] {
		t.Fatal("the recycled vector does not hold the array the pool lent")
	}
}

// A statement borrows at most maxLent things; past that the pool
// allocates plainly, and it keeps at most maxFree of a type.
func TestPoolBounds(t *testing.T) {
	p := &Pool{}
	for range maxLent + 10 {
		p.New(Float64)
	}
	if p.nlent != maxLent || len(p.lent) != maxLent {
		t.Fatalf("lent %d (%d recorded), want at most %d", p.nlent, len(p.lent), maxLent)
	}
	p.Close()
	if n := len(p.free[Float64]); n != maxFree {
		t.Fatalf("the pool keeps %d free vectors, want %d", n, maxFree)
	}
	var none *Pool
	if v := none.New(Node); len(v.IDs) != Capacity {
		t.Fatal("a nil pool does not allocate")
	}
	none.Close()
}

// Buffers are lent empty (Int32s) or whole (Uint32s), and reused.
func TestPoolBuffers(t *testing.T) {
	p := &Pool{}
	s := p.Int32s()
	u := p.Uint32s()
	s = append(s, 9)
	p.Close()
	s2, u2 := p.Int32s(), p.Uint32s()
	if len(s2) != 0 || cap(s2) != Capacity || &s2[:1][0] != &s[0] || len(u2) != Capacity || &u2[0] != &u[0] {
		t.Fatalf("reused buffers: len %d cap %d, %d", len(s2), cap(s2), len(u2))
	}
	p.Close()
}
