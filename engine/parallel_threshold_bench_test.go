package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// BenchmarkParallelThreshold runs scan pipelines of growing weight (the
// nodes a scan reads plus the relationships its first expansion follows,
// the executor's morselSource.expected) on one worker and on two, to find
// the weight below which a second worker costs more than it gains: the
// executor's minParallelWeight (engine/exec/parallel.go).
func BenchmarkParallelThreshold(b *testing.B) {
	defer vector.SetPoison(vector.SetPoison(false))
	ctx := context.Background()
	for _, n := range []int{8_000, 16_000, 32_000, 64_000, 256_000} {
		db := benchDB(b, n, 2*n)
		serial, par := db.NewSession(), db.NewSession()
		if res, err := serial.Query(ctx, "SET enable_parallel_scan = false", nil); err != nil {
			b.Fatal(err)
		} else {
			res.Close()
		}
		for _, q := range []struct {
			name, text string
			weight     int
		}{
			{"filter-sum", "MATCH (p:Person) WHERE p.age > 40 RETURN sum(p.id)", n},
			{"filter-rows", "MATCH (p:Person) WHERE p.age > 75 RETURN p.id", n},
			{"expand-sum", "MATCH (a:Person)-[:KNOWS]->(b) RETURN sum(b.age)", 3 * n},
		} {
			for _, s := range []struct {
				name string
				s    *Session
			}{{"1-worker", serial}, {"2-workers", par}} {
				b.Run(fmt.Sprintf("%s/weight=%d/%s", q.name, q.weight, s.name), func(b *testing.B) {
					for b.Loop() {
						queryToEnd(b, s.s, q.text, nil)
					}
				})
			}
		}
	}
}
