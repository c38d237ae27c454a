package exec

import (
	"slices"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// varLength enumerates the chains of a variable-length pattern by
// depth-first search, one input row at a time. The search state (a stack
// of neighbour lists, the chain's nodes and relationships) survives
// between calls, so a start node with millions of chains fills batch after
// batch without ever holding them all. A chain is emitted when it is
// pushed, so a full batch can stop the search at any step.
type varLength struct {
	c   *Context
	p   *plan.VarLengthExpand
	cur cursor

	opened    bool
	adjs      []adjList
	toLabels  []catalog.LabelID
	toMissing bool
	props     *relProps
	prune     *pruner

	into uint64 // the bound far end of the current row, when Into >= 0

	active bool
	stack  []dfsFrame
	nodes  []uint64 // the chain's nodes: len(nodes) == len(stack)
	rels   []uint64 // len(rels) == len(nodes)-1
	steps  int
}

// dfsFrame holds the neighbours of one chain node still to try.
type dfsFrame struct {
	nbrs, rels []uint64
	next       int
}

func newVarLength(c *Context, p *plan.VarLengthExpand, in Operator) (Operator, error) {
	props, err := newRelProps(c, p.RelKeys, p.RelVals)
	if err != nil {
		return nil, err
	}
	prune, err := newPruner(c, p.RelTest, p.NodeTest, p.InnerTest)
	if err != nil {
		return nil, err
	}
	if plan.Chose(p, plan.RuleEndpointsBFS) {
		return newReach(c, p, in, props, prune), nil
	}
	e := &varLength{c: c, p: p, props: props, prune: prune, cur: newCursor(c.pool(), in, len(p.Input.Columns()), len(p.Cols))}
	if props != nil {
		e.cur.onBatch = props.batch
	}
	return e, nil
}

func (e *varLength) open() {
	e.opened = true
	e.adjs = openAdjs(e.c, e.p.Types, e.p.Dir)
	e.toLabels, e.toMissing = resolveLabels(e.c, e.p.ToLabels)
	out, nin := e.cur.out, e.cur.nin
	out.Cols[nin] = vector.New(vector.Any, vector.Capacity)
	if e.p.Into < 0 {
		out.Cols[nin+1] = vector.New(vector.Node, vector.Capacity)
	}
	if e.p.PathCol {
		out.Cols[len(e.p.Cols)-1] = vector.New(vector.Any, vector.Capacity)
	}
}

func (e *varLength) Next() (*vector.Batch, error) {
	if !e.opened {
		e.open()
	}
	if err := e.c.CheckCancel(); err != nil {
		return nil, err
	}
	return e.cur.fill(e)
}

// produce goes on with the current row's search, a step at a time.
func (e *varLength) produce() error {
	for e.active && !e.cur.full() {
		if err := e.step(); err != nil {
			return err
		}
		if e.steps++; e.steps&4095 == 0 {
			if err := e.c.CheckCancel(); err != nil {
				return err
			}
		}
	}
	return nil
}

// advance starts the search from the next input row with a start node
// (and a bound far end, for an Into pattern) that may start a chain.
func (e *varLength) advance() (bool, error) {
	var start, into uint64
	for {
		var ok bool
		var err error
		start, into, ok, err = e.cur.nextNodes(e.p.From, e.p.Into)
		if !ok || err != nil {
			return false, err
		}
		if ok, err = e.prune.start(start); err != nil {
			return false, err
		}
		if ok {
			break
		}
	}
	e.into = into
	if e.props != nil {
		e.props.row(e.cur.row)
	}
	e.stack, e.nodes, e.rels = e.stack[:0], e.nodes[:0], e.rels[:0]
	if err := e.push(start); err != nil {
		return false, err
	}
	e.active = true
	if e.p.Min == 0 {
		e.emit(start)
	}
	return true, nil
}

// push adds node to the chain with the neighbours it may continue to
// (none at the maximum depth, none the pruning tests reject).
func (e *varLength) push(node uint64) error {
	e.nodes = append(e.nodes, node)
	if len(e.stack) < cap(e.stack) {
		e.stack = e.stack[:len(e.stack)+1]
	} else {
		e.stack = append(e.stack, dfsFrame{})
	}
	f := &e.stack[len(e.stack)-1]
	f.nbrs, f.rels, f.next = f.nbrs[:0], f.rels[:0], 0
	if e.p.Max != plan.Unbounded && len(e.nodes)-1 >= e.p.Max {
		return nil
	}
	if len(e.nodes) > 1 {
		if ok, err := e.prune.through(node); !ok || err != nil {
			return err
		}
	}
	f.nbrs, f.rels = appendAdj(e.adjs, f.nbrs, f.rels, node)
	e.c.Counters.RowsScanned += int64(len(f.nbrs))
	var err error
	f.nbrs, f.rels, err = e.prune.keep(f.nbrs, f.rels, 0)
	return err
}

// step extends the chain by the next usable relationship of the deepest
// node (emitting it when long enough), or backtracks.
func (e *varLength) step() error {
	top := len(e.stack) - 1
	f := &e.stack[top]
	for f.next < len(f.nbrs) {
		nbr, rel := f.nbrs[f.next], f.rels[f.next]
		f.next++
		if !e.usable(rel) {
			continue
		}
		e.rels = append(e.rels, rel)
		if err := e.push(nbr); err != nil {
			return err
		}
		if len(e.rels) >= e.p.Min {
			e.emit(nbr)
		}
		return nil
	}
	e.stack, e.nodes = e.stack[:top], e.nodes[:top]
	if top > 0 {
		e.rels = e.rels[:top-1]
	} else {
		e.active = false
	}
	return nil
}

// usable reports whether rel may extend the chain: not already in it, not
// one of the pattern's other relationships, with the wanted properties.
func (e *varLength) usable(rel uint64) bool {
	for _, r := range e.rels {
		if r == rel {
			return false
		}
	}
	for _, d := range e.p.Distinct {
		if sameRel(e.cur.b.Cols[d], e.cur.row, rel) {
			return false
		}
	}
	return e.props == nil || e.props.match(e.c.Tx, rel)
}

// emit outputs the current chain when its end passes the far-end checks.
func (e *varLength) emit(end uint64) {
	if e.p.Into >= 0 && end != e.into {
		return
	}
	if e.toMissing || !nodeHasLabels(e.c.Tx, end, e.toLabels) {
		return
	}
	k, out, nin := len(e.cur.idx), e.cur.out, e.cur.nin
	if e.p.OmitRels {
		out.Cols[nin].SetNull(k)
	} else {
		l := functions.RelsValue(e.rels)
		if e.p.Reversed {
			slices.Reverse(l)
		}
		out.Cols[nin].Set(k, l)
	}
	if e.p.Into < 0 {
		out.Cols[nin+1].IDs[k] = end
	}
	if e.p.PathCol {
		out.Cols[len(e.p.Cols)-1].Set(k, copyPath(e.nodes, e.rels))
	}
	e.cur.emitRow()
}
