package storage

import (
	"testing"

	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// TestSlotViewsOutliveOtherWrites: the slot views a base stored stay
// with the column through a commit that creates relationships with the
// key (numbered past every one of the CSR), and Check finds them right;
// a commit that writes the key on a relationship of the CSR, or deletes
// one, drops them, and the next call builds a right one again.
func TestSlotViewsOutliveOtherWrites(t *testing.T) {
	dir := t.TempDir()
	if _, err := slotViewStore(t, 5000).SaveBase(dir); err != nil {
		t.Fatal(err)
	}
	s, err := OpenBase(dir)
	if err != nil {
		t.Fatal(err)
	}
	cat := s.Catalog()
	typ, _ := cat.LookupType("B")
	iw, _ := cat.LookupKey("iw")
	full, _ := cat.LookupKey("full")
	base := s.Snapshot().Adjacency(typ, Incoming).Base()
	held := func(k catalog.KeyID) bool { return installedSlotView(s.Snapshot().relCol(k), base) }
	if !held(iw) || !held(full) {
		t.Fatal("no stored views after the open")
	}
	commit := func(f func(tx *Tx) error) {
		t.Helper()
		tx := s.Begin()
		if err := f(tx); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := s.Snapshot().Check(); err != nil {
			t.Fatal(err)
		}
	}
	commit(func(tx *Tx) error {
		for i := range 3 {
			if _, err := tx.CreateRel(typ, uint64(i), uint64(i+1), []catalog.KeyID{iw, full}, []vector.Value{int64(7), 2.5}); err != nil {
				return err
			}
		}
		return nil
	})
	if !held(iw) || !held(full) {
		t.Fatal("creating relationships dropped the views of the others")
	}
	// The views serve the base's lists: the new ones are in the overlay.
	snap := s.Snapshot()
	v := snap.RelSlotView(iw, base, 0)
	get := func(s uint64) (float64, bool) { x, ok := v.Get(s); return float64(x), ok }
	checkSlotView(t, snap, iw, base, get, v.valid, v.SpanFloat)

	rel := base.SlotRel(10) // a relationship of the CSR
	commit(func(tx *Tx) error { return tx.SetRelProps(rel, []catalog.KeyID{iw}, []vector.Value{int64(200)}) })
	if held(iw) || !held(full) {
		t.Fatalf("after a write of iw on relationship %d: iw's view kept %t, full's %t", rel, held(iw), held(full))
	}
	snap = s.Snapshot()
	if v = snap.RelSlotView(iw, base, 1<<30); v == nil {
		t.Fatal("no view built after the write")
	}
	checkSlotView(t, snap, iw, base, get, v.valid, v.SpanFloat)

	commit(func(tx *Tx) error { _, err := tx.DeleteRel(base.SlotRel(20)); return err })
	if held(full) {
		t.Fatal("deleting a relationship of the CSR kept its view")
	}
}

// TestWithoutSlotViewsFrom: the views of CSRs whose highest relationship
// is below the written id stay, in order; the list is the same one when
// nothing goes, nil when everything does.
func TestWithoutSlotViewsFrom(t *testing.T) {
	a, b, c := &csr.CSR{}, &csr.CSR{}, &csr.CSR{}
	old := []slotView{{base: a, maxRel: 10}, {base: b, maxRel: 50}, {base: c, maxRel: 30}}
	if got := withoutSlotViewsFrom(&old, 51); got != &old {
		t.Fatal("a write past every CSR changed the list")
	}
	got := withoutSlotViewsFrom(&old, 31)
	if got == &old || len(*got) != 2 || (*got)[0].base != a || (*got)[1].base != c {
		t.Fatalf("write of 31: %+v", got)
	}
	if got := withoutSlotViewsFrom(&old, 10); got != nil {
		t.Fatalf("write of 10: %+v", *got)
	}
	if len(old) != 3 {
		t.Fatal("the published list was changed")
	}
}
