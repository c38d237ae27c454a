package rowstore

import (
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// Arrays operators hold rows in (a sort's columns, a buffer's, collect()'s
// lists) are charged to the statement by capacity, not by the rows they
// hold: the room a growing slice keeps beyond its length is memory the
// process holds all the same, and while an array grows the old one and
// the new one are both live. Charged by rows, collect(x) over 20 million
// integers held 2.8 times max_memory_per_query at its peak.
//
// So an array grows here, not by append: the new array is charged before
// it is allocated (a charge past the limit fails the statement before
// the allocation), the old one released once copied. That is one charge
// per growth, a few dozen over millions of rows; the loops that fill the
// room charge nothing per value.

// heldCap is the capacity an array holding old elements grows to when it
// must take need: doubling while small, by half once large, where a
// doubling leaves up to half the array empty (and charged) and the copy
// holds two and a half times the old one at its peak rather than three.
func heldCap(old, need int) int {
	c := 2 * old
	if old >= heldHalfFrom {
		c = old + old/2
	}
	return max(c, need)
}

// heldHalfFrom is the capacity from which held arrays grow by half.
const heldHalfFrom = 1 << 16

// GrowHeld returns s with room for need elements of elem bytes, charging
// m for the new array before allocating it and releasing the old one's
// bytes once copied. It returns the bytes its charge changed by (the new
// array less the old); on a failed charge, s unchanged and the error.
func GrowHeld[T any](m *memory.Tracker, s []T, need int, elem int64) ([]T, int64, error) {
	if need <= cap(s) {
		return s, 0, nil
	}
	c := heldCap(cap(s), need)
	grown, old := int64(c)*elem, int64(cap(s))*elem
	if err := m.Charge(grown); err != nil {
		m.Release(grown) // nothing was allocated
		return s, 0, err
	}
	t := make([]T, len(s), c)
	copy(t, s)
	m.Release(old)
	return t, grown - old, nil
}

// GrowList is the growth of arrays that are many and mostly small (the
// groups' collect() lists). Their owner counts them by capacity and
// charges the count once per batch, so that a million small lists cost
// no million charges. A growth of bigGrowth bytes or more is charged at
// once, as GrowHeld does, so that a list too long for the limit fails
// before it allocates its next array: it returns the elements of
// capacity it added and the bytes it charged for them (the owner's next
// count must not charge them again).
func GrowList[T any](m *memory.Tracker, s []T, need int, elem int64) (t []T, grown int, charged int64, err error) {
	if need <= cap(s) {
		return s, 0, 0, nil
	}
	c := heldCap(cap(s), need)
	if int64(c)*elem >= bigGrowth {
		t, charged, err = GrowHeld(m, s, need, elem)
		return t, cap(t) - cap(s), charged, err
	}
	t = make([]T, len(s), c)
	copy(t, s)
	return t, c - cap(s), 0, nil
}

// bigGrowth is the smallest growth GrowList checks at once.
const bigGrowth = 64 << 10

// HeldRows charges the rows an operator keeps in columns (a sort, a
// buffer): their arrays by capacity, and what their values hold beyond
// the arrays (strings' bytes, generic values' boxes) as they come in.
type HeldRows struct {
	Arrays  int64 // the columns' arrays, by capacity
	payload int64 // the kept values beyond their slots
}

// Add copies b's selected rows into cols, charging m (nil: no charge)
// before the columns grow.
func (h *HeldRows) Add(m *memory.Tracker, cols []Column, b *vector.Batch) error {
	if m != nil && m.Active() {
		var p int64
		for c := range cols {
			p += memory.PayloadBytes(b.Cols[c], b.Sel, b.Len)
		}
		h.payload += p
		if err := m.Charge(p); err != nil {
			return err
		}
		rows := b.Rows()
		for c := range cols {
			grown, err := cols[c].Room(m, b.Cols[c], rows)
			h.Arrays += grown
			if err != nil {
				return err
			}
		}
	}
	for c := range cols {
		col, v := &cols[c], b.Cols[c]
		if b.Sel == nil {
			for r := 0; r < b.Len; r++ {
				col.Push(v, r)
			}
		} else {
			for _, r := range b.Sel {
				col.Push(v, int(r))
			}
		}
	}
	if m != nil && m.Active() {
		return h.Recount(m, cols)
	}
	return nil
}

// Recount charges what the columns' arrays grew by outside Room (a
// column's first rows, a change of type, a validity bitmap), or gives
// back what they shrank by.
func (h *HeldRows) Recount(m *memory.Tracker, cols []Column) error {
	var now int64
	for c := range cols {
		now += cols[c].CapBytes()
	}
	d := now - h.Arrays
	h.Arrays = now
	if d < 0 {
		m.Release(-d)
		return nil
	}
	return m.Charge(d)
}

// KeepShare gives back the payload of the rows dropped when kept of all
// rows stay (a top-k sort's prune).
func (h *HeldRows) KeepShare(m *memory.Tracker, kept, all int) {
	if all == 0 {
		return
	}
	k := h.payload * int64(kept) / int64(all)
	m.Release(h.payload - k)
	h.payload = k
}

// Release gives back everything charged: the rows are dropped.
func (h *HeldRows) Release(m *memory.Tracker) {
	m.Release(h.Arrays + h.payload)
	h.Arrays, h.payload = 0, 0
}
