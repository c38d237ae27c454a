package engine

import "testing"

// BenchmarkRangeFilter runs the suite's filtering queries with the
// range-filter and label-cover rules on and off, on the graph of
// BenchmarkQueries compacted into a CSR base (as an import leaves it).
func BenchmarkRangeFilter(b *testing.B) {
	db := benchDB(b, 100_000, 1_000_000)
	db.Compact()
	for _, q := range []struct{ name, text string }{
		{"Q1", "MATCH (p:Person) WHERE p.age > 30 RETURN count(*)"},
		{"Q1-rows", "MATCH (p:Person) WHERE p.age > 30 AND p.age < 35 RETURN p.id"},
		{"Q9-filter", "MATCH (a:Person)-[k:KNOWS]->(b:Person) WHERE k.since > 2015 AND b.age < 25 RETURN count(*)"},
	} {
		for _, off := range []bool{false, true} {
			name := q.name + "/rules-on"
			if off {
				name = q.name + "/rules-off"
			}
			b.Run(name, func(b *testing.B) {
				defer func() { db.opts.DisabledRules = nil }()
				db.opts.DisabledRules = nil
				if off {
					db.opts.DisabledRules = []string{"range-filter", "label-cover"}
				}
				b.ReportAllocs()
				for b.Loop() {
					runToEnd(b, db, q.text)
				}
			})
		}
	}
}
