package algo

import (
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
)

// star is a directed star: vertex 0 has an edge to every other vertex
// (weight 1), with In built. Its hub makes the structures that grow with
// the data as large as the graph: Dijkstra's heap and SSSP's bucket hold
// every leaf at once, CDLP's buffer holds the hub's whole list.
func star(n int) *Graph {
	out := CSR{Off: make([]uint32, n+1), Nbr: make([]uint32, n-1)}
	in := CSR{Off: make([]uint32, n+1), Nbr: make([]uint32, n-1)}
	for v := 1; v < n; v++ {
		out.Nbr[v-1] = uint32(v)
		in.Off[v+1] = uint32(v)
	}
	for v := 1; v <= n; v++ {
		out.Off[v] = uint32(n - 1)
	}
	w := make([]float64, n-1)
	for i := range w {
		w[i] = 1
	}
	return &Graph{N: n, Out: out, In: in, OutW: w, Sorted: true}
}

// What grows with the graph beyond the result arrays is charged: after a
// run the accountant holds at least the arrays and the structure named,
// and a limit just below what the run needs fails it with 53200 instead
// of allocating past it.
func TestGrowingStructuresAreCharged(t *testing.T) {
	const n = 1 << 15
	g := star(n)
	cases := []struct {
		name string
		// least is what the run must have charged: its arrays plus the
		// structure that grows with the data.
		least int64
		run   func(r *Run) error
	}{
		// Dist, Pred, PredSlot, done, Settled, and a heap of every leaf.
		{"dijkstra heap", 8*n + 4*n + 4*n + n/8 + 4*n + 16*(n-1), func(r *Run) error {
			_, err := Dijkstra(r, g, 0, nil)
			return err
		}},
		// dist, and the bucket and the frontier holding every leaf.
		{"sssp buckets", 8*n + 4*(n-1) + 4*(n-1), func(r *Run) error {
			_, err := SSSP(r, g, 0, 0)
			return err
		}},
		// depth and two queues of N.
		{"bfs queues", 4*n + 8*n, func(r *Run) error {
			_, err := BFS(r, g, 0, -1)
			return err
		}},
		// next, and the buffer of the hub's labels.
		{"cdlp buffer", 8*n + 8*(n-1), func(r *Run) error {
			_, err := CDLP(r, g, make([]int64, n), 1)
			return err
		}},
		// pr and next (float64), contrib (float32), and the out-degrees
		// (g.OutDeg is not built).
		{"pagerank degrees", 2*8*n + 4*n + 4*n, func(r *Run) error {
			_, _, err := PageRank(r, g, 0.85, 1, 0)
			return err
		}},
	}
	for _, c := range cases {
		mem := &memory.Tracker{}
		r := &Run{Workers: 2, Mem: mem}
		if err := c.run(r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		used := mem.Used()
		if used < c.least {
			t.Errorf("%s: %d bytes charged, want at least %d", c.name, used, c.least)
		}
		r.Release()
		if mem.Used() != 0 {
			t.Errorf("%s: %d bytes still charged after Release", c.name, mem.Used())
		}
		mem = &memory.Tracker{Limit: c.least - 1}
		r = &Run{Workers: 2, Mem: mem}
		err := c.run(r)
		if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
			t.Errorf("%s: under a limit of %d bytes got %v, want 53200", c.name, c.least-1, err)
		}
		r.Release()
		if mem.Used() != 0 {
			t.Errorf("%s: %d bytes still charged after a failed run's Release", c.name, mem.Used())
		}
	}
}
