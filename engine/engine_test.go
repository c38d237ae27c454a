package engine_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// querier runs statements: a database (each statement its own session)
// or one session.
type querier interface {
	Query(ctx context.Context, text string, params engine.Params) (*engine.Result, error)
}

func mustQuery(t *testing.T, db querier, q string, params engine.Params) []string {
	t.Helper()
	res, err := db.Query(context.Background(), q, params)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	rows, err := drain(res)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rows
}

// A query past its time limit stops with 40003 and leaves the database
// usable.
func TestQueryTimeout(t *testing.T) {
	db := openTestDBWith(t, engine.Options{QueryTimeout: 50 * time.Millisecond})
	mustQuery(t, db, "CREATE "+nodes(200), nil)
	// 200^4 = 1.6e9 rows: far more than 50 ms of work.
	res, err := db.Query(context.Background(), "MATCH (a), (b), (c), (d) RETURN count(*)", nil)
	if err == nil {
		_, err = drain(res)
	}
	e, ok := engine.AsError(err)
	if !ok || e.Code != "40003" {
		t.Fatalf("err = %v, want a 40003 timeout", err)
	}
	if got := mustQuery(t, db, "MATCH (n) RETURN count(*)", nil); got[0] != "200" {
		t.Fatalf("after the timeout: count = %v", got)
	}
}

func nodes(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		if i > 0 {
			s += ", "
		}
		s += "(:N)"
	}
	return s
}

// A cancelled context stops a streaming read.
func TestQueryCancel(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "CREATE "+nodes(100), nil)
	ctx, cancel := context.WithCancel(context.Background())
	res, err := db.Query(ctx, "MATCH (a), (b), (c) RETURN a", nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for {
		b, err := res.Next()
		if err != nil {
			break
		}
		if b == nil {
			t.Fatal("a cancelled query ran to completion")
		}
	}
}

// A read streams from the snapshot it started on: a commit in between does
// not change what it returns.
func TestStreamingReadKeepsItsSnapshot(t *testing.T) {
	db := openTestDB(t)
	n := 3 * vector.Capacity
	if n < 6 {
		n = 6
	}
	mustQuery(t, db, "CREATE "+nodes(n), nil)
	res, err := db.Query(context.Background(), "MATCH (x:N) RETURN x", nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := res.Next()
	if err != nil || first == nil {
		t.Fatalf("first batch: %v", err)
	}
	seen := first.Rows()
	mustQuery(t, db, "CREATE "+nodes(10), nil)
	for {
		b, err := res.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		seen += b.Rows()
	}
	if seen != n {
		t.Fatalf("streamed %d rows, want the %d of the snapshot", seen, n)
	}
	if got := mustQuery(t, db, "MATCH (x:N) RETURN count(*)", nil); got[0] != itoa(n+10) {
		t.Fatalf("new count = %v, want %d", got, n+10)
	}
}

func itoa(n int) string { return formatValue(nil, int64(n)) }

// Concurrent readers and writers: every reader sees a consistent count (a
// multiple of the batch each writer creates), and no commit is lost.
func TestConcurrentReadWrite(t *testing.T) {
	db := openTestDB(t)
	const writers, perWriter = 4, 25
	var wg sync.WaitGroup
	errc := make(chan error, 64)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				res, err := db.Query(context.Background(), "CREATE (:W)-[:R]->(:W)", nil)
				if err != nil {
					errc <- err
					return
				}
				res.Close()
			}
		}()
	}
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				res, err := db.Query(context.Background(), "MATCH (a:W)-[:R]->(b:W) RETURN count(*) AS rels", nil)
				if err != nil {
					errc <- err
					return
				}
				rows, err := drain(res)
				if err != nil {
					errc <- err
					return
				}
				res2, err := db.Query(context.Background(), "MATCH (a:W) RETURN count(*)", nil)
				if err != nil {
					errc <- err
					return
				}
				rows2, err := drain(res2)
				if err != nil {
					errc <- err
					return
				}
				if len(rows) != 1 || len(rows2) != 1 {
					errc <- errors.New("count returned no row")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	if got := mustQuery(t, db, "MATCH (a:W)-[:R]->(b:W) RETURN count(*)", nil); got[0] != itoa(writers*perWriter) {
		t.Fatalf("relationships = %v, want %d", got, writers*perWriter)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}

// Hostile or broken input never panics: each gets an engine error.
func TestBadInputGetsErrors(t *testing.T) {
	db := openTestDB(t)
	for _, q := range []string{
		"", "   ", ";", "MATCH", "MATCH (", "RETURN", "RETURN 1 +", "CREATE (", "MATCH (a)-[*-1]->(b) RETURN a",
		"RETURN $p.x", "RETURN 'x'.y", "MATCH (a)-[r]->(r) RETURN r", "MATCH (a)-[a]->(b) RETURN a",
		"MATCH (a) CREATE (a:X)", "RETURN 1 AS x, 2 AS x", "WITH 1 RETURN 1", "MATCH (a) WITH a",
	} {
		res, err := db.Query(context.Background(), q, engine.Params{"p": int64(1)})
		if err == nil {
			_, err = drain(res)
		}
		if err == nil {
			t.Errorf("%q: no error", q)
			continue
		}
		if _, ok := engine.AsError(err); !ok {
			t.Errorf("%q: not an engine error: %v", q, err)
		}
	}
}
