package exec

import (
	"math/bits"

	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// The combinations of a codeSet read back: each combination's values,
// the sets of the workers merged into one, the rows emitted with the
// general path's column types.

// each calls fn with every coded combination.
func (s *codeSet) each(fn func(x uint64)) {
	if !s.pinned {
		return
	}
	if s.dense != nil {
		for w, word := range s.dense {
			for word != 0 {
				fn(uint64(w)<<6 | uint64(bits.TrailingZeros64(word)))
				word &= word - 1
			}
		}
		return
	}
	s.hash.Each(func(k int64, _ int32) { fn(uint64(k)) })
}

// value is part i's value in combination x.
func (s *codeSet) value(i int, x uint64) vector.Value {
	id := x / s.mults[i] % s.parts[i].size
	if id == 0 {
		return nil
	}
	p := &s.parts[i]
	if p.kind == vector.String {
		return p.dict.Strs[id-1]
	}
	return p.base + int64(id-1)
}

// setCoded sets row r of v to part i's value in combination x.
func (s *codeSet) setCoded(v *vector.Vector, r, i int, x uint64) {
	id := x / s.mults[i] % s.parts[i].size
	switch {
	case id == 0:
		v.SetNull(r)
	case v.Type == vector.String:
		v.SetValid(r)
		v.Str[r] = s.parts[i].dict.Strs[id-1]
	case v.Type == vector.Int64:
		v.SetValid(r)
		v.I64[r] = s.parts[i].base + int64(id-1)
	default:
		v.Set(r, s.value(i, x))
	}
}

// decodeInto puts every coded combination of s into the general rows of
// to, once.
func (s *codeSet) decodeInto(to *codeSet) error {
	var held int64
	row := make([]vector.Value, len(s.parts))
	s.each(func(x uint64) {
		null := false
		for i := range row {
			row[i] = s.value(i, x)
			null = null || row[i] == nil
		}
		if to.count && null {
			return
		}
		to.kbuf = keyOf(to.kbuf[:0], row)
		if _, dup := to.gen[string(to.kbuf)]; dup {
			return
		}
		to.gen[string(to.kbuf)] = struct{}{}
		to.rows = append(to.rows, append([]vector.Value(nil), row...))
		held += memory.KeyAllocBytes(len(to.kbuf)) + memory.SetEntryBytes + 16*int64(len(row))
	})
	if s == to {
		s.pinned, s.dense = false, nil // now all in gen
	}
	return to.charge(held)
}

// merge folds worker set o into s (s is pinned when any set is).
func (s *codeSet) merge(o *codeSet) error {
	var held int64
	for _, row := range o.rows {
		s.kbuf = keyOf(s.kbuf[:0], row)
		if _, dup := s.gen[string(s.kbuf)]; !dup {
			s.gen[string(s.kbuf)] = struct{}{}
			s.rows = append(s.rows, row)
			held += memory.KeyAllocBytes(len(s.kbuf)) + memory.SetEntryBytes + 16*int64(len(row))
		}
	}
	if s.first == nil {
		s.first = o.first
	}
	switch {
	case !o.pinned:
	case s.sameCodes(o) && s.dense != nil && o.dense != nil:
		for w, word := range o.dense {
			s.dense[w] |= word
		}
	case s.sameCodes(o) && s.dense == nil && o.dense == nil:
		s.hash.ReserveHash(o.hash.Len())
		o.hash.Each(func(k int64, _ int32) {
			if cell := s.hash.Ref(k); *cell == 0 {
				*cell = 1
			}
		})
	default:
		if err := o.decodeInto(s); err != nil {
			return err
		}
	}
	// What o held moved into s, charged again, or is garbage.
	s.c.Mem.Release(o.held)
	o.held = 0
	return s.charge(held)
}

// sameCodes reports whether o's combinations mean what s's do.
func (s *codeSet) sameCodes(o *codeSet) bool {
	if !s.pinned || !o.pinned {
		return false
	}
	for i := range s.parts {
		a, b := &s.parts[i], &o.parts[i]
		if a.kind != b.kind || a.dict != b.dict || a.base != b.base || a.size != b.size {
			return false
		}
	}
	return true
}

// outType is the type of output column i: its values' type in the
// first batch, as the general path's gather made it, or ANY when a value
// of another type came later.
func (s *codeSet) outType(i int) vector.Type {
	t := vector.Null
	if s.first != nil {
		t = s.first[i]
	}
	for _, row := range s.rows {
		if v := row[i]; v != nil && !ofType(v, t) {
			return vector.Any
		}
	}
	return t
}

// ofType reports whether a non-null value is stored in a vector of type t.
func ofType(v vector.Value, t vector.Type) bool {
	switch v.(type) {
	case string:
		return t == vector.String
	case int64:
		return t == vector.Int64
	}
	return t == vector.Any
}
