package exec

import (
	"slices"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// relScanAgg computes an Aggregate over one expansion from a node scan,
// grouped by an INTEGER property of the relationship and counting rows,
// as a scan of the property's values: `MATCH (a:Person)-[k:KNOWS]->(b:Person)
// RETURN k.since, count(*)` is `SELECT since, count(*) FROM knows GROUP
// BY since`. When both end labels are carried by every live node (or
// there are none), the rows are the relationships of the types, each
// once for a directed pattern and twice for an undirected one (a
// self-loop once, as the general path's undirected expansion skips a
// loop's incoming entry). A type's forward CSR holds each live
// relationship in one slot, so the rows' keys are the property's
// slot-ordered view (RelSlotView) read in order, counted per value in a
// dense array while the view is at most 16 bits wide, in a map
// otherwise (IntView.Tally). No list is decoded, no row hashed (rule
// rel-scan-agg). A second key, a property of the start node, is
// rel_scan_node.go's.
//
// A slot-ordered view holds the base's relationships only, so the
// strategy applies while every list has no overlay (the relationships
// written since the last compaction), the property has an integer view,
// and the statement has not written; otherwise the Aggregate runs as
// usual and PROFILE says why.
type relScanAgg struct {
	c      *Context
	p      *plan.Aggregate
	relKey int // the key of a.Keys that is the relationship's property
	bases  []*storage.AdjacencyBase
	views  []*storage.IntView
	both   bool // undirected: each relationship twice, a loop once
	// node, when the Aggregate has a start-node key, codes it per node;
	// the lists are then read from each row's start node (rel_scan_node.go).
	node *nodeKeys
	// skipLoops marks, per base, incoming lists of an undirected pattern
	// read per start node, whose loops the outgoing lists already gave.
	skipLoops []bool

	done   bool
	groups []relGroup
	// types are the key columns' vector types, as the general path's
	// grouping gives them (keyTypes).
	types []vector.Type
	pos   int
	out   *vector.Batch
}

// relGroup is one group: the start node's key (when there is one), the
// relationship's (null when relNull) and its rows.
type relGroup struct {
	node    vector.Value
	rel     int64
	relNull bool
	n       int64
}

// newRelScanAgg returns the operator for p when the physical pass chose
// rel-scan-agg for it and the guards hold; nil sends Build to the
// general plan (PROFILE says why).
func newRelScanAgg(c *Context, p plan.Operator) *relScanAgg {
	a, ok := p.(*plan.Aggregate)
	if !ok || !plan.Chose(a, plan.RuleRelScanAgg) {
		return nil
	}
	if c.Tx.Writes() {
		c.fellBack(a, plan.RuleRelScanAgg, "this transaction has written")
		return nil
	}
	ex := a.Input.(*plan.Expand) // the pass checked the shape
	scan := ex.Input.(*plan.NodeScan)
	labels, missing := resolveLabels(c, append(slices.Clip(scan.Labels), ex.ToLabels...))
	if missing || !labelsCover(c.Tx, labels) {
		c.fellBack(a, plan.RuleRelScanAgg, "an end label is not carried by every live node")
		return nil
	}
	r := &relScanAgg{c: c, p: a, both: ex.Dir == plan.Both}
	var nodeKey string
	for i, e := range a.Keys {
		if e.(*plan.Property).Of.(*plan.ColRef).Idx == 1 {
			r.relKey = i
		} else {
			nodeKey = e.(*plan.Property).Key
		}
	}
	key := a.Keys[r.relKey].(*plan.Property).Key
	k, ok := c.Catalog.LookupKey(key)
	if !ok {
		c.fellBack(a, plan.RuleRelScanAgg, "property "+key+" has no values")
		return nil
	}
	// The forward lists hold every relationship once, whatever the
	// pattern's direction; grouped by the start node too, the lists are
	// the pattern's own.
	dir := plan.Out
	if nodeKey != "" {
		dir = ex.Dir
	}
	adjs := openAdjs(c, ex.Types, dir)
	demand := 0
	for _, l := range adjs {
		if l.adj.OverlaySize() != 0 {
			c.fellBack(a, plan.RuleRelScanAgg, "relationships were written since the last compaction")
			return nil
		}
		demand += l.adj.NumEdges()
	}
	for _, l := range adjs {
		base := l.adj.Base()
		r.skipLoops = append(r.skipLoops, l.skipLoops)
		v := c.Tx.RelSlotView(k, base, demand)
		if v == nil {
			c.fellBack(a, plan.RuleRelScanAgg, "property "+key+" has no integer view")
			return nil
		}
		if len(r.views) > 0 && (v.Base() != r.views[0].Base() || v.Codes() != r.views[0].Codes()) {
			// The tallies of every view are decoded with the first one's
			// base: a view a base stored by another build may differ.
			c.fellBack(a, plan.RuleRelScanAgg, "the views of property "+key+" are encoded differently")
			return nil
		}
		r.bases, r.views = append(r.bases, base), append(r.views, v)
	}
	if nodeKey != "" {
		if r.node = newNodeKeys(c, a, nodeKey, adjs, r.views); r.node == nil {
			return nil
		}
	}
	r.out = &vector.Batch{Cols: make([]*vector.Vector, len(a.Cols))}
	return r
}

// relScanChunk is the slots a worker tallies between cancellation
// checks.
const relScanChunk = 1 << 16

// relTally is one worker's counts: by code (every view of a column
// shares its base and width) or by value.
type relTally struct {
	dense  []int64
	sparse map[int64]int64
	nulls  int64
}

func (r *relScanAgg) Next() (*vector.Batch, error) {
	if !r.done {
		r.done = true
		if err := r.run(); err != nil {
			return nil, err
		}
		r.types = r.keyTypes()
	}
	if err := r.c.CheckCancel(); err != nil {
		return nil, err
	}
	if r.pos >= len(r.groups) {
		return nil, nil
	}
	n := min(len(r.groups)-r.pos, vector.Capacity)
	for j := range r.p.Keys {
		v := vector.Reuse(r.out.Cols[j], r.types[j])
		for i := range n {
			g := &r.groups[r.pos+i]
			switch {
			case j != r.relKey:
				v.Set(i, g.node)
			case g.relNull:
				v.SetNull(i)
			default:
				v.Set(i, g.rel)
			}
		}
		r.out.Cols[j] = v
	}
	for j := len(r.p.Keys); j < len(r.p.Cols); j++ {
		v := vector.Reuse(r.out.Cols[j], r.p.Cols[j].Type)
		for i := range n {
			v.Set(i, r.groups[r.pos+i].n)
		}
		r.out.Cols[j] = v
	}
	r.pos += n
	r.out.Len, r.out.Sel = n, nil
	return r.out, nil
}

// keyTypes are the key columns' vector types: the plan's where it knows
// one, else what the general path's grouping gives (rowstore.Column): the
// one type of the keys' values, Any when they mix or are all null.
func (r *relScanAgg) keyTypes() []vector.Type {
	types := make([]vector.Type, len(r.p.Keys))
	for j := range types {
		if t := r.p.Cols[j].Type; t != vector.Any {
			types[j] = t
			continue
		}
		t := vector.Null
		for i := range r.groups {
			g := &r.groups[i]
			var vt vector.Type
			switch {
			case j == r.relKey && g.relNull, j != r.relKey && g.node == nil:
				continue
			case j == r.relKey:
				vt = vector.Int64
			default:
				vt = vector.TypeOf(g.node)
			}
			if t == vector.Null {
				t = vt
			} else if t != vt {
				t = vector.Any
				break
			}
		}
		if t == vector.Null {
			t = vector.Any
		}
		types[j] = t
	}
	return types
}

// run tallies every type's slots on the query's workers, then turns the
// counts into groups.
func (r *relScanAgg) run() error {
	if r.node != nil {
		return r.runByNode()
	}
	type job struct {
		view     int
		from, to uint64
	}
	var jobs []job
	slots := int64(0)
	for i, b := range r.bases {
		n := uint64(b.NumEdges())
		for s := uint64(0); s < n; s += relScanChunk {
			jobs = append(jobs, job{i, s, min(s+relScanChunk, n)})
		}
		slots += int64(n)
	}
	codes := 0
	if len(r.views) > 0 {
		codes = r.views[0].Codes()
	}
	workers := max(1, min(r.c.Parallelism, len(jobs)))
	if err := r.c.Mem.Charge(int64(workers) * int64(codes) * 8); err != nil {
		return err
	}
	tallies := make([]*relTally, workers)
	for w := range tallies {
		tallies[w] = &relTally{dense: make([]int64, codes), sparse: map[int64]int64{}}
	}
	err := runJobs(r.c, len(jobs), workers, func(w, i int) error {
		t, j := tallies[w], jobs[i]
		t.nulls += r.views[j.view].Tally(j.from, j.to, t.dense, t.sparse)
		return nil
	})
	if err != nil {
		return err
	}
	r.c.Counters.RowsScanned += slots
	r.c.Counters.DBHits += slots
	sum := tallies[0]
	for _, t := range tallies[1:] {
		for c, n := range t.dense {
			sum.dense[c] += n
		}
		for x, n := range t.sparse {
			sum.sparse[x] += n
		}
		sum.nulls += t.nulls
	}
	if r.both {
		for c := range sum.dense {
			sum.dense[c] *= 2
		}
		for x := range sum.sparse {
			sum.sparse[x] *= 2
		}
		sum.nulls *= 2
		r.dropLoops(sum)
	}
	if codes > 0 {
		base := r.views[0].Base()
		for c, n := range sum.dense {
			if n > 0 {
				r.groups = append(r.groups, relGroup{rel: base + int64(c), n: n})
			}
		}
	}
	for x, n := range sum.sparse {
		if n > 0 {
			r.groups = append(r.groups, relGroup{rel: x, n: n})
		}
	}
	if sum.nulls > 0 {
		r.groups = append(r.groups, relGroup{relNull: true, n: sum.nulls})
	}
	return r.c.Mem.Charge(int64(len(r.groups)) * 48)
}

// dropLoops takes one row off each self-loop's value, which an
// undirected pattern matches once: the loops are few, found from each
// base's cached loop set.
func (r *relScanAgg) dropLoops(t *relTally) {
	var nbrs []uint64
	for i, b := range r.bases {
		loops := b.Loops()
		off := b.Offsets()
		v := r.views[i]
		for j, node := range loops {
			if j > 0 && loops[j-1] == node {
				continue // a node's parallel loops are found together
			}
			nbrs = b.AppendNeighbors(nbrs[:0], node)
			for s, nb := range nbrs {
				if nb != node {
					continue
				}
				slot := off[node] + uint64(s)
				x, ok := v.Get(slot)
				switch {
				case !ok:
					t.nulls--
				case v.Codes() > 0:
					t.dense[x-v.Base()]--
				default:
					t.sparse[x]--
				}
			}
		}
	}
}
