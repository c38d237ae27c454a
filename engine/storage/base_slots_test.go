package storage

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// TestBaseSlotViews: a base stores the slot-ordered view of every
// relationship property and direction that a call would otherwise
// gather, and opening it puts each one in its column's cache for its CSR
// before any call, with the values a gather gives, slot by slot; a
// direction that reads the id-ordered view as one range gets no file.
// Checked on a bulk load (the backward views) and on a checkpoint after
// deletions (forward lists with holes: the forward views too), with views
// of many sections.
func TestBaseSlotViews(t *testing.T) {
	// Views of many sections, decoded at once side by side.
	defer func(n int) { slotPartValues = n }(slotPartValues)
	slotPartValues = 256
	m := smallSlotParts(t)
	s := slotViewStore(t, m)
	keys := []string{"full", "holes", "late", "both", "afull", "iw", "iwide"}
	check := func(t *testing.T, s *Store) (stored [2]int) {
		dir := t.TempDir()
		if _, err := s.SaveBase(dir); err != nil {
			t.Fatal(err)
		}
		o, err := OpenBase(dir)
		if err != nil {
			t.Fatal(err)
		}
		snap, cat := o.Snapshot(), o.Catalog()
		if err := snap.Check(); err != nil { // the stored views included
			t.Fatal(err)
		}
		for _, tname := range []string{"A", "B"} {
			typ, _ := cat.LookupType(tname)
			for _, name := range keys {
				k, _ := cat.LookupKey(name)
				for _, d := range []Direction{Outgoing, Incoming} {
					base := snap.Adjacency(typ, d).Base()
					// What a call would build on the opened store without
					// the stored view: a gather, or the id-ordered view's
					// own range.
					gathers, has := gatheredSlotView(t, snap, k, base)
					if !has {
						continue // no view of the key, or the type holds no value of it
					}
					installed := installedSlotView(snap.relCol(k), base)
					if installed != gathers {
						t.Fatalf("%s %s %v: view installed on open %t, a call would gather %t", tname, name, d, installed, gathers)
					}
					if installed {
						stored[d]++
					}
					if name == "iw" || name == "iwide" {
						v, err := snap.RelSlotViewParts(k, base, 1<<30, goParts(4))
						if err != nil || v == nil {
							t.Fatalf("%s %s %v: no slot view (%v)", tname, name, d, err)
						}
						get := func(s uint64) (float64, bool) {
							x, ok := v.Get(s)
							return float64(x), ok
						}
						checkSlotView(t, snap, k, base, get, v.valid, v.SpanFloat)
						continue
					}
					v, err := snap.RelFloatSlotViewParts(k, base, 1<<30, goParts(4))
					if err != nil || v == nil {
						t.Fatalf("%s %s %v: no slot view (%v)", tname, name, d, err)
					}
					checkSlotView(t, snap, k, base, v.Get, v.valid, v.Span)
				}
			}
		}
		// Check compares the views with the columns: one wrong value
		// fails it.
		iw, _ := cat.LookupKey("iw")
		typB, _ := cat.LookupType("B")
		sv := snap.RelSlotView(iw, snap.Adjacency(typB, Incoming).Base(), 0)
		sv.u8[7]++
		if err := snap.Check(); err == nil || !strings.Contains(err.Error(), "slot-ordered view") {
			t.Fatalf("Check with a wrong view value: %v", err)
		}
		sv.u8[7]--
		return stored
	}
	t.Run("bulk load", func(t *testing.T) {
		stored := check(t, s)
		// Every key of B has a backward view; forward ones only where the
		// id-ordered view does not start on the type's first slot.
		if stored[Incoming] < len(keys) || stored[Outgoing] >= stored[Incoming] {
			t.Fatalf("views stored: %d forward, %d backward", stored[Outgoing], stored[Incoming])
		}
	})
	tx := s.Begin()
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		if _, err := tx.DeleteRel(100 + uint64(rng.IntN(m))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	t.Run("checkpoint after deletions", func(t *testing.T) {
		stored := check(t, s)
		if stored[Outgoing] < len(keys) {
			t.Fatalf("views stored: %d forward, %d backward", stored[Outgoing], stored[Incoming])
		}
	})
}

// gatheredSlotView builds key k's slot view of base as a call does on
// snap, and reports whether it is a gather (its values are not a range
// of the id-ordered view) and whether any slot holds a value.
func gatheredSlotView(t *testing.T, snap *Snapshot, k catalog.KeyID, base *csr.CSR) (gather, has bool) {
	t.Helper()
	c := snap.relCol(k)
	// within: the slot view's array starts inside the id-ordered view's.
	within := func(sv, v []byte) bool {
		p, lo := uintptr(unsafe.Pointer(unsafe.SliceData(sv))), uintptr(unsafe.Pointer(unsafe.SliceData(v)))
		return p >= lo && p < lo+uintptr(len(v))
	}
	if c.typ() == vector.Int64 {
		v, _ := buildIntView(c, serialParts)
		if v == nil {
			return false, false
		}
		sv, _ := buildSlotView(v, base, serialParts)
		return !within(intViewBytes(sv), intViewBytes(v)), slotsHaveValue(base, v.lo, v.n, v.valid)
	}
	v, _ := buildFloatView(c, serialParts)
	if v == nil {
		return false, false
	}
	sv, _ := buildFloatSlotView(v, base, serialParts)
	return !within(floatBytes(sv.vals), floatBytes(v.vals)), slotsHaveValue(base, v.lo, v.n, v.valid)
}

func floatBytes(x []float64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), 8*len(x))
}

// intViewBytes is the memory of v's encoded values.
func intViewBytes(v *IntView) []byte {
	switch {
	case v.u8 != nil:
		return v.u8
	case v.u16 != nil:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v.u16))), 2*len(v.u16))
	case v.u32 != nil:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v.u32))), 4*len(v.u32))
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v.u64))), 8*len(v.u64))
}

// installedSlotView reports whether c's cache holds a slot view of base.
func installedSlotView(c *column, base *csr.CSR) bool {
	if sv := c.cache.slots.Load(); sv != nil {
		for _, x := range *sv {
			if x.base == base {
				return true
			}
		}
	}
	if sv := c.cache.fslots.Load(); sv != nil {
		for _, x := range *sv {
			if x.base == base {
				return true
			}
		}
	}
	return false
}

// TestBaseSlotViewsCorrupt: a damaged slot view file (truncated, a
// flipped byte, removed) fails the open with ErrCorruptBase naming it,
// and a view that does not fit its CSR or its column is refused as a
// corrupt file.
func TestBaseSlotViewsCorrupt(t *testing.T) {
	s := slotViewStore(t, 5000)
	src := t.TempDir()
	if _, err := s.SaveBase(src); err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(src, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	_, mf, err := parseManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range mf.Files {
		if _, _, _, ok := parseSlotFileName(f.Name); !ok {
			continue
		}
		n++
		for _, damage := range []string{"truncate", "flip", "remove"} {
			if err := openDamaged(t, src, mf.Base, f.Name, damage, 3); !errors.Is(err, ErrCorruptBase) || !strings.Contains(err.Error(), f.Name) {
				t.Fatalf("%s %s: error %v, want ErrCorruptBase naming the file", damage, f.Name, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no slot view file written")
	}
	// Views that do not fit what the base holds.
	o, err := OpenBase(src)
	if err != nil {
		t.Fatal(err)
	}
	v := o.Snapshot()
	cat := o.Catalog()
	typ, _ := cat.LookupType("B")
	iw, _ := cat.LookupKey("iw")
	full, _ := cat.LookupKey("full")
	edges := uint64(v.Adjacency(typ, Incoming).Base().NumEdges())
	for _, c := range []struct {
		name string
		f    slotFile
		want string
	}{
		{"slots", slotFile{k: int(iw), t: int(typ), d: int(Incoming), kind: slotKindInt, width: 1, n: edges + 1}, "slots for"},
		{"kind", slotFile{k: int(full), t: int(typ), d: int(Incoming), kind: slotKindInt, width: 1, n: edges}, "kind"},
		{"key", slotFile{k: 99, t: int(typ), d: int(Incoming), kind: slotKindInt, width: 1, n: edges}, "no column"},
		{"type", slotFile{k: int(iw), t: 99, d: int(Incoming), kind: slotKindInt, width: 1, n: edges}, "no relationships"},
	} {
		c.f.sf = &sectionFile{name: "rel.x.slots.y.in"}
		c.f.alloc()
		var ce *corruptFile
		if err := c.f.install(v, map[int]uint64{}); !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestSlotFileNames: the names round-trip and the base's name check
// takes them with ids in range only.
func TestSlotFileNames(t *testing.T) {
	for _, c := range []struct{ k, t, d int }{{0, 0, 0}, {3, 7, 1}, {12, 0, 1}} {
		name := slotFileName(c.k, c.t, c.d)
		k, typ, d, ok := parseSlotFileName(name)
		if !ok || k != c.k || typ != c.t || d != c.d {
			t.Fatalf("%s: parsed %d %d %d %t", name, k, typ, d, ok)
		}
		if err := checkFileName(name, 1, 8, 13); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for _, name := range []string{"rel.1.slots.2.up", "rel.01.slots.2.in", "rel.1.slot.2.in", "node.1.slots.2.in", "rel.-1.slots.2.in", "rel.1.slots.2"} {
		if _, _, _, ok := parseSlotFileName(name); ok {
			t.Fatalf("%s parsed", name)
		}
	}
	if checkFileName("rel.13.slots.0.in", 1, 8, 13) == nil || checkFileName("rel.0.slots.8.out", 1, 8, 13) == nil {
		t.Fatal("ids out of range accepted")
	}
}
