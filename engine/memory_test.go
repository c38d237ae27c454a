package engine_test

import (
	"context"
	"fmt"
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
	// Calibrate: what each query holds once it collected its list (held,
	// read while it waits in test.hold()) and the most it held on the way
	// (peak). A list grows by copying into a larger array, both charged
	// while it copies, so neither is proportional to the values.
	const large, small, third = 1_600_000, 300_000, 800_000
	held, peak := map[int64]int64{}, map[int64]int64{}
	for _, n := range []int64{large, small, third} {
		db, reached, release := openHoldDB(t, engine.Options{MaxMemory: 1 << 40})
		var res *engine.Result
		done := make(chan error, 1)
		go func() {
			var err error
			if res, err = db.Query(context.Background(), holdQuery, engine.Params{"n": n}); err == nil {
				_, err = drain(res)
			}
			done <- err
		}()
		select {
		case <-reached:
		case err := <-done:
			t.Fatalf("collecting %d integers ended before test.hold(): %v", n, err)
		}
		held[n] = db.MemoryCharged()
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		peak[n] = res.Summary().MemoryPeak
		if held[n] < n*16 || peak[n] < held[n] {
			t.Fatalf("collecting %d integers held %d bytes, peaked at %d", n, held[n], peak[n])
		}
	}

	// Each query alone fits its limit. The budget holds the large and the
	// small query with room for half the third: the third takes the sum
	// past it while it collects, and the largest is the one that fails.
	budget := held[large] + held[small] + held[third]/2
	perQuery := max(peak[large], peak[small], peak[third]) * 5 / 4
	if held[large]+peak[small] >= budget || peak[large] > budget {
		t.Fatalf("no budget for the test: held %v, peaks %v", held, peak)
	}
	db, reached, release := openHoldDB(t, engine.Options{MaxMemory: budget, MaxMemoryPerQuery: perQuery, QueryTimeout: time.Hour})
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
	wg.Add(2)
	go run(large)
	<-reached
	go run(small)
	<-reached
	wg.Add(1)
	go run(third)
	failed := <-results
	if failed.n != large || failed.code != "53200" {
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
		want := []string{fmt.Sprint(r.n)}
		if r.code != "" || len(r.rows) != 1 || r.rows[0] != want[0] {
			t.Errorf("query of %d: %+v, want %v", r.n, r, want)
		}
	}
	// Nothing stays charged: every query closed its tracker before its
	// caller saw the end, so the largest runs again, alone.
	if held := db.MemoryCharged(); held != 0 {
		t.Errorf("after the others finished the budget holds %d bytes", held)
	}
	res, err := db.Query(context.Background(), holdQuery, engine.Params{"n": int64(large)})
	if err == nil {
		var rows []string
		if rows, err = drain(res); err == nil && (len(rows) != 1 || rows[0] != fmt.Sprint(large)) {
			t.Errorf("after the others finished: %v", rows)
		}
	}
	if err != nil {
		t.Fatalf("after the others finished: %v", err)
	}
}
