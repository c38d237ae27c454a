package csr

// Changed calls fn, in increasing order, for every node whose live list
// may differ between old and a (a superset: a node whose delta was
// replaced by an equal one is reported too), and reports true; it
// reports false without calling fn when the two versions have different
// bases (a compaction folded the overlay away), so that only a full
// reread can tell.
//
// Versions share every group and delta an Apply did not touch, so the
// walk compares pointers: O(groups) for the group tables plus
// groupSize for each group that differs, never O(edges). A projection
// patched from an older version reads only the nodes it reports.
func (a *Adjacency) Changed(old *Adjacency, fn func(node uint64)) bool {
	if old == nil || a.base != old.base {
		return false
	}
	if a == old {
		return true
	}
	n := max(len(a.groups), len(old.groups))
	for g := range n {
		var x, y *group
		if g < len(a.groups) {
			x = a.groups[g]
		}
		if g < len(old.groups) {
			y = old.groups[g]
		}
		if x == y {
			continue
		}
		first := uint64(g) << groupShift
		for i := range groupSize {
			var dx, dy *delta
			if x != nil {
				dx = x.nodes[i]
			}
			if y != nil {
				dy = y.nodes[i]
			}
			if dx != dy {
				fn(first + uint64(i))
			}
		}
	}
	return true
}
