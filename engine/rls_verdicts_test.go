package engine_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/changes"
	"github.com/quiverdb/quiver/vector"
)

// nodeEvent is a created node's change event.
func nodeEvent(id uint64, labels []string, props ...changes.Property) changes.Change {
	return changes.Change{Op: changes.Created, Entity: changes.Node, ID: id, Labels: labels, After: props}
}

// The change-stream judge caches its answers by what the policies read of
// an element (its labels, the properties they name): an answer depends on
// exactly that. Events that differ only in what a policy does not read
// share one answer; those that differ in a label, in a read value, in its
// id when a policy reads the id, or in a float's sign of zero, do not.
func TestChangeVerdictsByWhatThePolicyReads(t *testing.T) {
	x := func(v int64) changes.Property { return changes.Property{Key: "x", Value: v} }
	other := func(v string) changes.Property { return changes.Property{Key: "other", Value: v} }
	f := func(v vector.Value) changes.Property { return changes.Property{Key: "f", Value: v} }
	type verdict struct {
		ev   changes.Change
		want bool
	}
	for _, tc := range []struct {
		name     string
		policies []string
		cases    []verdict
	}{
		{"labels and values", []string{
			`CALL quiver.rls.createPolicy('a', {label: 'A', roles: ['reader'], predicate: 'n.x < 50'})`,
			`CALL quiver.rls.createPolicy('c', {label: 'C', roles: ['reader'], predicate: "toString(n.f) = '0.0'"})`,
		}, []verdict{
			{nodeEvent(1, []string{"A"}, x(10)), true},
			{nodeEvent(2, []string{"A"}, x(60)), false},
			{nodeEvent(3, []string{"A"}, other("z"), x(10)), true},
			{nodeEvent(4, []string{"A"}, other("y"), x(60)), false},
			{nodeEvent(5, nil, x(60)), true}, // no policy applies
			{nodeEvent(6, []string{"Z"}, x(60)), true},
			{nodeEvent(7, []string{"A"}), false}, // no x: null
			{nodeEvent(8, []string{"C"}, x(60), f(0.0)), true},
			{nodeEvent(9, []string{"C"}, x(60), f(math.Copysign(0, -1))), false},
			{nodeEvent(10, []string{"C"}, x(60), f(int64(0))), false},
			{nodeEvent(11, []string{"A", "C"}, x(60), f(0.0)), false},
			{nodeEvent(12, []string{"A", "C"}, x(10), f(0.0)), true},
		}},
		{"the id", []string{
			`CALL quiver.rls.createPolicy('b', {label: 'B', roles: ['reader'], predicate: 'id(n) % 2 = 0'})`,
		}, []verdict{
			{nodeEvent(8, []string{"B"}, x(60)), true},
			{nodeEvent(9, []string{"B"}, x(60)), false},
			{nodeEvent(10, []string{"B"}, x(60)), true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDBWith(t, cdcOn)
			admin := adminOf(db)
			for _, q := range tc.policies {
				mustQuery(t, admin, q, nil)
			}
			restrict := db.RestrictChanges(readerOf(db, nil, "reader").p)
			// Twice over: the second round answers from the cache what
			// the first computed.
			for round := range 2 {
				for _, c := range tc.cases {
					out, any := restrict(nil, changes.Batch{Changes: []changes.Change{c.ev}})
					if got := any && len(out.Changes) == 1; got != c.want {
						t.Errorf("round %d, node %d %v %v: shown %v, want %v", round, c.ev.ID, c.ev.Labels, c.ev.After, got, c.want)
					}
				}
			}
			// A policy dropped applies at once, cache or not.
			name := strings.Split(tc.policies[0], "'")[1]
			mustQuery(t, admin, fmt.Sprintf(`CALL quiver.rls.dropPolicy('%s')`, name), nil)
			for _, c := range tc.cases {
				if !c.want && c.ev.Labels[0] != "C" {
					if out, _ := restrict(nil, changes.Batch{Changes: []changes.Change{c.ev}}); len(out.Changes) != 1 {
						t.Errorf("node %d: hidden after its policy was dropped", c.ev.ID)
					}
				}
			}
		})
	}
}

// BenchmarkChangeVerdicts times the judge on batches of 1,000 created
// nodes whose policy reads one property of three values (answered from
// the cache after the first three) and whose policy reads the id (bound
// and compiled for each event).
func BenchmarkChangeVerdicts(b *testing.B) {
	for _, tc := range []struct{ name, predicate string }{
		{"by-value", "n.tenant = 't1'"},
		{"by-id", "id(n) % 3 = 1"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			db, err := engine.Open("", cdcOn)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if _, err := drainQuery(adminOf(db), fmt.Sprintf(`CALL quiver.rls.createPolicy('p', {label: 'T', roles: ['reader'], predicate: %q})`, tc.predicate)); err != nil {
				b.Fatal(err)
			}
			restrict := db.RestrictChanges(readerOf(db, nil, "reader").p)
			batch := changes.Batch{}
			for i := range 1000 {
				batch.Changes = append(batch.Changes, nodeEvent(uint64(i), []string{"T"},
					changes.Property{Key: "tenant", Value: fmt.Sprintf("t%d", i%3)}, changes.Property{Key: "w", Value: int64(i)}))
			}
			shown := 0
			for b.Loop() {
				out, _ := restrict(nil, batch)
				shown = len(out.Changes)
			}
			if shown < 300 || shown > 400 {
				b.Fatalf("%d of 1000 events shown, want a third", shown)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch.Changes)), "ns/event")
		})
	}
}
