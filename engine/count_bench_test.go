package engine

import "testing"

// BenchmarkCountExpand runs the counting queries of the benchmark suite
// with the count-expand rule on and off, on the graph of BenchmarkQueries.
func BenchmarkCountExpand(b *testing.B) {
	db := benchDB(b, 100_000, 1_000_000)
	for _, q := range []struct{ name, text string }{
		{"Q3", "MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN count(*)"},
		{"Q5", "MATCH (a:Person)-[:KNOWS]->(b)-[:KNOWS]->(c) RETURN count(*)"},
		{"Q8", "MATCH (a:Person)-[:KNOWS]->(b) RETURN a.id, count(*) AS d ORDER BY d DESC LIMIT 10"},
	} {
		for _, off := range []bool{false, true} {
			name := q.name + "/rule-on"
			if off {
				name = q.name + "/rule-off"
			}
			b.Run(name, func(b *testing.B) {
				defer func() { db.opts.DisabledRules = nil }()
				db.opts.DisabledRules = nil
				if off {
					db.opts.DisabledRules = []string{"count-expand"}
				}
				for b.Loop() {
					runToEnd(b, db, q.text)
				}
			})
		}
	}
}
