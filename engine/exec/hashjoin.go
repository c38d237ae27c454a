package exec

import (
	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// hashJoin pairs Left rows with Right rows of equal key (USING JOIN ON).
// It materialises Right once, hashing each row's key by its index-key
// encoding (storage.AppendIndexKey: Cypher equality, so 1 joins 1.0),
// then streams Left, emitting up to Capacity pairs per batch. Null keys
// join nothing. Right's rows are charged as a sort's are (rowstore.HeldRows: by
// their arrays' capacity), and the table by its entries: each key's
// bytes and map entry when it first comes, and twice a row's position
// for the room of the key's list (an append doubles it), once a batch.
// All of it is given back when Left is exhausted.
type hashJoin struct {
	c            *Context
	p            *plan.HashJoin
	left, right  Operator
	lkey, rkey   expr.Evaluator
	lexpr, rexpr plan.Expr // the keys as planned (hashjoin_one.go)
	nl           int       // the probe side's columns
	nr           int       // the plan's Right's columns
	// An adaptive join (plan.HashJoin.Adaptive, hashjoin_adaptive.go)
	// may swap the roles: left and right then name the probe and build
	// sides, and buildFirst puts the built rows' columns first in its
	// output, as they are in the plan's. pending holds Left's rows read
	// while choosing, probed before the rest of Left.
	adaptive    bool
	buildFirst  bool
	pending     *vector.Batch
	pendingKeys []string
	pendingHeld rowstore.HeldRows

	loaded bool
	rcols  []rowstore.Column
	table  map[string][]int32
	held   rowstore.HeldRows // Right's rows
	tabled int64             // what the table is charged

	lb     *vector.Batch
	lrows  []int32   // the rows of lb that match some of the table's
	lmatch [][]int32 // and the table's rows each matches
	// oneKey and oneRows are the table's only key and its rows, once
	// match has met a table of one key; first is the value of the first
	// key tabled (hashjoin_one.go).
	oneKey  []byte
	oneRows []int32
	first   vector.Value
	one     oneKeyTest
	lpos    int // index in lrows of the row being paired
	mpos    int // next match of that row
	lidx    []int32
	ridx    []int32
	out     *vector.Batch
	kbuf    []byte

	// also are the plan's further equalities, tested early on a table of
	// one row (hashjoin_also.go).
	also      []alsoKey
	alsoReady bool
	alsoOff   bool
	alsoCodes []int32
	alsoLoose []int32
	alsoStrs  *vector.Vector

	// gather is the probe side's workers when it runs on them
	// (hashjoin_parallel.go); probeChosen is set once that is decided.
	gather      *gatherOp
	probeChosen bool

	// kept is a batch of Left pulled while filling out whose columns'
	// types differ from out's, paired on the next call; leftDone is set
	// once Left is exhausted.
	kept        *vector.Batch
	keptPending bool
	leftDone    bool
}

func newHashJoin(c *Context, p *plan.HashJoin, l, r Operator) (*hashJoin, error) {
	lk, err := compile(c, p.LeftKey)
	if err != nil {
		return nil, err
	}
	rk, err := compile(c, p.RightKey)
	if err != nil {
		return nil, err
	}
	h := &hashJoin{c: c, p: p, left: l, right: r, lkey: lk, rkey: rk, lexpr: p.LeftKey, rexpr: p.RightKey, nl: len(p.Left.Columns()),
		adaptive: p.Adaptive, table: map[string][]int32{}}
	if p.Adaptive {
		h.nr = len(p.Right.Columns())
	}
	if h.also, err = newAlsoKeys(c, p); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *hashJoin) key(v *vector.Vector, r int) (string, bool) {
	if v.IsNull(r) {
		return "", false
	}
	k, ok := storage.AppendIndexKey(h.kbuf[:0], v.Get(r))
	h.kbuf = k
	return string(k), ok
}

// match is the table's rows whose key equals row r's of v: the key is
// encoded into kbuf and looked up without making a string of it.
func (h *hashJoin) match(v *vector.Vector, r int) []int32 {
	if v.IsNull(r) {
		return nil
	}
	if len(h.table) == 1 {
		h.prepareOne()
		if eq, known := h.one.equal(v, r); known {
			if eq {
				return h.oneRows
			}
			return nil
		}
	}
	var k []byte
	var ok bool
	switch v.Type {
	case vector.Int64:
		k, ok = storage.AppendIndexKey(h.kbuf[:0], v.I64[r])
	case vector.String:
		k, ok = storage.AppendIndexKey(h.kbuf[:0], v.Str[r])
	default:
		k, ok = storage.AppendIndexKey(h.kbuf[:0], v.Get(r))
	}
	h.kbuf = k
	if !ok {
		return nil
	}
	if len(h.table) == 1 {
		// One key (a join against one row, the common adaptive case):
		// a comparison of bytes, not a hash.
		if string(k) == string(h.oneKey) {
			return h.oneRows
		}
		return nil
	}
	return h.table[string(k)]
}

// prepareOne notes a table's one key, its rows and its test.
func (h *hashJoin) prepareOne() {
	if h.oneKey == nil {
		for key, rows := range h.table {
			h.oneKey, h.oneRows = []byte(key), rows
		}
		h.one = oneKeyTestOf(h.first)
	}
}

// matchBatch sets lrows and lmatch to b's rows that match, by keys, and
// the table's rows each matches. A table of one INTEGER key against a
// column of INTEGERs compares in one loop.
func (h *hashJoin) matchBatch(keys *vector.Vector, b *vector.Batch) {
	h.lrows, h.lmatch = h.lrows[:0], h.lmatch[:0]
	n := b.Rows()
	if len(h.table) == 1 && keys.Type == vector.Int64 {
		if h.prepareOne(); h.one.intKind == oneEqual {
			want, rows := h.one.i, h.oneRows
			for i := range n {
				if r := b.Row(i); keys.I64[r] == want && !keys.IsNull(r) {
					h.lrows = append(h.lrows, int32(r))
					h.lmatch = append(h.lmatch, rows)
				}
			}
			return
		}
	}
	for i := range n {
		r := b.Row(i)
		if m := h.match(keys, r); len(m) > 0 {
			h.lrows = append(h.lrows, int32(r))
			h.lmatch = append(h.lmatch, m)
		}
	}
}

func (h *hashJoin) load() error {
	h.loaded = true
	n := int32(0)
	for {
		b, err := h.right.Next()
		if err != nil || b == nil {
			return err
		}
		if h.rcols == nil {
			h.rcols = make([]rowstore.Column, len(b.Cols))
		}
		if err := h.held.Add(&h.c.Mem, h.rcols, b); err != nil {
			return err
		}
		keys, err := h.rkey.Eval(b)
		if err != nil {
			return err
		}
		var added int64
		for i := 0; i < b.Rows(); i++ {
			if k, ok := h.key(keys, b.Row(i)); ok {
				if len(h.table) == 0 {
					h.first = keys.Get(b.Row(i))
				}
				list, seen := h.table[k]
				if !seen {
					added += memory.KeyAllocBytes(len(k)) + memory.ListEntryBytes
				}
				h.table[k] = append(list, n)
				added += 2 * 4 // the list's room: up to twice its positions
			}
			n++
		}
		h.tabled += added
		if err := h.c.Mem.Charge(added); err != nil {
			return err
		}
	}
}

// drop gives back what the join holds once Left is exhausted.
func (h *hashJoin) drop() {
	h.pendingHeld.Release(&h.c.Mem)
	h.pending, h.pendingKeys = nil, nil
	h.held.Release(&h.c.Mem)
	h.c.Mem.Release(h.tabled)
	h.tabled = 0
	h.table, h.rcols = nil, nil
}

func (h *hashJoin) Next() (*vector.Batch, error) {
	if !h.loaded {
		load := h.load
		if h.adaptive {
			load = h.loadAdaptive
		}
		if err := load(); err != nil {
			return nil, err
		}
	}
	if len(h.table) == 0 {
		h.drop() // Right's rows all had null keys, or there were none
		return nil, nil
	}
	if !h.probeChosen {
		h.probeChosen = true
		if err := h.probeOnWorkers(); err != nil {
			return nil, err
		}
	}
	if h.gather != nil {
		b, err := h.gather.Next()
		if b == nil && err == nil {
			h.drop() // every worker is done with the table
		}
		return b, err
	}
	if h.leftDone {
		h.drop()
		return nil, nil
	}
	h.lidx, h.ridx = h.lidx[:0], h.ridx[:0]
	n, pulls := 0, 0 // the rows copied into out, the batches of Left pulled
	for n+len(h.lidx) < vector.Capacity {
		if h.lb != nil && h.lpos < len(h.lrows) {
			matches := h.lmatch[h.lpos]
			take := min(len(matches)-h.mpos, vector.Capacity-n-len(h.lidx))
			lrow := h.lrows[h.lpos]
			for _, m := range matches[h.mpos : h.mpos+take] {
				h.lidx = append(h.lidx, lrow)
				h.ridx = append(h.ridx, m)
			}
			h.mpos += take
			if h.mpos >= len(matches) {
				h.lpos++
				h.mpos = 0
			}
			continue
		}
		// lb is paired out: its pairs are copied before a pull replaces it.
		if len(h.lidx) > 0 {
			h.copyOut(n)
			n += len(h.lidx)
			h.lidx, h.ridx = h.lidx[:0], h.ridx[:0]
		}
		if n > 0 && pulls >= h.fillPulls() {
			break
		}
		if err := h.c.CheckCancel(); err != nil {
			return nil, err
		}
		b, pending, err := h.pull()
		if err != nil {
			return nil, err
		}
		if b == nil {
			h.leftDone = true
			break
		}
		if n > 0 && !h.sameTypes(b) {
			h.kept, h.keptPending = b, pending // paired on the next call
			break
		}
		pulls++
		if err := h.probe(b, pending); err != nil {
			return nil, err
		}
	}
	if len(h.lidx) > 0 {
		h.copyOut(n)
		n += len(h.lidx)
	}
	if n == 0 { // Left is exhausted
		h.drop()
		return nil, nil
	}
	h.out.Len, h.out.Sel = n, nil
	return h.out, nil
}
