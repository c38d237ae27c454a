package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// A graph larger than max_memory_per_query fails the call with 53200; a
// cancelled query stops it; a transaction's algorithm sees its own
// uncommitted writes; EXPLAIN and PROFILE take algo calls.
func TestAlgoLimitsAndModes(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "UNWIND range(0, 199999) AS i CREATE (:N {i: i})", nil)
	db.Close()
	// PageRank holds about 24 bytes a node: 4.8 MB here.
	db, err = engine.Open(dir, engine.Options{MaxMemoryPerQuery: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	_, err = queryAll(db, "CALL algo.pagerank.stream({}) YIELD score RETURN count(*)", nil)
	if e, ok := engine.AsError(err); !ok || e.Code != "53200" {
		t.Fatalf("over max_memory_per_query: %v, want 53200", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := db.Query(ctx, "CALL algo.wcc.stream({nodeLabels: 'N'}) YIELD componentId RETURN count(*)", nil); err == nil {
		if _, err = drain(res); err == nil {
			t.Fatal("a cancelled query ran its algorithm to the end")
		}
	}

	small := openTestDB(t)
	mustQuery(t, small, "CREATE (:P {k: 1})-[:E]->(:P {k: 2})", nil)
	tx, err := small.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []string{"MATCH (b:P {k: 2}) CREATE (b)-[:E]->(:P {k: 3})", "MATCH (a:P {k: 1}) DETACH DELETE a"} {
		res, err := tx.Query(context.Background(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drain(res); err != nil {
			t.Fatal(err)
		}
	}
	res, err := tx.Query(context.Background(), "MATCH (s:P {k: 2}) CALL algo.bfs.stream({sourceNode: s}) YIELD nodeId, depth RETURN nodeId.k, depth ORDER BY depth", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(res)
	if err != nil || strings.Join(got, ";") != "2 | 0;3 | 1" {
		t.Fatalf("inside the transaction: %v %v, want its own writes", got, err)
	}
	if got := mustQuery(t, small, "CALL algo.wcc.stream({}) YIELD nodeId RETURN count(*)", nil); got[0] != "2" {
		t.Fatalf("outside the transaction: %v nodes, want 2", got)
	}

	for _, run := range []func(context.Context, string, engine.Params) (*engine.Result, error){small.Explain, small.Profile} {
		res, err := run(context.Background(), "CALL algo.pagerank.stream({maxIterations: 3}) YIELD nodeId, score RETURN nodeId, score", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drain(res); err != nil {
			t.Fatal(err)
		}
	}
}
