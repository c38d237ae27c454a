package exec

import (
	"github.com/quiverdb/quiver/engine/exec/inttable"
	"github.com/quiverdb/quiver/engine/exec/rowkey"
	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// hashAggregate groups its whole input by the key expressions, then emits
// one row per group: keys first, aggregates after. Groups are found by a
// hash map over the key encoding (rowkey.go) and numbered densely; each
// aggregate keeps its state in slices indexed by group number.
type hashAggregate struct {
	c    *Context
	in   Operator
	keys []expr.Evaluator
	aggs []*aggState

	// constant marks the keys that are a literal or a parameter: the same
	// in every row, so they never split a group and are left out of the
	// key encoding; allConst, every key is (RETURN 'Post' AS kind,
	// count(*)): one group, made by the first row, as grouping gives no
	// row over no input.
	constant []bool
	allConst bool

	dk     *dictKey  // grouping on dictionary codes (dictgroup.go), or nil
	mk     *multiKey // grouping on several keys' ids (multigroup.go), or nil
	groups map[string]int32
	// unmapped is the first group made by multiKey and not yet entered
	// in groups, -1 when every group is: a worker grouping on ids never
	// looks its groups up by their byte keys unless a row takes the
	// general path, so they are entered only then (mapGroups).
	unmapped int
	ints     inttable.Table // groups of a single integer key
	nodes    inttable.Table // groups of a single node key (hashagg_nodes.go)
	keyCols  []rowstore.Column
	ngroups  int
	key      []byte
	gidx     []int32 // group of each physical row of the current batch
	// held is the estimated bytes of keys and values kept, charged to
	// the query's memory budget per batch (hashagg_memory.go).
	held, charged int64

	// hint bounds the input's rows (rowsBound), 0 when unknown. When the
	// first batch makes a group of nearly every row, the state is sized
	// for hint groups at once instead of doubling its way there.
	hint     int
	presized bool

	done    bool
	emitted int
	results []rowstore.Column // aggregate values of every group, built once
	out     *vector.Batch
}

func newHashAggregate(c *Context, p *plan.Aggregate, in Operator) (*hashAggregate, error) {
	h := &hashAggregate{c: c, in: in, groups: map[string]int32{}, unmapped: -1, keyCols: make([]rowstore.Column, len(p.Keys)),
		gidx: make([]int32, vector.Capacity), out: &vector.Batch{Cols: make([]*vector.Vector, len(p.Cols))}}
	h.allConst = len(p.Keys) > 0
	for _, k := range p.Keys {
		ev, err := compile(c, k)
		if err != nil {
			return nil, err
		}
		h.keys = append(h.keys, ev)
		isConst := false
		switch k.(type) {
		case *plan.Const, *plan.Param:
			isConst = true
		}
		h.constant = append(h.constant, isConst)
		h.allConst = h.allConst && isConst
	}
	for _, a := range p.Aggs {
		st, err := newAggState(c, a, len(p.Keys) == 0)
		if err != nil {
			return nil, err
		}
		h.aggs = append(h.aggs, st)
	}
	if len(p.Keys) == 0 {
		h.newGroup() // a global aggregate has its one row even over no input
	}
	dk, err := newDictKey(c, p.Keys)
	if err != nil {
		return nil, err
	}
	h.dk = dk
	if dk == nil {
		if h.mk, err = newMultiKey(c, p.Keys); err != nil {
			return nil, err
		}
	}
	if len(p.Keys) > 0 {
		h.hint = rowsBound(c, p.Input)
	}
	return h, nil
}

func (h *hashAggregate) newGroup() int32 {
	g := int32(h.ngroups)
	h.ngroups++
	for _, a := range h.aggs {
		a.grow(h.ngroups)
	}
	return g
}

func (h *hashAggregate) Next() (*vector.Batch, error) {
	if !h.done {
		if err := h.consume(); err != nil {
			return nil, err
		}
		h.done = true
	}
	return h.emit()
}

// consume reads the whole input into the groups.
func (h *hashAggregate) consume() error {
	keyVecs := make([]*vector.Vector, len(h.keys))
	for {
		if err := h.c.CheckCancel(); err != nil {
			return err
		}
		b, err := h.in.Next()
		if err != nil {
			return err
		}
		if b == nil {
			return nil
		}
		if len(h.aggs) > 0 && h.ngroups+b.Rows() > h.aggs[0].room {
			// The batch's new groups may outgrow the state's arrays.
			if err := h.reserveGroups(b.Rows()); err != nil {
				return err
			}
		}
		coded := false
		switch {
		case h.allConst:
			coded, err = h.assignConst(b, keyVecs)
			if err != nil {
				return err
			}
		case h.dk != nil:
			if coded, err = h.assignByCodes(b); err != nil {
				return err
			}
		case h.mk != nil:
			if coded, err = h.assignByMultiCodes(b); err != nil {
				return err
			}
		}
		if !coded {
			for i, k := range h.keys {
				if keyVecs[i], err = k.Eval(b); err != nil {
					return err
				}
			}
			h.assignGroups(b, keyVecs)
		}
		if !h.presized {
			h.presized = true
			// Sized at once only when the sized state fits the limit
			// (else it grows, and fails, as it goes).
			if h.hint > h.ngroups && 10*h.ngroups >= 9*b.Rows() && h.c.Mem.Reserve(int64(h.hint)*h.groupBytes()) == nil {
				h.reserve(h.hint)
			}
		}
		for _, a := range h.aggs {
			if err := a.update(b, h.gidx); err != nil {
				return err
			}
		}
		if err := h.settle(); err != nil {
			return err
		}
	}
}

// assignGroups sets gidx[r] for each selected row r, creating groups for
// keys not seen before.
func (h *hashAggregate) assignGroups(b *vector.Batch, keyVecs []*vector.Vector) {
	if len(h.keys) == 0 {
		return // every row is group 0, as gidx was made: nothing writes it here
	}
	if len(keyVecs) == 1 && keyVecs[0].Type == vector.Int64 {
		h.assignInts(b, keyVecs)
		return
	}
	if len(keyVecs) == 1 && keyVecs[0].Type == vector.Node {
		h.assignNodes(b, keyVecs)
		return
	}
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		h.gidx[r] = h.lookup(keyVecs, r)
	}
}

// assignConst is assignGroups when every key is constant: the first
// selected row ever makes the one group (its keys evaluated then, once),
// and every row belongs to it.
func (h *hashAggregate) assignConst(b *vector.Batch, keyVecs []*vector.Vector) (bool, error) {
	if b.Rows() == 0 {
		return true, nil
	}
	if h.ngroups == 0 {
		for i, k := range h.keys {
			v, err := k.Eval(b)
			if err != nil {
				return false, err
			}
			keyVecs[i] = v
		}
		h.lookup(keyVecs, b.Row(0))
	}
	// Every row is group 0, as gidx was made: with constant keys nothing
	// writes it another value.
	return true, nil
}

// assignInts is assignGroups for one INTEGER key (assignDense).
func (h *hashAggregate) assignInts(b *vector.Batch, keyVecs []*vector.Vector) {
	assignDense(h, b, keyVecs, keyVecs[0].I64, &h.ints)
}

// assignDense is assignGroups for one key of integers or node ids, vals
// the key vector's values, t its table: a key already in the
// direct-mapped part of the table is one load; everything else (new
// groups, hashed keys, nulls) goes through lookup.
func assignDense[T int64 | uint64](h *hashAggregate, b *vector.Batch, keyVecs []*vector.Vector, vals []T, t *inttable.Table) {
	v := keyVecs[0]
	dense := t.Dense()
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if x := vals[r]; uint64(x) < uint64(len(dense)) && (v.Valid == nil || v.Valid.IsValid(r)) {
			if g := dense[x]; g != 0 {
				h.gidx[r] = g - 1
				continue
			}
		}
		h.gidx[r] = h.lookup(keyVecs, r)
		dense = t.Dense()
	}
}

// lookup returns the group of row r of the key vectors, creating it. A
// single node key and a single integer key (the common GROUP BY id) each
// have a table of their own (hashagg_nodes.go, package inttable); every other
// key goes by its byte encoding (rowkey.go). A node or an integer never
// has another encoding, so the tables cannot split a group.
func (h *hashAggregate) lookup(keyVecs []*vector.Vector, r int) int32 {
	if len(keyVecs) == 1 {
		if x, ok := inttable.NodeKey(keyVecs[0], r); ok {
			return h.lookupNode(keyVecs[0], r, x)
		}
		if x, ok := inttable.IntKey(keyVecs[0], r); ok {
			cell := h.ints.Ref(x)
			if *cell != 0 {
				return *cell - 1
			}
			g := h.newGroup()
			*cell = g + 1
			if keyVecs[0].Type == vector.Int64 {
				h.keyCols[0].PushInt(x)
			} else {
				h.keyCols[0].Push(keyVecs[0], r) // keeps the column generic
			}
			return g
		}
	}
	if h.unmapped >= 0 {
		h.mapGroups()
	}
	h.key = h.key[:0]
	for k, kv := range keyVecs {
		if !h.constant[k] {
			h.key = rowkey.Append(h.key, kv, r)
		}
	}
	g, ok := h.groups[string(h.key)]
	if !ok {
		g = h.newGroup()
		h.groups[string(h.key)] = g
		h.held += memory.KeyAllocBytes(len(h.key)) + memory.SetEntryBytes
		for k, kv := range keyVecs {
			h.keyCols[k].Push(kv, r)
			h.held += memory.RowPayloadBytes(kv, r)
		}
	}
	return g
}

// mapGroups enters the groups from h.unmapped on in groups by their
// keys' byte encoding, as lookup would have.
func (h *hashAggregate) mapGroups() {
	if len(h.groups) == 0 {
		h.groups = make(map[string]int32, h.ngroups)
	}
	for g := h.unmapped; g < h.ngroups; g++ {
		h.key = h.key[:0]
		for k := range h.keyCols {
			if !h.constant[k] {
				h.key = rowkey.Append(h.key, h.keyCols[k].V, g)
			}
		}
		h.groups[string(h.key)] = int32(g)
		h.held += memory.KeyAllocBytes(len(h.key)) + memory.SetEntryBytes
	}
	h.unmapped = -1
}

// rowsBound is an upper bound on the rows of in where the plan gives one
// for free: a label scan, or a count per start node, yields at most a
// row per node of the label. 0 means unknown.
func rowsBound(c *Context, in plan.Operator) int {
	var labels []string
	switch x := in.(type) {
	case *plan.NodeScan:
		labels = x.Labels
	case *plan.CountExpand:
		if !x.Grouped {
			return 0
		}
		labels = x.Labels
	default:
		return 0
	}
	if c.Tx == nil {
		return 0
	}
	n := c.Tx.NodeCount()
	for _, name := range labels {
		l, ok := c.Catalog.LookupLabel(name)
		if !ok {
			return 0
		}
		n = min(n, int64(c.Tx.LabelNodes(l).GetCardinality()))
	}
	return int(n)
}

// reserve sizes the group state for n groups.
func (h *hashAggregate) reserve(n int) {
	if len(h.keys) == 1 {
		if h.nodes.Len() > 0 {
			h.nodes.ReserveDense(n)
		} else {
			h.ints.ReserveDense(n)
		}
	}
	for _, a := range h.aggs {
		a.grow(n)
	}
	for k := range h.keyCols {
		if v := h.keyCols[k].V; v != nil && v.Type == vector.Int64 {
			v.I64 = rowstore.GrowInts(v.I64, n)[:len(v.I64)]
		}
	}
}

// emit returns the next batch of groups.
func (h *hashAggregate) emit() (*vector.Batch, error) {
	n := min(h.ngroups-h.emitted, vector.Capacity)
	if n <= 0 {
		h.release()
		return nil, nil
	}
	for k := range h.keyCols {
		h.out.Cols[k] = h.keyCols[k].EmitWith(h.c.pool(), h.out.Cols[k], h.emitted, n)
	}
	if h.results == nil {
		// Each aggregate's values are gathered over all groups before the
		// first batch leaves, so a column's type does not depend on which
		// groups share a batch.
		h.results = make([]rowstore.Column, len(h.aggs))
		var made int64
		for i, a := range h.aggs {
			if err := a.results(&h.results[i], h.ngroups); err != nil {
				return nil, err
			}
			made += a.resultBytes(&h.results[i])
		}
		h.charged += made
		if err := h.c.Mem.Charge(made); err != nil {
			return nil, err
		}
	}
	for i := range h.aggs {
		col := len(h.keyCols) + i
		h.out.Cols[col] = h.results[i].EmitWith(h.c.pool(), h.out.Cols[col], h.emitted, n)
	}
	h.emitted += n
	h.out.Len, h.out.Sel = n, nil
	return h.out, nil
}

// release gives the large state arrays back to the pool once every group
// has left (emitted batches hold copies).
func (h *hashAggregate) release() {
	if h.results == nil && h.ngroups > 0 {
		return // nothing emitted: the state may still be merged or read
	}
	for _, a := range h.aggs {
		a.st.Release()
	}
	for k := range h.keyCols {
		if v := h.keyCols[k].V; v != nil && v.Type == vector.Int64 {
			rowstore.PutInts(v.I64)
			v.I64 = nil
		}
	}
	h.results, h.keyCols = nil, nil
	h.ngroups, h.emitted = 0, 0
	h.c.Mem.Release(h.charged) // what is left is in the rows emitted
	h.charged = 0
}
