package storage

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// gatherFixture: 5000 nodes (groups 0 and 1 sealed, group 2 open) with
//
//	i  int64 id*3 where id%3 != 0          → Int64 column
//	m  group 0: strings, every 100th an int  (side ints)
//	   group 1: first an int, then strings   (re-dominated at seal)
//	   group 2: floats                       → Any column
//	b  bool id%2==0 on even groups only
//	s  string on every 7th node
func gatherFixture(t testing.TB) (*Store, map[string]catalog.KeyID, func(key string, id uint64) vector.Value) {
	s := New()
	cat := s.Catalog()
	keys := map[string]catalog.KeyID{}
	for _, k := range []string{"i", "m", "b", "s"} {
		keys[k] = cat.EnsureKey(k)
	}
	want := func(key string, id uint64) vector.Value {
		if id >= 5000 {
			return nil
		}
		g := id / GroupSize
		switch key {
		case "i":
			if id%3 != 0 {
				return int64(id * 3)
			}
		case "m":
			switch g {
			case 0:
				if id%100 == 0 {
					return int64(id)
				}
				return fmt.Sprint(id)
			case 1:
				if id == GroupSize {
					return int64(id)
				}
				return fmt.Sprint(id)
			default:
				return float64(id) / 2
			}
		case "b":
			if g%2 == 0 {
				return id%2 == 0
			}
		case "s":
			if id%7 == 0 {
				return fmt.Sprintf("s%d", id)
			}
		}
		return nil
	}
	// Commits of 1024 nodes, so groups fill across commits.
	for start := uint64(0); start < 5000; start += 1024 {
		tx := s.Begin()
		for id := start; id < min(start+1024, 5000); id++ {
			var ks []catalog.KeyID
			var vs []vector.Value
			for name, k := range keys {
				ks = append(ks, k)
				vs = append(vs, want(name, id))
			}
			got, err := tx.CreateNode(nil, ks, vs)
			if err != nil || got != id {
				t.Fatalf("CreateNode = %d, %v; want id %d", got, err, id)
			}
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	return s, keys, want
}

func TestGather(t *testing.T) {
	s, keys, want := gatherFixture(t)
	snap := s.Snapshot()
	types := map[string]vector.Type{"i": vector.Int64, "m": vector.Any, "b": vector.Bool, "s": vector.String}
	for name, typ := range types {
		if got := snap.NodePropType(keys[name]); got != typ {
			t.Fatalf("NodePropType(%s) = %s, want %s", name, got, typ)
		}
	}
	// Group 1 of m started with an int but strings dominate: sealing made
	// it a flat string array with the int on the side.
	c := snap.nodeCols[keys["m"]].groups.at(1)
	if !c.sealed || c.typ != vector.String || len(c.side) != 1 || c.Arrow() == nil {
		t.Fatalf("m group 1: sealed %v typ %s side %d", c.sealed, c.typ, len(c.side))
	}
	if c := snap.nodeCols[keys["i"]].groups.at(2); c.sealed {
		t.Fatal("open group sealed")
	}

	rnd := rand.New(rand.NewSource(1))
	ids := make([]uint64, 0, 7000)
	for i := 0; i < 7000; i++ {
		switch rnd.Intn(10) {
		case 0:
			ids = append(ids, 5000+uint64(rnd.Intn(100000))) // past the bound
		case 1:
			ids = append(ids, 1<<33+uint64(i)) // past the 2^32 limit
		default:
			ids = append(ids, uint64(rnd.Intn(5000)))
		}
	}
	for name, typ := range types {
		for _, outType := range []vector.Type{typ, vector.Any, vector.String} {
			// One out vector reused across batches: stale validity must
			// not leak.
			out := vector.New(outType, vector.Capacity)
			idv := vector.New(vector.Node, vector.Capacity)
			for start := 0; start < len(ids); start += vector.Capacity {
				n := min(vector.Capacity, len(ids)-start)
				copy(idv.IDs, ids[start:start+n])
				idv.Valid = nil
				if rnd.Intn(2) == 0 {
					idv.SetNull(rnd.Intn(n))
				}
				var sel []int32
				if rnd.Intn(2) == 0 {
					for r := 0; r < n; r++ {
						if rnd.Intn(3) == 0 {
							sel = append(sel, int32(r))
						}
					}
				}
				snap.GatherNodeProp(keys[name], idv, sel, n, out)
				check := func(r int) {
					var w vector.Value
					if !idv.IsNull(r) {
						w = want(name, idv.IDs[r])
					}
					if outType != vector.Any && w != nil && vector.TypeOf(w) != outType {
						w = nil // another type into a typed vector: null
					}
					if g := out.Get(r); !reflect.DeepEqual(g, w) {
						t.Fatalf("%s as %s: id %d = %#v, want %#v", name, outType, idv.IDs[r], g, w)
					}
				}
				if sel != nil {
					for _, r := range sel {
						check(int(r))
					}
				} else {
					for r := 0; r < n; r++ {
						check(r)
					}
				}
			}
		}
	}
	// A key no node has gathers as all null, in any vector type.
	none := s.Catalog().EnsureKey("none")
	if snap.NodePropType(none) != vector.Null {
		t.Fatal("missing key not Null")
	}
	out := vector.New(vector.Int64, vector.Capacity)
	idv := vector.New(vector.Node, vector.Capacity)
	snap.GatherNodeProp(none, idv, nil, vector.Capacity, out)
	if out.Get(0) != nil {
		t.Fatal("missing key gathered a value")
	}
}

func TestGatherRelProps(t *testing.T) {
	s := New()
	cat := s.Catalog()
	w, ty := cat.EnsureKey("w"), cat.EnsureType("T")
	tx := s.Begin()
	a := mustNode(t, tx, nil, nil)
	const n = 3000
	for i := 0; i < n; i++ {
		var v vector.Value = float64(i)
		if i%4 == 0 {
			v = nil
		}
		if _, err := tx.CreateRel(ty, a, a, []catalog.KeyID{w}, []vector.Value{v}); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	snap := s.Snapshot()
	if snap.RelPropType(w) != vector.Float64 || snap.NodePropType(w) != vector.Null {
		t.Fatal("rel prop type wrong")
	}
	ids := vector.New(vector.Rel, vector.Capacity)
	out := vector.New(vector.Float64, vector.Capacity)
	for start := 0; start < n; start += vector.Capacity {
		m := min(vector.Capacity, n-start)
		for r := 0; r < m; r++ {
			ids.IDs[r] = uint64(start + r)
		}
		snap.GatherRelProp(w, ids, nil, m, out)
		for r := 0; r < m; r++ {
			i := start + r
			if (i%4 == 0) != out.IsNull(r) || (i%4 != 0 && out.F64[r] != float64(i)) {
				t.Fatalf("rel %d: %v", i, out.Get(r))
			}
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkGatherInt64 gathers an int64 property of 1M nodes in
// Capacity-row batches (dense selection, ids in order).
func BenchmarkGatherInt64(b *testing.B) {
	const nodes = 1 << 20
	s := New()
	k := s.Catalog().EnsureKey("v")
	tx := s.Begin()
	keys := []catalog.KeyID{k}
	for i := 0; i < nodes; i++ {
		if _, err := tx.CreateNode(nil, keys, []vector.Value{int64(i)}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	snap := s.Snapshot()
	ids := vector.New(vector.Node, vector.Capacity)
	out := vector.New(vector.Int64, vector.Capacity)
	perm := rand.New(rand.NewSource(1)).Perm(nodes)
	for _, order := range []string{"sequential", "random"} {
		b.Run(order, func(b *testing.B) {
			var sum int64
			for b.Loop() {
				for start := 0; start < nodes; start += vector.Capacity {
					for r := 0; r < vector.Capacity; r++ {
						if order == "random" {
							ids.IDs[r] = uint64(perm[start+r])
						} else {
							ids.IDs[r] = uint64(start + r)
						}
					}
					snap.GatherNodeProp(k, ids, nil, vector.Capacity, out)
					sum += out.I64[0]
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nodes, "ns/value")
			_ = sum
		})
	}
}

// BenchmarkCommit1MNodes creates 1M nodes (one label, two properties) in
// transactions of 1024.
func BenchmarkCommit1MNodes(b *testing.B) {
	var inCommit time.Duration
	for b.Loop() {
		s := New()
		cat := s.Catalog()
		labels := []catalog.LabelID{cat.EnsureLabel("L")}
		keys := []catalog.KeyID{cat.EnsureKey("a"), cat.EnsureKey("b")}
		for c := 0; c < 1024; c++ {
			tx := s.Begin()
			for i := 0; i < 1024; i++ {
				if _, err := tx.CreateNode(labels, keys, []vector.Value{int64(i), "x"}); err != nil {
					b.Fatal(err)
				}
			}
			start := time.Now()
			if _, err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			inCommit += time.Since(start)
		}
	}
	b.ReportMetric(float64(inCommit.Nanoseconds())/float64(b.N)/1024, "ns/commit")
}
