package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// TestPathsAgainstReference compares variable-length expansion and
// shortest paths with a naive recursive enumeration of trails over random
// small graphs (self-loops and parallel relationships included). Run it
// with -tags batch2 too: the enumeration must resume across tiny batches.
func TestPathsAgainstReference(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for g := 0; g < 40; g++ {
		gr := randomGraph(rng)
		db := openTestDB(t)
		mustRun(t, db, gr.create())
		ids := relIDs(t, db)
		for q := 0; q < 12; q++ {
			vq := randomVarQuery(rng, gr)
			got := sortedRows(t, db, vq.text(), ids)
			want := gr.varLength(vq)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), vq.text(), got, want)
			}
			// The distinct far ends, which may be answered by reachability.
			dq := vq.distinctText()
			got = sortedRows(t, db, dq, ids)
			want = distinctEnds(want)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), dq, got, want)
			}
			// A bound far end: whether some chain gets there.
			vq.to = rng.Intn(gr.n)
			got = sortedRows(t, db, vq.intoText(), ids)
			want = []string{}
			if slices.Contains(distinctEnds(gr.varLength(vq)), fmt.Sprint(vq.to)) {
				want = []string{fmt.Sprint(vq.to)}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), vq.intoText(), got, want)
			}
			sq := vq
			sq.lo = min(sq.lo, 1)
			sq.to = rng.Intn(gr.n)
			all := sortedRows(t, db, sq.shortestText(true), ids)
			wantAll := gr.shortest(sq)
			if !slices.Equal(all, wantAll) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), sq.shortestText(true), all, wantAll)
			}
			one := sortedRows(t, db, sq.shortestText(false), ids)
			if len(wantAll) == 0 && len(one) != 0 || len(wantAll) > 0 && (len(one) != 1 || !slices.Contains(wantAll, one[0])) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant one of %v", seed, gr.create(), sq.shortestText(false), one, wantAll)
			}
		}
	}
}

type testRel struct {
	src, dst int
	typ      string
	w        int
}

type testGraph struct {
	n    int
	rels []testRel
}

func randomGraph(rng *rand.Rand) *testGraph {
	g := &testGraph{n: 2 + rng.Intn(5)}
	for i := rng.Intn(9); i > 0; i-- { // few enough that every trail can be listed
		g.rels = append(g.rels, testRel{src: rng.Intn(g.n), dst: rng.Intn(g.n), typ: []string{"A", "B"}[rng.Intn(2)], w: 1 + rng.Intn(2)})
	}
	return g
}

func (g *testGraph) create() string {
	var parts []string
	for i := 0; i < g.n; i++ {
		parts = append(parts, fmt.Sprintf("(n%d:N {k: %d})", i, i))
	}
	for i, r := range g.rels {
		parts = append(parts, fmt.Sprintf("(n%d)-[:%s {id: %d, w: %d}]->(n%d)", r.src, r.typ, i, r.w, r.dst))
	}
	return "CREATE " + strings.Join(parts, ", ")
}

type varQuery struct {
	from, to int
	types    []string
	dir      string // "out", "in", "both"
	lo, hi   int    // hi < 0: unbounded
	w        int    // 0: no property map
}

func randomVarQuery(rng *rand.Rand, g *testGraph) varQuery {
	q := varQuery{from: rng.Intn(g.n), dir: []string{"out", "in", "both"}[rng.Intn(3)], lo: rng.Intn(3), hi: -1}
	if rng.Intn(3) > 0 {
		q.hi = q.lo + rng.Intn(3)
	}
	switch rng.Intn(3) {
	case 1:
		q.types = []string{"A"}
	case 2:
		q.types = []string{"A", "B"}
	}
	if rng.Intn(3) == 0 {
		q.w = 1
	}
	return q
}

func (q varQuery) rel(name string) string {
	s := name
	if len(q.types) > 0 {
		s += ":" + strings.Join(q.types, "|")
	}
	s += fmt.Sprintf("*%d..", q.lo)
	if q.hi >= 0 {
		s += fmt.Sprint(q.hi)
	}
	if q.w > 0 {
		s += fmt.Sprintf(" {w: %d}", q.w)
	}
	switch q.dir {
	case "out":
		return "-[" + s + "]->"
	case "in":
		return "<-[" + s + "]-"
	}
	return "-[" + s + "]-"
}

func (q varQuery) text() string {
	return fmt.Sprintf("MATCH (x {k: %d})%s(y) RETURN y.k, r", q.from, q.rel("r"))
}

func (q varQuery) distinctText() string {
	return fmt.Sprintf("MATCH (x {k: %d})%s(y) RETURN DISTINCT y.k", q.from, q.rel(""))
}

func (q varQuery) intoText() string {
	return fmt.Sprintf("MATCH (x {k: %d}), (z {k: %d}) MATCH (x)%s(z) RETURN DISTINCT z.k", q.from, q.to, q.rel(""))
}

func (q varQuery) shortestText(all bool) string {
	fn := "shortestPath"
	if all {
		fn = "allShortestPaths"
	}
	return fmt.Sprintf("MATCH (x {k: %d}), (z {k: %d}) MATCH p = %s((x)%s(z)) RETURN z.k, r", q.from, q.to, fn, q.rel("r"))
}

// step lists the relationships a trail may take from node u in q's
// direction: (relationship index, next node). An undirected self-loop is
// taken once.
func (g *testGraph) step(q varQuery, u int) [][2]int {
	var out [][2]int
	for i, r := range g.rels {
		if len(q.types) > 0 && !slices.Contains(q.types, r.typ) || q.w > 0 && r.w != q.w {
			continue
		}
		if (q.dir == "out" || q.dir == "both") && r.src == u {
			out = append(out, [2]int{i, r.dst})
		}
		if (q.dir == "in" || q.dir == "both") && r.dst == u && !(q.dir == "both" && r.src == r.dst) {
			out = append(out, [2]int{i, r.src})
		}
	}
	return out
}

// trails calls fn for every trail from q.from within q's bounds.
func (g *testGraph) trails(q varQuery, fn func(end int, rels []int)) {
	var rels []int
	var walk func(u int)
	walk = func(u int) {
		if len(rels) >= q.lo {
			fn(u, rels)
		}
		if q.hi >= 0 && len(rels) >= q.hi {
			return
		}
		for _, s := range g.step(q, u) {
			if slices.Contains(rels, s[0]) {
				continue
			}
			rels = append(rels, s[0])
			walk(s[1])
			rels = rels[:len(rels)-1]
		}
	}
	walk(q.from)
}

func row(end int, rels []int) string {
	parts := make([]string, len(rels))
	for i, r := range rels {
		parts[i] = fmt.Sprint(r)
	}
	return fmt.Sprintf("%d [%s]", end, strings.Join(parts, " "))
}

func (g *testGraph) varLength(q varQuery) []string {
	out := []string{}
	g.trails(q, func(end int, rels []int) { out = append(out, row(end, rels)) })
	sort.Strings(out)
	return out
}

func distinctEnds(rows []string) []string {
	out := []string{}
	for _, r := range rows {
		end, _, _ := strings.Cut(r, " ")
		if !slices.Contains(out, end) {
			out = append(out, end)
		}
	}
	sort.Strings(out)
	return out
}

// shortest lists the shortest trails from q.from to q.to.
func (g *testGraph) shortest(q varQuery) []string {
	best := -1
	out := []string{}
	g.trails(q, func(end int, rels []int) {
		if end != q.to {
			return
		}
		switch {
		case best < 0 || len(rels) < best:
			best, out = len(rels), []string{row(end, rels)}
		case len(rels) == best:
			out = append(out, row(end, rels))
		}
	})
	sort.Strings(out)
	return out
}

func mustRun(t *testing.T, db *engine.DB, q string) {
	t.Helper()
	res, err := db.Query(context.Background(), q, nil)
	if err == nil {
		_, err = drain(res)
	}
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// relIDs maps engine relationship ids to the graph's own (property id).
func relIDs(t *testing.T, db *engine.DB) map[uint64]int64 {
	ids := map[uint64]int64{}
	for _, r := range queryValues(t, db, "MATCH ()-[r]->() RETURN id(r), r.id") {
		ids[uint64(r[0].(int64))] = r[1].(int64)
	}
	return ids
}

// sortedRows runs a query returning a node key and optionally a
// relationship list, rendered as "key [ids]" (or "key"), sorted.
func sortedRows(t *testing.T, db *engine.DB, q string, ids map[uint64]int64) []string {
	out := []string{}
	for _, r := range queryValues(t, db, q) {
		s := fmt.Sprint(r[0])
		if len(r) > 1 {
			var parts []string
			for _, x := range r[1].([]vector.Value) {
				parts = append(parts, fmt.Sprint(ids[uint64(x.(vector.RelRef))]))
			}
			s += " [" + strings.Join(parts, " ") + "]"
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func queryValues(t *testing.T, db *engine.DB, q string) [][]vector.Value {
	t.Helper()
	res, err := db.Query(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer res.Close()
	var rows [][]vector.Value
	for {
		b, err := res.Next()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if b == nil {
			return rows
		}
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			vals := make([]vector.Value, len(b.Cols))
			for c, v := range b.Cols {
				vals[c] = v.Get(r)
			}
			rows = append(rows, vals)
		}
	}
}
