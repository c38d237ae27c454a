//go:build unix

package engine

import (
	"syscall"
	"testing"
)

// cpuNanos is the process's user and system CPU time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkOneInput runs queries whose time goes to the one-input
// operators that pull through exec's cursor (expansions, variable length,
// reach, shortest paths, UNWIND) and reports the process CPU time per
// query beside the wall time: on a shared machine the CPU time moves far
// less with the load (a load of 10 on 2 cores spread wall times by
// ±20-200%, CPU times by ±3-15%). Counts of whole patterns run as
// CountExpand and are left to BenchmarkQueries.
func BenchmarkOneInput(b *testing.B) {
	db := benchDB(b, 100_000, 1_000_000)
	for _, q := range []struct{ name, text string }{
		{"Q4-point-2hop", "MATCH (a:Person {id: 42})-[:KNOWS]->()-[:KNOWS]->(c) RETURN count(DISTINCT c)"},
		{"Q9-edge-filter", "MATCH (a:Person)-[k:KNOWS]->(b:Person) WHERE k.since > 2015 AND b.age < 25 RETURN count(*)"},
		{"V1-point-3hop-chains", "MATCH (a:Person {id: 42})-[:KNOWS*1..3]->(c) RETURN count(*)"},
		{"V3-point-reach-all", "MATCH (a:Person {id: 42})-[:KNOWS*]->(c) RETURN count(DISTINCT c)"},
		{"V4-point-3hop-paths", "MATCH p = (a:Person {id: 42})-[:KNOWS*1..3]->(c) RETURN count(p)"},
		{"S1-shortest", "MATCH (a:Person {id: 42}), (b:Person {id: 4242}) MATCH p = shortestPath((a)-[:KNOWS*]->(b)) RETURN length(p)"},
		{"S2-all-shortest", "MATCH (a:Person {id: 42}), (b:Person {id: 4242}) MATCH p = allShortestPaths((a)-[:KNOWS*]->(b)) RETURN count(p)"},
		{"U1-unwind", "UNWIND range(1, 200000) AS x WITH x WHERE x % 7 = 0 RETURN count(*)"},
		{"U2-unwind-lists", "MATCH (a:Person) WHERE a.id < 20000 UNWIND [a.id, a.age, 1] AS x RETURN sum(x)"},
	} {
		b.Run(q.name, func(b *testing.B) {
			start := cpuNanos()
			for b.Loop() {
				runToEnd(b, db, q.text)
			}
			b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
