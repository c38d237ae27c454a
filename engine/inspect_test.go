package engine_test

import (
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// Inspect reports every node with labels and properties and every
// relationship with type, endpoints and properties, once each.
func TestInspect(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "CREATE (a:A:B {x: 1})-[:T {w: 2.5}]->(b {s: 'b'}), (b)-[:U]->(a), (a)-[:T]->(a)", nil)
	var nodes []engine.NodeState
	var rels []engine.RelState
	db.Inspect(func(n engine.NodeState) { nodes = append(nodes, n) }, func(r engine.RelState) { rels = append(rels, r) })
	if len(nodes) != 2 || len(rels) != 3 {
		t.Fatalf("%d nodes, %d rels", len(nodes), len(rels))
	}
	a, b := nodes[0], nodes[1]
	if a.Props["s"] != nil {
		a, b = b, a
	}
	slices.Sort(a.Labels)
	if !slices.Equal(a.Labels, []string{"A", "B"}) || a.Props["x"] != int64(1) || len(b.Labels) != 0 || b.Props["s"] != "b" {
		t.Fatalf("nodes %+v %+v", a, b)
	}
	seen := map[string]int{}
	for _, r := range rels {
		switch {
		case r.Type == "T" && r.Start == a.ID && r.End == b.ID && r.Props["w"] == 2.5:
			seen["a-T->b"]++
		case r.Type == "U" && r.Start == b.ID && r.End == a.ID && len(r.Props) == 0:
			seen["b-U->a"]++
		case r.Type == "T" && r.Start == a.ID && r.End == a.ID:
			seen["a-T->a"]++
		default:
			t.Errorf("unexpected relationship %+v", r)
		}
	}
	if len(seen) != 3 {
		t.Fatalf("relationships seen %v", seen)
	}
	db.Inspect(nil, nil) // either callback may be nil
}
