package engine_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// The algo.* procedures against naive reference implementations on
// random graphs: half of the relationships in the checkpointed base,
// half in the delta overlay, some nodes and relationships deleted, two
// labels and two types, weights of both numeric types.

// refGraph is the graph as plain queries read it back.
type refGraph struct {
	nodes []uint64          // live node ids, sorted
	label map[uint64]string // A or B
	edges []refEdge
}

type refEdge struct {
	src, dst, rel uint64
	w             float64
	typ           string
}

func algoRows(t *testing.T, db querier, q string, params engine.Params) [][]vector.Value {
	t.Helper()
	res, err := db.Query(context.Background(), q, params)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer res.Close()
	var out [][]vector.Value
	for {
		b, err := res.Next()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if b == nil {
			return out
		}
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			row := make([]vector.Value, len(b.Cols))
			for c, v := range b.Cols {
				row[c] = v.Get(r)
			}
			out = append(out, row)
		}
	}
}

// randomAlgoGraph builds a random graph in db and reads it back.
func randomAlgoGraph(t *testing.T, db *engine.DB, rng *rand.Rand) refGraph {
	n := 20 + rng.IntN(40)
	var as, bs []vector.Value
	for i := range n {
		if rng.IntN(3) == 0 {
			bs = append(bs, int64(i))
		} else {
			as = append(as, int64(i))
		}
	}
	mustQuery(t, db, "UNWIND $a AS g CREATE (:A {gid: g})", engine.Params{"a": as})
	mustQuery(t, db, "UNWIND $b AS g CREATE (:B {gid: g})", engine.Params{"b": bs})
	addEdges := func(m int) {
		var rs, ss []vector.Value
		for range m {
			var w vector.Value = float64(rng.IntN(1000)) / 100
			if rng.IntN(4) == 0 {
				w = int64(rng.IntN(10))
			}
			e := map[string]vector.Value{"s": int64(rng.IntN(n)), "d": int64(rng.IntN(n)), "w": w}
			if rng.IntN(4) == 0 {
				ss = append(ss, e)
			} else {
				rs = append(rs, e)
			}
		}
		mustQuery(t, db, "UNWIND $es AS e MATCH (a {gid: e.s}), (b {gid: e.d}) CREATE (a)-[:R {w: e.w}]->(b)", engine.Params{"es": rs})
		mustQuery(t, db, "UNWIND $es AS e MATCH (a {gid: e.s}), (b {gid: e.d}) CREATE (a)-[:S {w: e.w}]->(b)", engine.Params{"es": ss})
	}
	m := n + rng.IntN(3*n)
	addEdges(m / 2)
	mustQuery(t, db, "CHECKPOINT", nil)
	addEdges(m - m/2)
	mustQuery(t, db, "MATCH (n) WHERE n.gid % 11 = 3 DETACH DELETE n", nil)
	mustQuery(t, db, "MATCH ()-[r]->() WHERE r.w > 9.5 DELETE r", nil)

	var g refGraph
	g.label = map[uint64]string{}
	for _, r := range algoRows(t, db, "MATCH (n) RETURN id(n), labels(n)[0]", nil) {
		id := uint64(r[0].(int64))
		g.nodes = append(g.nodes, id)
		g.label[id] = r[1].(string)
	}
	slices.Sort(g.nodes)
	for _, r := range algoRows(t, db, "MATCH (a)-[r]->(b) RETURN id(a), id(b), id(r), r.w, type(r)", nil) {
		w := 0.0
		switch x := r[3].(type) {
		case int64:
			w = float64(x)
		case float64:
			w = x
		}
		g.edges = append(g.edges, refEdge{uint64(r[0].(int64)), uint64(r[1].(int64)), uint64(r[2].(int64)), w, r[4].(string)})
	}
	return g
}

// view is the reference projection: vertices and out-lists.
type view struct {
	verts []uint64
	out   map[uint64][]refEdge
	in    map[uint64][]refEdge
}

func (g refGraph) view(label, typ, dir string) view {
	v := view{out: map[uint64][]refEdge{}, in: map[uint64][]refEdge{}}
	keep := map[uint64]bool{}
	for _, n := range g.nodes {
		if label == "" || g.label[n] == label {
			v.verts = append(v.verts, n)
			keep[n] = true
		}
	}
	add := func(e refEdge) {
		v.out[e.src] = append(v.out[e.src], e)
		v.in[e.dst] = append(v.in[e.dst], e)
	}
	for _, e := range g.edges {
		if !keep[e.src] || !keep[e.dst] || typ != "" && e.typ != typ {
			continue
		}
		r := refEdge{src: e.dst, dst: e.src, rel: e.rel, w: e.w, typ: e.typ}
		switch dir {
		case "NATURAL":
			add(e)
		case "REVERSE":
			add(r)
		case "UNDIRECTED":
			add(e)
			add(r)
		}
	}
	return v
}

func (v view) bfs(src uint64) map[uint64]int64 {
	d := map[uint64]int64{src: 0}
	q := []uint64{src}
	for len(q) > 0 {
		u := q[0]
		q = q[1:]
		for _, e := range v.out[u] {
			if _, seen := d[e.dst]; !seen {
				d[e.dst] = d[u] + 1
				q = append(q, e.dst)
			}
		}
	}
	return d
}

// dijkstra is the O(n²) textbook version.
func (v view) dijkstra(src uint64, unit bool) map[uint64]float64 {
	d := map[uint64]float64{src: 0}
	done := map[uint64]bool{}
	for {
		best, found := uint64(0), false
		for n, x := range d {
			if !done[n] && (!found || x < d[best]) {
				best, found = n, true
			}
		}
		if !found {
			return d
		}
		done[best] = true
		for _, e := range v.out[best] {
			w := e.w
			if unit {
				w = 1
			}
			if old, ok := d[e.dst]; !ok || d[best]+w < old {
				d[e.dst] = d[best] + w
			}
		}
	}
}

func (v view) components() map[uint64]uint64 {
	comp := map[uint64]uint64{}
	for _, s := range v.verts {
		if _, ok := comp[s]; ok {
			continue
		}
		stack := []uint64{s}
		comp[s] = s
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, es := range [][]refEdge{v.out[u], v.in[u]} {
				for _, e := range es {
					x := e.dst
					if x == u {
						x = e.src
					}
					if _, ok := comp[x]; !ok {
						comp[x] = s
						stack = append(stack, x)
					}
				}
			}
		}
	}
	return comp
}

func (v view) pagerank(d float64, iters int) map[uint64]float64 {
	n := float64(len(v.verts))
	pr := map[uint64]float64{}
	for _, x := range v.verts {
		pr[x] = 1 / n
	}
	for range iters {
		sink := 0.0
		for _, x := range v.verts {
			if len(v.out[x]) == 0 {
				sink += pr[x]
			}
		}
		next := map[uint64]float64{}
		for _, x := range v.verts {
			s := 0.0
			for _, e := range v.in[x] {
				s += pr[e.src] / float64(len(v.out[e.src]))
			}
			next[x] = (1-d)/n + d*s + d*sink/n
		}
		pr = next
	}
	return pr
}

func (v view) cdlp(seed map[uint64]int64, iters int) map[uint64]int64 {
	l := seed
	for range iters {
		next := map[uint64]int64{}
		for _, x := range v.verts {
			count := map[int64]int{}
			for _, e := range v.out[x] {
				count[l[e.dst]]++
			}
			for _, e := range v.in[x] {
				count[l[e.src]]++
			}
			best, bestN := l[x], 0
			for lab, c := range count {
				if c > bestN || c == bestN && lab < best {
					best, bestN = lab, c
				}
			}
			next[x] = best
		}
		l = next
	}
	return l
}

func (v view) lcc() map[uint64]float64 {
	out := map[uint64]float64{}
	has := map[[2]uint64]bool{}
	for _, es := range v.out {
		for _, e := range es {
			has[[2]uint64{e.src, e.dst}] = true
		}
	}
	for _, x := range v.verts {
		nb := map[uint64]bool{}
		for _, e := range v.out[x] {
			nb[e.dst] = true
		}
		for _, e := range v.in[x] {
			nb[e.src] = true
		}
		delete(nb, x)
		k := len(nb)
		if k <= 1 {
			out[x] = 0
			continue
		}
		c := 0
		for u := range nb {
			for w := range nb {
				if u != w && has[[2]uint64{u, w}] {
					c++
				}
			}
		}
		out[x] = float64(c) / float64(k*(k-1))
	}
	return out
}

func near(a, b float64) bool {
	if math.IsInf(a, 1) || math.IsInf(b, 1) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

// nearScore compares PageRank scores, whose per-vertex contributions
// are float32 (docs/algorithms.md): within 1e-6 relative, where a
// float64 reference differs by at most about 6e-7.
func nearScore(a, b float64) bool {
	return math.Abs(a-b) <= 1e-6*math.Abs(b)
}

// nodeValues runs an algo.*.stream call yielding nodeId and one value.
func nodeValues(t *testing.T, db *engine.DB, proc string, cfg map[string]vector.Value, value string) map[uint64]vector.Value {
	t.Helper()
	q := fmt.Sprintf("CALL %s($cfg) YIELD nodeId, %s RETURN id(nodeId), %s", proc, value, value)
	out := map[uint64]vector.Value{}
	for _, r := range algoRows(t, db, q, engine.Params{"cfg": cfg}) {
		id := uint64(r[0].(int64))
		if _, dup := out[id]; dup {
			t.Fatalf("%s: node %d twice", proc, id)
		}
		out[id] = r[1]
	}
	return out
}

func TestAlgoProperties(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			t.Logf("seed %d", seed)
			db := openTestDB(t)
			g := randomAlgoGraph(t, db, rng)
			for _, c := range []struct{ label, typ, dir string }{
				{"", "", "NATURAL"}, {"", "", "UNDIRECTED"}, {"", "", "REVERSE"}, {"A", "R", "NATURAL"},
			} {
				checkAlgos(t, db, g, c.label, c.typ, c.dir, rng)
			}
		})
	}
}

func checkAlgos(t *testing.T, db *engine.DB, g refGraph, label, typ, dir string, rng *rand.Rand) {
	v := g.view(label, typ, dir)
	where := fmt.Sprintf("label %q type %q %s", label, typ, dir)
	cfg := func(extra map[string]vector.Value) map[string]vector.Value {
		m := map[string]vector.Value{"direction": dir}
		if label != "" {
			m["nodeLabels"] = []vector.Value{label}
		}
		if typ != "" {
			m["relationshipTypes"] = typ
		}
		for k, x := range extra {
			m[k] = x
		}
		return m
	}
	if len(v.verts) == 0 {
		return
	}
	src := v.verts[rng.IntN(len(v.verts))]
	sameVertices := func(name string, got map[uint64]vector.Value) {
		t.Helper()
		if len(got) != len(v.verts) {
			t.Fatalf("%s %s: %d rows for %d vertices", where, name, len(got), len(v.verts))
		}
	}

	// BFS, and Dijkstra on unit weights against it.
	wantDepth := v.bfs(src)
	got := nodeValues(t, db, "algo.bfs.stream", cfg(map[string]vector.Value{"sourceNode": int64(src)}), "depth")
	sameVertices("bfs", got)
	for _, n := range v.verts {
		want, ok := wantDepth[n]
		if !ok {
			want = math.MaxInt64
		}
		if got[n] != want {
			t.Fatalf("%s bfs from %d: node %d depth %v, want %d", where, src, n, got[n], want)
		}
	}
	unit := algoRows(t, db, "CALL algo.dijkstra.stream($cfg) YIELD targetNode, cost RETURN id(targetNode), cost",
		engine.Params{"cfg": cfg(map[string]vector.Value{"sourceNode": int64(src)})})
	if len(unit) != len(wantDepth) {
		t.Fatalf("%s dijkstra unit weights: %d rows, BFS reaches %d", where, len(unit), len(wantDepth))
	}
	for _, r := range unit {
		if d := wantDepth[uint64(r[0].(int64))]; r[1].(float64) != float64(d) {
			t.Fatalf("%s dijkstra unit weights: node %v cost %v, BFS depth %d", where, r[0], r[1], d)
		}
	}

	// SSSP and weighted Dijkstra with paths.
	wantDist := v.dijkstra(src, false)
	got = nodeValues(t, db, "algo.sssp.stream", cfg(map[string]vector.Value{"sourceNode": int64(src), "relationshipWeightProperty": "w"}), "distance")
	sameVertices("sssp", got)
	for _, n := range v.verts {
		want, ok := wantDist[n]
		if !ok {
			want = math.Inf(1)
		}
		if !near(got[n].(float64), want) {
			t.Fatalf("%s sssp from %d: node %d distance %v, want %v", where, src, n, got[n], want)
		}
	}
	rels := map[uint64]refEdge{}
	for _, es := range v.out {
		for _, e := range es {
			if old, ok := rels[e.rel]; !ok || e.src < old.src {
				rels[e.rel] = e
			}
		}
	}
	paths := algoRows(t, db, "CALL algo.dijkstra.stream($cfg) YIELD targetNode, cost, path, costs RETURN id(targetNode), cost, [x IN nodes(path) | id(x)], [r IN relationships(path) | id(r)], costs",
		engine.Params{"cfg": cfg(map[string]vector.Value{"sourceNode": int64(src), "relationshipWeightProperty": "w"})})
	if len(paths) != len(wantDist) {
		t.Fatalf("%s dijkstra: %d rows, %d reachable", where, len(paths), len(wantDist))
	}
	for _, r := range paths {
		tgt, cost := uint64(r[0].(int64)), r[1].(float64)
		if !near(cost, wantDist[tgt]) {
			t.Fatalf("%s dijkstra: node %d cost %v, want %v", where, tgt, cost, wantDist[tgt])
		}
		ns, rs, costs := r[2].([]vector.Value), r[3].([]vector.Value), r[4].([]vector.Value)
		if ns[0].(int64) != int64(src) || ns[len(ns)-1].(int64) != int64(tgt) || len(rs) != len(ns)-1 || len(costs) != len(ns) {
			t.Fatalf("%s dijkstra: malformed path %v %v to %d", where, ns, rs, tgt)
		}
		sum := 0.0
		for i, x := range rs {
			e, ok := rels[uint64(x.(int64))]
			a, b := uint64(ns[i].(int64)), uint64(ns[i+1].(int64))
			if !ok || !(e.src == a && e.dst == b || dir == "UNDIRECTED" && e.src == b && e.dst == a) {
				t.Fatalf("%s dijkstra: path step %d-%d does not use relationship %v", where, a, b, x)
			}
			sum += e.w
			if !near(costs[i+1].(float64), sum) {
				t.Fatalf("%s dijkstra: costs %v do not add up", where, costs)
			}
		}
	}

	// WCC: the same partition, labelled by the smallest node id.
	wantComp := v.components()
	got = nodeValues(t, db, "algo.wcc.stream", cfg(nil), "componentId")
	sameVertices("wcc", got)
	smallest := map[uint64]uint64{}
	for _, n := range v.verts {
		if s, ok := smallest[wantComp[n]]; !ok || n < s {
			smallest[wantComp[n]] = n
		}
	}
	for _, n := range v.verts {
		if got[n].(int64) != int64(smallest[wantComp[n]]) {
			t.Fatalf("%s wcc: node %d in %v, want %d", where, n, got[n], smallest[wantComp[n]])
		}
	}

	// PageRank, at one and at two workers.
	wantPR := v.pagerank(0.85, 12)
	for _, workers := range []int64{1, 2} {
		got = nodeValues(t, db, "algo.pagerank.stream", cfg(map[string]vector.Value{"maxIterations": int64(12), "tolerance": 0.0, "concurrency": workers}), "score")
		sameVertices("pagerank", got)
		for _, n := range v.verts {
			if !nearScore(got[n].(float64), wantPR[n]) {
				t.Fatalf("%s pagerank: node %d %v, want %v", where, n, got[n], wantPR[n])
			}
		}
	}

	// CDLP from node ids and from a seed property.
	ids, gids := map[uint64]int64{}, map[uint64]int64{}
	for _, r := range algoRows(t, db, "MATCH (n) RETURN id(n), n.gid", nil) {
		ids[uint64(r[0].(int64))] = r[0].(int64)
		gids[uint64(r[0].(int64))] = r[1].(int64)
	}
	for _, sp := range []string{"", "gid"} {
		seed, extra := ids, map[string]vector.Value{"maxIterations": int64(4)}
		if sp != "" {
			seed, extra["seedProperty"] = gids, sp
		}
		want := v.cdlp(seed, 4)
		got = nodeValues(t, db, "algo.cdlp.stream", cfg(extra), "communityId")
		sameVertices("cdlp", got)
		for _, n := range v.verts {
			if got[n].(int64) != want[n] {
				t.Fatalf("%s cdlp seed %q: node %d label %v, want %d", where, sp, n, got[n], want[n])
			}
		}
	}

	// LCC.
	wantLCC := v.lcc()
	got = nodeValues(t, db, "algo.lcc.stream", cfg(nil), "coefficient")
	sameVertices("lcc", got)
	for _, n := range v.verts {
		if !near(got[n].(float64), wantLCC[n]) {
			t.Fatalf("%s lcc: node %d %v, want %v", where, n, got[n], wantLCC[n])
		}
	}
}
