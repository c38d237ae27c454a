package exec

import (
	"sync"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/exec/idset"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// reach is the endpoints-only mode of a variable-length expansion: a
// frontier breadth-first search over the adjacency lists with a bitmap of
// visited nodes, producing each reachable far end once per input row (at
// its minimum depth) instead of every chain leading there. The binder uses
// it only where the answer cannot tell the difference: the chains are not
// observed, the consumer keeps distinct far ends only, and Min is 0 or 1:
// a shortest walk is a simple path, so whatever a walk reaches within Max
// a trail reaches too. The one exception is the start itself on an
// undirected pattern, where a walk may come back over the relationship it
// left by: closedTrail decides that case.
// The relationship column holds nulls. With a bound far end it is an
// existence test that stops when the search reaches it.
type reach struct {
	c     *Context
	p     *plan.VarLengthExpand
	cur   cursor
	props *relProps
	prune *pruner

	opened    bool
	adjs      []adjList
	toLabels  []catalog.LabelID
	toMissing bool

	into uint64 // the bound far end of the current row, when Into >= 0

	*reachState // nil until the first Next and again after the last
	next        int
}

// reachState is a search's visited sets and buffers. They are pooled
// across queries: a reach over a large part of the graph grows them to
// hundreds of thousands of ids, and growing them afresh per query cost
// more (page faults, copying) than the search itself.
type reachState struct {
	visited  idset.VisitSet
	seen     idset.VisitSet // closedTrail's own visited set
	found    []uint64       // far ends of the current row still to emit
	frontier []uint64
	nextLvl  []uint64
	nbrs     []uint64
	rels     []uint64
}

var reachStates = sync.Pool{New: func() any { return new(reachState) }}

func newReach(c *Context, p *plan.VarLengthExpand, in Operator, props *relProps, prune *pruner) *reach {
	r := &reach{c: c, p: p, props: props, prune: prune, cur: newCursor(c.pool(), in, len(p.Input.Columns()), len(p.Cols))}
	if props != nil {
		r.cur.onBatch = props.batch
	}
	return r
}

func (r *reach) open() {
	r.opened = true
	r.adjs = openAdjs(r.c, r.p.Types, r.p.Dir)
	r.toLabels, r.toMissing = resolveLabels(r.c, r.p.ToLabels)
	out, nin := r.cur.out, r.cur.nin
	rels := vector.New(vector.Any, vector.Capacity)
	for i := 0; i < vector.Capacity; i++ {
		rels.SetNull(i)
	}
	out.Cols[nin] = rels
	if r.p.Into < 0 {
		out.Cols[nin+1] = vector.New(vector.Node, vector.Capacity)
	}
}

func (r *reach) Next() (*vector.Batch, error) {
	if !r.opened {
		r.open()
	}
	if err := r.c.CheckCancel(); err != nil {
		return nil, err
	}
	if r.reachState == nil {
		r.reachState = reachStates.Get().(*reachState)
		r.found, r.next = r.found[:0], 0
	}
	if out, err := r.cur.fill(r); out != nil || err != nil {
		return out, err
	}
	st := r.reachState
	st.visited.Clear()
	st.seen.Clear()
	r.reachState = nil
	reachStates.Put(st)
	return nil, nil
}

// produce emits the current row's far ends still to emit.
func (r *reach) produce() error {
	var ends []uint64
	if r.p.Into < 0 {
		ends = r.cur.out.Cols[r.cur.nin+1].IDs
	}
	for r.next < len(r.found) && !r.cur.full() {
		if ends != nil {
			ends[len(r.cur.idx)] = r.found[r.next]
		}
		r.next++
		r.cur.emitRow()
	}
	return nil
}

// advance searches from the next input row with a start node (and a
// bound far end, for an Into pattern) until one reaches a far end.
func (r *reach) advance() (bool, error) {
	for {
		start, into, ok, err := r.cur.nextNodes(r.p.From, r.p.Into)
		if !ok || err != nil {
			return false, err
		}
		r.into = into
		if r.props != nil {
			r.props.row(r.cur.row)
		}
		if err := r.search(start); err != nil {
			return false, err
		}
		if len(r.found) > 0 {
			return true, nil
		}
	}
}

// search collects the far ends reachable from start within Min..Max.
func (r *reach) search(start uint64) error {
	r.found, r.next = r.found[:0], 0
	r.visited.Clear()
	if ok, err := r.prune.start(start); !ok || err != nil {
		return err
	}
	keep := func(n uint64) {
		if r.p.Into >= 0 {
			if n == r.into {
				r.found = append(r.found, n)
			}
			return
		}
		if !r.toMissing && nodeHasLabels(r.c.Tx, n, r.toLabels) {
			r.found = append(r.found, n)
		}
	}
	// An undirected walk gets back to the start over the relationship it
	// left by, which is no trail: the start is decided apart (below).
	loopBack := r.p.Min == 1 && r.p.Dir == plan.Both
	if r.p.Min == 0 || loopBack {
		r.visited.Add(start)
	}
	if r.p.Min == 0 {
		keep(start)
	}
	r.frontier = append(r.frontier[:0], start)
	tx := r.c.Tx
	// With a bound far end the search stops as soon as it is found.
	for depth := 1; len(r.frontier) > 0 && (r.p.Max == plan.Unbounded || depth <= r.p.Max) &&
		!(r.p.Into >= 0 && len(r.found) > 0); depth++ {
		if err := r.c.CheckCancel(); err != nil {
			return err
		}
		r.nextLvl = r.nextLvl[:0]
		for _, u := range r.frontier {
			if err := r.neighbours(u); err != nil {
				return err
			}
			for i, v := range r.nbrs {
				if r.props != nil && !r.props.match(tx, r.rels[i]) {
					continue
				}
				if r.visited.Add(v) {
					keep(v)
					// A node the pruning tests do not let a chain go
					// through is a far end, never a step.
					if ok, err := r.prune.through(v); err != nil {
						return err
					} else if ok {
						r.nextLvl = append(r.nextLvl, v)
					}
				}
			}
		}
		r.frontier, r.nextLvl = r.nextLvl, r.frontier
	}
	if loopBack && (r.p.Into < 0 || r.into == start) && !(r.p.Into >= 0 && len(r.found) > 0) {
		back, err := r.closedTrail(start)
		if err != nil {
			return err
		}
		if back {
			keep(start)
		}
	}
	return nil
}

// closedTrail reports whether an undirected trail of at most Max
// relationships leads from start back to itself: a self-loop, or a first
// relationship r to x and a path from x back to start avoiding r. When
// such a search fails, r is a bridge and the nodes it saw are cut off
// from the other first relationships' searches, so all of them together
// visit the start's component about once.
func (r *reach) closedTrail(start uint64) (bool, error) {
	if r.p.Max != plan.Unbounded && r.p.Max < 1 {
		return false, nil
	}
	tx := r.c.Tx
	first, firstRels := appendAdj(r.adjs, nil, nil, start)
	first, firstRels, err := r.prune.keep(first, firstRels, 0)
	if err != nil {
		return false, err
	}
	for i, x := range first {
		rel := firstRels[i]
		if r.props != nil && !r.props.match(tx, rel) {
			continue
		}
		if x == start {
			return true, nil
		}
		if ok, err := r.prune.through(x); err != nil || !ok {
			if err != nil {
				return false, err
			}
			continue
		}
		limit := r.p.Max
		if limit != plan.Unbounded {
			limit--
		}
		r.seen.Clear()
		r.seen.Add(x)
		r.frontier = append(r.frontier[:0], x)
		for depth := 1; len(r.frontier) > 0 && (limit == plan.Unbounded || depth <= limit); depth++ {
			if err := r.c.CheckCancel(); err != nil {
				return false, err
			}
			r.nextLvl = r.nextLvl[:0]
			for _, u := range r.frontier {
				if err := r.neighbours(u); err != nil {
					return false, err
				}
				for j, v := range r.nbrs {
					if r.rels[j] == rel || r.props != nil && !r.props.match(tx, r.rels[j]) {
						continue
					}
					if v == start {
						return true, nil
					}
					if r.seen.Add(v) {
						if ok, err := r.prune.through(v); err != nil {
							return false, err
						} else if ok {
							r.nextLvl = append(r.nextLvl, v)
						}
					}
				}
			}
			r.frontier, r.nextLvl = r.nextLvl, r.frontier
		}
	}
	return false, nil
}

// neighbours loads u's neighbours and relationships into r.nbrs and
// r.rels, those the pruning tests keep.
func (r *reach) neighbours(u uint64) error {
	r.nbrs, r.rels = appendAdj(r.adjs, r.nbrs[:0], r.rels[:0], u)
	r.c.Counters.RowsScanned += int64(len(r.nbrs))
	var err error
	r.nbrs, r.rels, err = r.prune.keep(r.nbrs, r.rels, 0)
	return err
}
