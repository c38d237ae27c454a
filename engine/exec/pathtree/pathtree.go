// Package pathtree holds what a shortest-path search keeps apart from
// the graph it reads: the levels and parent hops of the nodes one side of
// a breadth-first search has reached, with its frontier, and the
// enumeration of the paths from a node back to the side's origin along
// those hops. exec's shortest-path operator reads the adjacency and
// fills them.
package pathtree

// Hop is how a search reached a node: from a node by a relationship.
type Hop struct{ From, Rel uint64 }

// Side is one half of a bidirectional search: the levels and parent edges
// of the nodes reached from its origin, and its current frontier.
type Side struct {
	Lvl      map[uint64]int32
	Pars     map[uint64][]Hop
	Frontier []uint64
	Next     []uint64
	Depth    int32
}

// NewSide returns a side with its maps made.
func NewSide() Side {
	return Side{Lvl: map[uint64]int32{}, Pars: map[uint64][]Hop{}}
}

// Reset starts the side from origin. Maps grown large by an earlier search
// are dropped rather than cleared, so a small search does not pay for
// clearing a big one's buckets.
func (sd *Side) Reset(origin uint64) {
	if len(sd.Lvl) > 4096 {
		sd.Lvl, sd.Pars = map[uint64]int32{}, map[uint64][]Hop{}
	} else {
		clear(sd.Lvl)
		clear(sd.Pars)
	}
	sd.Lvl[origin] = 0
	sd.Frontier = append(sd.Frontier[:0], origin)
	sd.Depth = 0
}

// Walk enumerates, depth first and resumably, the paths from a node
// back to a search side's origin along the parent hops: Nodes[0] is the
// start node, Rels[i] joins Nodes[i] and Nodes[i+1].
type Walk struct {
	// Keep, when set, decides which hops a path may take: the walk never
	// follows one it rejects.
	Keep  func(Hop) bool
	sd    *Side
	Nodes []uint64
	Rels  []uint64
	idx   []int // next parent of Nodes[i] to try
	fresh bool
}

// Reset starts the walk at v over sd's hops.
func (w *Walk) Reset(sd *Side, v uint64) {
	w.sd = sd
	w.Nodes = append(w.Nodes[:0], v)
	w.Rels = w.Rels[:0]
	w.idx = append(w.idx[:0], 0)
	w.fresh = true
}

// Next moves to the next path; false when there is none left.
func (w *Walk) Next() bool {
	if !w.fresh && len(w.Nodes) > 0 {
		w.pop() // step back from the path returned last time
	}
	w.fresh = false
	for len(w.Nodes) > 0 {
		top := len(w.Nodes) - 1
		t := w.Nodes[top]
		if w.sd.Lvl[t] == 0 {
			return true
		}
		ps := w.sd.Pars[t]
		if w.idx[top] < len(ps) {
			e := ps[w.idx[top]]
			w.idx[top]++
			if w.Keep != nil && !w.Keep(e) {
				continue
			}
			w.Nodes = append(w.Nodes, e.From)
			w.Rels = append(w.Rels, e.Rel)
			w.idx = append(w.idx, 0)
			continue
		}
		w.pop()
	}
	return false
}

func (w *Walk) pop() {
	top := len(w.Nodes) - 1
	w.Nodes, w.idx = w.Nodes[:top], w.idx[:top]
	if len(w.Rels) > 0 {
		w.Rels = w.Rels[:len(w.Rels)-1]
	}
}
