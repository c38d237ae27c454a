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
		gr := ptRandomGraph(rng)
		db := openTestDB(t)
		ptExec(t, db, gr.create())
		ids := ptRelIDs(t, db)
		for q := 0; q < 12; q++ {
			vq := ptRandomQuery(rng, gr)
			got := ptRows(t, db, vq.text(), ids)
			want := gr.varLength(vq)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), vq.text(), got, want)
			}
			// A named path written from the far end (planned from the
			// start): its relationships in written order are the trail's
			// reversed.
			got = ptRows(t, db, vq.pathText(), ids)
			want = gr.reversedTrails(vq)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), vq.pathText(), got, want)
			}
			// The distinct far ends, which may be answered by reachability.
			dq := vq.distinctText()
			got = ptRows(t, db, dq, ids)
			want = ptDistinctEnds(want)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), dq, got, want)
			}
			// A bound far end: whether some chain gets there.
			vq.to = rng.Intn(gr.n)
			got = ptRows(t, db, vq.intoText(), ids)
			want = []string{}
			if slices.Contains(ptDistinctEnds(gr.varLength(vq)), fmt.Sprint(vq.to)) {
				want = []string{fmt.Sprint(vq.to)}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), vq.intoText(), got, want)
			}
			sq := vq
			sq.lo = min(sq.lo, 1)
			sq.to = rng.Intn(gr.n)
			all := ptRows(t, db, sq.shortestText(true), ids)
			wantAll := gr.shortest(sq)
			if !slices.Equal(all, wantAll) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), sq.shortestText(true), all, wantAll)
			}
			one := ptRows(t, db, sq.shortestText(false), ids)
			if len(wantAll) == 0 && len(one) != 0 || len(wantAll) > 0 && (len(one) != 1 || !slices.Contains(wantAll, one[0])) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant one of %v", seed, gr.create(), sq.shortestText(false), one, wantAll)
			}
			// shortestPath and allShortestPaths search among the trails
			// whose relationships all have w = 2 and whose inner nodes
			// avoid one node; ALL SHORTEST selects, then filters.
			bar := rng.Intn(gr.n)
			all = ptRows(t, db, sq.steeredText("allShortestPaths", bar), ids)
			wantAll = gr.shortestPassing(sq, bar)
			if !slices.Equal(all, wantAll) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), sq.steeredText("allShortestPaths", bar), all, wantAll)
			}
			one = ptRows(t, db, sq.steeredText("shortestPath", bar), ids)
			if len(wantAll) == 0 && len(one) != 0 || len(wantAll) > 0 && (len(one) != 1 || !slices.Contains(wantAll, one[0])) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant one of %v", seed, gr.create(), sq.steeredText("shortestPath", bar), one, wantAll)
			}
			all = ptRows(t, db, sq.steeredText("ALL SHORTEST", bar), ids)
			wantAll = gr.shortestThenPassing(sq, bar)
			if !slices.Equal(all, wantAll) {
				t.Fatalf("seed %d graph %s\n%s\ngot  %v\nwant %v", seed, gr.create(), sq.steeredText("ALL SHORTEST", bar), all, wantAll)
			}
		}
	}
}

type ptRel struct {
	src, dst int
	typ      string
	w        int
}

type ptGraph struct {
	n    int
	rels []ptRel
}

func ptRandomGraph(rng *rand.Rand) *ptGraph {
	g := &ptGraph{n: 2 + rng.Intn(5)}
	for i := rng.Intn(9); i > 0; i-- { // few enough that every trail can be listed
		g.rels = append(g.rels, ptRel{src: rng.Intn(g.n), dst: rng.Intn(g.n), typ: []string{"A", "B"}[rng.Intn(2)], w: 1 + rng.Intn(2)})
	}
	return g
}

func (g *ptGraph) create() string {
	var parts []string
	for i := 0; i < g.n; i++ {
		parts = append(parts, fmt.Sprintf("(n%d:N {k: %d})", i, i))
	}
	for i, r := range g.rels {
		parts = append(parts, fmt.Sprintf("(n%d)-[:%s {id: %d, w: %d}]->(n%d)", r.src, r.typ, i, r.w, r.dst))
	}
	return "CREATE " + strings.Join(parts, ", ")
}

type ptQuery struct {
	from, to int
	types    []string
	dir      string // "out", "in", "both"
	lo, hi   int    // hi < 0: unbounded
	w        int    // 0: no property map
}

func ptRandomQuery(rng *rand.Rand, g *ptGraph) ptQuery {
	q := ptQuery{from: rng.Intn(g.n), dir: []string{"out", "in", "both"}[rng.Intn(3)], lo: rng.Intn(3), hi: -1}
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

func (q ptQuery) rel(name string) string {
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

func (q ptQuery) text() string {
	return fmt.Sprintf("MATCH (x {k: %d})%s(y) RETURN y.k, r", q.from, q.rel("r"))
}

// pathText writes the pattern from the far end y back to the start x.
func (q ptQuery) pathText() string {
	m := q
	switch q.dir {
	case "out":
		m.dir = "in"
	case "in":
		m.dir = "out"
	}
	return fmt.Sprintf("MATCH p = (y)%s(x {k: %d}) RETURN y.k, relationships(p)", m.rel(""), q.from)
}

func (q ptQuery) distinctText() string {
	return fmt.Sprintf("MATCH (x {k: %d})%s(y) RETURN DISTINCT y.k", q.from, q.rel(""))
}

func (q ptQuery) intoText() string {
	return fmt.Sprintf("MATCH (x {k: %d}), (z {k: %d}) MATCH (x)%s(z) RETURN DISTINCT z.k", q.from, q.to, q.rel(""))
}

func (q ptQuery) shortestText(all bool) string {
	fn := "shortestPath"
	if all {
		fn = "allShortestPaths"
	}
	return fmt.Sprintf("MATCH (x {k: %d}), (z {k: %d}) MATCH p = %s((x)%s(z)) RETURN z.k, r", q.from, q.to, fn, q.rel("r"))
}

// steeredText is shortestText's search written as fn (shortestPath,
// allShortestPaths or the GQL prefix ALL SHORTEST) under a WHERE that
// wants every relationship's w = 2 and no node between the ends k = bar.
func (q ptQuery) steeredText(fn string, bar int) string {
	search := fmt.Sprintf("%s((x)%s(z))", fn, q.rel("r"))
	if fn == "ALL SHORTEST" {
		search = fmt.Sprintf("%s (x)%s(z)", fn, q.rel("r"))
	}
	return fmt.Sprintf("MATCH (x {k: %d}), (z {k: %d}) MATCH p = %s WHERE all(e IN relationships(p) WHERE e.w = 2) AND none(v IN nodes(p)[1..-1] WHERE v.k = %d) RETURN z.k, r",
		q.from, q.to, search, bar)
}

// step lists the relationships a trail may take from node u in q's
// direction: (relationship index, next node). An undirected self-loop is
// taken once.
func (g *ptGraph) step(q ptQuery, u int) [][2]int {
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
func (g *ptGraph) trails(q ptQuery, fn func(end int, rels []int)) {
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

func ptRow(end int, rels []int) string {
	parts := make([]string, len(rels))
	for i, r := range rels {
		parts[i] = fmt.Sprint(r)
	}
	return fmt.Sprintf("%d [%s]", end, strings.Join(parts, " "))
}

func (g *ptGraph) varLength(q ptQuery) []string {
	out := []string{}
	g.trails(q, func(end int, rels []int) { out = append(out, ptRow(end, rels)) })
	sort.Strings(out)
	return out
}

// reversedTrails lists the trails as varLength does, each with its
// relationships in reverse order.
func (g *ptGraph) reversedTrails(q ptQuery) []string {
	out := []string{}
	g.trails(q, func(end int, rels []int) {
		r := slices.Clone(rels)
		slices.Reverse(r)
		out = append(out, ptRow(end, r))
	})
	sort.Strings(out)
	return out
}

func ptDistinctEnds(rows []string) []string {
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
func (g *ptGraph) shortest(q ptQuery) []string {
	return g.rows(q, g.shortestTrails(q, nil), nil)
}

// shortestPassing lists the shortest of the trails from q.from to q.to
// that pass steeredText's WHERE.
func (g *ptGraph) shortestPassing(q ptQuery, bar int) []string {
	pass := func(rels []int) bool { return g.passes(q, rels, bar) }
	return g.rows(q, g.shortestTrails(q, pass), nil)
}

// shortestThenPassing lists the shortest trails from q.from to q.to that
// pass steeredText's WHERE.
func (g *ptGraph) shortestThenPassing(q ptQuery, bar int) []string {
	pass := func(rels []int) bool { return g.passes(q, rels, bar) }
	return g.rows(q, g.shortestTrails(q, nil), pass)
}

// shortestTrails lists the shortest of the trails from q.from to q.to
// that keep accepts (nil: every one).
func (g *ptGraph) shortestTrails(q ptQuery, keep func(rels []int) bool) [][]int {
	best := -1
	var found [][]int
	g.trails(q, func(end int, rels []int) {
		if end != q.to || keep != nil && !keep(rels) {
			return
		}
		switch {
		case best < 0 || len(rels) < best:
			best, found = len(rels), [][]int{slices.Clone(rels)}
		case len(rels) == best:
			found = append(found, slices.Clone(rels))
		}
	})
	return found
}

// rows is the sorted rows of the trails to q.to that keep accepts (nil:
// every one).
func (g *ptGraph) rows(q ptQuery, trails [][]int, keep func(rels []int) bool) []string {
	out := []string{}
	for _, rels := range trails {
		if keep == nil || keep(rels) {
			out = append(out, ptRow(q.to, rels))
		}
	}
	sort.Strings(out)
	return out
}

// passes reports whether the trail rels from q.from has w = 2 on every
// relationship and does not go through node bar between its ends.
func (g *ptGraph) passes(q ptQuery, rels []int, bar int) bool {
	cur := q.from
	for i, ri := range rels {
		r := g.rels[ri]
		if r.w != 2 {
			return false
		}
		switch {
		case q.dir == "out":
			cur = r.dst
		case q.dir == "in":
			cur = r.src
		case r.src == cur:
			cur = r.dst
		default:
			cur = r.src
		}
		if i < len(rels)-1 && cur == bar {
			return false
		}
	}
	return true
}

func ptExec(t *testing.T, db *engine.DB, q string) {
	t.Helper()
	res, err := db.Query(context.Background(), q, nil)
	if err == nil {
		_, err = drain(res)
	}
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// ptRelIDs maps engine relationship ids to the graph's own (property id).
func ptRelIDs(t *testing.T, db *engine.DB) map[uint64]int64 {
	ids := map[uint64]int64{}
	for _, r := range ptValues(t, db, "MATCH ()-[r]->() RETURN id(r), r.id") {
		ids[uint64(r[0].(int64))] = r[1].(int64)
	}
	return ids
}

// ptRows runs a query returning a node key and optionally a
// relationship list, rendered as "key [ids]" (or "key"), sorted.
func ptRows(t *testing.T, db *engine.DB, q string, ids map[uint64]int64) []string {
	out := []string{}
	for _, r := range ptValues(t, db, q) {
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

func ptValues(t *testing.T, db *engine.DB, q string) [][]vector.Value {
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

// A LIMIT over a chain enumeration with a huge number of chains stops the
// depth-first search early: it never lists them all.
func TestVarLengthStopsEarly(t *testing.T) {
	db := openTestDB(t)
	// A complete graph on 25 nodes: about 25^5 trails of length 5 from one node.
	ks := make([]string, 25)
	for i := range ks {
		ks[i] = fmt.Sprint(i)
	}
	ptExec(t, db, "UNWIND ["+strings.Join(ks, ", ")+"] AS i CREATE (:K {i: i})")
	ptExec(t, db, "MATCH (a:K), (b:K) WHERE a.i < b.i CREATE (a)-[:E]->(b)")
	res, err := db.Query(context.Background(), "MATCH (a:K {i: 0})-[:E*5]-(b) RETURN b LIMIT 3", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := drain(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("rows = %d, want 3", len(rows))
	}
	// Only the neighbour lists on the way to the first batch are read
	// (under the batch2 tag, to the first few rows).
	scanned := res.Summary().RowsScanned
	t.Logf("rows scanned: %d", scanned)
	if scanned > 200_000 {
		t.Errorf("rows scanned = %d: the enumeration did not stop early", scanned)
	}
}

// ptGrid creates an n×n grid with relationships right and down, whose
// corner-to-corner shortest paths number C(2(n-1), n-1).
func ptGrid(t *testing.T, db *engine.DB, n int) {
	var parts []string
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			parts = append(parts, fmt.Sprintf("(g%d_%d:G {k: %d})", i, j, i*n+j))
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j+1 < n {
				parts = append(parts, fmt.Sprintf("(g%d_%d)-[:E]->(g%d_%d)", i, j, i, j+1))
			}
			if i+1 < n {
				parts = append(parts, fmt.Sprintf("(g%d_%d)-[:E]->(g%d_%d)", i, j, i+1, j))
			}
		}
	}
	ptExec(t, db, "CREATE "+strings.Join(parts, ", "))
}

// allShortestPaths enumerates lazily: a LIMIT over millions of shortest
// paths returns at once.
func TestAllShortestPathsLazy(t *testing.T) {
	db := openTestDB(t)
	ptGrid(t, db, 5)
	rows := ptValues(t, db, "MATCH (a:G {k: 0}), (b:G {k: 24}) MATCH p = allShortestPaths((a)-[:E*]->(b)) RETURN count(p), count(DISTINCT p)")
	if len(rows) != 1 || rows[0][0] != int64(70) || rows[0][1] != int64(70) {
		t.Fatalf("5×5 grid: %v, want 70 distinct paths", rows)
	}
	db = openTestDB(t)
	ptGrid(t, db, 13) // C(24, 12) = 2,704,156 shortest paths
	rows = ptValues(t, db, "MATCH (a:G {k: 0}), (b:G {k: 168}) MATCH p = allShortestPaths((a)-[:E*]->(b)) RETURN length(p) LIMIT 2")
	if len(rows) != 2 || rows[0][0] != int64(24) {
		t.Fatalf("13×13 grid: %v, want 2 rows of length 24", rows)
	}
}
