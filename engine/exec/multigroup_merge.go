package exec

import "github.com/quiverdb/quiver/engine/exec/inttable"

// mergeByIDs maps the groups of w, a worker's partial aggregate of the
// same plan, to groups of h by their keys' ids, making the ones h lacks,
// when both group every row by ids (multiKey): w's ids are translated to
// h's part by part, by value, through tables as long as each part's
// distinct values, and each combination is looked up in h's table of
// combined ids. It returns nil, having made no group, when it cannot (a
// side took the general path for some rows, or a translated id would not
// fit its bits); the caller then merges by the keys' byte encoding.
//
// The general merge encoded and hashed every group's keys as bytes: W11
// of the wider suite (GROUP BY a.city, b.city at S, ~40k groups a
// worker) spent 17% of its CPU there, on the consumer alone.
func (h *hashAggregate) mergeByIDs(w *hashAggregate) []int32 {
	hm, wm := h.mk, w.mk
	if hm == nil || wm == nil || hm.off || wm.off || len(hm.parts) != len(wm.parts) ||
		hm.comb.Len() != h.ngroups || wm.comb.Len() != w.ngroups {
		return nil
	}
	tr := make([][]uint64, len(wm.parts))
	var top uint64
	for pi, wp := range wm.parts {
		t := make([]uint64, len(wp.vals))
		for id, v := range wp.vals {
			hid, ok := h.idOfValue(hm.parts[pi], v)
			if !ok {
				return nil
			}
			t[id] = uint64(hid)
			top = max(top, uint64(hid))
		}
		tr[pi] = t
	}
	if top>>hm.bits != 0 && !hm.widen(top) {
		return nil
	}
	// Taken in w's group order, not its table's: keys arriving in the
	// order of their hashes fill h's table (same hash) in runs that
	// linear probing then walks, which made the merge slower than the
	// byte-keyed one.
	// The keys by group are scratch, charged while they live; to is the
	// caller's, as in the merge by bytes.
	scratch := int64(w.ngroups) * 8
	if h.c.Mem.Charge(scratch) != nil {
		h.c.Mem.Release(scratch)
		return nil // the merge by bytes reports the limit
	}
	defer h.c.Mem.Release(scratch)
	to := make([]int32, w.ngroups)
	wmask := uint64(1)<<wm.bits - 1
	for g, k := range combKeys(&wm.comb) {
		var ids uint64
		for pi, t := range tr {
			ids |= t[(k>>(uint(pi)*wm.bits))&wmask] << (uint(pi) * hm.bits)
		}
		cell := hm.comb.Ref(int64(ids))
		if *cell == 0 {
			*cell = h.newMultiGroup(ids) + 1
		}
		to[g] = *cell - 1
	}
	return to
}

// idOfValue is the id of key value v (as partIDs stores one: nil, a
// string or an integer) in part p of h's multiKey, made on first sight;
// false for a value of another type.
func (h *hashAggregate) idOfValue(p *keyPart, v any) (int32, bool) {
	switch x := v.(type) {
	case nil:
		return 0, true
	case string:
		return p.idOfString(x), true
	case int64:
		return h.idOfInt(p, x), true
	}
	return 0, false
}

// idOfInt is integer x's id in part p, made on first sight (and charged
// with h's state).
func (h *hashAggregate) idOfInt(p *keyPart, x int64) int32 {
	cell := p.ints.Ref(x)
	if *cell == 0 {
		*cell = int32(len(p.vals)) + 1
		p.vals = append(p.vals, x)
		h.held += 24
	}
	return *cell - 1
}

// outgrown records that id does not fit m.bits, for the caller to widen
// them (partIDs' answer: not done).
func (m *multiKey) outgrown(id uint64) (bool, error) {
	m.tooWide, m.wideFor = true, id
	return false, nil
}

// widen makes the ids' bits wide enough for id, doubling them up to
// maxBits, and moves comb's combined keys to the new layout, in group
// order (see mergeByIDs). False when maxBits cannot hold id.
func (m *multiKey) widen(id uint64) bool {
	bits := m.bits
	for bits < m.maxBits && id>>bits != 0 {
		bits = min(2*bits, m.maxBits)
	}
	if id>>bits != 0 {
		return false
	}
	keys := combKeys(&m.comb)
	var comb inttable.Table
	for g, k := range keys {
		*comb.Ref(int64(m.relayout(k, m.bits, bits))) = int32(g) + 1
	}
	m.comb, m.bits = comb, bits
	return true
}

// relayout moves combined key k from bits per part to bits2.
func (m *multiKey) relayout(k uint64, bits, bits2 uint) uint64 {
	mask := uint64(1)<<bits - 1
	var out uint64
	for pi := range m.parts {
		out |= (k >> (uint(pi) * bits) & mask) << (uint(pi) * bits2)
	}
	return out
}

// combKeys is the combined key of each group of t (group+1 values, each
// group once), by group.
func combKeys(t *inttable.Table) []uint64 {
	keys := make([]uint64, t.Len())
	t.Each(func(k int64, v int32) { keys[v-1] = uint64(k) })
	return keys
}
