package csr

import "fmt"

// Check verifies the base (CSR.Check) and the overlay: every delta is
// non-empty and sorted (inserts by (dst, rel), deletes by rel, no
// duplicates); every deleted id is a base slot of that node; the overlay
// index maps exactly the inserted ids to their nodes; group dirty counts
// match; no relationship id is live twice or both deleted from the base
// and re-inserted; node ids stay below NumNodes; entry timestamps do not
// exceed TS; and NumEdges counts the live edges. O(n + m).
func (a *Adjacency) Check() error {
	if a.base == nil {
		return fmt.Errorf("%w: nil base", ErrOverlay)
	}
	if err := a.base.Check(); err != nil {
		return err
	}
	if a.idBound < uint64(a.base.numNodes) {
		return fmt.Errorf("%w: id bound %d below the base's %d nodes", ErrOverlay, a.idBound, a.base.numNodes)
	}
	ids := make(map[uint64]struct{}, a.base.NumEdges())
	for s := range uint64(a.base.NumEdges()) {
		ids[a.base.rel(s)] = struct{}{}
	}
	edges := a.base.NumEdges()
	inserted, deleted := 0, 0
	for gi, g := range a.groups {
		if g == nil {
			continue
		}
		dirty := 0
		for i, d := range g.nodes {
			if d == nil {
				continue
			}
			dirty++
			node := uint64(gi)<<groupShift | uint64(i)
			n, err := a.checkDelta(node, d, ids)
			if err != nil {
				return err
			}
			edges += n
			inserted += len(d.ins)
			deleted += len(d.del)
		}
		if dirty == 0 || dirty != g.dirty {
			return fmt.Errorf("%w: group %d counts %d dirty nodes, has %d", ErrOverlay, gi, g.dirty, dirty)
		}
	}
	if edges != a.numEdges {
		return fmt.Errorf("%w: NumEdges %d, live edges %d", ErrOverlay, a.numEdges, edges)
	}
	if a.overlay != inserted+deleted {
		return fmt.Errorf("%w: OverlaySize %d, overlay holds %d inserts and %d deletes", ErrOverlay, a.overlay, inserted, deleted)
	}
	if a.rels.len != inserted {
		return fmt.Errorf("%w: index holds %d ids, overlay %d inserts", ErrOverlay, a.rels.len, inserted)
	}
	// Every insert is in the index at its node (checkDelta), inserts are
	// distinct (ids), and the index holds as many ids as there are
	// inserts: so it maps exactly the inserted ids to their nodes. The
	// walk checks that the index holds the ids it counts.
	count := 0
	a.rels.each(func(uint64, uint64) { count++ })
	if count != a.rels.len {
		return fmt.Errorf("%w: index counts %d ids, holds %d", ErrOverlay, a.rels.len, count)
	}
	return nil
}

// checkDelta checks node's delta and returns its change to the edge count.
// ids holds every base id and gains node's inserted ones, so a repeat
// anywhere shows as a duplicate.
func (a *Adjacency) checkDelta(node uint64, d *delta, ids map[uint64]struct{}) (int, error) {
	if len(d.ins) == 0 && len(d.del) == 0 {
		return 0, fmt.Errorf("%w: node %d has an empty delta", ErrOverlay, node)
	}
	if node >= a.idBound {
		return 0, fmt.Errorf("%w: node %d >= id bound %d", ErrNodeRange, node, a.idBound)
	}
	for i, e := range d.del {
		if i > 0 && d.del[i-1].rel >= e.rel {
			return 0, fmt.Errorf("%w: node %d deletes %d after %d", ErrUnsorted, node, e.rel, d.del[i-1].rel)
		}
		slot, ok := a.base.slotOf(e.rel)
		if !ok || uint64(slot) < a.base.offsets[node] || uint64(slot) >= a.base.offsets[node+1] {
			return 0, fmt.Errorf("%w: node %d deletes %d, not in its base list", ErrOverlay, node, e.rel)
		}
		if e.ts > a.ts {
			return 0, fmt.Errorf("%w: node %d delete of %d at ts %d > version ts %d", ErrOverlay, node, e.rel, e.ts, a.ts)
		}
	}
	for i, e := range d.ins {
		if i > 0 && cmpSlot(d.ins[i-1].dst, d.ins[i-1].rel, e.dst, e.rel) >= 0 {
			return 0, fmt.Errorf("%w: node %d inserts (%d,%d) after (%d,%d)", ErrUnsorted, node, e.dst, e.rel, d.ins[i-1].dst, d.ins[i-1].rel)
		}
		if e.dst >= a.idBound {
			return 0, fmt.Errorf("%w: node %d inserts neighbour %d >= id bound %d", ErrNodeRange, node, e.dst, a.idBound)
		}
		if e.ts > a.ts {
			return 0, fmt.Errorf("%w: node %d insert of %d at ts %d > version ts %d", ErrOverlay, node, e.rel, e.ts, a.ts)
		}
		if src, ok := a.rels.get(e.rel); !ok || src != node {
			return 0, fmt.Errorf("%w: node %d inserts %d, index does not map it there", ErrOverlay, node, e.rel)
		}
	}
	// A base id, even a deleted one, never comes back as an insert: the
	// storage layer does not reuse relationship ids.
	for _, e := range d.ins {
		if _, dup := ids[e.rel]; dup {
			return 0, fmt.Errorf("%w: %d inserted at node %d repeats a base or overlay id", ErrDuplicateRel, e.rel, node)
		}
		ids[e.rel] = struct{}{}
	}
	return len(d.ins) - len(d.del), nil
}
