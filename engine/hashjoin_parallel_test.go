package engine_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// TestHashJoinProbesOnWorkers checks the hash join that probes its probe
// side on workers over the table built once against the data itself, on
// 4 workers and on 1: the join of one given node on two equalities (the
// adaptive join hashes the given node, the plan's Left, and probes its
// Right), a table of many keys, the pairs themselves with the built
// columns first (and more of them than the probe side's), a LIMIT that stops the workers, a hinted join (which
// hashes its Right and probes its Left) and a join whose sides are both
// longer than the adaptive join reads while choosing (the probe then
// stays on the statement's goroutine, and PROFILE says why).
func TestHashJoinProbesOnWorkers(t *testing.T) {
	const n = 9*8*1024 + 333 // past eight morsels of 8192 ids
	db, names := countCodesGraph(t, n, 10)
	age := func(i int) int { return i % 90 }
	name := names["P"] // "" is a missing name
	count := func(keep func(a, b int) bool, as []int) string {
		c := 0
		for _, a := range as {
			for b := range n {
				if keep(a, b) {
					c++
				}
			}
		}
		return fmt.Sprint(c)
	}
	const given = 43
	var pairs []string
	for b := range n {
		if age(b) == age(given) {
			pairs = append(pairs, fmt.Sprintf("%d | %d", given, b))
		}
	}
	var triples []string // with each of the 10 :C nodes
	for c := n; c < n+10; c++ {
		for b := range n {
			if age(b) == age(given) {
				triples = append(triples, fmt.Sprintf("%d | %d | %d", given, c, b))
			}
		}
	}
	firstIDs := make([]int, 200)
	for i := range firstIDs {
		firstIDs[i] = i
	}
	checks := []struct {
		query string
		want  []string
		note  string // the join's PROFILE note on 4 workers
	}{
		{"MATCH (a:P {id: 43}), (b:P) WHERE b.age = a.age AND b.name = a.name AND b <> a RETURN count(*)",
			[]string{count(func(a, b int) bool { return a != b && age(a) == age(b) && name[a] != "" && name[a] == name[b] }, []int{given})}, ""},
		{"MATCH (a:P), (b:P) WHERE a.id < 200 AND b.age = a.age RETURN count(*)",
			[]string{count(func(a, b int) bool { return age(a) == age(b) }, firstIDs)}, ""},
		{"MATCH (a:P {id: 43}), (b:P) WHERE b.age = a.age RETURN a.id, b.id", pairs, ""},
		{"MATCH (a:P {id: 43}), (c:C), (b:P) WHERE b.age = a.age RETURN a.id, c.id, b.id", triples, ""},
		{"MATCH (b:P), (a:P) USING JOIN ON b.age = a.age WHERE a.id = 43 RETURN a.id, b.id", pairs, ""},
		{"MATCH (a:P), (b:P) WHERE a.id = b.id RETURN count(*)", []string{fmt.Sprint(n)},
			"parallel: probe side read while choosing the build side"},
	}
	for _, c := range checks {
		slices.Sort(c.want)
	}
	for _, workers := range []int{4, 1} {
		engine.SetParallelism(db, workers)
		for _, c := range checks {
			res, err := db.Query(context.Background(), "PROFILE "+c.query, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.query, err)
			}
			rows, err := drain(res)
			slices.Sort(rows)
			if err != nil || !slices.Equal(rows, c.want) {
				t.Fatalf("%d workers: %s: %d rows %v (%v), want %d: %v", workers, c.query, len(rows), rows[:min(len(rows), 5)], err, len(c.want), c.want[:min(len(c.want), 5)])
			}
			note := c.note
			if workers == 1 {
				note = "parallel: one worker allowed"
			}
			var notes []string
			joins := 0
			for _, op := range res.Profile().Operators {
				if op.Name == "HashJoin" {
					joins++
					notes = append(notes, op.Fallbacks...)
				}
			}
			if joins != 1 || note == "" && len(notes) > 0 || note != "" && !slices.Contains(notes, note) {
				t.Errorf("%d workers: %s: %d joins, fallbacks %v, want %q", workers, c.query, joins, notes, note)
			}
		}
	}
	engine.SetParallelism(db, 0)

	// A LIMIT stops the workers before they are done.
	engine.SetParallelism(db, 4)
	defer engine.SetParallelism(db, 0)
	rows := mustQuery(t, db, "MATCH (a:P {id: 43}), (b:P) WHERE b.age = a.age RETURN b.id LIMIT 5", nil)
	if len(rows) != 5 {
		t.Fatalf("LIMIT 5: %d rows %v", len(rows), rows)
	}
}
