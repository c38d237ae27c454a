package csr

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestBlockBoundaries builds hubs whose lists end just before, at and just
// after block boundaries, with ids dense (width 0..1), spread (wide) and
// all equal (parallel edges, width 0).
func TestBlockBoundaries(t *testing.T) {
	for _, d := range []int{0, 1, 2, 3, 127, 128, 129, 255, 256, 257} {
		for _, spread := range []uint64{0, 1, 977} {
			m := newModel()
			n := 1 + int(spread)*d + 1
			for i := range d {
				m.insert(Edge{Src: 1 % uint64(n), Dst: uint64(i) * spread, Rel: uint64(d - i)})
			}
			c := Build(n, m.edges())
			compareCSR(t, c, m)
			if t.Failed() {
				t.Fatalf("degree %d spread %d", d, spread)
			}
		}
	}
}

// TestWideIDs round-trips lists with ids up to the 56-bit limit, which a
// Build cannot reach (it would allocate 2^56 offsets).
func TestWideIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, d := range []int{1, 2, 127, 128, 129, 257} {
		for _, top := range []uint64{1 << 20, 1 << 40, maxNodes - 1} {
			ids := make([]uint64, d)
			for i := range ids {
				ids[i] = r.Uint64N(top + 1)
			}
			ids[0] = top
			slices.Sort(ids)
			data := append(appendList(nil, ids, baseBytes(maxNodes)), make([]byte, padBytes)...)
			got := make([]uint64, d+decodeSlack)
			decodeList(got, d, data, 0, baseBytes(maxNodes))
			if !slices.Equal(got[:d], ids) {
				t.Fatalf("degree %d top %d: got %v, want %v", d, top, got, ids)
			}
		}
	}
}

// TestImmutable holds old versions while later Applies and a Compact run
// and checks that each keeps answering exactly as when it was made.
func TestImmutable(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	m := newModel()
	for i := range 300 {
		m.insert(Edge{uint64(i % 7), uint64(r.IntN(50)), uint64(i)})
	}
	a := NewAdjacency(Build(50, m.edges()))
	type snap struct {
		a    *Adjacency
		want map[uint64][2][]uint64
	}
	take := func(a *Adjacency) snap {
		s := snap{a, map[uint64][2][]uint64{}}
		for v := range uint64(60) {
			n, rl := a.AppendNeighbors(nil, nil, v)
			s.want[v] = [2][]uint64{n, rl}
		}
		return s
	}
	snaps := []snap{take(a)}
	next := uint64(1000)
	for step := range 30 {
		live := m.liveRels()
		del := []uint64{live[r.IntN(len(live))]}
		m.remove(del[0])
		ins := []Edge{{uint64(r.IntN(55)), uint64(r.IntN(55)), next}, {0, 1, next + 1}}
		next += 2
		m.insert(ins[0])
		m.insert(ins[1])
		a = a.Apply(ins, del, uint64(step+1))
		if step%10 == 9 {
			a = a.Compact(a.NumNodes())
		}
		snaps = append(snaps, take(a))
		for i, s := range snaps {
			for v, w := range s.want {
				n, rl := s.a.AppendNeighbors(nil, nil, v)
				if !slices.Equal(n, w[0]) || !slices.Equal(rl, w[1]) || s.a.Degree(v) != len(w[0]) {
					t.Fatalf("after step %d, version %d node %d changed: %v %v, was %v %v", step, i, v, n, rl, w[0], w[1])
				}
			}
			if err := s.a.Check(); err != nil {
				t.Fatalf("after step %d, version %d: %v", step, i, err)
			}
		}
	}
	compareAdj(t, a, m)
}

// TestConcurrentReaders runs readers on published versions while a writer
// applies, for the race detector: versions must need no lock.
func TestConcurrentReaders(t *testing.T) {
	m := newModel()
	for i := range 2000 {
		m.insert(Edge{uint64(i % 100), uint64((i * 7) % 100), uint64(i)})
	}
	a := NewAdjacency(Build(100, m.edges()))
	versions := make(chan *Adjacency, 64)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n, rl []uint64
			for v := range versions {
				for node := range uint64(v.NumNodes()) {
					n, rl = v.AppendNeighbors(n[:0], rl[:0], node)
					if len(n) != v.Degree(node) || len(rl) != len(n) {
						t.Errorf("node %d: %d neighbours, degree %d", node, len(n), v.Degree(node))
						return
					}
				}
			}
		}()
	}
	next := uint64(10000)
	for step := range 200 {
		ins := []Edge{{uint64(step % 120), uint64(step % 13), next}}
		del := []uint64{uint64(step)} // base ids 0..199
		next++
		a = a.Apply(ins, del, uint64(step+1))
		if step%50 == 49 {
			a = a.Compact(a.NumNodes())
		}
		versions <- a
		versions <- a
	}
	close(versions)
	wg.Wait()
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestEmpty(t *testing.T) {
	for _, a := range []*Adjacency{NewAdjacency(nil), NewAdjacency(Build(0, nil)), NewAdjacency(Build(5, nil))} {
		if a.Base() == nil || a.NumEdges() != 0 || a.Degree(3) != 0 || a.Dirty(3) {
			t.Fatal("empty adjacency is not empty")
		}
		if n, r := a.AppendNeighbors(nil, nil, 1<<40); n != nil || r != nil {
			t.Fatal("neighbours of a node far out of range")
		}
		if a.Apply(nil, nil, 5) != a {
			t.Fatal("empty Apply made a new version")
		}
		if err := a.Compact(0).Check(); err != nil {
			t.Fatal(err)
		}
	}
}

// mustPanicBUG runs f and fails unless it panics with a BUG message.
func mustPanicBUG(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		p := recover()
		s, _ := p.(string)
		if !strings.HasPrefix(s, "BUG: csr: ") {
			t.Errorf("%s: panic %v, want a BUG panic", name, p)
		}
	}()
	f()
}

func TestBugPanics(t *testing.T) {
	a := NewAdjacency(Build(3, []Edge{{0, 1, 10}, {1, 2, 11}}))
	a2 := a.Apply([]Edge{{2, 0, 12}}, []uint64{10}, 1)
	mustPanicBUG(t, "src out of range", func() { Build(2, []Edge{{2, 0, 1}}) })
	mustPanicBUG(t, "dst out of range", func() { Build(2, []Edge{{0, 5, 1}}) })
	mustPanicBUG(t, "negative nodes", func() { Build(-1, nil) })
	mustPanicBUG(t, "unknown delete", func() { a.Apply(nil, []uint64{99}, 1) })
	mustPanicBUG(t, "delete twice", func() { a2.Apply(nil, []uint64{10}, 2) })
	mustPanicBUG(t, "delete twice in a batch", func() { a.Apply(nil, []uint64{11, 11}, 2) })
	mustPanicBUG(t, "overlay delete twice", func() { a2.Apply(nil, []uint64{12, 12}, 2) })
	mustPanicBUG(t, "insert twice", func() { a2.Apply([]Edge{{0, 0, 12}}, nil, 2) })
	mustPanicBUG(t, "insert twice in a batch", func() { a.Apply([]Edge{{0, 0, 20}, {1, 1, 20}}, nil, 2) })
	mustPanicBUG(t, "huge id", func() { a.Apply([]Edge{{maxNodes, 0, 30}}, nil, 2) })
	mustPanicBUG(t, "compact drops edge", func() { a2.Compact(2) })
	// The failed calls must not have touched the versions they started from.
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	if err := a2.Check(); err != nil {
		t.Fatal(err)
	}
	if a2.NumEdges() != 2 || a2.Degree(0) != 0 || a2.Degree(2) != 1 {
		t.Fatalf("a2 changed: %d edges", a2.NumEdges())
	}
	// Inserting a base id again is not caught by Apply, but by Check.
	if err := a.Apply([]Edge{{2, 2, 11}}, nil, 3).Check(); !errors.Is(err, ErrDuplicateRel) {
		t.Fatalf("Check of a re-inserted base id: %v", err)
	}
}
