package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/algo"
	"github.com/quiverdb/quiver/vector"
)

// chainDB holds a path of n :C nodes, i -[:NEXT {w: 1.0}]-> i+1: BFS and
// SSSP from its head take n rounds.
func chainDB(t *testing.T, n int) *engine.DB {
	db := openTestDB(t)
	nodes := make([]engine.TestNode, n)
	rels := make([]engine.TestRel, n-1)
	for i := range nodes {
		nodes[i] = engine.TestNode{Labels: []string{"C"}, Props: map[string]vector.Value{"i": int64(i)}}
	}
	for i := range rels {
		rels[i] = engine.TestRel{Type: "NEXT", From: i, To: i + 1, Props: map[string]vector.Value{"w": 1.0}}
	}
	if err := engine.LoadForTest(db, nodes, rels); err != nil {
		t.Fatal(err)
	}
	return db
}

// codeOf is err's code, "" for none.
func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return errCode(err)
}

// runErr runs q to its end and returns its error.
func runErr(ctx context.Context, s *engine.Session, q string) error {
	res, err := s.Query(ctx, q, nil)
	if err != nil {
		return err
	}
	_, err = drain(res)
	return err
}

// stopChain is the length of the chain the stop tests run on: long
// enough for Dijkstra, whose rounds are 4096 pops, to have three rounds.
const stopChain = 10000

// stopCases stop each algorithm in round 1 of its main phase: a
// PageRank or CDLP iteration, a WCC phase, an SSSP bucket, a BFS level,
// pops 4096–8191 of Dijkstra, LCC's triangle enumeration. Each has a
// round 2 that must not start.
var stopCases = []struct{ alg, query string }{
	{"pagerank", "CALL algo.pagerank.stream({maxIterations: 50, tolerance: 0}) YIELD score RETURN count(*)"},
	{"wcc", "CALL algo.wcc.stream({}) YIELD componentId RETURN count(*)"},
	{"sssp", "MATCH (s:C {i: 0}) CALL algo.sssp.stream({sourceNode: s, relationshipWeightProperty: 'w'}) YIELD distance RETURN count(*)"},
	{"bfs", "MATCH (s:C {i: 0}) CALL algo.bfs.stream({sourceNode: s}) YIELD depth RETURN count(*)"},
	{"cdlp", "CALL algo.cdlp.stream({maxIterations: 50}) YIELD communityId RETURN count(*)"},
	{"lcc", "CALL algo.lcc.stream({direction: 'UNDIRECTED'}) YIELD coefficient RETURN count(*)"},
	{"dijkstra", "MATCH (s:C {i: 0}) CALL algo.dijkstra.stream({sourceNode: s, relationshipWeightProperty: 'w'}) YIELD cost RETURN count(*)"},
}

// runRows runs text on q to its end and returns the rows it returned
// and its error.
func runRows(ctx context.Context, q querier, text string, params engine.Params) (int, error) {
	res, err := q.Query(ctx, text, params)
	if err != nil {
		return 0, err
	}
	defer res.Close()
	n := 0
	for {
		b, err := res.Next()
		if err != nil || b == nil {
			return n, err
		}
		n += b.Rows()
	}
}

// A cancel or a timeout that arrives while an algorithm runs stops it
// within the round it arrived in. The probe (algo.WithProbe) sees every
// round: at round 1 it cancels the statement, or waits for the
// statement's deadline to pass; the statement must then fail with 40000
// or 40003, having entered the algorithm (round 0 ran), started no
// round after the one the stop arrived in and returned no row, and its
// memory must be back in the server's budget.
func TestAlgoStopsMidRun(t *testing.T) {
	db := chainDB(t, stopChain)
	for _, c := range stopCases {
		for _, mode := range []string{"cancel", "timeout"} {
			var entered, after atomic.Int32
			var held atomic.Int64
			ctx, cancel := context.WithCancel(context.Background())
			ctx = algo.WithProbe(ctx, func(sctx context.Context, name string, round int) {
				if name != c.alg {
					return
				}
				switch {
				case round == 0:
					entered.Add(1)
				case round == 1 && mode == "cancel":
					held.Store(engine.AlgoMemoryInUse(db))
					cancel()
				case round == 1:
					held.Store(engine.AlgoMemoryInUse(db))
					<-sctx.Done() // the statement's deadline
				case round > 1:
					after.Add(1)
				}
			})
			s := db.NewSession()
			want := "40000"
			if mode == "timeout" {
				mustQuery(t, s, "SET query_timeout = 100", nil)
				want = "40003"
			}
			rows, err := runRows(ctx, s, c.query, nil)
			cancel()
			if got := codeOf(err); got != want {
				t.Errorf("%s, %s: got %v, want %s", c.alg, mode, err, want)
			}
			if rows != 0 {
				t.Errorf("%s, %s: %d rows returned before the stop", c.alg, mode, rows)
			}
			if n := engine.AlgoMemoryInUse(db); n != 0 || held.Load() == 0 {
				t.Errorf("%s, %s: %d bytes charged while it ran, %d still charged after the statement, want some and 0",
					c.alg, mode, held.Load(), n)
			}
			if entered.Load() != 1 {
				t.Errorf("%s, %s: the algorithm was entered %d times, want once", c.alg, mode, entered.Load())
			}
			if n := after.Load(); n > 0 {
				t.Errorf("%s, %s: %d rounds started after the stop", c.alg, mode, n)
			}
		}
		// Unstopped, the call reaches round 2: the checks above that no
		// round after 1 started are not vacuous.
		var last atomic.Int32
		ctx := algo.WithProbe(context.Background(), func(_ context.Context, name string, round int) {
			if name == c.alg {
				last.Store(int32(max(round, int(last.Load()))))
			}
		})
		if err := runErr(ctx, db.NewSession(), c.query); err != nil || last.Load() < 2 {
			t.Errorf("%s unstopped: %v, last round %d, want round 2 reached", c.alg, err, last.Load())
		}
	}
}

// Dijkstra's nodeIds, costs and path values are charged as rows are
// built: on a chain row k's lists have k+1 entries, so a batch of rows
// holds a quadratic number of them. With the limit set to what the call
// needs without the lists plus a quarter of what its largest batch of
// lists needs (about 64 bytes an entry), yielding them must fail with
// 53200 rather than allocate them.
func TestAlgoDijkstraPathsCharged(t *testing.T) {
	const n = 3000
	db := chainDB(t, n)
	s := db.NewSession()
	q := "MATCH (s:C {i: 0}) CALL algo.dijkstra.stream({sourceNode: s}) YIELD cost RETURN count(*)"
	res, err := s.Query(context.Background(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := drain(res); err != nil || got[0] != "3000" {
		t.Fatalf("costs only: %v %v, want 3000 rows", got, err)
	}
	var need int64 // the list entries of the largest batch, 64 bytes each
	for lo := 0; lo < n; lo += vector.Capacity {
		var b int64
		for k := lo; k < min(n, lo+vector.Capacity); k++ {
			b += 64 * int64(k+1)
		}
		need = max(need, b)
	}
	limit := res.Summary().MemoryPeak + need/4
	mustQuery(t, s, fmt.Sprintf("SET max_memory_per_query = %d", limit), nil)
	q = "MATCH (s:C {i: 0}) CALL algo.dijkstra.stream({sourceNode: s}) YIELD nodeIds, costs, path RETURN count(*)"
	if err := runErr(context.Background(), s, q); codeOf(err) != "53200" {
		t.Fatalf("paths past max_memory_per_query (%d bytes): %v, want 53200", limit, err)
	}
}

// algoGoroutines counts the goroutines running code of package algo.
func algoGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "quiver/engine/algo.") {
			n++
		}
	}
	return n
}

// No goroutine of an algorithm outlives its statement: not after a
// stream the query stops reading early (LIMIT), not after a cancel in
// the middle of a parallel round. A worker that has signalled its end may
// still be unwinding for a moment, so the check waits for the count to
// reach zero, up to a bound a leaked goroutine never meets.
func TestAlgoNoWorkerOutlivesStatement(t *testing.T) {
	db := chainDB(t, stopChain)
	for _, q := range []string{
		"CALL algo.pagerank.stream({concurrency: 2}) YIELD nodeId, score RETURN nodeId LIMIT 1",
		"CALL algo.wcc.stream({concurrency: 2}) YIELD nodeId RETURN nodeId LIMIT 1",
	} {
		if got := mustQuery(t, db, q, nil); len(got) != 1 {
			t.Fatalf("%s: %v", q, got)
		}
	}
	for _, c := range stopCases {
		ctx, cancel := context.WithCancel(context.Background())
		ctx = algo.WithProbe(ctx, func(_ context.Context, name string, round int) {
			if name == c.alg && round == 1 {
				cancel()
			}
		})
		err := runErr(ctx, db.NewSession(), strings.Replace(c.query, "({", "({concurrency: 2, ", 1))
		cancel()
		if codeOf(err) != "40000" {
			t.Fatalf("%s: %v, want 40000", c.alg, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for algoGoroutines() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of package algo outlived their statements", algoGoroutines())
		}
		runtime.Gosched()
	}
}
