package exec

import (
	"encoding/binary"
	"math"
	"slices"
	"sort"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/exec/idset"
	"github.com/quiverdb/quiver/engine/exec/rowkey"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/temporal"
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

	dk      *dictKey  // grouping on dictionary codes (dictgroup.go), or nil
	mk      *multiKey // grouping on several keys' ids (multigroup.go), or nil
	groups  map[string]int32
	ints    intTable // groups of a single integer key (inttable.go)
	nodes   intTable // groups of a single node key (hashagg_nodes.go)
	keyCols []column
	ngroups int
	key     []byte
	gidx    []int32 // group of each physical row of the current batch
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
	results []column // aggregate values of every group, built once
	out     *vector.Batch
}

func newHashAggregate(c *Context, p *plan.Aggregate, in Operator) (*hashAggregate, error) {
	h := &hashAggregate{c: c, in: in, groups: map[string]int32{}, keyCols: make([]column, len(p.Keys)),
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
		st := &aggState{call: a, mem: &c.Mem}
		if a.Arg != nil {
			ev, err := compile(c, a.Arg)
			if err != nil {
				return nil, err
			}
			st.arg = ev
		}
		if a.P != nil {
			ev, err := compile(c, a.P)
			if err != nil {
				return nil, err
			}
			st.p = ev
		}
		if a.Distinct {
			st.seen = map[string]struct{}{}
			st.global = len(p.Keys) == 0
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
		if len(h.aggs) > 0 && h.ngroups+b.Rows() > len(h.aggs[0].count) {
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
		for i := 0; i < b.Rows(); i++ {
			h.gidx[b.Row(i)] = 0
		}
		return
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
	for i := 0; i < b.Rows(); i++ {
		h.gidx[b.Row(i)] = 0
	}
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
func assignDense[T int64 | uint64](h *hashAggregate, b *vector.Batch, keyVecs []*vector.Vector, vals []T, t *intTable) {
	v := keyVecs[0]
	dense := t.dense
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if x := vals[r]; uint64(x) < uint64(len(dense)) && (v.Valid == nil || v.Valid.IsValid(r)) {
			if g := dense[x]; g != 0 {
				h.gidx[r] = g - 1
				continue
			}
		}
		h.gidx[r] = h.lookup(keyVecs, r)
		dense = t.dense
	}
}

// lookup returns the group of row r of the key vectors, creating it. A
// single node key and a single integer key (the common GROUP BY id) each
// have a table of their own (hashagg_nodes.go, inttable.go); every other
// key goes by its byte encoding (rowkey.go). A node or an integer never
// has another encoding, so the tables cannot split a group.
func (h *hashAggregate) lookup(keyVecs []*vector.Vector, r int) int32 {
	if len(keyVecs) == 1 {
		if x, ok := nodeKey(keyVecs[0], r); ok {
			return h.lookupNode(keyVecs[0], r, x)
		}
		if x, ok := intKey(keyVecs[0], r); ok {
			cell := h.ints.ref(x)
			if *cell != 0 {
				return *cell - 1
			}
			g := h.newGroup()
			*cell = g + 1
			if keyVecs[0].Type == vector.Int64 {
				h.keyCols[0].pushInt(x)
			} else {
				h.keyCols[0].push(keyVecs[0], r) // keeps the column generic
			}
			return g
		}
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
			h.keyCols[k].push(kv, r)
			h.held += memory.RowPayloadBytes(kv, r)
		}
	}
	return g
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
		if h.nodes.total > 0 {
			h.nodes.reserveDense(n)
		} else {
			h.ints.reserveDense(n)
		}
	}
	for _, a := range h.aggs {
		a.grow(n)
	}
	for k := range h.keyCols {
		if v := h.keyCols[k].v; v != nil && v.Type == vector.Int64 {
			v.I64 = growInts(v.I64, n)[:len(v.I64)]
		}
	}
}

// intKey reads row r of v as an integer key, if it is one.
func intKey(v *vector.Vector, r int) (int64, bool) {
	if v.IsNull(r) {
		return 0, false
	}
	switch v.Type {
	case vector.Int64:
		return v.I64[r], true
	case vector.Any:
		x, ok := v.Any[r].(int64)
		return x, ok
	}
	return 0, false
}

// emit returns the next batch of groups.
func (h *hashAggregate) emit() (*vector.Batch, error) {
	n := min(h.ngroups-h.emitted, vector.Capacity)
	if n <= 0 {
		h.release()
		return nil, nil
	}
	for k := range h.keyCols {
		h.out.Cols[k] = h.keyCols[k].emit(h.out.Cols[k], h.emitted, n)
	}
	if h.results == nil {
		// Each aggregate's values are gathered over all groups before the
		// first batch leaves, so a column's type does not depend on which
		// groups share a batch.
		h.results = make([]column, len(h.aggs))
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
		h.out.Cols[col] = h.results[i].emit(h.out.Cols[col], h.emitted, n)
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
		putInts(a.count)
		putInts(a.isum)
		a.count, a.isum = nil, nil
	}
	for k := range h.keyCols {
		if v := h.keyCols[k].v; v != nil && v.Type == vector.Int64 {
			putInts(v.I64)
			v.I64 = nil
		}
	}
	h.results, h.keyCols = nil, nil
	h.ngroups, h.emitted = 0, 0
	h.c.Mem.Release(h.charged) // what is left is in the rows emitted
	h.charged = 0
}

// aggState is one aggregate's per-group state.
type aggState struct {
	call  plan.AggCall
	arg   expr.Evaluator
	p     expr.Evaluator      // the percentile argument
	count []int64             // count, and the number of values for sum/avg
	isum  []int64             // integer sums
	fsum  []float64           // float sums
	float []bool              // group's sum has met a FLOAT
	dsum  []temporal.Duration // duration sums
	dur   []bool              // group sums durations (its first value was one)
	best  []vector.Value      // min, max
	lists [][]vector.Value    // collect, and the values of percentiles
	mean  []float64           // stDev: running mean and sum of squared deviations
	m2    []float64
	pct   []float64                  // percentile of each group, from its first row
	seen  map[string]struct{}        // DISTINCT: group number + value key
	ids   [idset.Kinds]idset.PairSet // DISTINCT integers, nodes, relationships
	// global: the aggregate has one group (no keys), so DISTINCT nodes
	// and relationships are checked in bitsets over their ids (dense,
	// below the store's bound), allocated in blocks as ids are met so a
	// point query pays for what it sees (idset.VisitSet). Walks reach nodes
	// in clustered id order, so the bit tests stay in cache where a
	// hashed set scatters them: on Q6's count(DISTINCT c) over 121,671
	// nodes the pairSet's probes and growth cost about 15 ms (profile),
	// the bitset about 1 ms.
	global bool
	idBits [idset.Kinds]idset.VisitSet
	key    []byte
	held   int64 // estimated bytes of values kept (collect, DISTINCT)
	// mem is the statement's accountant: a list's large growth is
	// charged to it before it is allocated (growList), and charged holds
	// those charges until the aggregate's next count takes them in;
	// listCap is the capacity of every group's list, in values.
	mem     *memory.Tracker
	listCap int64
	charged int64
	// keep makes a DISTINCT aggregate also keep each group's distinct
	// values in dvals: a worker's partial state, merged by value
	// (parallel_agg.go).
	keep  bool
	dvals [][]vector.Value
}

// grow makes room for n groups. The state slices grow together, at
// least doubling, so adding a group costs no append per slice (on 1M
// groups the per-group appends were a tenth of the aggregation).
func (a *aggState) grow(n int) {
	if n <= len(a.count) {
		return
	}
	size := max(n, 2*len(a.count), 64)
	a.count = growInts(a.count, size)
	switch a.call.Func {
	case plan.AggSum, plan.AggAvg:
		a.isum = growInts(a.isum, size)
		if a.float != nil {
			a.fsum = growTo(a.fsum, size)
			a.float = growTo(a.float, size)
		}
		if a.dur != nil {
			a.dsum = growTo(a.dsum, size)
			a.dur = growTo(a.dur, size)
		}
	case plan.AggMin, plan.AggMax:
		a.best = growTo(a.best, size)
	case plan.AggCollect:
		a.lists = growTo(a.lists, size)
	case plan.AggStDev, plan.AggStDevP, plan.AggVariance, plan.AggVarianceP:
		a.mean = growTo(a.mean, size)
		a.m2 = growTo(a.m2, size)
	case plan.AggPercentileCont, plan.AggPercentileDisc:
		a.lists = growTo(a.lists, size)
		a.pct = growTo(a.pct, size)
	}
}

// isDur reports whether group g sums durations. The duration state is
// allocated at the first duration (sums of numbers never pay for it).
func (a *aggState) isDur(g int32) bool { return int(g) < len(a.dur) && a.dur[g] }

// addFloat adds a float to group g's sum. The float state is allocated
// at the first float: integer sums over many groups never pay for it.
func (a *aggState) addFloat(g int32, x float64) {
	if a.float == nil {
		a.float = make([]bool, len(a.count))
		a.fsum = make([]float64, len(a.count))
	}
	a.float[g] = true
	a.fsum[g] += x
}

// isFloat reports whether group g's sum has met a FLOAT.
func (a *aggState) isFloat(g int32) bool { return int(g) < len(a.float) && a.float[g] }

// fsumOf is group g's sum of floats.
func (a *aggState) fsumOf(g int32) float64 {
	if int(g) < len(a.fsum) {
		return a.fsum[g]
	}
	return 0
}

// setDur marks group g as summing durations.
func (a *aggState) setDur(g int32) {
	if a.dur == nil {
		a.dur = make([]bool, len(a.count))
		a.dsum = make([]temporal.Duration, len(a.count))
	}
	a.dur[g] = true
}

// growTo returns s extended with zero values to length n, in one new
// array (append of a made slice would zero twice).
func growTo[T any](s []T, n int) []T {
	if n <= cap(s) {
		t := s[:n]
		clear(t[len(s):])
		return t
	}
	t := make([]T, n)
	copy(t, s)
	return t
}

func (a *aggState) update(b *vector.Batch, gidx []int32) error {
	if a.arg == nil { // count(*)
		if b.Sel == nil {
			for r := 0; r < b.Len; r++ {
				a.count[gidx[r]]++
			}
		} else {
			for _, r := range b.Sel {
				a.count[gidx[r]]++
			}
		}
		return nil
	}
	v, err := a.arg.Eval(b)
	if err != nil {
		return err
	}
	var p *vector.Vector
	if a.p != nil {
		if p, err = a.p.Eval(b); err != nil {
			return err
		}
	}
	if a.call.Func == plan.AggCount && !a.call.Distinct {
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			if !v.IsNull(r) {
				a.count[gidx[r]]++
			}
		}
		return nil
	}
	if a.seen == nil && p == nil && (a.call.Func == plan.AggSum || a.call.Func == plan.AggAvg) {
		switch v.Type {
		case vector.Int64:
			return a.sumInts(b, v, gidx)
		case vector.Float64:
			return a.sumFloats(b, v, gidx)
		}
	}
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.IsNull(r) {
			continue
		}
		g := gidx[r]
		if p != nil {
			if err := a.percentile(g, p.Get(r)); err != nil {
				return err
			}
		}
		if a.seen != nil {
			if !a.firstSeen(g, v, r) {
				continue
			}
			if a.keep {
				for len(a.dvals) <= int(g) {
					a.dvals = append(a.dvals, nil)
				}
				x := v.Get(r)
				a.dvals[g] = append(a.dvals[g], x)
				a.held += memory.ValueBytes(x)
			}
		}
		if err := a.add(g, v, r); err != nil {
			return err
		}
	}
	return nil
}

// sumInts is sum and avg over an integer vector: the typed loop of add.
// A group that sums durations meets its error in add.
func (a *aggState) sumInts(b *vector.Batch, v *vector.Vector, gidx []int32) error {
	if b.Sel == nil && v.Valid == nil && len(a.dur) == 0 {
		return a.sumDenseInts(v.I64[:b.Len], gidx[:b.Len])
	}
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.Valid != nil && v.IsNull(r) {
			continue
		}
		g := gidx[r]
		if a.isDur(g) {
			if err := a.add(g, v, r); err != nil {
				return err
			}
			continue
		}
		a.count[g]++
		x := v.I64[r]
		s := a.isum[g] + x
		if (a.isum[g]^s)&(x^s) < 0 {
			return errs.DataCode(errs.CodeOverflow, "integer overflow in %s()", a.call.Func)
		}
		a.isum[g] = s
	}
	return nil
}

// sumDenseInts is sumInts over a dense batch without nulls, while no
// group has summed a duration: one loop of loads and adds, the overflow
// test folded into a flag read once at the end (Q2's avg(p.age) over 1M
// rows spent as long in the general loop as in gathering the values).
func (a *aggState) sumDenseInts(xs []int64, gidx []int32) error {
	count, isum := a.count, a.isum
	var ovf int64
	for r, x := range xs {
		g := gidx[r]
		count[g]++
		s := isum[g] + x
		ovf |= (isum[g] ^ s) & (x ^ s)
		isum[g] = s
	}
	if ovf < 0 {
		return errs.DataCode(errs.CodeOverflow, "integer overflow in %s()", a.call.Func)
	}
	return nil
}

// sumFloats is sum and avg over a float vector. A group that sums
// durations meets its error in add.
func (a *aggState) sumFloats(b *vector.Batch, v *vector.Vector, gidx []int32) error {
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.Valid != nil && v.IsNull(r) {
			continue
		}
		g := gidx[r]
		if a.isDur(g) {
			if err := a.add(g, v, r); err != nil {
				return err
			}
			continue
		}
		a.count[g]++
		a.addFloat(g, v.F64[r])
	}
	return nil
}

// firstSeen records row r of v (not null) among group g's distinct values
// and reports whether it is new there.
func (a *aggState) firstSeen(g int32, v *vector.Vector, r int) bool {
	if k, x, ok := idset.DistinctID(v, r); ok {
		if a.global && k != idset.KindInt {
			bits := &a.idBits[k]
			before := bits.Bytes()
			if !bits.Add(x) {
				return false
			}
			a.held += bits.Bytes() - before
			return true
		}
		set := &a.ids[k]
		before := set.Bytes()
		if !set.Add(g, x) {
			return false
		}
		a.held += set.Bytes() - before
		return true
	}
	a.key = rowkey.Append(binary.LittleEndian.AppendUint32(a.key[:0], uint32(g)), v, r)
	if _, dup := a.seen[string(a.key)]; dup {
		return false
	}
	a.seen[string(a.key)] = struct{}{}
	a.held += memory.KeyAllocBytes(len(a.key)) + memory.SetEntryBytes
	return true
}

// add folds row r of v into group g.
func (a *aggState) add(g int32, v *vector.Vector, r int) error {
	a.count[g]++
	switch a.call.Func {
	case plan.AggSum, plan.AggAvg:
		// A group sums numbers or durations, whichever its first value
		// is; the other kind after it is an error.
		if !a.isDur(g) {
			switch v.Type {
			case vector.Int64:
				return a.addInt(g, v.I64[r])
			case vector.Float64:
				a.addFloat(g, v.F64[r])
				return nil
			}
		}
		switch x := v.Get(r).(type) {
		case int64:
			if !a.isDur(g) {
				return a.addInt(g, x)
			}
		case float64:
			if !a.isDur(g) {
				a.addFloat(g, x)
				return nil
			}
		case temporal.Duration:
			if a.isDur(g) || a.count[g] == 1 {
				a.setDur(g)
				return a.addDuration(g, x)
			}
		default:
			return errs.Data("%s() expects numbers or durations, got %s", a.call.Func, functions.TypeName(x))
		}
		return errs.Data("%s() cannot mix numbers and durations", a.call.Func)
	case plan.AggMin, plan.AggMax:
		// Values of different types compare by Cypher's global order, as
		// ORDER BY sorts them. A typed row against a best of its own type
		// compares without boxing; only a new best is boxed.
		want := 1
		if a.call.Func == plan.AggMin {
			want = -1
		}
		switch v.Type {
		case vector.Int64:
			if b, ok := a.best[g].(int64); ok {
				if functions.CmpOrdered(v.I64[r], b) == want {
					a.best[g] = v.I64[r]
				}
				return nil
			}
		case vector.Float64:
			if b, ok := a.best[g].(float64); ok {
				if functions.CmpTotalFloat(v.F64[r], b) == want {
					a.best[g] = v.F64[r]
				}
				return nil
			}
		case vector.String:
			if b, ok := a.best[g].(string); ok {
				if functions.CmpOrdered(v.Str[r], b) == want {
					a.best[g] = v.Str[r]
				}
				return nil
			}
		}
		x := v.Get(r)
		if a.best[g] == nil {
			a.best[g] = x
			return nil
		}
		if functions.OrderTotal(x, a.best[g]) == want {
			a.best[g] = x
		}
	case plan.AggCollect:
		x := v.Get(r)
		if l := a.lists[g]; len(l) == cap(l) {
			if err := a.growList(g, len(l)+1); err != nil {
				return err
			}
		}
		a.lists[g] = append(a.lists[g], x)
		a.held += memory.ValueBytes(x) - memory.IfaceBytes // the slot is charged by capacity
	case plan.AggStDev, plan.AggStDevP, plan.AggVariance, plan.AggVarianceP:
		x, err := aggNumber(a.call.Func, v, r)
		if err != nil {
			return err
		}
		// Welford's update: numerically stable in one pass.
		d := x - a.mean[g]
		a.mean[g] += d / float64(a.count[g])
		a.m2[g] += d * (x - a.mean[g])
	case plan.AggPercentileCont, plan.AggPercentileDisc:
		x := v.Get(r)
		if _, err := aggNumber(a.call.Func, v, r); err != nil {
			return err
		}
		if l := a.lists[g]; len(l) == cap(l) {
			if err := a.growList(g, len(l)+1); err != nil {
				return err
			}
		}
		a.lists[g] = append(a.lists[g], x)
		a.held += memory.ValueBytes(x) - memory.IfaceBytes
	}
	return nil
}

// aggNumber reads row r of v as a number for the statistical aggregates.
func aggNumber(fn plan.AggFunc, v *vector.Vector, r int) (float64, error) {
	switch v.Type {
	case vector.Int64:
		return float64(v.I64[r]), nil
	case vector.Float64:
		return v.F64[r], nil
	}
	switch x := v.Get(r).(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, errs.Data("%s() expects numbers, got %s", aggName(fn), functions.TypeName(v.Get(r)))
}

// percentile checks a row's percentile argument and keeps a group's first.
func (a *aggState) percentile(g int32, p vector.Value) error {
	var f float64
	switch x := p.(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return errs.Data("%s() expects a numeric percentile, got %s", aggName(a.call.Func), functions.TypeName(p))
	}
	if !(f >= 0 && f <= 1) {
		return errs.Data("%s(): the percentile must be between 0.0 and 1.0, got %v", aggName(a.call.Func), f)
	}
	if len(a.lists[g]) == 0 {
		a.pct[g] = f
	}
	return nil
}

func aggName(fn plan.AggFunc) string {
	switch fn {
	case plan.AggStDev:
		return "stDev"
	case plan.AggStDevP:
		return "stDevP"
	case plan.AggVarianceP:
		return "varianceP"
	case plan.AggPercentileCont:
		return "percentileCont"
	case plan.AggPercentileDisc:
		return "percentileDisc"
	}
	return string(fn)
}

func (a *aggState) addInt(g int32, x int64) error {
	s := a.isum[g] + x
	if (a.isum[g]^s)&(x^s) < 0 {
		return errs.DataCode(errs.CodeOverflow, "integer overflow in %s()", a.call.Func)
	}
	a.isum[g] = s
	return nil
}

// addDuration adds a duration to group g's sum, component by component,
// refusing a component that leaves the int64 range.
func (a *aggState) addDuration(g int32, x temporal.Duration) error {
	var b temporal.DurationBuilder
	s := a.dsum[g]
	b.AddIntMonths(s.Months)
	b.AddIntMonths(x.Months)
	b.AddIntDays(s.Days)
	b.AddIntDays(x.Days)
	b.AddInt(s.Seconds, temporal.NanosPerSecond)
	b.AddInt(x.Seconds, temporal.NanosPerSecond)
	b.AddInt(int64(s.Nanos)+int64(x.Nanos), 1)
	d, err := b.Duration()
	if err != nil {
		return functions.TemporalErr(err)
	}
	a.dsum[g] = d
	return nil
}

// results appends the aggregate's value for every group to col.
func (a *aggState) results(col *column, ngroups int) error {
	if a.call.Func == plan.AggCount {
		col.v = &vector.Vector{Type: vector.Int64, I64: a.count[:ngroups]}
		col.n = ngroups
		return nil
	}
	if v := a.typedResults(ngroups); v != nil {
		col.v, col.n = v, ngroups
		return nil
	}
	for g := 0; g < ngroups; g++ {
		switch a.call.Func {
		case plan.AggSum:
			if a.isDur(int32(g)) {
				col.pushValue(a.dsum[g])
			} else if a.isFloat(int32(g)) {
				col.pushValue(a.fsumOf(int32(g)) + float64(a.isum[g]))
			} else {
				col.pushValue(a.isum[g])
			}
		case plan.AggAvg:
			switch {
			case a.count[g] == 0:
				col.pushValue(nil)
			case a.isDur(int32(g)):
				avg, err := functions.ScaleDuration('/', a.dsum[g], a.count[g])
				if err != nil {
					return err
				}
				col.pushValue(avg)
			default:
				col.pushValue((a.fsumOf(int32(g)) + float64(a.isum[g])) / float64(a.count[g]))
			}
		case plan.AggMin, plan.AggMax:
			col.pushValue(a.best[g])
		case plan.AggCollect:
			l := a.lists[g]
			if l == nil {
				l = []vector.Value{}
			}
			col.pushValue(l)
		case plan.AggStDev, plan.AggStDevP, plan.AggVariance, plan.AggVarianceP:
			col.pushValue(a.spread(g))
		case plan.AggPercentileCont, plan.AggPercentileDisc:
			col.pushValue(percentileOf(a.lists[g], a.pct[g], a.call.Func == plan.AggPercentileDisc))
		default:
			return errs.NotSupported("aggregate %s() is not supported yet", a.call.Func)
		}
	}
	return nil
}

// spread is group g's variance or standard deviation, from its running
// sum of squared deviations: sample (over n - 1) or population (over n),
// 0.0 with fewer values than that needs.
func (a *aggState) spread(g int) float64 {
	n := a.count[g]
	sample := a.call.Func == plan.AggStDev || a.call.Func == plan.AggVariance
	if sample {
		n--
	}
	if n <= 0 {
		return 0
	}
	v := a.m2[g] / float64(n)
	if a.call.Func == plan.AggStDev || a.call.Func == plan.AggStDevP {
		return math.Sqrt(v)
	}
	return v
}

// typedResults builds the values of sum and avg as one typed vector when
// no group summed durations and, for sum, the groups agree on INTEGER or
// FLOAT; nil sends the caller to the per-group path. On 1M groups that
// path boxed each value into a vector of its own.
func (a *aggState) typedResults(ngroups int) *vector.Vector {
	if a.call.Func != plan.AggSum && a.call.Func != plan.AggAvg {
		return nil
	}
	floats := 0
	for g := 0; g < ngroups; g++ {
		if a.isDur(int32(g)) {
			return nil
		}
		if a.isFloat(int32(g)) {
			floats++
		}
	}
	if a.call.Func == plan.AggSum {
		switch floats {
		case 0:
			return &vector.Vector{Type: vector.Int64, I64: a.isum[:ngroups]}
		case ngroups:
			out := make([]float64, ngroups)
			for g := range out {
				out[g] = a.fsumOf(int32(g)) + float64(a.isum[g])
			}
			return &vector.Vector{Type: vector.Float64, F64: out}
		}
		return nil
	}
	if !slices.ContainsFunc(a.count[:ngroups], func(c int64) bool { return c > 0 }) {
		return nil // no values, no type: the column stays generic
	}
	out := vector.New(vector.Float64, ngroups)
	for g := range ngroups {
		if a.count[g] == 0 {
			out.SetNull(g)
			continue
		}
		out.F64[g] = (a.fsumOf(int32(g)) + float64(a.isum[g])) / float64(a.count[g])
	}
	return out
}

// percentileOf is the p-th percentile of numbers: for percentileDisc the
// value at rank ceil(p·n) (the smallest for p = 0); for percentileCont the
// linear interpolation between the values around p·(n-1). Null without
// values.
func percentileOf(vals []vector.Value, p float64, disc bool) vector.Value {
	n := len(vals)
	if n == 0 {
		return nil
	}
	sort.SliceStable(vals, func(i, j int) bool { return functions.OrderTotal(vals[i], vals[j]) < 0 })
	if disc {
		idx := int(math.Ceil(p*float64(n))) - 1
		return vals[max(idx, 0)]
	}
	f := func(v vector.Value) float64 {
		if i, ok := v.(int64); ok {
			return float64(i)
		}
		return v.(float64)
	}
	pos := p * float64(n-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	if lo == hi {
		return f(vals[lo])
	}
	return f(vals[lo])*(float64(hi)-pos) + f(vals[hi])*(pos-float64(lo))
}

// pushInt appends a (non-null) integer key: a typed append while the
// column holds integers, the generic push otherwise.
func (c *column) pushInt(x int64) {
	if c.v == nil {
		c.v = &vector.Vector{Type: vector.Int64}
	}
	if c.v.Type != vector.Int64 {
		c.push(&vector.Vector{Type: vector.Int64, I64: []int64{x}}, 0)
		return
	}
	if len(c.v.I64) == cap(c.v.I64) {
		// Doubling, from the pool: append grows large slices by a
		// quarter, copying the keys of 1M groups about five times over.
		c.v.I64 = growInts(c.v.I64, max(2*len(c.v.I64), 1024))[:len(c.v.I64)]
	}
	c.v.I64 = append(c.v.I64, x)
	c.setNull(c.n, false)
	c.n++
}
