package csr

// The overlay records, per source node, what changed since the base was
// built:
//
//	groups []*group            one per 1<<groupShift nodes; nil = no node touched
//	  group.nodes[i] *delta    nil = node clean, read the base directly
//	    delta.ins []insEntry   inserted (dst, rel, ts), sorted by (dst, rel)
//	    delta.del []delEntry   deleted base rel ids with ts, sorted by rel
//	rels relMap                inserted rel id -> source node
//
// Versions share everything an Apply did not touch: the group table is
// copied (8 bytes per group), then each touched group (8 KiB) and each
// touched node's delta. A delta and a group are never modified once their
// Apply returns. Inserting and then deleting an overlay edge removes its
// entry; a node whose delta empties becomes clean again, and a group whose
// nodes are all clean becomes nil.

const (
	groupSize = 1 << groupShift
	groupMask = groupSize - 1
)

type group struct {
	owner *editToken // the Apply that may still edit this group in place
	dirty int        // non-nil entries of nodes
	nodes [groupSize]*delta
}

type delta struct {
	ins []insEntry
	del []delEntry
}

// insEntry is an edge inserted into the overlay at commit timestamp ts.
type insEntry struct{ dst, rel, ts uint64 }

// delEntry is a base edge deleted at commit timestamp ts.
type delEntry struct{ rel, ts uint64 }

// deltaOf is node's overlay delta, nil when node is clean.
func (a *Adjacency) deltaOf(node uint64) *delta {
	g := node >> groupShift
	if g >= uint64(len(a.groups)) {
		return nil
	}
	gr := a.groups[g]
	if gr == nil {
		return nil
	}
	return gr.nodes[node&groupMask]
}

// baseDeleted reports whether d deletes base relationship rel.
func (d *delta) baseDeleted(rel uint64) bool {
	lo, hi := 0, len(d.del)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if d.del[m].rel < rel {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(d.del) && d.del[lo].rel == rel
}
