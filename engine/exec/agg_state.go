package exec

import (
	"encoding/binary"

	"github.com/quiverdb/quiver/engine/exec/idset"
	"github.com/quiverdb/quiver/engine/exec/rowkey"
	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// aggState is one aggregate call of an aggregation: its arguments'
// evaluators, the catalog's state for its function (engine/functions,
// which holds the per-group values and the typed loops), and DISTINCT,
// which is the same for every aggregate and so kept here: a row reaches
// the function's state only when its value is new to its group.
type aggState struct {
	call  plan.AggCall
	st    functions.AggState
	check functions.ArgChecker // a state that checks its parameter on every row, or nil
	arg   expr.Evaluator       // nil for count(*)
	p     expr.Evaluator       // the second argument (a percentile), or nil
	args  []*vector.Vector     // the batch's argument vectors
	// room is the number of groups the state has room for (grow).
	room int

	seen map[string]struct{}        // DISTINCT: group number + value key
	ids  [idset.Kinds]idset.PairSet // DISTINCT integers, nodes, relationships (pairset.go)
	// global: the aggregate has one group (no keys), so DISTINCT nodes
	// and relationships are checked in bitsets over their ids (dense,
	// below the store's bound), allocated in blocks as ids are met so a
	// point query pays for what it sees (visitset.go). Walks reach nodes
	// in clustered id order, so the bit tests stay in cache where a
	// hashed set scatters them: on Q6's count(DISTINCT c) over 121,671
	// nodes the PairSet's probes and growth cost about 15 ms (profile),
	// the bitset about 1 ms.
	global bool
	idBits [idset.Kinds]idset.VisitSet
	key    []byte
	held   int64 // estimated bytes of DISTINCT's sets and kept values
	// sel and sb carry a batch's first-seen rows to the state.
	sel []int32
	sb  vector.Batch
	// keep makes a DISTINCT aggregate also keep each group's distinct
	// values in dvals: a worker's partial state, merged by value
	// (parallel_agg.go).
	keep  bool
	dvals [][]vector.Value
}

// newAggState compiles call's arguments and makes its function's state;
// global says the aggregation has no keys (one group).
func newAggState(c *Context, call plan.AggCall, global bool) (*aggState, error) {
	a := &aggState{call: call, st: call.Func.New(aggEnv{&c.Mem}), args: make([]*vector.Vector, call.Func.Params)}
	a.check, _ = a.st.(functions.ArgChecker)
	var err error
	if call.Arg != nil {
		if a.arg, err = compile(c, call.Arg); err != nil {
			return nil, err
		}
	}
	if call.P != nil {
		if a.p, err = compile(c, call.P); err != nil {
			return nil, err
		}
	}
	if call.Distinct {
		a.seen = map[string]struct{}{}
		a.global = global
		a.sel = make([]int32, 0, vector.Capacity)
	}
	return a, nil
}

// grow makes room for n groups. The state's arrays grow together, at
// least doubling, so adding a group costs no call (on 1M groups the
// per-group appends were a tenth of the aggregation).
func (a *aggState) grow(n int) {
	if n <= a.room {
		return
	}
	a.room = max(n, 2*a.room, 64)
	a.st.Grow(a.room)
}

// update folds the selected rows of b into their groups (gidx).
func (a *aggState) update(b *vector.Batch, gidx []int32) error {
	if a.arg == nil { // count(*)
		return a.st.Update(b, a.args, gidx)
	}
	v, err := a.arg.Eval(b)
	if err != nil {
		return err
	}
	a.args[0] = v
	if a.p != nil {
		if a.args[1], err = a.p.Eval(b); err != nil {
			return err
		}
	}
	if a.seen == nil {
		return a.st.Update(b, a.args, gidx)
	}
	if a.check != nil {
		return a.updateChecked(b, gidx)
	}
	sel := a.sel[:0]
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if !v.IsNull(r) && a.firstSeen(gidx[r], v, r) {
			sel = append(sel, int32(r))
		}
	}
	a.sel = sel
	if len(sel) == 0 {
		return nil
	}
	a.sb = vector.Batch{Cols: b.Cols, Len: b.Len, Sel: sel}
	return a.st.Update(&a.sb, a.args, gidx)
}

// updateChecked is update for DISTINCT over a state that checks its
// parameter on every row, duplicates too: row by row, the check first.
func (a *aggState) updateChecked(b *vector.Batch, gidx []int32) error {
	v := a.args[0]
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.IsNull(r) {
			continue
		}
		g := gidx[r]
		if err := a.check.CheckArg(g, a.args, r); err != nil {
			return err
		}
		if !a.firstSeen(g, v, r) {
			continue
		}
		if err := a.st.Add(g, a.args, r); err != nil {
			return err
		}
	}
	return nil
}

// firstSeen records row r of v (not null) among group g's distinct values
// and reports whether it is new there; a worker's state also keeps it
// (keep).
func (a *aggState) firstSeen(g int32, v *vector.Vector, r int) bool {
	if !a.isNew(g, v, r) {
		return false
	}
	if a.keep {
		for len(a.dvals) <= int(g) {
			a.dvals = append(a.dvals, nil)
		}
		x := v.Get(r)
		a.dvals[g] = append(a.dvals[g], x)
		a.held += memory.ValueBytes(x)
	}
	return true
}

// isNew is firstSeen's set lookup.
func (a *aggState) isNew(g int32, v *vector.Vector, r int) bool {
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

// results sets col to the aggregate's value for every group.
func (a *aggState) results(col *rowstore.Column, ngroups int) error {
	v, err := a.st.Result(ngroups, col.PushValue)
	if err != nil {
		return err
	}
	if v != nil {
		col.V, col.N = v, ngroups
	}
	return nil
}

// aggEnv gives the functions' states the pooled arrays (rowstore.GrowInts) and
// the statement's accountant, which a list's large growth is charged to
// before it is allocated (rowstore.GrowList).
type aggEnv struct{ mem *memory.Tracker }

func (e aggEnv) GrowInts(s []int64, n int) []int64 { return rowstore.GrowInts(s, n) }
func (e aggEnv) PutInts(s []int64)                 { rowstore.PutInts(s) }

func (e aggEnv) GrowList(s []vector.Value, need int) ([]vector.Value, int, int64, error) {
	return rowstore.GrowList(e.mem, s, need, memory.IfaceBytes)
}
