package storage

import "github.com/quiverdb/quiver/csr"

// The slot-ordered views a relationship column keeps (RelSlotView,
// RelFloatSlotView): per CSR, built by a call or read from the base
// (base_slots.go). A slot view holds the values of its CSR's
// relationships only, so a write to any other relationship leaves it
// right: a writer's copy of the column carries the views over, and a
// write drops only the views of CSRs holding a relationship numbered at
// or above the written one. Relationship ids are never reused and a CSR
// is immutable, so a relationship created after the CSR was built
// (every new one, with a weight or not) is numbered above all of it, and
// the views stay; a write to a relationship of the CSR (a new weight, a
// deletion) drops them, as before. Without that, the first relationship
// a client creates with a weight costs the next projection the whole
// gather again (or, for a view the base stored, a gather it never paid).

// slotViews are the slot-ordered views of an INTEGER column, newest
// first; immutable once published.
type slotViews []slotView

type slotView struct {
	base   *csr.CSR
	view   *IntView
	stored bool   // read from the base (base_slots.go), not built
	maxRel uint64 // the highest relationship id base holds
}

func (x slotView) fromBase() bool  { return x.stored }
func (x slotView) highest() uint64 { return x.maxRel }

// floatSlotViews are slotViews' FLOAT counterparts.
type floatSlotViews []floatSlotView

type floatSlotView struct {
	base   *csr.CSR
	view   *FloatView
	stored bool
	maxRel uint64
}

func (x floatSlotView) fromBase() bool  { return x.stored }
func (x floatSlotView) highest() uint64 { return x.maxRel }

type cachedSlotView interface {
	fromBase() bool
	highest() uint64
}

// maxSlotViews bounds the slot-ordered views built and cached per
// column: one per direction of the one relationship type a property
// usually belongs to. The views a base stores are kept besides, all of
// them: they are the base's memory, read when it opened.
const maxSlotViews = 2

// withSlotView is views with x first, then the base's stored views and
// at most maxSlotViews-1 built ones of old (newest first).
func withSlotView[E cachedSlotView](old *[]E, x E) []E {
	next := []E{x}
	if old == nil {
		return next
	}
	built := 0
	if x.fromBase() {
		built = -len(*old) // a stored view drops none
	}
	for _, e := range *old {
		if e.fromBase() {
			next = append(next, e)
		} else if built < maxSlotViews-1 {
			next = append(next, e)
			built++
		}
	}
	return next
}

// withoutSlotViewsFrom is old without the views of CSRs holding a
// relationship numbered id or higher; old itself when none is dropped.
func withoutSlotViewsFrom[E cachedSlotView](old *[]E, id uint64) *[]E {
	if old == nil {
		return nil
	}
	var kept []E
	for i, e := range *old {
		if e.highest() < id {
			if kept != nil {
				kept = append(kept, e)
			}
			continue
		}
		if kept == nil {
			kept = append(make([]E, 0, len(*old)), (*old)[:i]...)
		}
	}
	switch {
	case kept == nil:
		return old
	case len(kept) == 0:
		return nil
	}
	return &kept
}

// dropSlotViews drops the slot-ordered views a write of relationship id
// changes (column.dropView).
func (vc *viewCache) dropSlotViews(id uint64) {
	if old := vc.slots.Load(); old != nil {
		if next := withoutSlotViewsFrom((*[]slotView)(old), id); next != (*[]slotView)(old) {
			vc.slots.Store((*slotViews)(next))
		}
	}
	if old := vc.fslots.Load(); old != nil {
		if next := withoutSlotViewsFrom((*[]floatSlotView)(old), id); next != (*[]floatSlotView)(old) {
			vc.fslots.Store((*floatSlotViews)(next))
		}
	}
}

// carrySlotViews gives a writer's copy of a column (ownedColumn) the
// slot-ordered views of the version it copies: its values are the same
// until it writes, and each write drops what it changes.
func (vc *viewCache) carrySlotViews(from *viewCache) {
	vc.slots.Store(from.slots.Load())
	vc.fslots.Store(from.fslots.Load())
}

// maxRelID is the highest relationship id base holds (0 when none): the
// last of a range when its slots hold consecutive ids (a bulk load's
// forward CSR), else the largest of one pass over its slots.
func maxRelID(base *csr.CSR) uint64 {
	n := uint64(base.NumEdges())
	if n == 0 {
		return 0
	}
	if seq, ok := base.SequentialBase(); ok {
		return seq + n - 1
	}
	var hi uint64
	for s := range n {
		hi = max(hi, base.SlotRel(s))
	}
	return hi
}
