package exec

import (
	"math/bits"

	"github.com/quiverdb/quiver/engine/exec/inttable"
	"github.com/quiverdb/quiver/engine/exec/rowkey"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// codeSet is the set of distinct rows of code-distinct: each row is the
// values of a few node properties, and each property is read as a code,
// 0 for no value:
//
//	STRING   1 + the value's code in one dictionary (storage/dict.go),
//	         pinned on the first batch that has one
//	INTEGER  1 + the value's code in the column's view (value - base),
//	         for a view of at most 4 bytes per value
//	no key   0: nobody has the property
//
// A row's codes make one integer in mixed radix (the parts' code counts),
// a bit of a bitmap while their product is at most denseCodes, a key of a
// hash set above. A row some part has no code for (a string outside the
// dictionary, an open chunk, a batch without a view, another type) goes
// to gen, keyed by the general path's byte key; at the end, when gen is
// not empty, every combination is decoded into it, so equal rows meet
// whichever way they came.
type codeSet struct {
	c     *Context
	p     plan.Operator
	count bool // count(DISTINCT): rows with a null are left out
	parts []codePart
	evs   []expr.Evaluator // the general path's values of each part

	// pinned is set once each part's kind, dictionary and base are
	// fixed; mults are then the weight of each part in the combined
	// integer. off: the combinations do not fit; every row takes the
	// general path.
	pinned bool
	off    bool
	mults  []uint64
	dense  []uint64 // a bit per combination; nil for the hash set
	// full is set once every bit of dense is (one STRING part); fullIn
	// counts the batches to the next look.
	full   bool
	fullIn int
	hash   inttable.Table

	x    []uint64 // each row's combination, at least noCode for the general path
	iota []int32  // 0, 1, 2, …: the rows of a batch without a selection
	miss []int32
	gen  map[string]struct{}
	rows [][]vector.Value
	// first is the type of each part's values in the first batch, as
	// the general path's gather made them: the result's column types.
	first []vector.Type
	kbuf  []byte
	held  int64
}

// codePart is one property of a codeSet.
type codePart struct {
	col  int
	key  string
	kind vector.Type // String, Int64, or Null (no key); 0 until pinned
	dict *storage.StringDict
	base int64 // an INTEGER part's view base
	// size is the number of codes, null's included.
	size uint64
	// codes and ints are a batch's codes and values.
	codes []int32
	ints  *vector.Vector
}

// noCode is or-ed into the combination of a row some part has no code
// for; combinations stay below 1<<62, so adding the other parts' codes
// keeps the bit.
const noCode = uint64(1) << 63

// denseCodes is the most combinations kept as a bitmap (1 MiB).
const denseCodes = 1 << 23

func newCodeSet(c *Context, p plan.Operator, props []*plan.Property, count bool) (*codeSet, error) {
	s := &codeSet{c: c, p: p, count: count, x: make([]uint64, vector.Capacity), gen: map[string]struct{}{}}
	for _, prop := range props {
		ev, err := compile(c, prop)
		if err != nil {
			return nil, err
		}
		s.evs = append(s.evs, ev)
		s.parts = append(s.parts, codePart{col: prop.Of.(*plan.ColRef).Idx, key: prop.Key,
			codes: make([]int32, vector.Capacity)})
	}
	return s, nil
}

// add puts the rows of b into the set.
func (s *codeSet) add(b *vector.Batch) error {
	if b.Rows() == 0 {
		return nil // nothing to code
	}
	sel, n := rows(b)
	if done, err := s.markOne(b, sel, n); done || err != nil {
		return err
	}
	coded, err := s.code(b, sel, n)
	if err != nil {
		return err
	}
	miss := s.miss[:0]
	if !coded {
		miss = appendRows(miss, sel, n)
	} else {
		if s.first == nil {
			s.first = make([]vector.Type, len(s.parts))
			for i, p := range s.parts {
				s.first[i] = p.kind
			}
		}
		x, rs, dense := s.x, s.rowList(sel, n), s.dense
		before := s.hash.Bytes()
		for _, r := range rs {
			switch k := x[r]; {
			case k >= noCode:
				miss = append(miss, r)
			case dense != nil:
				dense[k>>6] |= 1 << (k & 63)
			default:
				if cell := s.hash.Ref(int64(k)); *cell == 0 {
					*cell = 1
				}
			}
		}
		if grown := s.hash.Bytes() - before; grown > 0 {
			if err := s.charge(grown); err != nil {
				return err
			}
		}
	}
	s.miss = miss
	if coded { // the general path counts its reads
		s.c.Counters.DBHits += int64(b.Rows()-len(miss)) * int64(len(s.parts))
	}
	if len(miss) == 0 {
		return nil
	}
	return s.addGeneral(b, miss)
}

// markOne adds the rows of b to a bitmap of one STRING part's codes in
// one pass over the column (storage.MarkNodePropCodes), once its
// dictionary is pinned; false when the set is of another shape, or the
// batch cannot be read so.
func (s *codeSet) markOne(b *vector.Batch, sel []int32, n int) (bool, error) {
	if !s.pinned || len(s.parts) != 1 || s.dense == nil || s.parts[0].kind != vector.String {
		return false, nil
	}
	p := &s.parts[0]
	of := b.Cols[p.col]
	if of.Type != vector.Node {
		return false, nil
	}
	k, ok := s.c.Catalog.LookupKey(p.key)
	if !ok {
		return false, nil
	}
	if err := s.c.CheckDeleted(of, sel, n); err != nil {
		return false, err
	}
	miss, ok := s.c.Tx.MarkNodePropCodes(k, p.dict, of, sel, n, s.dense, s.isFull(p.size), s.miss[:0])
	if !ok {
		return false, nil
	}
	s.miss = miss
	s.c.Counters.DBHits += int64(b.Rows() - len(miss))
	if len(miss) == 0 {
		return true, nil
	}
	return true, s.addGeneral(b, miss)
}

// isFull reports whether the bitmap has its size bits set but perhaps
// the first (no value): then no row with a value coded in the dictionary
// can add to it. It is counted once a batch while the bitmap is at most
// 64 words, less often above (a word a row at most).
func (s *codeSet) isFull(size uint64) bool {
	if s.full {
		return true
	}
	if s.fullIn--; s.fullIn > 0 {
		return false
	}
	s.fullIn = max(1, len(s.dense)/64)
	n := size
	for i, w := range s.dense {
		if i == 0 {
			w |= 1
		}
		if n < 64 {
			s.full = n == 0 || w&(1<<n-1) == 1<<n-1
			return s.full
		}
		if w != ^uint64(0) {
			return false
		}
		n -= 64
	}
	s.full = n == 0
	return s.full
}

// code fills s.x for the rows of b; false when the batch cannot be coded
// at all (then every row takes the general path).
func (s *codeSet) code(b *vector.Batch, sel []int32, n int) (bool, error) {
	if s.off {
		return false, nil
	}
	for i := range s.parts {
		p := &s.parts[i]
		of := b.Cols[p.col]
		if of.Type != vector.Node {
			s.c.fellBack(s.p, plan.RuleCodeDistinct, "a column of other values than nodes")
			return false, nil
		}
		if err := s.c.CheckDeleted(of, sel, n); err != nil {
			return false, err
		}
		ok, why := s.codePart(p, of, sel, n)
		if !ok {
			if why != "" {
				s.c.fellBack(s.p, plan.RuleCodeDistinct, why)
			}
			return false, nil
		}
	}
	if !s.pinned {
		if !s.pin() {
			return false, nil
		}
	}
	x, rs := s.x, s.rowList(sel, n)
	for _, r := range rs {
		x[r] = 0
	}
	for i := range s.parts {
		p := &s.parts[i]
		mult := s.mults[i]
		switch p.kind {
		case vector.String:
			codes := p.codes
			for _, r := range rs {
				switch c := codes[r]; c {
				case -1:
					x[r] |= noCode
				case storage.NullCode:
				default:
					x[r] += (uint64(c) + 1) * mult
				}
			}
		case vector.Int64:
			ints, base := p.ints, p.base-1 // value v has id v-base+1
			if ints.Valid == nil {
				for _, r := range rs {
					x[r] += uint64(ints.I64[r]-base) * mult
				}
				continue
			}
			for _, r := range rs {
				if !ints.IsNull(int(r)) {
					x[r] += uint64(ints.I64[r]-base) * mult
				}
			}
		}
	}
	return true, nil
}

// rowList is the rows of a selection: sel itself, or 0..n-1.
func (s *codeSet) rowList(sel []int32, n int) []int32 {
	if sel != nil {
		return sel
	}
	if len(s.iota) < n {
		s.iota = make([]int32, max(n, vector.Capacity))
		for i := range s.iota {
			s.iota[i] = int32(i)
		}
	}
	return s.iota[:n]
}

// codePart reads part p of the rows as codes, checking them against its
// pinned kind; false, and why, when they cannot be.
func (s *codeSet) codePart(p *codePart, of *vector.Vector, sel []int32, n int) (bool, string) {
	k, known := s.c.Catalog.LookupKey(p.key)
	kind := vector.Null
	if known {
		kind = s.c.Tx.NodePropType(k)
	}
	if p.kind != 0 && kind != p.kind {
		return false, "a property of another type than on the first rows"
	}
	switch kind {
	case vector.Null:
		p.size = 1
	case vector.String:
		d, _ := s.c.Tx.GatherNodePropCodesIn(k, p.dict, of, sel, n, p.codes)
		if d == nil {
			// None of the batch's rows lies in a coded chunk (an open
			// one, say) and no dictionary is pinned yet: the batch takes
			// the general path and a later one may pin one. Which
			// morsel a worker takes first decides, so it is no fallback.
			return false, ""
		}
		if p.dict != nil && d != p.dict {
			return false, "a dictionary other than the first rows'"
		}
		p.dict, p.size = d, uint64(len(d.Strs))+1
	case vector.Int64:
		v := s.c.Tx.NodeIntView(k, n)
		if v == nil {
			return false, "no integer view of the column"
		}
		if v.Width() > 4 {
			return false, "an integer view wider than 4 bytes"
		}
		if p.kind != 0 && (v.Base() != p.base || viewCodes(v)+1 != p.size) {
			return false, "an integer view other than the first rows'"
		}
		p.base, p.size = v.Base(), viewCodes(v)+1
		if p.ints == nil {
			p.ints = vector.New(vector.Int64, vector.Capacity)
		}
		v.Gather(of, sel, n, p.ints)
	default:
		return false, "a column that is neither of strings nor of integers"
	}
	p.kind = kind
	return true, ""
}

// viewCodes is the number of codes of a view at most 4 bytes wide.
func viewCodes(v *storage.IntView) uint64 {
	if c := v.Codes(); c > 0 {
		return uint64(c)
	}
	return 1 << 32
}

// pin fixes the parts' sizes once every part is known, and chooses the
// bitmap or the hash set; false when the combinations do not fit.
func (s *codeSet) pin() bool {
	mults := make([]uint64, len(s.parts))
	total := uint64(1)
	for i, p := range s.parts {
		mults[i] = total
		hi, lo := bits.Mul64(total, p.size)
		if hi != 0 || lo >= 1<<62 {
			s.c.fellBack(s.p, plan.RuleCodeDistinct, "too many code combinations")
			s.off = true
			return false
		}
		total = lo
	}
	s.mults, s.pinned = mults, true
	if total <= denseCodes {
		s.dense = make([]uint64, (total+63)/64)
		s.held += 8 * int64(len(s.dense))
		if err := s.c.Mem.Charge(8 * int64(len(s.dense))); err != nil {
			s.dense = nil // the hash set charges as it grows
			s.held -= 8 * int64((total+63)/64)
		}
	}
	return true
}

// addGeneral puts rows miss of b into gen by the general path's values.
func (s *codeSet) addGeneral(b *vector.Batch, miss []int32) error {
	sub := *b
	sub.Sel = miss
	vecs := make([]*vector.Vector, len(s.evs))
	for i, ev := range s.evs {
		v, err := ev.Eval(&sub)
		if err != nil {
			return err
		}
		vecs[i] = v
	}
	if s.first == nil {
		s.first = make([]vector.Type, len(vecs))
		for i, v := range vecs {
			s.first[i] = v.Type
		}
	}
	var held int64
	before := s.hash.Bytes()
	for _, r := range miss {
		if x, ok := s.codeValues(vecs, int(r)); ok {
			s.insert(x)
			continue
		}
		s.kbuf = s.kbuf[:0]
		null := false
		for _, v := range vecs {
			s.kbuf = rowkey.Append(s.kbuf, v, int(r))
			null = null || v.IsNull(int(r))
		}
		if s.count && null {
			continue
		}
		if _, dup := s.gen[string(s.kbuf)]; dup {
			continue
		}
		s.gen[string(s.kbuf)] = struct{}{}
		row := make([]vector.Value, len(vecs))
		for i, v := range vecs {
			row[i] = v.Get(int(r))
		}
		s.rows = append(s.rows, row)
		held += memory.KeyAllocBytes(len(s.kbuf)) + memory.SetEntryBytes + 16*int64(len(row))
	}
	return s.charge(held + s.hash.Bytes() - before)
}

// codeValues is the combination of row r's values, read by the general
// path, when each has a code: a string of the part's dictionary, an
// integer in its view's range, a null.
func (s *codeSet) codeValues(vecs []*vector.Vector, r int) (uint64, bool) {
	if !s.pinned {
		return 0, false
	}
	var x uint64
	for i, v := range vecs {
		p := &s.parts[i]
		var id uint64
		switch val := v.Get(r).(type) {
		case nil:
		case string:
			if p.kind != vector.String {
				return 0, false
			}
			c, ok := p.dict.Code(val)
			if !ok {
				return 0, false
			}
			id = uint64(c) + 1
		case int64:
			if p.kind != vector.Int64 || val < p.base || uint64(val-p.base) >= p.size-1 {
				return 0, false
			}
			id = uint64(val-p.base) + 1
		default:
			return 0, false
		}
		x += id * s.mults[i]
	}
	return x, true
}

// insert adds combination x.
func (s *codeSet) insert(x uint64) {
	if s.dense != nil {
		s.dense[x>>6] |= 1 << (x & 63)
		return
	}
	if cell := s.hash.Ref(int64(x)); *cell == 0 {
		*cell = 1
	}
}

func (s *codeSet) charge(n int64) error {
	s.held += n
	return s.c.Mem.Charge(n)
}

// appendRows appends the rows of a selection, or 0..n-1 without one.
func appendRows(dst []int32, sel []int32, n int) []int32 {
	if sel != nil {
		return append(dst, sel...)
	}
	for r := range int32(n) {
		dst = append(dst, r)
	}
	return dst
}
