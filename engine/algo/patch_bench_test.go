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
	algos := []callCase{
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
	for i := range algos {
		algos[i].p.Types = types
	}
	benchCalls(b, s, typ, []catalog.KeyID{wk}, []any{1.0}, algos)
}
