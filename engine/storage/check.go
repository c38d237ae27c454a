package storage

import (
	"fmt"
	"math"

	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/vector"

	"github.com/quiverdb/quiver/engine/catalog"
)

// Check verifies the invariants of a committed version (bbolt's tx.Check):
//
//   - live ⊆ [0, nodeBound) and NodeCount = |live|
//   - every label bitmap ⊆ live
//   - every chunk: dominant type storable, rows and validity within its
//     group and the bound, sealed iff its group is complete, side values
//     only of other types and never shadowing a dominant row, values only
//     on existing ids, counts matching the data
//   - column counts (the source of NodePropType/RelPropType) = Σ chunks
//   - relationship table: endpoints live, per-type counts, RelCount;
//     tombstones (deleted relationships) have no properties and appear in
//     no adjacency; deleted nodes have no labels, properties or
//     relationships (labels ⊆ live, values only on live ids, endpoints
//     live)
//   - per type: forward and backward Adjacency.Check, every relationship
//     exactly once in forward at src → dst and backward at dst → src,
//     degree sums = relationships of the type, no adjacency for absent
//     types
//   - every slot-ordered view a relationship column holds for one of the
//     version's CSRs (built by a call or read from the base): slot s
//     holds the value of the relationship the CSR's slot s names
//   - every index: one entry per node with its label and properties, under
//     the key of the node's values (index_read.go checkIndexes)
//   - system records: within their limits, in their buckets, counted
//     (system.go checkSystem)
//
// It is O(graph): for tests and diagnostics, not for the commit path.
func (s *Snapshot) Check() error { return s.CheckInterruptible(nil) }

// CheckInterruptible is Check calling stop (when not nil) every so often
// on its long loops and returning its error when it has one: a check run
// by a query stops with the query.
func (s *Snapshot) CheckInterruptible(stop func() error) error {
	if err := s.checkNodes(); err != nil {
		return fmt.Errorf("version %d: %w", s.ts, err)
	}
	if err := s.checkRels(stop); err != nil {
		return fmt.Errorf("version %d: %w", s.ts, err)
	}
	if err := s.checkSlotViews(stop); err != nil {
		return fmt.Errorf("version %d: %w", s.ts, err)
	}
	if err := s.checkIndexes(); err != nil {
		return fmt.Errorf("version %d: %w", s.ts, err)
	}
	if err := s.checkSystem(); err != nil {
		return fmt.Errorf("version %d: %w", s.ts, err)
	}
	return nil
}

func (s *Snapshot) checkNodes() error {
	if s.live == nil {
		return fmt.Errorf("live bitmap is nil")
	}
	if s.nodeBound > maxNodeID+1 {
		return fmt.Errorf("node id bound %d past the 2^32 limit", s.nodeBound)
	}
	if card := s.live.GetCardinality(); card != uint64(s.nodeCount) {
		return fmt.Errorf("NodeCount %d but %d live nodes", s.nodeCount, card)
	}
	if !s.live.IsEmpty() && uint64(s.live.Maximum()) >= s.nodeBound {
		return fmt.Errorf("live node %d not below the bound %d", s.live.Maximum(), s.nodeBound)
	}
	for l, b := range s.labels {
		if b == nil {
			continue
		}
		if !b.IsEmpty() && (uint64(b.Maximum()) >= s.nodeBound || b.AndCardinality(s.live) != b.GetCardinality()) {
			return fmt.Errorf("label %d holds nodes that do not exist", l)
		}
	}
	for k, c := range s.nodeCols {
		if c == nil {
			continue
		}
		if err := c.check(s.nodeBound, s.nodeLive); err != nil {
			return fmt.Errorf("node property key %d: %w", k, err)
		}
	}
	return nil
}

func (s *Snapshot) checkRels(stop func() error) error {
	var total int64
	perType := make([]int64, len(s.typeRels))
	// The table as rows, with the groups of a derived base materialized
	// (12 bytes per relationship for the duration of the check).
	tab := make([]*relChunk, s.relGroups())
	for g := range tab {
		if g&0xff == 0 && stop != nil {
			if err := stop(); err != nil {
				return err
			}
		}
		tab[g] = s.relGroup(g)
	}
	for g, c := range tab {
		if c == nil {
			continue
		}
		start := uint64(g) << groupShift
		if len(c.typ) > GroupSize || len(c.src) != len(c.typ) || len(c.dst) != len(c.typ) {
			return fmt.Errorf("relationship group %d: table columns of %d/%d/%d rows", g, len(c.typ), len(c.src), len(c.dst))
		}
		if len(c.typ) > 0 && start+uint64(len(c.typ)) > s.relBound {
			return fmt.Errorf("relationship group %d reaches past the bound %d", g, s.relBound)
		}
		for r, t := range c.typ {
			if t == noRel {
				continue
			}
			id := start + uint64(r)
			if int(t) >= len(perType) {
				return fmt.Errorf("relationship %d has type %d without a count", id, t)
			}
			if !s.nodeLive(uint64(c.src[r])) || !s.nodeLive(uint64(c.dst[r])) {
				return fmt.Errorf("relationship %d (%d→%d) has an endpoint that does not exist", id, c.src[r], c.dst[r])
			}
			perType[t]++
			total++
		}
	}
	if total != s.relCount {
		return fmt.Errorf("RelCount %d but the table holds %d", s.relCount, total)
	}
	for t := range perType {
		if perType[t] != s.typeRels[t] {
			return fmt.Errorf("type %d: count %d but the table holds %d", t, s.typeRels[t], perType[t])
		}
	}
	for k, c := range s.relCols {
		if c == nil {
			continue
		}
		if err := c.check(s.relBound, s.relLive); err != nil {
			return fmt.Errorf("relationship property key %d: %w", k, err)
		}
	}
	if len(s.adj) > len(s.typeRels) {
		return fmt.Errorf("%d adjacencies for %d counted types", len(s.adj), len(s.typeRels))
	}
	rel := func(id uint64) (catalog.TypeID, uint64, uint64, bool) {
		g, r := id>>groupShift, int(id&groupMask)
		if g >= uint64(len(tab)) || tab[g] == nil || r >= len(tab[g].typ) || tab[g].typ[r] == noRel {
			return 0, 0, 0, false
		}
		c := tab[g]
		return catalog.TypeID(c.typ[r]), uint64(c.src[r]), uint64(c.dst[r]), true
	}
	for t := range s.typeRels {
		if err := s.checkAdjacency(catalog.TypeID(t), rel, stop); err != nil {
			return fmt.Errorf("type %d: %w", t, err)
		}
	}
	return nil
}

// checkAdjacency verifies both directions of type t against the table
// (rel looks a row up).
func (s *Snapshot) checkAdjacency(t catalog.TypeID, rel func(uint64) (catalog.TypeID, uint64, uint64, bool), stop func() error) error {
	want := s.typeRels[t]
	var pair adjPair
	if int(t) < len(s.adj) {
		pair = s.adj[t]
	}
	if want == 0 {
		if pair[Outgoing] != nil || pair[Incoming] != nil {
			return fmt.Errorf("adjacency without relationships")
		}
		return nil
	}
	lookup := rel
	seen := make([]uint8, s.relBound) // bit d: seen in direction d
	var nbrs, rels []uint64
	for d, a := range pair {
		if a == nil {
			return fmt.Errorf("%d relationships but no %s adjacency", want, Direction(d))
		}
		if err := a.Check(); err != nil {
			return fmt.Errorf("%s adjacency: %w", Direction(d), err)
		}
		if int64(a.NumEdges()) != want {
			return fmt.Errorf("%s adjacency has %d edges, want %d", Direction(d), a.NumEdges(), want)
		}
		var degrees int64
		for node := uint64(0); node < s.nodeBound; node++ {
			if node&0xffff == 0 && stop != nil {
				if err := stop(); err != nil {
					return err
				}
			}
			deg := a.Degree(node)
			if deg == 0 {
				continue
			}
			degrees += int64(deg)
			nbrs, rels = a.AppendNeighbors(nbrs[:0], rels[:0], node)
			if len(nbrs) != deg || len(rels) != deg {
				return fmt.Errorf("%s node %d: degree %d but %d neighbours and %d rels", Direction(d), node, deg, len(nbrs), len(rels))
			}
			for i, rel := range rels {
				rt, src, dst, ok := lookup(rel)
				if !ok || rt != t {
					return fmt.Errorf("%s node %d lists relationship %d, which is not of this type", Direction(d), node, rel)
				}
				if d == int(Incoming) {
					src, dst = dst, src
				}
				if src != node || dst != nbrs[i] {
					return fmt.Errorf("%s node %d lists relationship %d as →%d, table says %d→%d", Direction(d), node, rel, nbrs[i], src, dst)
				}
				if seen[rel]&(1<<d) != 0 {
					return fmt.Errorf("%s adjacency lists relationship %d twice", Direction(d), rel)
				}
				seen[rel] |= 1 << d
			}
		}
		if degrees != want {
			return fmt.Errorf("%s degrees sum to %d, want %d", Direction(d), degrees, want)
		}
	}
	return nil
}

// String names a direction for messages.
func (d Direction) String() string {
	if d == Incoming {
		return "incoming"
	}
	return "outgoing"
}

// checkSlotViews checks each slot-ordered view the version's relationship
// columns hold for one of its CSRs, slot by slot against the column.
func (s *Snapshot) checkSlotViews(stop func() error) error {
	bases := map[*csr.CSR]bool{}
	for _, p := range s.adj {
		for _, a := range p {
			if a != nil {
				bases[a.Base()] = true
			}
		}
	}
	type view struct {
		base *csr.CSR
		get  func(slot uint64) (vector.Value, bool)
	}
	for k, c := range s.relCols {
		if c == nil {
			continue
		}
		var views []view
		if sv := c.cache.slots.Load(); sv != nil {
			for _, x := range *sv {
				views = append(views, view{x.base, func(i uint64) (vector.Value, bool) { v, ok := x.view.Get(i); return v, ok }})
			}
		}
		if sv := c.cache.fslots.Load(); sv != nil {
			for _, x := range *sv {
				views = append(views, view{x.base, func(i uint64) (vector.Value, bool) { v, ok := x.view.Get(i); return v, ok }})
			}
		}
		for _, v := range views {
			if !bases[v.base] {
				continue // a CSR another version holds
			}
			n := uint64(v.base.NumEdges())
			for i := range n {
				if i%(1<<16) == 0 && stop != nil {
					if err := stop(); err != nil {
						return err
					}
				}
				rel := v.base.SlotRel(i)
				want := c.get(rel)
				got, ok := v.get(i)
				if ok != (want != nil) || ok && !sameValue(got, want) {
					return fmt.Errorf("relationship property key %d: slot-ordered view holds %v at slot %d, relationship %d holds %v", k, got, i, rel, want)
				}
			}
			if _, ok := v.get(n); ok {
				return fmt.Errorf("relationship property key %d: slot-ordered view holds a value past its CSR's slots", k)
			}
		}
	}
	return nil
}

// sameValue: a view's value is the column's (floats bit for bit, so that
// a NaN is itself).
func sameValue(a, b vector.Value) bool {
	if x, ok := a.(float64); ok {
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	}
	return a == b
}
