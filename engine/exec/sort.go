package exec

import (
	"container/heap"

	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// sortOp orders its input. Without a limit it reads every row into
// chunks, joins them into columns once the last is in (rowstore.Chunks) and
// sorts a permutation; with LIMIT it keeps only the best skip+limit rows
// in a heap, so ORDER BY … LIMIT k costs O(n log k) time and O(k)
// memory. What it keeps is charged by the room it takes, the
// permutation's included, before it is allocated.
type sortOp struct {
	c    *Context
	in   Operator
	keys []plan.SortKey
	topK int64 // -1: sort everything
	// typed: the rows are sorted through their keys' typed slices on
	// the statement's workers (rule typed-sort, sort_typed.go).
	typed bool

	done bool
	cols []rowstore.Column
	perm []int32
	pos  int
	out  *vector.Batch
	// A sort of every row keeps them in chunks until the last is in
	// (rowstore.Chunks), a top-k sort in columns it prunes (HeldRows);
	// permHeld is the permutation's array.
	chunks   rowstore.Chunks
	held     rowstore.HeldRows
	permHeld int64
	// bar is the buffered row a new row must beat to enter the top k
	// (the worst of the k best after a prune), -1 while there is none.
	// Rows that do not beat it are dropped on arrival, before they are
	// charged or copied: on 1M rows with LIMIT 10 almost every row
	// (BenchmarkTopK: 19.6 ms buffering and pruning, 1.7 ms dropping).
	bar int
	// pub is where the bar's first key is published to the test above
	// the scan (rule topk-bar, topk_bar.go), nil without one.
	pub  *topBar
	then []*vector.Vector // the held second and third keys, published with the bar
	// prime is the scan the Sort's Project reads directly, whose codes
	// may give the bar before the first row (topk_prime.go).
	prime *plan.NodeScan
	sel   []int32
	view  vector.Batch
}

func newSort(c *Context, p *plan.Sort, in Operator) (*sortOp, error) {
	s := &sortOp{c: c, in: in, keys: p.Keys, topK: -1, bar: -1, typed: plan.Chose(p, plan.RuleTypedSort)}
	if plan.Chose(p, plan.RuleTopKSort) {
		limit, err := countValue(c, p.Limit, "LIMIT")
		if err != nil {
			return nil, err
		}
		var skip int64
		if p.Skip != nil {
			if skip, err = countValue(c, p.Skip, "SKIP"); err != nil {
				return nil, err
			}
		}
		s.topK = limit + skip
		if s.topK < 0 { // overflow: keep everything
			s.topK = -1
		}
	}
	return s, nil
}

func (s *sortOp) Next() (*vector.Batch, error) {
	if !s.done {
		if err := s.consume(); err != nil {
			return nil, err
		}
		s.done = true
	}
	n := min(len(s.perm)-s.pos, vector.Capacity)
	if n <= 0 {
		s.drop()
		return nil, nil
	}
	if s.out == nil {
		s.out = &vector.Batch{Cols: make([]*vector.Vector, len(s.cols))}
	}
	idx := s.perm[s.pos : s.pos+n]
	for c := range s.cols {
		src := s.cols[c].V
		if src == nil {
			s.out.Cols[c] = expr.NullVector
			continue
		}
		s.out.Cols[c] = vector.Reuse(s.out.Cols[c], src.Type)
		vector.CopyRows(s.out.Cols[c], 0, src, idx)
	}
	s.out.Len, s.out.Sel = n, nil
	s.pos += n
	return s.out, nil
}

// consume reads the input; with a top-k bound it evicts rows that can no
// longer make the cut whenever the buffer doubles past k.
func (s *sortOp) consume() error {
	s.primeBar()
	for {
		if err := s.c.CheckCancel(); err != nil {
			return err
		}
		b, err := s.in.Next()
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if s.cols == nil {
			s.cols = make([]rowstore.Column, len(b.Cols))
		}
		if s.topK == 0 {
			continue
		}
		if s.bar >= 0 {
			if b = s.contenders(b); b == nil {
				continue
			}
		}
		if s.topK < 0 {
			if err := s.chunks.Add(&s.c.Mem, b); err != nil {
				return err
			}
			continue
		}
		if err := s.held.Add(&s.c.Mem, s.cols, b); err != nil {
			return err
		}
		if int64(s.rows()) > s.pruneAt() {
			before := s.rows()
			if err := s.prune(); err != nil {
				return err
			}
			// The pruned rows are gone: give back their share, and the
			// arrays they were in.
			s.held.KeepShare(&s.c.Mem, s.rows(), before)
			if err := s.held.Recount(&s.c.Mem, s.cols); err != nil {
				return err
			}
			if int64(s.rows()) == s.topK {
				s.bar = s.rows() - 1
				if s.pub != nil {
					s.then = s.then[:0]
					for _, k := range s.keys[1:min(plan.TopKBarKeys, len(s.keys))] {
						s.then = append(s.then, s.cols[k.Col].V)
					}
					s.pub.publish(s.cols[s.keys[0].Col].V, s.then, s.bar)
				}
			}
		}
	}
	if s.topK < 0 && s.cols != nil {
		cols, err := s.chunks.Columns(&s.c.Mem, len(s.cols))
		if err != nil {
			return err
		}
		s.cols = cols
	}
	if err := s.identity(); err != nil {
		return err
	}
	if s.topK >= 0 && int64(len(s.perm)) > s.topK {
		return s.selectTop()
	}
	return s.sortPerm()
}

// sortPerm sorts perm, typed or through less.
func (s *sortOp) sortPerm() error {
	if s.typed {
		return s.sortTyped(s.perm)
	}
	return sortRows(s.c, s.perm, s.less)
}

// pruneAt is the buffered rows past which a top-k sort prunes to its
// best k: twice k, or for the typed sort, whose prune of rows in input
// order is a radix pass when the key allows, eight times k, so that a
// large k (a deep SKIP) prunes a few times rather than once per 2k rows.
// The sort prunes at most once a batch, so a small k does not prune per
// row; and it prunes at the end of the first batch, so that the bar of
// rule topk-bar is known from the second batch on, and tightens every
// few batches of the rows that still pass it.
func (s *sortOp) pruneAt() int64 {
	if s.typed {
		return 8*s.topK + 64
	}
	return 2*s.topK + 64
}

// identity sets perm to the rows in input order, its array charged
// before it is allocated (4 bytes a row beside the rows themselves).
func (s *sortOp) identity() error {
	n := s.rows()
	perm, grown, err := rowstore.GrowHeld(&s.c.Mem, s.perm[:0], n, 4)
	s.permHeld += grown
	if err != nil {
		return err
	}
	s.perm = perm[:n]
	for i := range s.perm {
		s.perm[i] = int32(i)
	}
	return nil
}

// drop gives back the rows and their charge once every row has left
// (emitted batches hold copies).
func (s *sortOp) drop() {
	if s.cols == nil {
		return
	}
	s.held.Release(&s.c.Mem)
	s.chunks.Release(&s.c.Mem)
	s.c.Mem.Release(s.permHeld)
	s.permHeld = 0
	s.cols, s.perm = nil, nil
}

// contenders narrows b to the rows that beat the bar row, nil when none
// does. A row equal to the bar by every key loses: it came later.
func (s *sortOp) contenders(b *vector.Batch) *vector.Batch {
	s.sel = s.sel[:0]
	switch {
	case len(s.keys) == 1:
		s.contendersInt(b)
	case s.typed:
		s.contendersFirstInt(b)
	default:
		s.contendersAny(b)
	}
	if len(s.sel) == 0 {
		return nil
	}
	s.view = vector.Batch{Cols: b.Cols, Len: b.Len, Sel: s.sel}
	return &s.view
}

// contendersInt is the loop of ORDER BY one INTEGER key against a
// non-null INTEGER bar: a null row sorts before every number descending
// and after ascending. Other shapes take contendersAny.
func (s *sortOp) contendersInt(b *vector.Batch) {
	k := s.keys[0]
	v, bar := b.Cols[k.Col], s.cols[k.Col].V
	if v == nil || bar == nil || v.Type != vector.Int64 || bar.Type != vector.Int64 || bar.IsNull(s.bar) {
		s.contendersAny(b)
		return
	}
	x := bar.I64[s.bar]
	if b.Sel == nil && v.Valid == nil {
		// A dense batch without nulls: one compare per row, and few rows
		// beat the bar, so the branch is predicted.
		xs := v.I64[:b.Len]
		if k.Desc {
			for r, y := range xs {
				if y > x {
					s.sel = append(s.sel, int32(r))
				}
			}
		} else {
			for r, y := range xs {
				if y < x {
					s.sel = append(s.sel, int32(r))
				}
			}
		}
		return
	}
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		var beats bool
		switch {
		case v.Valid != nil && !v.Valid.IsValid(r):
			beats = k.Desc
		case k.Desc:
			beats = v.I64[r] > x
		default:
			beats = v.I64[r] < x
		}
		if beats {
			s.sel = append(s.sel, int32(r))
		}
	}
}

// contendersFirstInt is the typed sort's loop for several keys whose
// first is INTEGER against a bar whose first key is not null: a row
// strictly better on the first key beats the bar, one strictly worse
// does not, and only a tie (or a null) compares the other keys
// (ORDER BY p.age DESC, p.id LIMIT 10 drops every row of a lower age on
// one compare).
func (s *sortOp) contendersFirstInt(b *vector.Batch) {
	k := s.keys[0]
	v, bar := b.Cols[k.Col], s.cols[k.Col].V
	if v == nil || bar == nil || v.Type != vector.Int64 || bar.Type != vector.Int64 || bar.IsNull(s.bar) {
		s.contendersAny(b)
		return
	}
	x := bar.I64[s.bar]
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.Valid != nil && !v.Valid.IsValid(r) {
			if s.beatsBar(b, r) {
				s.sel = append(s.sel, int32(r))
			}
			continue
		}
		y := v.I64[r]
		switch {
		case y == x:
			if s.beatsBar(b, r) {
				s.sel = append(s.sel, int32(r))
			}
		case (y > x) == k.Desc:
			s.sel = append(s.sel, int32(r))
		}
	}
}

func (s *sortOp) contendersAny(b *vector.Batch) {
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if s.beatsBar(b, r) {
			s.sel = append(s.sel, int32(r))
		}
	}
}

// beatsBar reports whether row r of b sorts strictly before the bar row.
func (s *sortOp) beatsBar(b *vector.Batch, r int) bool {
	for _, k := range s.keys {
		c := compareAcross(b.Cols[k.Col], r, s.cols[k.Col].V, s.bar)
		if c != 0 {
			if k.Desc {
				return c > 0
			}
			return c < 0
		}
	}
	return false
}

// compareAcross compares row a of x with row b of y in Cypher's order
// (nulls last ascending), with typed fast paths.
func compareAcross(x *vector.Vector, a int, y *vector.Vector, b int) int {
	if x == nil || y == nil {
		return 0
	}
	an, bn := x.IsNull(a), y.IsNull(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	if x.Type == y.Type {
		switch x.Type {
		case vector.Int64:
			return functions.CmpOrdered(x.I64[a], y.I64[b])
		case vector.String:
			return functions.CmpOrdered(x.Str[a], y.Str[b])
		case vector.Float64:
			return functions.CmpTotalFloat(x.F64[a], y.F64[b])
		}
	}
	return functions.OrderTotal(x.Get(a), y.Get(b))
}

func (s *sortOp) rows() int {
	if len(s.cols) == 0 {
		return 0
	}
	return s.cols[0].N
}

// selectTop keeps the best topK rows of perm, in order, through a bounded
// max-heap (the worst kept row on top).
func (s *sortOp) selectTop() error {
	if s.typed && s.topK*typedTopKShare >= int64(len(s.perm)) {
		// k is a large share of the rows: sorting them all and keeping
		// the first k is cheaper than a heap of k.
		if err := s.sortTyped(s.perm); err != nil {
			return err
		}
		s.perm = s.perm[:s.topK]
		return nil
	}
	h := &rowHeap{s: s}
	if s.typed {
		h.keys = s.typedKeys()
	}
	rows, grown, err := rowstore.GrowHeld(&s.c.Mem, h.rows, int(min(s.topK, int64(len(s.perm)))), 4)
	if err != nil {
		return err
	}
	h.rows = rows
	defer s.c.Mem.Release(grown) // the heap's rows end in perm
	for i, r := range s.perm {
		if i%sortCheckEvery == 0 {
			if err := s.c.Interrupted(); err != nil {
				return err
			}
		}
		if int64(len(h.rows)) < s.topK {
			heap.Push(h, r)
		} else if len(h.rows) > 0 && h.better(r, h.rows[0]) {
			h.rows[0] = r
			heap.Fix(h, 0)
		}
	}
	s.perm = append(s.perm[:0], h.rows...)
	return s.sortPerm()
}

// prune compacts the buffered columns to the current best topK rows.
func (s *sortOp) prune() error {
	if err := s.identity(); err != nil {
		return err
	}
	if err := s.selectTop(); err != nil {
		return err
	}
	// The kept columns' arrays are charged before they are allocated,
	// beside the old ones until recount gives those back.
	kept := make([]rowstore.Column, len(s.cols))
	for c := range s.cols {
		src := s.cols[c].V
		if len(s.perm) > 0 && !src.IsNull(int(s.perm[0])) {
			// (a column of leading nulls waits for its first value's type)
			kept[c].V = &vector.Vector{Type: src.Type}
			grown, err := kept[c].Room(&s.c.Mem, src, len(s.perm))
			s.held.Arrays += grown
			if err != nil {
				return err
			}
		}
		for _, r := range s.perm {
			kept[c].Push(src, int(r))
		}
	}
	s.cols = kept
	return nil
}

// less orders row a before row b by the sort keys; equal rows keep their
// input order (stable sort, and ties in the heap break by row number).
func (s *sortOp) less(a, b int) bool {
	for _, k := range s.keys {
		v := s.cols[k.Col].V
		c := compareRows(v, a, b)
		if c != 0 {
			if k.Desc {
				return c > 0
			}
			return c < 0
		}
	}
	return a < b
}

// compareRows compares two rows of one column in Cypher's order, with
// typed fast paths (compareAcross with both rows in v).
func compareRows(v *vector.Vector, a, b int) int { return compareAcross(v, a, v, b) }

// rowHeap is a max-heap of row numbers by sort order: its top is the row
// the next better candidate replaces.
type rowHeap struct {
	s    *sortOp
	rows []int32
	keys []typedKey // the typed sort's keys, nil for less
}

func (h *rowHeap) Len() int { return len(h.rows) }
func (h *rowHeap) Less(i, j int) bool {
	if h.keys != nil {
		return compareTyped(h.keys, h.rows[j], h.rows[i]) < 0
	}
	return h.s.less(int(h.rows[j]), int(h.rows[i]))
}
func (h *rowHeap) Swap(i, j int) { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *rowHeap) Push(x any)    { h.rows = append(h.rows, x.(int32)) }
func (h *rowHeap) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}

// better reports whether row a sorts before row b.
func (h *rowHeap) better(a, b int32) bool {
	if h.keys != nil {
		return compareTyped(h.keys, a, b) < 0
	}
	return h.s.less(int(a), int(b))
}
