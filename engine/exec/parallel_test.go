package exec

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// parallelStore is a graph of n :P nodes (v = i mod 7, name for even i)
// with a KNOWS relationship from i to (13·i) mod n and, for every fifth
// node, one to node 0 (a hub whose incoming list spans morsels).
func parallelStore(t *testing.T, n int) *storage.Store {
	t.Helper()
	st := storage.New()
	cat := st.Catalog()
	p := cat.EnsureLabel("P")
	knows := cat.EnsureType("KNOWS")
	kv, kname := cat.EnsureKey("v"), cat.EnsureKey("name")
	tx := st.Begin()
	for i := range n {
		keys, vals := []catalog.KeyID{kv}, []vector.Value{int64(i % 7)}
		if i%2 == 0 {
			keys, vals = append(keys, kname), append(vals, fmt.Sprintf("n%d", i%11))
		}
		if _, err := tx.CreateNode([]catalog.LabelID{p}, keys, vals); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if _, err := tx.CreateRel(knows, uint64(i), uint64(13*i%n), nil, nil); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			if _, err := tx.CreateRel(knows, uint64(i), 0, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return st
}

// runPar runs query text with the given parallelism and returns its rows
// (sorted), the context (closed) and the number of parallel runs.
func runPar(t *testing.T, st *storage.Store, text string, par int, prof bool) ([]string, *Context, *plan.Plan) {
	t.Helper()
	stmt, err := gql.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Bind(stmt, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog(), Parallelism: par}
	if prof {
		c.Profile = NewProfile()
	}
	op, err := Build(c, p.Root)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if b == nil {
			break
		}
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			var cells []string
			for _, v := range b.Cols {
				cells = append(cells, fmt.Sprint(v.Get(r)))
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
	}
	c.Close()
	sort.Strings(rows)
	return rows, c, p
}

func TestParallelMatchesSerial(t *testing.T) {
	n := 40 * vector.Capacity
	st := parallelStore(t, n)
	for _, q := range []string{
		"MATCH (a:P) WHERE a.v > 2 RETURN count(*)",
		"MATCH (a:P)-[:KNOWS]->(b) RETURN b.v, count(*), sum(a.v), min(a.name), max(b.name), round(avg(a.v), 9), round(stDev(a.v), 9), round(stDevP(b.v), 9)",
		"MATCH (a:P)<-[:KNOWS]-(b) RETURN a.v, count(DISTINCT b.v), size(collect(DISTINCT a.name)), percentileDisc(b.v, 0.5), percentileCont(DISTINCT b.v, 0.3), sum(DISTINCT b.v)",
		"MATCH (a:P)-[:KNOWS]-(b) WHERE b.v = 3 RETURN a.v, b.v",
		"MATCH (a)-[:KNOWS*1..2]->(b) WHERE a.v = 1 RETURN count(*), count(DISTINCT b)",
		"MATCH (a:P) WHERE a.name IS NOT NULL RETURN a.name, size(collect(a.v))",
		// Collected lists come in any order: their sizes show that every
		// worker's values arrive.
		"MATCH (a:P)-[:KNOWS]->(b:P {v: 6}) RETURN b.v, size(collect(a)), size(collect(DISTINCT a.v))",
	} {
		serial, sc, _ := runPar(t, st, q, 1, false)
		par, pc, _ := runPar(t, st, q, 4, false)
		if strings.Join(serial, "\n") != strings.Join(par, "\n") {
			t.Errorf("%s:\nserial %v\nparallel %v", q, head3(serial), head3(par))
		}
		if sc.par != nil && len(sc.par.runs) > 0 {
			t.Errorf("%s: ran in parallel at parallelism 1", q)
		}
		if pc.par == nil || len(pc.par.runs) == 0 || pc.par.runs[0].n < 2 {
			t.Errorf("%s: did not run on several workers", q)
		}
		if sc.Stats.RowsScanned != pc.Stats.RowsScanned || sc.Stats.DBHits != pc.Stats.DBHits {
			t.Errorf("%s: serial scanned %d rows (%d hits), parallel %d (%d)", q,
				sc.Stats.RowsScanned, sc.Stats.DBHits, pc.Stats.RowsScanned, pc.Stats.DBHits)
		}
	}
}

func head3(rows []string) []string { return rows[:min(3, len(rows))] }

// TestMorselsSizedByEdges checks that morsels are cut by the degrees of
// the first expansion: the hub (node 0, with n/5 incoming KNOWS) makes a
// morsel alone, and every morsel stays near the target weight.
func TestMorselsSizedByEdges(t *testing.T) {
	n := 40 * vector.Capacity
	st := parallelStore(t, n)
	stmt, _ := gql.Parse("MATCH (a:P)<-[:KNOWS]-(b) RETURN count(*)")
	p, err := plan.Bind(stmt, nil)
	if err != nil {
		t.Fatal(err)
	}
	agg := p.Root
	for {
		if a, ok := agg.(*plan.Aggregate); ok {
			agg = a.Input
			break
		}
		agg = agg.Children()[0]
	}
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog()}
	src := newMorselSource(c, chainScan(agg), agg)
	var sizes []int
	total := 0
	for {
		m := src.take(nil)
		if len(m) == 0 {
			break
		}
		if len(m) > 1 && m[0] == 0 {
			t.Errorf("the hub with %d relationships should be a morsel of its own, got %d nodes", n/5, len(m))
		}
		sizes = append(sizes, len(m))
		total += len(m)
	}
	if total != n {
		t.Errorf("morsels cover %d nodes, want %d", total, n)
	}
	// Weight 1 + indegree: about 2 per node, so about morselWeight/2
	// nodes a morsel, never more than morselWeight.
	for i, sz := range sizes[1 : len(sizes)-1] {
		if sz < morselWeight/4 || sz > morselWeight {
			t.Errorf("morsel %d has %d nodes", i+1, sz)
		}
	}
	if want := int64(n + n + n/5); src.expected != want {
		t.Errorf("expected weight %d, want %d", src.expected, want)
	}
}

// TestParallelProfileSumsWorkers checks that PROFILE counts each
// operator's rows over all workers.
func TestParallelProfileSumsWorkers(t *testing.T) {
	st := parallelStore(t, 40*vector.Capacity)
	q := "MATCH (a:P)-[:KNOWS]->(b) WHERE b.v > 3 RETURN a.v, count(*)"
	_, sc, sp := runPar(t, st, q, 1, true)
	_, pc, pp := runPar(t, st, q, 4, true)
	so, po := sc.Profile.Operators(sp.Root), pc.Profile.Operators(pp.Root)
	if len(so) != len(po) {
		t.Fatalf("profiles differ in length: %d and %d", len(so), len(po))
	}
	for i := range so {
		if so[i].Name != po[i].Name || so[i].Rows != po[i].Rows || so[i].DBHits != po[i].DBHits {
			t.Errorf("operator %d: serial %s rows %d hits %d, parallel %s rows %d hits %d", i,
				so[i].Name, so[i].Rows, so[i].DBHits, po[i].Name, po[i].Rows, po[i].DBHits)
		}
	}
}

// TestParallelCancelAndMemory checks that a cancelled query and one over
// its memory budget stop every worker with the right error.
func TestParallelCancelAndMemory(t *testing.T) {
	st := parallelStore(t, 40*vector.Capacity)
	run := func(q string, c *Context) error {
		stmt, _ := gql.Parse(q)
		p, err := plan.Bind(stmt, nil)
		if err != nil {
			t.Fatal(err)
		}
		tx := st.Begin()
		defer tx.Rollback()
		c.Tx, c.Catalog, c.Parallelism = tx, st.Catalog(), 4
		defer c.Close()
		op, err := Build(c, p.Root)
		if err != nil {
			return err
		}
		for {
			b, err := op.Next()
			if err != nil || b == nil {
				return err
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := run("MATCH (a:P)-[:KNOWS]->(b) RETURN b.v, count(*)", &Context{Ctx: ctx})
	if e, ok := err.(*errs.Error); !ok || e.Code != errs.CodeTransaction {
		t.Errorf("cancelled: got %v", err)
	}
	c := &Context{Ctx: context.Background()}
	c.Mem.Limit = 64 * int64(vector.Capacity)
	err = run("MATCH (a:P)-[:KNOWS]->(b) RETURN collect(b.name)", c)
	if e, ok := err.(*errs.Error); !ok || e.Code != errs.CodeOutOfMemory {
		t.Errorf("over budget: got %v", err)
	}
	if c.Mem.Used() <= c.Mem.Limit {
		t.Errorf("the workers charged %d bytes to the query, limit %d", c.Mem.Used(), c.Mem.Limit)
	}
}
