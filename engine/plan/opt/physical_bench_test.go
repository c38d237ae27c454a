package opt_test

import (
	"testing"

	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/opt"
	"github.com/quiverdb/quiver/engine/plan/physical"
)

// BenchmarkPhysicalPass times the physical-planning pass beside the
// whole of parsing, binding and optimizing the same statement: the pass
// runs once per statement, so it must stay a small share of that on the
// short queries of the bench suite (Q3 and Q1 here).
func BenchmarkPhysicalPass(b *testing.B) {
	for _, q := range []struct{ name, text string }{
		{"Q3", "MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN count(*)"},
		{"Q1", "MATCH (p:Person) WHERE p.age > 30 RETURN count(*)"},
		{"Q9", "MATCH (a:Person)-[k:KNOWS]->(b:Person) WHERE k.since > 2015 AND b.age < 25 RETURN count(*)"},
	} {
		b.Run(q.name+"-pass", func(b *testing.B) {
			st, err := gql.Parse(q.text)
			if err != nil {
				b.Fatal(err)
			}
			p, err := plan.Bind(st, plan.Env{})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				physical.Choose(p)
			}
		})
		b.Run(q.name+"-planning", func(b *testing.B) {
			for b.Loop() {
				st, err := gql.Parse(q.text)
				if err != nil {
					b.Fatal(err)
				}
				p, err := plan.Bind(st, plan.Env{})
				if err == nil {
					err = opt.Optimize(p, nil)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
