package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// benchDB builds a random graph of n Person nodes (id, age) and m KNOWS
// relationships (since) straight through storage transactions.
func benchDB(b *testing.B, n, m int) *DB {
	db, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	cat := db.store.Catalog()
	person := cat.EnsureLabel("Person")
	knows := cat.EnsureType("KNOWS")
	keys := []catalog.KeyID{cat.EnsureKey("id"), cat.EnsureKey("age")}
	since := []catalog.KeyID{cat.EnsureKey("since")}
	rng := rand.New(rand.NewPCG(1, 2))
	const per = 50000
	for lo := 0; lo < n; lo += per {
		tx := db.store.Begin()
		for i := lo; i < min(lo+per, n); i++ {
			if _, err := tx.CreateNode([]catalog.LabelID{person}, keys, []vector.Value{int64(i), int64(18 + rng.IntN(63))}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	for lo := 0; lo < m; lo += per {
		tx := db.store.Begin()
		for i := lo; i < min(lo+per, m); i++ {
			src, dst := uint64(rng.IntN(n)), uint64(rng.IntN(n))
			if _, err := tx.CreateRel(knows, src, dst, since, []vector.Value{int64(2000 + rng.IntN(25))}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return db
}

func BenchmarkQueries(b *testing.B) {
	db := benchDB(b, 100_000, 1_000_000)
	for _, q := range []struct{ name, text string }{
		{"Q1-filter-count", "MATCH (p:Person) WHERE p.age > 30 RETURN count(*)"},
		{"Q3-expand-count", "MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN count(*)"},
		{"Q4-point-2hop", "MATCH (a:Person {id: 42})-[:KNOWS]->()-[:KNOWS]->(c) RETURN count(DISTINCT c)"},
		{"Q5-2hop-count", "MATCH (a:Person)-[:KNOWS]->(b)-[:KNOWS]->(c) RETURN count(*)"},
		{"Q8-degree-group", "MATCH (a:Person)-[:KNOWS]->(b) RETURN a.id, count(*) AS d"},
		{"Q9-edge-filter", "MATCH (a:Person)-[k:KNOWS]->(b:Person) WHERE k.since > 2015 AND b.age < 25 RETURN count(*)"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				runToEnd(b, db, q.text)
			}
		})
	}
}

// BenchmarkParallelism runs analytic pipelines on one worker and on two:
// a scan with a filter feeding count, and a one-hop expansion feeding a
// group-by (morsels sized by the KNOWS degrees).
func BenchmarkParallelism(b *testing.B) {
	db := benchDB(b, 100_000, 1_000_000)
	for _, q := range []struct{ name, text string }{
		{"scan-filter-count", "MATCH (p:Person) WHERE p.age > 30 RETURN count(*)"},
		{"expand-group", "MATCH (a:Person)-[:KNOWS]->(b) RETURN b.age, count(*), avg(a.age)"},
	} {
		for _, par := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/par%d", q.name, par), func(b *testing.B) {
				db.opts.Parallelism = par
				for b.Loop() {
					runToEnd(b, db, q.text)
				}
			})
		}
	}
}

// runToEnd runs query q and reads every batch: what a benchmark times.
func runToEnd(b *testing.B, db *DB, q string) { queryToEnd(b, db, q, nil) }

// querier is what runs a statement: a DB or a Session.
type querier interface {
	Query(ctx context.Context, text string, params Params) (*Result, error)
}

// queryToEnd runs text on q with params, reads every batch and closes the
// result.
func queryToEnd(b testing.TB, q querier, text string, params Params) {
	res, err := q.Query(context.Background(), text, params)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Close()
	for {
		batch, err := res.Next()
		if err != nil {
			b.Fatal(err)
		}
		if batch == nil {
			return
		}
	}
}
