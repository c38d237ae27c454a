package exec

import (
	"cmp"
	"slices"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// expandIntersect runs a plan.ExpandIntersect. Per input row it loads the
// first hop's list of the From node and the closing hop's list of the
// Into node read the other way, each as (node, relationship) pairs sorted
// by node, and merges them: every node c on both is a far end of the
// first hop that the closing hop joins to the Into node, and every pair
// of their relationships (parallel ones included) is a row. When one list
// is much longer it is searched by halves for the other's nodes. Long
// lists are kept sorted across rows (a hub is met again and again) while
// the statement has not written, within the query's memory budget.
type expandIntersect struct {
	c   *Context
	p   *plan.ExpandIntersect
	cur cursor

	opened     bool
	first, rev []adjList
	fwd        []adjList // the closing hop's lists from c, for hops
	hops       hopMap
	// useHops is whether the physical pass chose the hop map, read once
	// at open: the per-row path only checks the write guard.
	useHops bool
	// hopsRefused is set once PROFILE was told the map is not used.
	hopsRefused bool
	labels      []catalog.LabelID
	missing     bool // a far-end label does not exist: nothing matches
	width       int  // input columns

	cache1, cache2 map[uint64][]pair
	cached         int64 // bytes held by the caches

	matches []triple
	next    int
	l1, l2  []pair
	// memo1 and memo2: the node whose list l1 (l2) holds, +1 (0: none);
	// consecutive rows often share a node.
	memo1, memo2 uint64
	nbrs         []uint64
	rels         []uint64
}

type pair struct{ node, rel uint64 }

type triple struct{ rel1, node, rel2 uint64 }

const matchBytes = 24 // a triple

const (
	// cacheMinList is the list length from which a sorted list is kept:
	// short lists cost little to decode again, and a kept entry costs 16
	// bytes.
	cacheMinList = 32
	// cacheMaxBytes bounds the kept lists of one operator.
	cacheMaxBytes = 64 << 20
	// gallopRatio: a list this many times longer than the other is
	// searched by halves instead of merged.
	gallopRatio = 8
)

func newExpandIntersect(c *Context, p *plan.ExpandIntersect, in Operator) *expandIntersect {
	return &expandIntersect{c: c, p: p, cur: newCursor(c.pool(), in, len(p.First.Input.Columns()), len(p.Close.Cols))}
}

func (e *expandIntersect) open() {
	e.opened = true
	e.width = len(e.p.First.Input.Columns())
	e.first = openAdjs(e.c, e.p.First.Types, e.p.First.Dir)
	// The closing hop runs c -> Into in its direction; from Into that is
	// the opposite one.
	dir := plan.Both
	switch e.p.Close.Dir {
	case plan.Out:
		dir = plan.In
	case plan.In:
		dir = plan.Out
	}
	e.rev = openAdjs(e.c, e.p.Close.Types, dir)
	e.fwd = openAdjs(e.c, e.p.Close.Types, e.p.Close.Dir)
	e.labels, e.missing = resolveLabels(e.c, e.p.First.ToLabels)
	e.cache1, e.cache2 = map[uint64][]pair{}, map[uint64][]pair{}
	e.useHops = plan.Chose(e.p, plan.StrategyHopMap)
}

func (e *expandIntersect) Next() (*vector.Batch, error) {
	if !e.opened {
		e.open()
	}
	if err := e.c.CheckCancel(); err != nil {
		return nil, err
	}
	return e.cur.fill(e)
}

// produce emits the current row's matches still to emit.
func (e *expandIntersect) produce() error {
	if e.next >= len(e.matches) {
		return nil
	}
	r1, nc, r2 := e.cur.outCol(e.width, vector.Rel), e.cur.outCol(e.width+1, vector.Node), e.cur.outCol(e.width+2, vector.Rel)
	for e.next < len(e.matches) && !e.cur.full() {
		m := e.matches[e.next]
		e.next++
		k := len(e.cur.idx)
		r1.IDs[k], nc.IDs[k], r2.IDs[k] = m.rel1, m.node, m.rel2
		e.cur.emitRow()
	}
	return nil
}

// advance computes the matches of the next input row that has any,
// pulling input batches; false at the end (or to emit the output, which
// still references the current batch, before pulling another).
func (e *expandIntersect) advance() (bool, error) {
	for {
		from, into, ok, err := e.cur.nextNodes(e.p.First.From, e.p.Close.Into)
		if !ok || err != nil {
			return false, err
		}
		if e.missing {
			continue
		}
		// The map holds paths of the snapshot: never once the statement
		// has written.
		hops := e.useHops
		if hops && e.c.Tx.Writes() {
			hops = false
			if !e.hopsRefused {
				e.hopsRefused = true
				e.c.fellBack(e.p, plan.StrategyHopMap, "this transaction has written")
			}
		}
		if hops {
			e.hops.note(from)
			if e.hops.built {
				e.matches, e.next = e.matches[:0], 0
				if err := e.fromHops(into); err != nil {
					return false, err
				}
				if len(e.matches) > 0 {
					return true, nil
				}
				continue
			}
		}
		var l1, l2 []pair
		if l1, err = e.list(e.first, e.cache1, from, &e.l1, &e.memo1); err != nil {
			return false, err
		}
		if l2, err = e.list(e.rev, e.cache2, into, &e.l2, &e.memo2); err != nil {
			return false, err
		}
		e.c.Counters.RowsScanned += int64(len(l1) + len(l2))
		e.c.Counters.DBHits += int64(len(e.first) + len(e.rev) + len(l1) + len(l2))
		e.matches, e.next = e.matches[:0], 0
		if err := e.intersect(l1, l2); err != nil {
			return false, err
		}
		if hops {
			if err := e.considerHops(l1, len(l1)+len(l2)); err != nil {
				return false, err
			}
		}
		if len(e.matches) > 0 {
			return true, nil
		}
	}
}

// list is node's sorted (node, relationship) pairs over adjs: kept in
// cache when long, else built in *buf, which still holds it on the next
// call for the same node (*memo is that node + 1).
func (e *expandIntersect) list(adjs []adjList, cache map[uint64][]pair, node uint64, buf *[]pair, memo *uint64) ([]pair, error) {
	writes := e.c.Tx.Writes()
	if !writes {
		if *memo == node+1 {
			return *buf, nil
		}
		if l, ok := cache[node]; ok {
			return l, nil
		}
	}
	*memo = 0
	e.nbrs, e.rels = appendAdj(adjs, e.nbrs[:0], e.rels[:0], node)
	l := (*buf)[:0]
	for i, n := range e.nbrs {
		l = append(l, pair{n, e.rels[i]})
	}
	*buf = l
	if !slices.IsSortedFunc(l, comparePairs) {
		slices.SortFunc(l, comparePairs)
	}
	*memo = node + 1
	if writes || len(l) < cacheMinList {
		return l, nil
	}
	bytes := int64(len(l)) * 16
	if e.cached+bytes > cacheMaxBytes || e.c.Mem.Charge(bytes) != nil {
		return l, nil
	}
	e.cached += bytes
	kept := slices.Clone(l)
	cache[node] = kept
	return kept, nil
}

func comparePairs(a, b pair) int {
	return cmp.Or(cmp.Compare(a.node, b.node), cmp.Compare(a.rel, b.rel))
}

// intersect appends the matches of sorted lists l1 (first hop) and l2
// (closing hop, from the Into node).
func (e *expandIntersect) intersect(l1, l2 []pair) error {
	if len(l1) == 0 || len(l2) == 0 {
		return nil
	}
	switch {
	case len(l1) >= gallopRatio*len(l2):
		return e.probe(l2, l1, true)
	case len(l2) >= gallopRatio*len(l1):
		return e.probe(l1, l2, false)
	default:
		i, j := 0, 0
		for i < len(l1) && j < len(l2) {
			switch {
			case l1[i].node < l2[j].node:
				i++
			case l1[i].node > l2[j].node:
				j++
			default:
				n := l1[i].node
				i2, j2 := runEnd(l1, i), runEnd(l2, j)
				if err := e.pairs(n, l1[i:i2], l2[j:j2]); err != nil {
					return err
				}
				i, j = i2, j2
			}
		}
	}
	return nil
}

// probe looks each node of the short list up in the long one by halves;
// swapped says the short list is the closing hop's.
func (e *expandIntersect) probe(short, long []pair, swapped bool) error {
	lo := 0
	for i := 0; i < len(short); {
		n := short[i].node
		i2 := runEnd(short, i)
		lo = lowerBound(long, lo, n)
		if lo < len(long) && long[lo].node == n {
			j2 := runEnd(long, lo)
			var err error
			if swapped {
				err = e.pairs(n, long[lo:j2], short[i:i2])
			} else {
				err = e.pairs(n, short[i:i2], long[lo:j2])
			}
			if err != nil {
				return err
			}
			lo = j2
		}
		i = i2
	}
	return nil
}

// lowerBound is the first index from lo of l (sorted by node) whose node
// is not below n.
func lowerBound(l []pair, lo int, n uint64) int {
	hi := len(l)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l[mid].node < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// runEnd is the end of the run of l's entries with l[i]'s node.
func runEnd(l []pair, i int) int {
	j := i + 1
	for j < len(l) && l[j].node == l[i].node {
		j++
	}
	return j
}

// pairs appends a match for each relationship of the first hop to node
// and of the closing hop from it that the pattern's checks allow: node's
// labels, and relationship uniqueness against the row's relationships
// and between the two hops. The matches of a row grow with the product of
// parallel relationships, so their room is charged to the query.
func (e *expandIntersect) pairs(node uint64, r1s, r2s []pair) error {
	if len(e.labels) > 0 && !nodeHasLabels(e.c.Tx, node, e.labels) {
		return nil
	}
	if err := e.reserve(len(r1s) * len(r2s)); err != nil {
		return err
	}
	for _, a := range r1s {
		if !e.allowedFirst(a.rel) {
			continue
		}
		for _, b := range r2s {
			if e.allowedClose(b.rel, a.rel, true) {
				e.matches = append(e.matches, triple{a.rel, node, b.rel})
			}
		}
	}
	return nil
}

// reserve makes room for n more matches, charged to the query.
func (e *expandIntersect) reserve(n int) error {
	if need := len(e.matches) + n; need > cap(e.matches) {
		grown := max(need, 2*cap(e.matches), 64)
		if err := e.c.Mem.Charge(int64(grown-cap(e.matches)) * matchBytes); err != nil {
			return err
		}
		e.matches = slices.Grow(e.matches, grown-len(e.matches))
	}
	return nil
}

// allowedFirst says whether the first hop's relationship rel differs
// from the current row's relationships the pattern keeps it apart from.
func (e *expandIntersect) allowedFirst(rel uint64) bool {
	for _, d := range e.p.First.Distinct {
		if sameRel(e.cur.b.Cols[d], e.cur.row, rel) {
			return false
		}
	}
	return true
}

// allowedClose is allowedFirst for the closing hop's relationship; its
// check against the first hop's relationship rel1 is made only when
// withFirst is set (the hop map made it when it was built).
func (e *expandIntersect) allowedClose(rel, rel1 uint64, withFirst bool) bool {
	for _, d := range e.p.Close.Distinct {
		if d == e.width {
			if withFirst && rel == rel1 {
				return false
			}
		} else if sameRel(e.cur.b.Cols[d], e.cur.row, rel) {
			return false
		}
	}
	return true
}
