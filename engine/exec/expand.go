package exec

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// expand follows relationships from a node column. For every input row it
// decodes the node's neighbour list from the CSR of each wanted type and
// direction, and emits one output row per relationship that passes the
// checks on the far end (labels, an already bound node, relationship
// uniqueness). The input columns are gathered per output batch with typed
// copies; a high-degree node simply spans several output batches.
type expand struct {
	c   *Context
	p   *plan.Expand
	cur cursor

	opened bool
	adjs   []adjList
	// rev, for an expansion into a bound far end (Into) in one direction,
	// are the same types' lists the other way: the relationships between
	// the two bound nodes are read from whichever of them has the shorter
	// lists (expand_into.go).
	rev       []adjList
	toLabels  []catalog.LabelID
	toMissing bool // a far-end label does not exist: nothing matches
	// covered is set when the far-end labels are carried by every live
	// node of the snapshot read (RuleLabelCover): toLabels then holds
	// nothing to test while the statement has not written.
	covered bool
	// labelCover is whether the physical pass chose RuleLabelCover, read
	// once at open (denseLabels runs per input row until it builds).
	labelCover bool
	// dense holds toLabels' bitmaps as flat bitsets, made once the
	// expansion has tested about a sixteenth of the live nodes' worth of
	// far ends (so its memory, an eighth of a byte per node id, is paid
	// for by the bitmap probes it saves); dropped if the statement writes.
	dense     [][]uint64
	checks    int
	allLabels []catalog.LabelID // the far-end labels, for after a write
	// farSet, when set, holds the far nodes that pass a Filter's
	// conjuncts on them (far_set.go); dropped if the statement writes.
	farSet []uint64
	// pre filters each neighbour list before emitting (expand_filter.go);
	// nil for a plain expansion.
	pre *listFilter
	// scrN and scrR are scratch lists for listLen.
	scrN, scrR []uint64

	nbrs []uint64 // the neighbours of the cursor's current row
	rels []uint64
	next int // next entry of nbrs to emit
	// rc and nc are the output's relationship and node columns, looked up
	// once per output batch (nc is nil for an Into expansion).
	rc, nc *vector.Vector
	into   uint64 // the bound far end of the current row, when Into >= 0
}

// adjList is one CSR to read: a type in one direction. Incoming lists of an
// undirected pattern skip self-loops, which the outgoing list already gave.
type adjList struct {
	adj       *storage.Adjacency
	skipLoops bool
}

func newExpand(c *Context, p *plan.Expand, in Operator) *expand {
	e := &expand{c: c, p: p, cur: newCursor(c.pool(), in, len(p.Input.Columns()), len(p.Cols))}
	e.cur.onBatch = e.prepare
	return e
}

// prepare readies the neighbour-list filter, when there is one, for a new
// input batch.
func (e *expand) prepare(b *vector.Batch) error {
	if e.pre != nil {
		e.pre.prepare(e.c, b)
	}
	return nil
}

func (e *expand) open() {
	e.opened = true
	tx, cat := e.c.Tx, e.c.Catalog
	var types []catalog.TypeID
	if len(e.p.Types) == 0 {
		types = cat.Types()
	}
	for _, name := range e.p.Types {
		if id, ok := cat.LookupType(name); ok {
			types = append(types, id)
		}
	}
	for _, t := range types {
		if e.p.Dir == plan.Out || e.p.Dir == plan.Both {
			if a := tx.Adjacency(t, storage.Outgoing); a != nil {
				e.adjs = append(e.adjs, adjList{adj: a})
			}
		}
		if e.p.Dir == plan.In || e.p.Dir == plan.Both {
			if a := tx.Adjacency(t, storage.Incoming); a != nil {
				e.adjs = append(e.adjs, adjList{adj: a, skipLoops: e.p.Dir == plan.Both})
			}
		}
	}
	e.openReverse(types)
	for _, name := range e.p.ToLabels {
		id, ok := cat.LookupLabel(name)
		if !ok {
			e.toMissing = true
		}
		e.toLabels = append(e.toLabels, id)
	}
	if e.pre != nil && len(e.adjs) == 1 && !e.adjs[0].skipLoops {
		e.pre.base = e.adjs[0].adj.Base()
		e.pre.off = e.pre.base.Offsets()
	}
	e.allLabels = e.toLabels
	e.labelCover = plan.Chose(e.p, plan.RuleLabelCover)
	if len(e.toLabels) > 0 && e.labelCover && tx.Writes() {
		e.c.fellBack(e.p, plan.RuleLabelCover, "this transaction has written (labels may have changed)")
	}
	if len(e.toLabels) > 0 && !e.toMissing && e.labelCover && !tx.Writes() {
		e.covered = labelsCover(tx, e.toLabels)
		if e.covered {
			e.toLabels = nil
		}
	}
}

// denseLabels turns the far-end label tests into bitset lookups once
// enough of them were made (see expand.dense).
func (e *expand) denseLabels() {
	tx := e.c.Tx
	if !e.labelCover || tx.Writes() || uint64(e.checks)*16 < tx.LiveNodes().GetCardinality() {
		return
	}
	e.dense = make([][]uint64, len(e.toLabels))
	for i, l := range e.toLabels {
		e.dense[i] = tx.LabelNodes(l).ToDense()
	}
}

// labelsCover reports whether every live node carries each of labels: a
// label's bitmap is a subset of the live set, so equal cardinalities mean
// equal sets. Every neighbour in an adjacency is live (a node with
// relationships cannot be deleted), so the far-end test then always holds.
func labelsCover(tx *storage.Tx, labels []catalog.LabelID) bool {
	live := tx.LiveNodes().GetCardinality()
	for _, l := range labels {
		if tx.LabelNodes(l).GetCardinality() != live {
			return false
		}
	}
	return true
}

func (e *expand) Next() (*vector.Batch, error) {
	if !e.opened {
		e.open()
	}
	if err := e.c.CheckCancel(); err != nil {
		return nil, err
	}
	if e.farSet != nil && e.c.Tx.Writes() {
		e.farSet = nil // properties may have changed
	}
	e.rc, e.nc = e.relCol(), e.nodeCol()
	return e.cur.fill(e)
}

// produce emits the current row's pending neighbours.
func (e *expand) produce() error {
	if e.next < len(e.nbrs) {
		e.emit(e.rc, e.nc)
	}
	return nil
}

// relCol and nodeCol are the output vectors of the new columns, allocated
// on first use; nodeCol is nil when the far end is already bound.
func (e *expand) relCol() *vector.Vector {
	return e.cur.outCol(e.cur.nin, vector.Rel)
}

func (e *expand) nodeCol() *vector.Vector {
	if e.p.Into >= 0 {
		return nil
	}
	return e.cur.outCol(e.cur.nin+1, vector.Node)
}

// outCol is column i of an operator's output batch b, made with type t
// on first use (the columns an expansion adds; gatherInput fills the
// others).
func (c *cursor) outCol(i int, t vector.Type) *vector.Vector {
	if c.out.Cols[i] == nil {
		c.out.Cols[i] = c.pool.New(t)
	}
	return c.out.Cols[i]
}

// emit moves neighbours of the current row that pass the far-end checks
// into the output, until the output is full or the list is exhausted.
func (e *expand) emit(relCol, nodeCol *vector.Vector) {
	if (e.covered || e.dense != nil) && e.c.Tx.Writes() {
		// The statement wrote since open: labels may have changed.
		e.covered, e.toLabels, e.dense = false, e.allLabels, nil
	}
	if e.p.Into < 0 && len(e.p.Distinct) == 0 && len(e.toLabels) == 0 && !e.toMissing && e.farSet == nil {
		e.emitAll(relCol, nodeCol)
		return
	}
	in, row := e.cur.b.Cols, e.cur.row
	into := e.into
	tx := e.c.Tx
	for e.next < len(e.nbrs) && !e.cur.full() {
		nbr, rel := e.nbrs[e.next], e.rels[e.next]
		e.next++
		if e.p.Into >= 0 && nbr != into {
			continue
		}
		if e.toMissing {
			continue
		}
		keep := true
		if f := e.farSet; f != nil {
			keep = nbr>>6 < uint64(len(f)) && f[nbr>>6]&(1<<(nbr&63)) != 0
		}
		if e.dense != nil {
			for _, d := range e.dense {
				keep = keep && nbr>>6 < uint64(len(d)) && d[nbr>>6]&(1<<(nbr&63)) != 0
			}
		} else {
			for _, l := range e.toLabels {
				keep = keep && tx.HasLabel(nbr, l)
			}
		}
		for _, d := range e.p.Distinct {
			keep = keep && !sameRel(in[d], row, rel)
		}
		if !keep {
			continue
		}
		k := len(e.cur.idx)
		relCol.IDs[k] = rel
		if nodeCol != nil {
			nodeCol.IDs[k] = nbr
		}
		e.cur.emitRow()
	}
}

// emitAll is emit without checks: the list is copied in bulk.
func (e *expand) emitAll(relCol, nodeCol *vector.Vector) {
	k := len(e.cur.idx)
	m := min(len(e.nbrs)-e.next, vector.Capacity-k)
	copy(relCol.IDs[k:k+m], e.rels[e.next:e.next+m])
	copy(nodeCol.IDs[k:k+m], e.nbrs[e.next:e.next+m])
	e.next += m
	row := int32(e.cur.row)
	idx := e.cur.idx[:k+m]
	for i := k; i < k+m; i++ {
		idx[i] = row
	}
	e.cur.idx = idx
}

// advance loads the neighbour list of the next input row with a start
// node (and a bound far end, for an Into expansion). It returns false at
// the end, or when the output must be emitted before the cursor pulls.
func (e *expand) advance() (bool, error) {
	for {
		node, into, ok, err := e.cur.nextNodes(e.p.From, e.p.Into)
		if !ok || err != nil {
			return false, err
		}
		e.into = into
		if e.pre != nil && e.pre.skip(e.cur.row) {
			// Not expanded, but counted as read, so the counters do not
			// depend on whether this batch took the filtered path.
			total := e.listLen(node)
			e.c.Counters.RowsScanned += int64(total)
			e.c.Counters.DBHits += int64(len(e.adjs) + total*(1+len(e.toLabels)))
			continue
		}
		e.nbrs, e.rels, e.next = e.nbrs[:0], e.rels[:0], 0
		total := -1
		if e.pre != nil && e.pre.base != nil && node < uint64(e.pre.base.NumNodes()) && !e.adjs[0].adj.Dirty(node) {
			total, e.nbrs, e.rels = e.pre.loadBase(e.c, node, e.nbrs, e.rels)
		}
		if total < 0 && e.rev != nil && e.pre == nil {
			total = e.loadFromInto(node)
		}
		if total < 0 {
			for _, a := range e.adjs {
				start := len(e.nbrs)
				e.nbrs, e.rels = a.adj.AppendNeighbors(e.nbrs, e.rels, node)
				if a.skipLoops {
					e.nbrs, e.rels = dropLoops(e.nbrs, e.rels, start, node)
				}
			}
			total = len(e.nbrs)
			if e.pre != nil {
				e.nbrs, e.rels = e.pre.apply(e.c, e.nbrs, e.rels)
			}
		}
		e.c.Counters.RowsScanned += int64(total)
		// One hit per adjacency list read, per entry, and per far-end
		// label check an entry will get.
		e.c.Counters.DBHits += int64(len(e.adjs) + total*(1+len(e.toLabels)))
		if len(e.toLabels) > 0 && e.dense == nil {
			e.checks += total
			e.denseLabels()
		}
		if len(e.nbrs) > 0 {
			// Emitting here rather than returning to the cursor's loop
			// saves two dynamic calls per input row, a few percent of a
			// plain expansion.
			e.emit(e.rc, e.nc)
			if e.cur.full() {
				return true, nil
			}
		}
	}
}

// listLen is the number of entries advance would read for node: its
// degrees, less the self-loops an undirected pattern's incoming list
// skips (found by decoding that list, the rare case).
func (e *expand) listLen(node uint64) int {
	n := 0
	for _, a := range e.adjs {
		if !a.skipLoops {
			n += a.adj.Degree(node)
			continue
		}
		e.scrN, e.scrR = a.adj.AppendNeighbors(e.scrN[:0], e.scrR[:0], node)
		for _, x := range e.scrN {
			if x != node {
				n++
			}
		}
	}
	return n
}

// dropLoops removes entries from start on whose neighbour is node itself.
func dropLoops(nbrs, rels []uint64, start int, node uint64) ([]uint64, []uint64) {
	w := start
	for i := start; i < len(nbrs); i++ {
		if nbrs[i] != node {
			nbrs[w], rels[w] = nbrs[i], rels[i]
			w++
		}
	}
	return nbrs[:w], rels[:w]
}

// gatherInput fills out's first nin columns with the rows idx of in's
// (typed copies) and sets out to len(idx) rows: the input half of an
// expansion's output batch.
func gatherInput(pool *vector.Pool, out, in *vector.Batch, nin int, idx []int32) {
	for i, src := range in.Cols[:nin] {
		out.Cols[i] = pool.Reuse(out.Cols[i], src.Type)
		vector.CopyRows(out.Cols[i], 0, src, idx)
	}
	out.Len, out.Sel = len(idx), nil
}

// nodeAt reads a node id from row r of a column: a typed node column, or a
// generic one holding node references (a node that went through a list or
// an OPTIONAL MATCH). ok is false for null.
func nodeAt(v *vector.Vector, r int) (id uint64, ok bool, err error) {
	if v.IsNull(r) {
		return 0, false, nil
	}
	switch v.Type {
	case vector.Node:
		return v.IDs[r], true, nil
	case vector.Any:
		if ref, isNode := v.Any[r].(vector.NodeRef); isNode {
			return uint64(ref), true, nil
		}
		return 0, false, errs.Data("expected a node, got %s", functions.TypeName(v.Any[r]))
	case vector.Null:
		return 0, false, nil
	}
	return 0, false, errs.Data("expected a node, got %s", v.Type)
}

// sameRel reports whether row r of a relationship column holds rel (or,
// for a list of relationships, contains it).
func sameRel(v *vector.Vector, r int, rel uint64) bool {
	switch {
	case v.IsNull(r):
		return false
	case v.Type == vector.Rel:
		return v.IDs[r] == rel
	case v.Type == vector.Any:
		switch x := v.Any[r].(type) {
		case vector.RelRef:
			return uint64(x) == rel
		case []vector.Value: // the relationships of a variable-length pattern
			for _, y := range x {
				if ref, ok := y.(vector.RelRef); ok && uint64(ref) == rel {
					return true
				}
			}
		}
	}
	return false
}
