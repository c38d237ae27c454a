package storage

import (
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// checkFixture: 3000 nodes (group 0 sealed, group 1 open), labels, an int
// column with one string on the side, and relationships of one type.
func checkFixture(t *testing.T) *Snapshot {
	s := New()
	cat := s.Catalog()
	l := cat.EnsureLabel("L")
	k := cat.EnsureKey("k")
	ty := cat.EnsureType("T")
	tx := s.Begin()
	for i := 0; i < 3000; i++ {
		var v vector.Value = int64(i)
		if i == 5 {
			v = "odd"
		}
		var ls []catalog.LabelID
		if i%2 == 0 {
			ls = []catalog.LabelID{l}
		}
		mustNode(t, tx, ls, []catalog.KeyID{k}, v)
	}
	for i := uint64(0); i < 50; i++ {
		if _, err := tx.CreateRel(ty, i, i*7%3000, []catalog.KeyID{k}, []vector.Value{int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	snap := s.Snapshot()
	if err := snap.Check(); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return snap
}

func TestCheckDetectsCorruption(t *testing.T) {
	cases := []struct {
		name    string
		corrupt func(s *Snapshot)
	}{
		{"live past bound", func(s *Snapshot) { s.live.Add(uint32(s.nodeBound)); s.nodeCount++ }},
		{"node count", func(s *Snapshot) { s.nodeCount-- }},
		{"label on missing node", func(s *Snapshot) { s.labels[0].Add(uint32(s.nodeBound + 5)) }},
		{"label on dead node", func(s *Snapshot) { s.live.Remove(2); s.nodeCount-- }},
		{"chunk count", func(s *Snapshot) { s.nodeCols[0].groups.at(0).counts[vector.Int64]++ }},
		{"column count (NodePropType)", func(s *Snapshot) { s.nodeCols[0].counts[vector.String] = 0 }},
		{"side value of dominant type", func(s *Snapshot) {
			c := s.nodeCols[0].groups.at(0)
			c.side[9] = int64(1)
			c.counts[vector.Int64]++
			s.nodeCols[0].counts[vector.Int64]++
		}},
		{"side shadows array row", func(s *Snapshot) {
			c := s.nodeCols[0].groups.at(0)
			c.side[6] = "x"
			c.counts[vector.String]++
			s.nodeCols[0].counts[vector.String]++
		}},
		{"open chunk in complete group", func(s *Snapshot) { s.nodeCols[0].groups.at(0).sealed = false }},
		{"open chunk longer than bound", func(s *Snapshot) {
			c := s.nodeCols[0].groups.at(1)
			c.i64 = append(c.i64, make([]int64, GroupSize-len(c.i64))...)
		}},
		{"value on missing node", func(s *Snapshot) {
			c := s.nodeCols[0].groups.at(1)
			r := int(s.nodeBound-GroupSize) + 1
			c.i64 = append(c.i64, make([]int64, r+1-len(c.i64))...)
			setBit(c.valid, r)
			c.counts[vector.Int64]++
			s.nodeCols[0].counts[vector.Int64]++
		}},
		{"chunk past bound", func(s *Snapshot) { c := s.nodeCols[0]; c.groups.set(c.groups.len(), c.groups.at(1), c.owner) }},
		{"rel endpoint", func(s *Snapshot) { s.rels[0].dst[3]++ }},
		{"rel type", func(s *Snapshot) { s.rels[0].typ[3] = noRel }},
		{"rel count", func(s *Snapshot) { s.relCount++ }},
		{"type count", func(s *Snapshot) { s.typeRels[0]-- }},
		{"missing adjacency", func(s *Snapshot) { s.adj[0][Incoming] = nil }},
		{"rel prop on missing rel", func(s *Snapshot) {
			c := s.relCols[0].groups.at(0)
			c.i64 = append(c.i64, 0)
			setBit(c.valid, len(c.i64)-1)
			c.counts[vector.Int64]++
			s.relCols[0].counts[vector.Int64]++
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := checkFixture(t)
			c.corrupt(s)
			if err := s.Check(); err == nil {
				t.Fatal("corruption not detected")
			} else {
				t.Log(err)
			}
		})
	}
}
