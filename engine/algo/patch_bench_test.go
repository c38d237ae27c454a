package algo

import (
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
)

// BenchmarkCallAfterCommit times an algorithm call (projection through
// the cache, then the kernel) over projectStore's 1M nodes and 16M
// relationships on two workers: first (an empty cache), cached (an
// unchanged version), and commit (after a commit of one relationship,
// which the cache patches in place).
func BenchmarkCallAfterCommit(b *testing.B) {
	s, err := projectStore()
	if err != nil {
		b.Fatal(err)
	}
	cat := s.Catalog()
	typ, _ := cat.LookupType("E")
	wk, _ := cat.LookupKey("w")
	types := []catalog.TypeID{typ}
	algos := []struct {
		name string
		p    Projection
		run  func(r *Run, g *Graph) error
	}{
		{"bfs", Projection{Out: true, In: true, HubOrder: true}, func(r *Run, g *Graph) error {
			_, err := BFS(r, g, largestHub(g), -1)
			return err
		}},
		{"pagerank", Projection{In: true, OutDegree: true, HubOrder: true}, func(r *Run, g *Graph) error {
			_, _, err := PageRank(r, g, 0.85, 10, 0)
			return err
		}},
		{"wcc", Projection{Out: true, In: true, HubOrder: true}, func(r *Run, g *Graph) error {
			_, err := WCC(r, g)
			return err
		}},
		{"sssp", Projection{Out: true, HubOrder: true, Weighted: true, Weight: wk, WeightName: "w"}, func(r *Run, g *Graph) error {
			_, err := SSSP(r, g, largestHub(g), 8)
			return err
		}},
	}
	call := func(b *testing.B, c *Cache, p Projection, run func(*Run, *Graph) error) {
		r := &Run{Workers: 2}
		defer r.Release() // as a procedure's rows do when closed
		tx := s.Begin()
		defer tx.Rollback()
		g, err := ProjectCached(r, c, tx, p)
		if err == nil {
			err = run(r, g)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, a := range algos {
		a.p.Types = types
		b.Run(a.name+"/first", func(b *testing.B) {
			for b.Loop() {
				call(b, NewCache(1<<34), a.p, a.run)
			}
		})
		c := NewCache(1 << 34)
		call(b, c, a.p, a.run)
		b.Run(a.name+"/cached", func(b *testing.B) {
			for b.Loop() {
				call(b, c, a.p, a.run)
			}
		})
		b.Run(a.name+"/commit", func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				tx := s.Begin()
				if _, err := tx.CreateRel(typ, 1, 2, []catalog.KeyID{wk}, []any{1.0}); err != nil {
					b.Fatal(err)
				}
				if _, err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				call(b, c, a.p, a.run)
			}
			if st := c.Stats(); st.InPlace == 0 {
				b.Fatalf("nothing patched: %+v", st)
			}
		})
	}
}
