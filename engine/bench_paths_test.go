package engine

import "testing"

// BenchmarkPaths measures variable-length expansion (enumeration and the
// endpoints-only search) and shortest paths on the benchmark graph.
func BenchmarkPaths(b *testing.B) {
	db := benchDB(b, 100_000, 1_000_000)
	for _, q := range []struct{ name, text string }{
		{"V1-point-3hop-chains", "MATCH (a:Person {id: 42})-[:KNOWS*1..3]->(c) RETURN count(*)"},
		{"V2-point-3hop-distinct", "MATCH (a:Person {id: 42})-[:KNOWS*1..3]->(c) RETURN count(DISTINCT c)"},
		{"V2b-point-3hop-distinct-enum", "MATCH (a:Person {id: 42})-[r:KNOWS*1..3]->(c) RETURN count(DISTINCT c)"},
		{"V3b-point-reach-count", "MATCH (a:Person {id: 42})-[:KNOWS*]->(c) WITH DISTINCT c RETURN count(*)"},
		{"V3-point-reach-all", "MATCH (a:Person {id: 42})-[:KNOWS*]->(c) RETURN count(DISTINCT c)"},
		{"V5-point-undirected-reach", "MATCH (a:Person {id: 42})-[:KNOWS*]-(c) RETURN count(DISTINCT c)"},
		{"V4-point-3hop-paths", "MATCH p = (a:Person {id: 42})-[:KNOWS*1..3]->(c) RETURN count(p)"},
		{"S1-shortest", "MATCH (a:Person {id: 42}), (b:Person {id: 4242}) MATCH p = shortestPath((a)-[:KNOWS*]->(b)) RETURN length(p)"},
		{"S2-all-shortest", "MATCH (a:Person {id: 42}), (b:Person {id: 4242}) MATCH p = allShortestPaths((a)-[:KNOWS*]->(b)) RETURN count(p)"},
		{"S3-shortest-undirected", "MATCH (a:Person {id: 42}), (b:Person {id: 4242}) MATCH p = shortestPath((a)-[:KNOWS*]-(b)) RETURN length(p)"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				runToEnd(b, db, q.text)
			}
		})
	}
}
