package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// holdQuery collects n integers and then waits in test.hold() until
// released, holding what it collected.
const holdQuery = "UNWIND range(1, $n) AS x WITH collect(x) AS c CALL test.hold() YIELD done RETURN size(c) AS n"

// openHoldDB opens a database whose procedure test.hold() reports each
// call on reached and returns once release is closed or its query is
// cancelled.
func openHoldDB(t *testing.T, opts engine.Options) (db *engine.DB, reached chan struct{}, release chan struct{}) {
	db, err := engine.Open("", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reached, release = make(chan struct{}, 8), make(chan struct{})
	err = db.RegisterProcedure(engine.ProcedureSignature{Name: "test.hold", Outputs: []engine.ProcedureField{{Name: "done", Type: "BOOLEAN"}}},
		func(ctx context.Context, _ []vector.Value) ([][]vector.Value, error) {
			reached <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return [][]vector.Value{{true}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return db, reached, release
}

// Three concurrent queries, each within max_memory_per_query but
// together past the server's budget: the one holding the most fails
// with 53200, the others finish, and the budget is whole again after.
func TestServerBudgetFailsTheLargestQuery(t *testing.T) {
	// Calibrate: what one collected integer costs (the accountant's
	// peak of a query that collects a million of them).
	db, reached, release := openHoldDB(t, engine.Options{MaxMemory: -1})
	close(release)
	res, err := db.Query(context.Background(), holdQuery, engine.Params{"n": int64(1_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(res); err != nil {
		t.Fatal(err)
	}
	<-reached
	perMillion := res.Summary().MemoryPeak
	if perMillion < 16_000_000 {
		t.Fatalf("collecting a million integers peaked at %d bytes", perMillion)
	}

	// A budget of 2.5 million integers; each query may hold 2 million.
	budget := perMillion * 5 / 2
	db, reached, release = openHoldDB(t, engine.Options{MaxMemory: budget, MaxMemoryPerQuery: 2 * perMillion, QueryTimeout: time.Hour})
	type outcome struct {
		n         int64
		code, msg string
		rows      []string
	}
	results := make(chan outcome, 3)
	var wg sync.WaitGroup
	run := func(n int64) {
		defer wg.Done()
		res, err := db.Query(context.Background(), holdQuery, engine.Params{"n": n})
		var rows []string
		if err == nil {
			rows, err = drain(res)
		}
		code, msg := "", ""
		if e, ok := engine.AsError(err); ok {
			code, msg = e.Code, e.Message
		} else if err != nil {
			code = err.Error()
		}
		results <- outcome{n, code, msg, rows}
	}
	// The largest (1.6 million) and a small one (0.3 million) hold
	// their lists; the third (0.8 million) takes the sum past the budget
	// while it collects, and the largest is the one that fails.
	wg.Add(2)
	go run(1_600_000)
	<-reached
	go run(300_000)
	<-reached
	wg.Add(1)
	go run(800_000)
	failed := <-results
	if failed.n != 1_600_000 || failed.code != "53200" {
		t.Fatalf("first to end: %+v, want the 1.6 million query failing with 53200", failed)
	}
	select { // the third query gets past its collect
	case <-reached:
	case r := <-results:
		t.Fatalf("the third query ended early: %+v", r)
	}
	close(release)
	wg.Wait()
	close(results)
	for r := range results {
		want := []string{map[int64]string{300_000: "300000", 800_000: "800000"}[r.n]}
		if r.code != "" || len(r.rows) != 1 || r.rows[0] != want[0] {
			t.Errorf("query of %d: %+v, want %v", r.n, r, want)
		}
	}
	// Nothing stays charged: every query closed its tracker before its
	// caller saw the end, so one as large as a query may be runs.
	res, err = db.Query(context.Background(), holdQuery, engine.Params{"n": int64(1_900_000)})
	if err == nil {
		var rows []string
		if rows, err = drain(res); err == nil && (len(rows) != 1 || rows[0] != "1900000") {
			t.Errorf("after the others finished: %v", rows)
		}
	}
	if err != nil {
		t.Fatalf("after the others finished: %v", err)
	}
}
