package engine

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// TestParallelismSetting checks what a read query may use: Options.Parallelism,
// or one goroutine once enable_parallel_scan is off, for the session that
// switched it off or for every session when the operator did.
func TestParallelismSetting(t *testing.T) {
	db, err := Open(t.TempDir(), Options{Parallelism: 3})
	if err != nil {
		t.Fatal(err)
	}
	set := func(s *Session, q string) error {
		res, err := s.Query(context.Background(), q, nil)
		if err == nil {
			res.Close()
		}
		return err
	}
	s := db.NewSession()
	if got := s.parallelism(); got != 3 {
		t.Errorf("parallelism %d, want 3", got)
	}
	if err := set(s, "SET enable_parallel_scan = false"); err != nil {
		t.Fatal(err)
	}
	if got := s.parallelism(); got != 1 {
		t.Errorf("parallelism %d with enable_parallel_scan off, want 1", got)
	}
	if got := db.NewSession().parallelism(); got != 3 {
		t.Errorf("another session: parallelism %d, want 3", got)
	}
	if err := set(s, "SET enable_parallel_scan = true"); err != nil {
		t.Fatal(err)
	}
	if got := s.parallelism(); got != 3 {
		t.Errorf("parallelism %d with enable_parallel_scan on, want 3", got)
	}
	if err := db.Settings().Set("enable_parallel_scan", false); err != nil {
		t.Fatal(err)
	}
	if got := s.parallelism(); got != 1 {
		t.Errorf("parallelism %d with the operator's enable_parallel_scan off, want 1", got)
	}
	if e, ok := errs.As(set(s, "SET enable_parallel_scan = true")); !ok || e.Code != errs.CodePermission {
		t.Errorf("switching on what the operator switched off: %v, want %s", e, errs.CodePermission)
	}
	if _, err := Open(t.TempDir(), Options{DisabledRules: []string{"no-such-rule"}}); err == nil {
		t.Error("an unknown optimizer rule must be refused")
	}
}

// parallelGraph loads n nodes :N {v} in a ring of :R relationships plus
// chords, enough for many morsels at any batch size.
func parallelGraph(t *testing.T, db *DB, n int) {
	t.Helper()
	nodes := make([]TestNode, n)
	var rels []TestRel
	for i := range nodes {
		nodes[i] = TestNode{Labels: []string{"N"}, Props: map[string]vector.Value{"v": int64(i % 10)}}
		rels = append(rels, TestRel{Type: "R", From: i, To: (i + 1) % n}, TestRel{Type: "R", From: i, To: (i * 7) % n})
	}
	if err := LoadForTest(db, nodes, rels); err != nil {
		t.Fatal(err)
	}
}

// TestParallelStopsWorkers checks that a query on workers stopped early
// (LIMIT, Close before the end, a timeout) leaves no goroutine behind and
// reports what it scanned.
func TestParallelStopsWorkers(t *testing.T) {
	db, err := Open(t.TempDir(), Options{Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	n := 16 * vector.Capacity
	parallelGraph(t, db, n)
	before := runtime.NumGoroutine()
	ctx := context.Background()

	res, err := db.Query(ctx, "MATCH (a:N)-[:R]->(b) WHERE b.v > 2 RETURN a.v LIMIT 3", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for {
		b, err := res.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		rows += b.Rows()
	}
	if rows != 3 {
		t.Errorf("LIMIT 3 returned %d rows", rows)
	}
	if s := res.Summary().RowsScanned; s <= 0 || s > int64(3*n) {
		t.Errorf("rows scanned %d, want some of the %d nodes and %d relationships", s, n, 2*n)
	}

	res, err = db.Query(ctx, "MATCH (a:N)-[:R]->(b) RETURN a.v, b.v", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := res.Next(); err != nil || b == nil {
		t.Fatalf("first batch: %v %v", b, err)
	}
	res.Close()

	if err := db.Settings().Set("query_timeout", int64(1)); err != nil {
		t.Fatal(err)
	}
	// The filter on each path keeps the count from being computed without
	// enumerating the 2^12 paths from each node (a bare count(*) over the
	// expansion can finish within the millisecond).
	res, err = db.Query(ctx, "MATCH p = (a:N)-[:R*1..12]->(b) WHERE b.v + length(p) > 100 RETURN a.v, count(*)", nil)
	if err == nil {
		for err == nil {
			var b *vector.Batch
			if b, err = res.Next(); b == nil {
				break
			}
		}
		res.Close()
	}
	if e, ok := AsError(err); !ok || e.Code != errs.CodeTimeout {
		t.Errorf("a long query on workers: got %v, want a timeout", err)
	}

	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after the queries, %d before", g, before)
	}
}
