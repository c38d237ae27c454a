package engine

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/engine/exec"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/opt"
	"github.com/quiverdb/quiver/engine/plancache"
	"github.com/quiverdb/quiver/vector"
)

// BenchmarkStatementPhases measures the fixed cost of a short statement
// phase by phase, as Session.run takes them: parse (a hit in the parse
// cache), bind, optimize (with the physical pass), build the operators
// and pull every batch, and the whole statement through DB.Query, with
// its plan from the plan cache (5-whole) and planned afresh with the
// cache off (6-whole-uncached). A
// phase's figure includes the phases before it that it needs to run
// (bind parses, optimize binds), so each phase's own cost is the
// difference from the one before.
func BenchmarkStatementPhases(b *testing.B) {
	// Measure the vector pool as it runs in production: test binaries
	// poison what it takes back.
	defer vector.SetPoison(vector.SetPoison(false))
	db := benchDB(b, 10_000, 100_000)
	ctx := context.Background()
	if _, err := db.Query(ctx, "CREATE INDEX person_id FOR (p:Person) ON (p.id)", nil); err != nil {
		b.Fatal(err)
	}
	params := Params{"id": int64(42)}
	for _, q := range []struct{ name, text string }{
		{"point", "MATCH (p:Person {id: $id}) RETURN p.age"},
		{"point-expand-sum", "MATCH (a:Person {id: $id})-[:KNOWS]->(b:Person) RETURN sum(b.age), count(*)"},
		{"count-all", "MATCH (p:Person) RETURN count(*)"},
		{"return-literal", "RETURN 1 AS x"},
	} {
		parse := func() *gql.Statement {
			st, err := gql.ParseCached(q.text, func() error { return nil })
			if err != nil {
				b.Fatal(err)
			}
			return st
		}
		env := plan.Env{Params: params, Procs: db.procs, Options: db.planOptions()}
		bind := func() *plan.Plan {
			p, err := plan.Bind(parse(), env)
			if err != nil {
				b.Fatal(err)
			}
			return p
		}
		optimize := func() *plan.Plan {
			p := bind()
			if err := opt.Optimize(p, indexInfos(db.store.Snapshot())); err != nil {
				b.Fatal(err)
			}
			return p
		}
		b.Run(q.name+"/1-parse", func(b *testing.B) {
			for b.Loop() {
				parse()
			}
		})
		b.Run(q.name+"/2-bind", func(b *testing.B) {
			for b.Loop() {
				bind()
			}
		})
		b.Run(q.name+"/3-optimize", func(b *testing.B) {
			for b.Loop() {
				optimize()
			}
		})
		b.Run(q.name+"/4-execute", func(b *testing.B) {
			for b.Loop() {
				p := optimize()
				tx := db.store.BeginAt(db.store.Snapshot())
				c := &exec.Context{Env: expr.Env{Ctx: ctx, Tx: tx, Catalog: db.store.Catalog(), Params: params}}
				root, err := exec.Build(c, p.Root)
				if err != nil {
					b.Fatal(err)
				}
				for {
					bt, err := root.Next()
					if err != nil {
						b.Fatal(err)
					}
					if bt == nil {
						break
					}
				}
				c.Close()
				tx.Rollback()
			}
		})
		b.Run(q.name+"/5-whole", func(b *testing.B) {
			for b.Loop() {
				queryToEnd(b, db, q.text, params)
			}
		})
		b.Run(q.name+"/6-whole-uncached", func(b *testing.B) {
			defer func(c *plancache.Cache) { db.plans = c }(db.plans)
			db.plans = nil
			for b.Loop() {
				queryToEnd(b, db, q.text, params)
			}
		})
	}
}
