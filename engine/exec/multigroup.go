package exec

import (
	"github.com/quiverdb/quiver/engine/exec/inttable"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// multiKey groups by two to four keys at once on small per-key ids: a
// string property of a node is read as dictionary codes (storage/dict.go)
// and each code mapped to an id once per dictionary; an integer or string
// key is mapped through a table of its own; the ids of a row make one
// integer, looked up in an inttable.Table. A row then costs a few loads instead
// of gathering strings, encoding them and probing a Go map (W11 of the
// wider suite at M: GROUP BY a.city, b.city over 10M relationships, 2.9 s
// on the byte encoding).
//
// As with dictKey, every group is made by the general path (lookup on
// one-row key vectors), which only the new combinations reach, so the
// groups are exactly the general path's and a batch it cannot code (a
// key of another type) can take that path at any time.
type multiKey struct {
	parts []*keyPart
	// bits is the id bits per part in the combined key: few at first, so
	// that the combined keys of small ids fall in comb's direct-mapped
	// range (16 bits in all), widened when an id outgrows them, up to
	// maxBits.
	bits, maxBits uint
	comb          inttable.Table // combined ids -> group+1
	ids           []uint64       // the combined key of each row of the batch
	// one holds the one-row key vectors of a new group, each of its
	// value's type, as the general path would have them.
	one []*vector.Vector
	// off: a batch had a key of a type the ids do not cover, or an id
	// past maxBits; the rest takes the general path.
	off bool
	// tooWide: partIDs stopped at id wideFor, which bits cannot hold.
	tooWide bool
	wideFor uint64
}

// keyPart is one key of a multiKey. Id 0 is null.
type keyPart struct {
	ev expr.Evaluator // the key
	of expr.Evaluator // a Property key's owner, tried for codes
	// key is a Property key's name, codes the batch's codes, trans each
	// dictionary's codes to id+1 (0: not seen yet).
	key   string
	codes []int32
	trans map[*storage.StringDict][]int32
	ints  inttable.Table   // integer values -> id+1
	strs  map[string]int32 // strings without a code -> id
	vals  []vector.Value   // id -> value (vals[0] is null)
	// missing: the rows of the batch without a code.
	missing []int32
	// oneStr, oneInt and oneNull are the one-row key vectors of a new
	// group (newMultiGroup).
	oneStr, oneInt, oneNull *vector.Vector
}

// maxMultiKeys is the number of keys multiKey takes: more leave too few
// bits per id.
const maxMultiKeys = 4

func newMultiKey(c *Context, keys []plan.Expr) (*multiKey, error) {
	if len(keys) < 2 || len(keys) > maxMultiKeys {
		return nil, nil
	}
	m := &multiKey{bits: 16 / uint(len(keys)), maxBits: 63 / uint(len(keys)), ids: make([]uint64, vector.Capacity)}
	for _, k := range keys {
		ev, err := compile(c, k)
		if err != nil {
			return nil, err
		}
		p := &keyPart{ev: ev, strs: map[string]int32{}, vals: []vector.Value{nil}}
		if prop, ok := k.(*plan.Property); ok {
			if p.of, err = compile(c, prop.Of); err != nil {
				return nil, err
			}
			p.key, p.codes, p.trans = prop.Key, make([]int32, vector.Capacity), map[*storage.StringDict][]int32{}
		}
		m.parts = append(m.parts, p)
		m.one = append(m.one, nil)
	}
	return m, nil
}

// assignByMultiCodes sets the group of each row of b from its keys' ids.
// It reports false, having done nothing, when a key of the batch is of a
// type it does not map (the caller then takes the general path).
func (h *hashAggregate) assignByMultiCodes(b *vector.Batch) (bool, error) {
	m := h.mk
	if m.off {
		return false, nil
	}
	sel, n := rows(b)
	// A batch whose id outgrows the bits is placed again once they are
	// wider (the ids of its values are made: the second pass only
	// places them).
	for placed := false; !placed; {
		for i := 0; i < b.Rows(); i++ {
			m.ids[b.Row(i)] = 0
		}
		placed = true
		for pi, p := range m.parts {
			ok, err := h.partIDs(p, b, sel, n, uint(pi)*m.bits)
			if err != nil {
				return false, err
			}
			if ok {
				continue
			}
			if !m.tooWide || !m.widen(m.wideFor) {
				m.off = true
				return false, nil
			}
			m.tooWide, placed = false, false
			break
		}
	}
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		// The cell stays good across newMultiGroup: the general path
		// does not use comb.
		cell := m.comb.Ref(int64(m.ids[r]))
		if *cell == 0 {
			*cell = h.newMultiGroup(m.ids[r]) + 1
		}
		h.gidx[r] = *cell - 1
	}
	return true, nil
}

// newMultiGroup makes the group of combined key ids seen for the first
// time: no group has its keys (equal keys have equal ids, and the
// general path's rows, keyed by value, enter h.groups first).
func (h *hashAggregate) newMultiGroup(ids uint64) int32 {
	m := h.mk
	mask := uint64(1)<<m.bits - 1
	for pi, p := range m.parts {
		// The one-row vectors are kept per part and type: Push copies
		// the value out.
		switch v := p.vals[(ids>>(uint(pi)*m.bits))&mask].(type) {
		case string:
			x := p.oneOf(vector.String)
			x.Str[0] = v
			m.one[pi] = x
		case int64:
			x := p.oneOf(vector.Int64)
			x.I64[0] = v
			m.one[pi] = x
		default:
			m.one[pi] = p.oneOf(vector.Any)
		}
	}
	// A new combination is a new group: made as lookup makes one, its
	// byte key entered in h.groups only if a lookup needs it.
	g := h.newGroup()
	for k, kv := range m.one {
		h.keyCols[k].Push(kv, 0)
		h.held += memory.RowPayloadBytes(kv, 0)
	}
	if h.unmapped < 0 {
		h.unmapped = int(g)
	}
	h.held += 16 * int64(len(m.parts))
	return g
}

// partIDs ors each row's id of key p, shifted, into m.ids.
func (h *hashAggregate) partIDs(p *keyPart, b *vector.Batch, sel []int32, n int, shift uint) (bool, error) {
	m := h.mk
	limit := uint64(1) << m.bits
	var t []int32
	var d *storage.StringDict
	coded := false
	if p.of != nil {
		of, err := p.of.Eval(b)
		if err != nil {
			return false, err
		}
		if of.Type == vector.Node {
			if k, ok := h.c.Catalog.LookupKey(p.key); ok {
				if err := h.c.CheckDeleted(of, sel, n); err != nil {
					return false, err
				}
				if d, coded = h.c.Tx.GatherNodePropCodes(k, of, sel, n, p.codes); coded && d != nil {
					if t = p.trans[d]; t == nil {
						t = make([]int32, len(d.Strs))
						p.trans[d] = t
						h.held += 4 * int64(len(t))
					}
				}
			}
		}
	}
	// Coded rows first; the others (no code: no value, an open chunk, a
	// key that is not a node's string property) read the key's values,
	// for those rows only.
	missing := p.missing[:0]
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if !coded || p.codes[r] < 0 {
			missing = append(missing, int32(r))
			continue
		}
		code := p.codes[r]
		id := t[code]
		if id == 0 {
			id = p.idOfString(d.Strs[code]) + 1
			t[code] = id
		}
		if uint64(id-1) >= limit {
			return m.outgrown(uint64(id - 1))
		}
		m.ids[r] |= uint64(id-1) << shift
	}
	p.missing = missing
	h.c.Counters.DBHits += int64(b.Rows() - len(missing))
	if len(missing) == 0 {
		return true, nil
	}
	sub := *b
	sub.Sel = missing
	kv, err := p.ev.Eval(&sub)
	if err != nil {
		return false, err
	}
	if kv.Type != vector.Int64 && kv.Type != vector.String && kv.Type != vector.Null {
		return false, nil
	}
	for _, r32 := range missing {
		r := int(r32)
		var id int32
		switch {
		case kv.IsNull(r):
		case kv.Type == vector.Int64:
			id = h.idOfInt(p, kv.I64[r])
		default:
			id = p.idOfString(kv.Str[r])
		}
		if uint64(id) >= limit {
			return m.outgrown(uint64(id))
		}
		m.ids[r] |= uint64(id) << shift
	}
	return true, nil
}

// oneOf is p's one-row vector of type t (a STRING, an INTEGER, or an
// ANY holding null), made on first use.
func (p *keyPart) oneOf(t vector.Type) *vector.Vector {
	switch t {
	case vector.String:
		if p.oneStr == nil {
			p.oneStr = vector.New(vector.String, 1)
		}
		return p.oneStr
	case vector.Int64:
		if p.oneInt == nil {
			p.oneInt = vector.New(vector.Int64, 1)
		}
		return p.oneInt
	}
	if p.oneNull == nil {
		p.oneNull = vector.New(vector.Any, 1)
		p.oneNull.SetNull(0)
	}
	return p.oneNull
}

// idOfString is string s's id in p, made on first sight.
func (p *keyPart) idOfString(s string) int32 {
	id, ok := p.strs[s]
	if !ok {
		id = int32(len(p.vals))
		p.vals = append(p.vals, s)
		p.strs[s] = id
	}
	return id
}
