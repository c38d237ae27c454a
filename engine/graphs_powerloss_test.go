package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// A power cut after each acknowledged step of a graph's life (create,
// commits on it and on the default graph, drop, create again) leaves a
// directory that opens with every acknowledged step in it: the catalog
// and each graph's log recover together. Torn images keep some of what
// was not synced, which must never show as a graph or a commit that was
// not acknowledged, nor lose one that was.
func TestGraphsSurvivePowerCuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	m := vfs.NewMem()
	db, err := engine.Open(plDir, plOptions(m))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	// want is what the acknowledged steps made: graph → node count (-1:
	// the graph must not exist).
	want := map[string]int{"default": 0, "a": -1, "b": -1}
	steps := []struct {
		q     string
		apply func()
	}{
		{"CREATE GRAPH a", func() { want["a"] = 0 }},
		{"USE a CREATE (:N)", func() { want["a"]++ }},
		{"CREATE (:N)", func() { want["default"]++ }},
		{"CREATE GRAPH b", func() { want["b"] = 0 }},
		{"USE b UNWIND range(1, 50) AS i CREATE (:N {i: i})", func() { want["b"] += 50 }},
		{"USE a CREATE (:N)", func() { want["a"]++ }},
		{"CHECKPOINT", func() {}},
		{"USE b CREATE (:N)", func() { want["b"]++ }},
		{"DROP GRAPH a", func() { want["a"] = -1 }},
		{"USE b CREATE (:N)", func() { want["b"]++ }},
		{"CREATE GRAPH a", func() { want["a"] = 0 }},
		{"USE a CREATE (:N)", func() { want["a"]++ }},
	}
	for i, s := range steps {
		mustG(t, bg, db, s.q)
		s.apply()
		for _, torn := range []*rand.Rand{nil, rng} {
			img := m.Crash(torn)
			got, err := engine.Open(plDir, plOptions(img))
			if err != nil {
				t.Fatalf("after step %d (%s), torn %v: %v", i, s.q, torn != nil, err)
			}
			for g, n := range want {
				rows, err := gq(engine.WithGraph(bg, g), got, "MATCH (n) RETURN count(n)")
				switch {
				case n < 0 && err == nil:
					t.Errorf("after step %d (%s): graph %s exists", i, s.q, g)
				case n >= 0 && err != nil:
					t.Errorf("after step %d (%s): graph %s: %v", i, s.q, g, err)
				case n >= 0 && rows[0] != fmt.Sprint(n):
					t.Errorf("after step %d (%s): graph %s holds %s nodes, want %d", i, s.q, g, rows[0], n)
				}
			}
			if err := got.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
