package http

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// holdQuery collects n integers, then waits in test.hold() until
// released (or cancelled), holding what it collected.
const holdQuery = "UNWIND range(1, $n) AS x WITH collect(x) AS c CALL test.hold() YIELD done RETURN size(c) AS n"

// registerHold gives db the procedure test.hold(): it reports each call
// on reached and returns once release is closed or its query is
// cancelled.
func registerHold(t *testing.T, db *engine.DB) (reached, release chan struct{}) {
	reached, release = make(chan struct{}, 8), make(chan struct{})
	err := db.RegisterProcedure(engine.ProcedureSignature{Name: "test.hold", Outputs: []engine.ProcedureField{{Name: "done", Type: "BOOLEAN"}}},
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
	return reached, release
}

// Issue 27, defect 3, over HTTP: three queries together past the
// server's memory budget, under the server's query timeout. The one
// holding the most answers 507 53200 (it answered 500 40000 "query
// cancelled: context canceled": the timeout's context lost the budget's
// cause), and the other two finish with their rows.
func TestMemoryBudgetAnswers507ToTheLargest(t *testing.T) {
	// What each query holds once it collected its list (read while it
	// waits in test.hold()) and the most it held on the way: a list
	// grows by copying into a larger array, both charged while it
	// copies, so neither is proportional to the values.
	const large, small, third = 1_600_000, 300_000, 800_000
	held, peak := map[int]int64{}, map[int]int64{}
	for _, n := range []int{large, small, third} {
		calib := openDB(t, engine.Options{MaxMemory: 1 << 40})
		reached, release := registerHold(t, calib)
		var res *engine.Result
		done := make(chan error, 1)
		go func() {
			var err error
			if res, err = calib.Query(context.Background(), holdQuery, engine.Params{"n": int64(n)}); err == nil {
				for {
					var b *vector.Batch
					if b, err = res.Next(); err != nil || b == nil {
						break
					}
				}
				res.Close()
			}
			done <- err
		}()
		select {
		case <-reached:
		case err := <-done:
			t.Fatalf("collecting %d integers ended before test.hold(): %v", n, err)
		}
		held[n] = calib.MemoryCharged()
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		peak[n] = res.Summary().MemoryPeak
	}
	// Each query alone fits its limit; the budget holds the large and
	// the small query with room for half the third.
	budget := held[large] + held[small] + held[third]/2
	perQuery := max(peak[large], peak[small], peak[third]) * 5 / 4
	if held[large]+peak[small] >= budget {
		t.Fatalf("no budget for the test: held %v, peaks %v", held, peak)
	}

	h := startHostile(t, Config{}, engine.Options{MaxMemory: budget, MaxMemoryPerQuery: perQuery, QueryTimeout: time.Minute})
	reached, release := registerHold(t, h.db)
	type answer struct {
		n      int
		status int
		raw    []byte
		err    error // the request failed
	}
	answers := make(chan answer, 3)
	var wg sync.WaitGroup
	run := func(n int) {
		defer wg.Done()
		body := fmt.Sprintf(`{"query":%q,"parameters":{"n":%d}}`, holdQuery, n)
		status, raw, err := h.tryPost(body)
		answers <- answer{n, status, raw, err}
	}
	// The largest and a small one hold their lists; the third takes the
	// sum past the budget while it collects.
	wg.Add(3)
	go run(large)
	<-reached
	go run(small)
	<-reached
	go run(third)
	first := <-answers
	if first.n != large || first.status != 507 || errorCode(first.raw) != "53200" {
		t.Fatalf("first answer: query of %d, %d %.300s (%v); want the largest, 507 53200", first.n, first.status, first.raw, first.err)
	}
	// The third gets past its collect once the largest gave its memory
	// back; an answer first means it (or the small one) failed.
	select {
	case <-reached:
	case a := <-answers:
		t.Fatalf("query of %d answered %d %.300s (%v) before the third reached test.hold()", a.n, a.status, a.raw, a.err)
	}
	close(release)
	wg.Wait()
	close(answers)
	for a := range answers {
		var out struct{ Data []struct{ N int } }
		if err := json.Unmarshal(a.raw, &out); a.status != 200 || err != nil || len(out.Data) != 1 || out.Data[0].N != a.n {
			t.Errorf("query of %d: %d %.300s (%v), want 200 with its count", a.n, a.status, a.raw, a.err)
		}
	}
	h.healthy(t, "a query failed for the budget")
}

// Issue 27, defect 2, over HTTP: a balanced OR of 20,000 comparisons
// answers its rows, and fails with 507 53200 under a statement limit
// below what its compiled expression holds.
func TestBalancedExpressionOverHTTP(t *testing.T) {
	h := startHostile(t, Config{}, engine.Options{MaxMemory: -1, MaxMemoryPerQuery: 256 << 20, QueryTimeout: time.Minute})
	if status, raw := h.post(t, queryBody("UNWIND range(0, 999) AS i CREATE (:P {v: i})", 0)); status != 200 {
		t.Fatalf("create: %d %s", status, raw)
	}
	terms := make([]string, 20000)
	for i := range terms {
		terms[i] = fmt.Sprintf("p.v=%d", i)
	}
	for len(terms) > 1 {
		var next []string
		for i := 0; i < len(terms); i += 2 {
			if i+1 < len(terms) {
				next = append(next, "("+terms[i]+" OR "+terms[i+1]+")")
			} else {
				next = append(next, terms[i])
			}
		}
		terms = next
	}
	text := "MATCH (p:P) WHERE " + terms[0] + " RETURN count(p) AS n"
	stop := heapGrowth()
	status, raw := h.post(t, queryBody(text, 0))
	grew := stop()
	if status != 200 || !strings.Contains(string(raw), `"data":[{"n":1000}]`) {
		t.Fatalf("the balanced OR: %d %.300s", status, raw)
	}
	if bound := int64(64<<20 + 100*len(text)); grew > bound {
		t.Errorf("the heap grew by %d MiB, want under %d MiB", grew>>20, bound>>20)
	}
	t.Logf("the balanced OR (%d KiB): heap +%d MiB", len(text)>>10, grew>>20)
	// Under a 1 MB statement limit the compiled expression alone is too
	// much (it is charged when built, before any row).
	small := startHostile(t, Config{}, engine.Options{MaxMemory: -1, MaxMemoryPerQuery: 1 << 20, QueryTimeout: time.Minute})
	if status, raw := small.post(t, queryBody(text, 0)); status != 507 || errorCode(raw) != "53200" {
		t.Errorf("the balanced OR under a 1 MiB limit: %d %.300s, want 507 53200", status, raw)
	}
}
