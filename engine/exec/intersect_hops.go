package exec

import (
	"math/bits"
)

// hopMap is an ExpandIntersect's second way to close a cycle, for the
// rows of one From node: every path From -first-> c -close-> d, grouped
// by its far end d. A row whose Into node is d then costs one probe
// instead of intersecting From's list with d's list the other way. A
// pattern such as the diamond (a)-->(b)-->(d), (a)-->(c)-->(d) meets the
// same a on thousands of rows, each with a different d; merging a's list
// into each d's reverse list reads every d's whole list (the friendship
// paradox makes those the long ones), while the map reads each c's list
// once per a.
//
// The switch is a ski rental: the rows of the current From node add up
// what their intersections cost, and the map is built once that passes
// what building it costs (the degrees of From's far ends), so a From
// node met on a few rows never pays for a map, and one met on many pays
// at most about twice the better of the two ways.
type hopMap struct {
	from   uint64 // the From node + 1 whose rows are counted; 0: none
	spent  int64  // intersection work spent on from's rows
	cost   int64  // the map's build cost; 0: not yet known, <0: too large
	built  bool
	keys   []uint64 // d+1 per slot; 0: empty
	spans  []int32  // per slot: start of d's triples in byD, then end
	trips  []triple // the paths' triples as collected
	ds     []uint64 // the d of each collected triple
	byD    []triple // trips grouped by d
	charge int64    // bytes charged for the slices above
}

// hopMapMaxPaths bounds the paths one map may hold: past it the rows of
// that From node keep intersecting.
const hopMapMaxPaths = 1 << 20

// hopBytes is what one path costs in the map: its triple twice, its d,
// and up to four table slots (key and span).
const hopBytes = 2*matchBytes + 8 + 4*(8+8)

// note starts counting for from when it is not the node counted so far.
func (h *hopMap) note(from uint64) {
	if h.from != from+1 {
		h.from, h.spent, h.cost, h.built = from+1, 0, 0, false
	}
}

// lookup is the triples of the paths that end at d, once built.
func (h *hopMap) lookup(d uint64) []triple {
	if len(h.keys) == 0 {
		return nil
	}
	mask := uint64(len(h.keys) - 1)
	shift := uint(64 - bits.TrailingZeros(uint(len(h.keys))))
	i := ((d + 1) * 0x9E3779B97F4A7C15) >> shift
	for {
		switch h.keys[i] {
		case d + 1:
			return h.byD[h.spans[2*i]:h.spans[2*i+1]]
		case 0:
			return nil
		}
		i = (i + 1) & mask
	}
}

// buildCost is the number of adjacency entries building the map for a
// From node with first-hop list l1 reads: the degree of each distinct
// far end over the closing hop's lists, or -1 when it passes the bound.
func (e *expandIntersect) buildCost(l1 []pair) int64 {
	cost := int64(len(l1))
	for i := 0; i < len(l1); i = runEnd(l1, i) {
		for _, a := range e.fwd {
			cost += int64(a.adj.Degree(l1[i].node))
		}
		if cost > hopMapMaxPaths {
			return -1
		}
	}
	return cost
}

// buildHops fills the map from From's first-hop list l1: each far end c
// that has the pattern's labels, and each relationship from c in the
// closing hop's direction, is a path to that relationship's other node.
// A closing relationship equal to the first one is left out when the
// pattern keeps them distinct. False when the memory budget refuses it;
// the rows then go on intersecting.
func (e *expandIntersect) buildHops(l1 []pair) (bool, error) {
	h := &e.hops
	h.trips, h.ds = h.trips[:0], h.ds[:0]
	distinct := false
	for _, d := range e.p.Close.Distinct {
		distinct = distinct || d == e.width
	}
	for i := 0; i < len(l1); {
		c := l1[i].node
		i2 := runEnd(l1, i)
		if len(e.labels) > 0 && !nodeHasLabels(e.c.Tx, c, e.labels) {
			i = i2
			continue
		}
		e.nbrs, e.rels = appendAdj(e.fwd, e.nbrs[:0], e.rels[:0], c)
		e.c.Counters.DBHits += int64(len(e.fwd) + len(e.nbrs))
		e.c.Counters.RowsScanned += int64(len(e.nbrs))
		if err := h.grow(e, len(h.trips)+(i2-i)*len(e.nbrs)); err != nil {
			h.cost = -1 // over the budget: this node's rows go on intersecting
			return false, nil
		}
		for _, p := range l1[i:i2] {
			for k, d := range e.nbrs {
				if distinct && e.rels[k] == p.rel {
					continue
				}
				h.trips = append(h.trips, triple{p.rel, c, e.rels[k]})
				h.ds = append(h.ds, d)
			}
		}
		i = i2
	}
	if err := e.c.CheckCancel(); err != nil {
		return false, err
	}
	h.index()
	h.built = true
	return true, nil
}

// grow makes room for n paths, doubling, and charges what it adds to
// the query. The table is sized when the map is indexed.
func (h *hopMap) grow(e *expandIntersect, n int) error {
	if n <= cap(h.trips) {
		return nil
	}
	n = max(n, 2*cap(h.trips), 64)
	if want := int64(n) * hopBytes; want > h.charge {
		if err := e.c.Mem.Charge(want - h.charge); err != nil {
			return err
		}
		h.charge = want
	}
	h.trips = append(make([]triple, 0, n), h.trips...)
	h.ds = append(make([]uint64, 0, n), h.ds...)
	return nil
}

// tableSlots is the table size for n paths: a power of two at least
// twice n, so the table is at most half full.
func tableSlots(n int) int {
	return max(16, 1<<bits.Len(uint(2*n-1)))
}

// index groups the collected paths by d: it counts each d's paths in
// its slot, turns the counts into spans, and places the triples (a
// counting sort, so each d keeps the order it was met in).
func (h *hopMap) index() {
	n := len(h.trips)
	slots := tableSlots(n)
	if slots > cap(h.keys) {
		h.keys, h.spans = make([]uint64, slots), make([]int32, 2*slots)
	}
	if n > cap(h.byD) {
		h.byD = make([]triple, cap(h.trips))
	}
	keys, spans, byD := h.keys[:slots], h.spans[:2*slots], h.byD[:n]
	clear(keys)
	clear(spans)
	mask := uint64(slots - 1)
	shift := uint(64 - bits.TrailingZeros(uint(slots)))
	slot := func(d uint64) uint64 {
		i := ((d + 1) * 0x9E3779B97F4A7C15) >> shift
		for keys[i] != 0 && keys[i] != d+1 {
			i = (i + 1) & mask
		}
		return i
	}
	for _, d := range h.ds {
		i := slot(d)
		keys[i] = d + 1
		spans[2*i+1]++
	}
	at := int32(0)
	for i := range keys {
		if keys[i] != 0 {
			spans[2*i], at = at, at+spans[2*i+1]
			spans[2*i+1] = spans[2*i]
		}
	}
	for k, d := range h.ds {
		i := slot(d)
		byD[spans[2*i+1]] = h.trips[k]
		spans[2*i+1]++
	}
	h.keys, h.spans, h.byD = keys, spans, byD
}

// considerHops adds a row's intersection work to its From node's count
// and builds the map once the count passes the map's cost. l1 is the
// From node's first-hop list.
func (e *expandIntersect) considerHops(l1 []pair, work int) error {
	h := &e.hops
	h.spent += int64(work)
	if h.cost == 0 && h.spent >= 4*int64(len(l1))+64 {
		h.cost = e.buildCost(l1)
	}
	if h.cost <= 0 || h.spent < h.cost {
		return nil
	}
	_, err := e.buildHops(l1)
	return err
}

// fromHops appends the matches of the current row, whose Into node is
// into, from the built map.
func (e *expandIntersect) fromHops(into uint64) error {
	trips := e.hops.lookup(into)
	e.c.Counters.DBHits++
	if err := e.reserve(len(trips)); err != nil {
		return err
	}
	for _, t := range trips {
		if e.allowedFirst(t.rel1) && e.allowedClose(t.rel2, 0, false) {
			e.matches = append(e.matches, t)
		}
	}
	return nil
}
