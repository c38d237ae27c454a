package exec

import "github.com/quiverdb/quiver/vector"

// steer restricts a shortestPath or allShortestPaths search (plan.ShortestPath's
// Steer) to the relationships and nodes that pass its element tests:
// every neighbour list a search step loads is narrowed before the step
// reads it, so the search finds the shortest paths among those that
// pass. Each test reads only its element: RelTest and NodeTest are run
// over the whole list at once; InnerTest, which the row's two ends are
// exempt from, once per node a row meets, remembered until the next row.
type steer struct {
	pr       *pruner
	src, dst uint64
	inner    map[uint64]bool // InnerTest of the nodes this row met
	ask      []uint64
}

func newSteer(pr *pruner) *steer {
	return &steer{pr: pr, inner: map[uint64]bool{}}
}

// row starts the search of a row from src to dst; false when an end
// fails NodeTest, so that no path of the row passes.
func (st *steer) row(src, dst uint64) (bool, error) {
	st.src, st.dst = src, dst
	if len(st.inner) > 4096 {
		st.inner = map[uint64]bool{}
	} else {
		clear(st.inner)
	}
	for _, n := range [2]uint64{src, dst} {
		if ok, err := st.pr.start(n); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

// filter narrows a loaded neighbour list and its relationships to the
// hops a passing path may take.
func (st *steer) filter(nbrs, rels []uint64) ([]uint64, []uint64, error) {
	nbrs, rels, err := st.pr.keep(nbrs, rels, 0)
	if err != nil || st.pr.inner == nil {
		return nbrs, rels, err
	}
	st.ask = st.ask[:0]
	for _, v := range nbrs {
		if v == st.src || v == st.dst {
			continue
		}
		if _, seen := st.inner[v]; !seen {
			st.inner[v] = false
			st.ask = append(st.ask, v)
		}
	}
	for lo := 0; lo < len(st.ask); lo += vector.Capacity {
		hi := min(lo+vector.Capacity, len(st.ask))
		if err := st.pr.inner.eval(st.ask[lo:hi]); err != nil {
			return nil, nil, err
		}
		for i, ok := range st.pr.inner.pass {
			st.inner[st.ask[lo+i]] = ok
		}
	}
	w := 0
	for i, v := range nbrs {
		if v == st.src || v == st.dst || st.inner[v] {
			nbrs[w], rels[w] = v, rels[i]
			w++
		}
	}
	return nbrs[:w], rels[:w], nil
}
