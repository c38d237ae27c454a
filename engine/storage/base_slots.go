package storage

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/vector"
)

// Slot-ordered views in the base. A relationship property's values are
// stored in id order, and a bulk load numbers each type's relationships
// in forward slot order, so the forward lists read a weight as one range
// of the id-ordered view; the backward lists name their relationships in
// another order, and their view (RelSlotView, RelFloatSlotView) is a
// gather of one random read per relationship: at Graph500 scale 22, 67M
// reads from a 537 MB FLOAT view, a second of a weighted algorithm's
// first call. So a base also stores, for each INTEGER or FLOAT
// relationship property and each direction whose view would be such a
// gather, that view itself, as Kùzu stores a relationship table's
// properties in both directions' order. The import and each checkpoint
// pay the gather once, off the query path; opening the base reads the
// views sequentially and puts them where the first call would have
// built them (the column's cache, for that CSR), so no call gathers.
//
//	rel.<key>.slots.<type>.<out|in>   a sectioned file (base_sections.go)
//	  sections 0..parts-1   the encoded values, perPart slots a section
//	                        (the last one the rest), little-endian, width
//	                        bytes each
//	  section parts         (with a validity) one bit per slot, set when
//	                        the slot's relationship has a value
//	  last section (raw)    header: slotsMagic, kind (1 INTEGER, 2
//	                        FLOAT), width, base (zigzag varint; an
//	                        INTEGER view's frame of reference), slots,
//	                        perPart, parts, validity (0 or 1)
//
// A view is written only when it would be built at all: the column is
// wholly INTEGER or wholly FLOAT and dense enough for its id-ordered
// view, the direction's slots do not read that view as one range
// already, and at least one of them holds a value. An INTEGER view keeps
// the id-ordered view's frame of reference and width, so it is the view
// a gather would have built. The values are checked by their sections'
// CRCs, as a column's are; their count and kind against the CSR and the
// column they belong to.

const (
	slotsMagic    = "QSLOTS\x00\x01"
	slotKindInt   = 1
	slotKindFloat = 2
	// maxSlotPart bounds a section's slots (a reader's decode unit).
	maxSlotPart = 1 << 24
)

// slotPartValues is the slots of a section the writer cuts a view into:
// 1 MiB of a byte-wide view, 8 MiB of a FLOAT one. A variable so that a
// test writes views of many sections.
var slotPartValues = 1 << 20

// slotFileName is the file of key k's view in the slot order of type t's
// direction d.
func slotFileName(k, t, d int) string {
	return "rel." + strconv.Itoa(k) + ".slots." + strconv.Itoa(t) + "." + dirName[d]
}

// parseSlotFileName is slotFileName's inverse; ok false for another name.
func parseSlotFileName(name string) (k, t, d int, ok bool) {
	p := strings.Split(name, ".")
	if len(p) != 5 || p[0] != "rel" || p[2] != "slots" {
		return 0, 0, 0, false
	}
	var err1, err2 error
	k, err1 = strconv.Atoi(p[1])
	t, err2 = strconv.Atoi(p[3])
	switch {
	case err1 != nil || err2 != nil || k < 0 || t < 0 || strconv.Itoa(k) != p[1] || strconv.Itoa(t) != p[3]:
		return 0, 0, 0, false
	case p[4] == dirName[Outgoing]:
		return k, t, int(Outgoing), true
	case p[4] == dirName[Incoming]:
		return k, t, int(Incoming), true
	}
	return 0, 0, 0, false
}

// idViews are the id-ordered views of the relationship columns a base
// writes slot-ordered views of, each built once for all its files (while
// writeFiles lists the files): the column's cached one when it has it,
// else built on the workers of parallelParts and not cached (a
// checkpoint does not keep a view the queries never asked for). They
// live until the base is written, and each slot view while its file is.
type idViews struct {
	v     *Snapshot
	built []bool
	iv    []*IntView
	fv    []*FloatView
}

func newIDViews(v *Snapshot) *idViews {
	n := len(v.relCols)
	return &idViews{v: v, built: make([]bool, n), iv: make([]*IntView, n), fv: make([]*FloatView, n)}
}

func (x *idViews) get(k int) (*IntView, *FloatView) {
	if !x.built[k] {
		x.built[k] = true
		c := x.v.relCols[k]
		switch c.typ() {
		case vector.Int64:
			if x.iv[k] = c.cache.view.Load(); x.iv[k] == nil {
				x.iv[k], _ = buildIntView(c, parallelParts)
			}
		case vector.Float64:
			if x.fv[k] = c.cache.fview.Load(); x.fv[k] == nil {
				x.fv[k], _ = buildFloatView(c, parallelParts)
			}
		}
	}
	return x.iv[k], x.fv[k]
}

// slotViewTasks are the files of the slot-ordered views of type t's
// directions flat (as written) that a base stores.
func (x *idViews) slotViewTasks(t int, flat [2]*csr.CSR) []fileTask {
	var tasks []fileTask
	for k, c := range x.v.relCols {
		if ct := c.typ(); ct != vector.Int64 && ct != vector.Float64 {
			continue
		}
		iv, fv := x.get(k)
		for d, base := range flat {
			var lo, n uint64
			var valid []uint64
			switch {
			case iv != nil:
				lo, n, valid = iv.lo, iv.n, iv.valid
			case fv != nil:
				lo, n, valid = fv.lo, fv.n, fv.valid
			default:
				continue
			}
			if base == nil || base.NumEdges() == 0 || sharesIDView(base, lo, n-lo, valid) || !slotsHaveValue(base, lo, n, valid) {
				continue
			}
			tasks = append(tasks, fileTask{name: slotFileName(k, t, d), sections: func(sw *sectionWriter) {
				if iv != nil {
					sv, _ := buildSlotView(iv, base, serialParts)
					writeIntSlots(sw, sv, iv.Width())
				} else {
					sv, _ := buildFloatSlotView(fv, base, serialParts)
					writeSlots(sw, slotKindFloat, 8, 0, sv.n, sv.vals, sv.valid)
				}
			}})
		}
	}
	return tasks
}

// sharesIDView reports whether base's slots read an id-ordered view of
// ids lo.. (n of them, validity valid) as one range (slotOrder's shared
// case): no view of its own is built, so none is stored.
func sharesIDView(base *csr.CSR, lo, n uint64, valid []uint64) bool {
	e := uint64(base.NumEdges())
	seq, ok := base.SequentialBase()
	if !ok || seq < lo || seq-lo+e > n {
		return false
	}
	x := seq - lo
	return valid == nil || wordsSet(valid, x, e) || x&63 == 0
}

// slotsHaveValue reports whether a relationship of base has a value in
// the id-ordered view of ids lo..n-1 (validity valid): one sequential
// pass over the slots' ids at most, stopping at the first.
func slotsHaveValue(base *csr.CSR, lo, n uint64, valid []uint64) bool {
	for s, e := uint64(0), uint64(base.NumEdges()); s < e; s++ {
		rel := base.SlotRel(s)
		if rel < lo || rel >= n {
			continue
		}
		if x := rel - lo; valid == nil || valid[x>>6]&(1<<(x&63)) != 0 {
			return true
		}
	}
	return false
}

func writeIntSlots(sw *sectionWriter, sv *IntView, width int) {
	switch width {
	case 1:
		writeSlots(sw, slotKindInt, 1, sv.base, sv.n, sv.u8, sv.valid)
	case 2:
		writeSlots(sw, slotKindInt, 2, sv.base, sv.n, sv.u16, sv.valid)
	case 4:
		writeSlots(sw, slotKindInt, 4, sv.base, sv.n, sv.u32, sv.valid)
	default:
		writeSlots(sw, slotKindInt, 8, sv.base, sv.n, sv.u64, sv.valid)
	}
}

// writeSlots writes one view's file: vals (n values of width bytes) in
// sections of slotPartValues, the validity, the header.
func writeSlots[T uint8 | uint16 | uint32 | uint64 | float64](sw *sectionWriter, kind byte, width int, base int64, n uint64, vals []T, valid []uint64) {
	parts, per := 0, slotPartValues
	var buf []byte
	for from := 0; from < len(vals); from += per {
		part := vals[from:min(from+per, len(vals))]
		buf = appendLE(buf[:0], part, width)
		sw.compressed(buf)
		parts++
	}
	if valid != nil {
		buf = appendLE(buf[:0], valid, 8)
		sw.compressed(buf)
	}
	h := []byte(slotsMagic)
	h = append(h, kind, byte(width))
	h = binary.AppendVarint(h, base)
	h = binary.AppendUvarint(h, n)
	h = binary.AppendUvarint(h, uint64(per))
	h = binary.AppendUvarint(h, uint64(parts))
	h = append(h, b2u8(valid != nil))
	sw.raw(h)
}

func b2u8(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// appendLE appends xs, each width bytes little-endian, to b: one copy on
// a little-endian machine.
func appendLE[T uint8 | uint16 | uint32 | uint64 | float64](b []byte, xs []T, width int) []byte {
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(xs))), width*len(xs))
	at := len(b)
	b = append(b, raw...)
	if !nativeLE {
		swapBytes(b[at:], width)
	}
	return b
}

// swapBytes reverses the byte order of each width-byte value of b.
func swapBytes(b []byte, width int) {
	for i := 0; i+width <= len(b); i += width {
		switch width {
		case 2:
			binary.LittleEndian.PutUint16(b[i:], bits.ReverseBytes16(binary.LittleEndian.Uint16(b[i:])))
		case 4:
			binary.LittleEndian.PutUint32(b[i:], bits.ReverseBytes32(binary.LittleEndian.Uint32(b[i:])))
		case 8:
			binary.LittleEndian.PutUint64(b[i:], bits.ReverseBytes64(binary.LittleEndian.Uint64(b[i:])))
		}
	}
}

// parallelParts is a ForParts on GOMAXPROCS goroutines (a base's writes
// and loads are not a statement's: nothing to stop them).
func parallelParts(n int, part func(i int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				part(i)
			}
		})
	}
	wg.Wait()
	return nil
}

// slotFile is an open slot-ordered view file (see above), decoded by its
// tasks into the view's arrays and installed once the CSRs and columns
// are loaded.
type slotFile struct {
	sf          *sectionFile
	k, t, d     int
	kind, width byte
	base        int64
	n           uint64
	perPart     uint64
	parts       int
	vals        []byte // the view's value array, as bytes
	valid       []uint64
	iv          *IntView
	fv          *FloatView
}

// openSlotFiles opens every slot-ordered view file of the base.
func openSlotFiles(files map[string]baseFile, o *opener) ([]*slotFile, error) {
	var out []*slotFile
	for name := range files {
		k, t, d, ok := parseSlotFileName(name)
		if !ok {
			continue
		}
		sf, err := o.sections(name)
		if err != nil {
			return nil, err
		}
		if sf == nil {
			continue
		}
		f, err := openSlotFile(sf, k, t, d, o.dec)
		if err != nil {
			return nil, badFile(name, "%v", err)
		}
		out = append(out, f)
	}
	return out, nil
}

func openSlotFile(sf *sectionFile, k, t, d int, dec *zstd.Decoder) (*slotFile, error) {
	if len(sf.secs) == 0 || sf.secs[len(sf.secs)-1].codec != codecRaw {
		return nil, fmt.Errorf("no header")
	}
	hb, _, err := sf.readAll(len(sf.secs)-1, dec, nil)
	if err != nil {
		return nil, err
	}
	f, hasValid, err := parseSlotHeader(hb)
	if err != nil {
		return nil, err
	}
	f.sf, f.k, f.t, f.d = sf, k, t, d
	if uint64(len(sf.secs)) != uint64(f.parts)+uint64(b2u8(hasValid))+1 {
		return nil, fmt.Errorf("header says %d parts, the file holds %d sections", f.parts, len(sf.secs))
	}
	for p := range f.parts {
		if want := int64(min(f.perPart, f.n-uint64(p)*f.perPart)) * int64(f.width); sf.secs[p].raw != want {
			return nil, fmt.Errorf("part %d holds %d bytes, not %d", p, sf.secs[p].raw, want)
		}
	}
	if hasValid {
		if sf.secs[f.parts].raw != int64((f.n+63)/64)*8 {
			return nil, fmt.Errorf("the validity holds %d bytes for %d slots", sf.secs[f.parts].raw, f.n)
		}
		f.valid = make([]uint64, (f.n+63)/64)
	}
	f.alloc()
	return f, nil
}

// parseSlotHeader reads a slot view file's header: its kind, width,
// base, slots and parts, and whether it stores a validity.
func parseSlotHeader(hb []byte) (*slotFile, bool, error) {
	if len(hb) < len(slotsMagic)+2 || string(hb[:len(slotsMagic)]) != slotsMagic {
		return nil, false, fmt.Errorf("bad magic")
	}
	f := &slotFile{kind: hb[len(slotsMagic)], width: hb[len(slotsMagic)+1]}
	d := &decoder{b: hb, p: len(slotsMagic) + 2}
	f.base = d.varint()
	f.n = d.uvarint()
	f.perPart = d.uvarint()
	parts := d.uvarint()
	valid := d.u8()
	switch {
	case d.err != nil || d.left() != 0:
		return nil, false, fmt.Errorf("bad header")
	case f.kind == slotKindInt && (f.width == 1 || f.width == 2 || f.width == 4 || f.width == 8):
	case f.kind == slotKindFloat && f.width == 8 && f.base == 0:
	default:
		return nil, false, fmt.Errorf("bad kind %d or width %d", f.kind, f.width)
	}
	if f.n == 0 || f.n > 1<<40 || f.perPart == 0 || f.perPart > maxSlotPart || parts != (f.n+f.perPart-1)/f.perPart || valid > 1 {
		return nil, false, fmt.Errorf("header says %d slots in %d parts of %d", f.n, parts, f.perPart)
	}
	f.parts = int(parts)
	return f, valid == 1, nil
}

// alloc makes the view and its value array, which the tasks read into.
func (f *slotFile) alloc() {
	bytesOf := func(p unsafe.Pointer, n uint64) []byte { return unsafe.Slice((*byte)(p), n) }
	if f.kind == slotKindFloat {
		vals := make([]float64, f.n)
		f.fv = &FloatView{n: f.n, vals: vals, valid: f.valid}
		f.vals = bytesOf(unsafe.Pointer(unsafe.SliceData(vals)), 8*f.n)
		return
	}
	f.iv = &IntView{base: f.base, n: f.n, valid: f.valid}
	switch f.width {
	case 1:
		f.iv.u8 = make([]uint8, f.n)
		f.vals = f.iv.u8
	case 2:
		f.iv.u16 = make([]uint16, f.n)
		f.vals = bytesOf(unsafe.Pointer(unsafe.SliceData(f.iv.u16)), 2*f.n)
	case 4:
		f.iv.u32 = make([]uint32, f.n)
		f.vals = bytesOf(unsafe.Pointer(unsafe.SliceData(f.iv.u32)), 4*f.n)
	default:
		f.iv.u64 = make([]uint64, f.n)
		f.vals = bytesOf(unsafe.Pointer(unsafe.SliceData(f.iv.u64)), 8*f.n)
	}
}

// decodeTasks read each part (and the validity) into the view.
func (f *slotFile) decodeTasks() []loadTask {
	var tasks []loadTask
	w := uint64(f.width)
	for p := range f.parts {
		tasks = append(tasks, func(sc *loadScratch, dec *zstd.Decoder) error {
			// Capped at the part's end: the decoder may write past its
			// output's length within its capacity, where the next part is
			// being decoded at the same time.
			from, to := uint64(p)*f.perPart*w, uint64(p)*f.perPart*w+uint64(f.sf.secs[p].raw)
			dst := f.vals[from:to:to]
			var err error
			if sc.csr.z, err = f.sf.readSection(p, dst, dec, sc.csr.z); err != nil {
				return badFile(f.sf.name, "%v", err)
			}
			if !nativeLE {
				swapBytes(dst, int(f.width))
			}
			return nil
		})
	}
	if f.valid != nil {
		tasks = append(tasks, func(sc *loadScratch, dec *zstd.Decoder) error {
			dst := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f.valid))), 8*len(f.valid))
			var err error
			if sc.csr.z, err = f.sf.readSection(f.parts, dst, dec, sc.csr.z); err != nil {
				return badFile(f.sf.name, "%v", err)
			}
			if !nativeLE {
				swapBytes(dst, 8)
			}
			if f.n%64 != 0 && f.valid[len(f.valid)-1]>>(f.n%64) != 0 {
				return badFile(f.sf.name, "validity bits past the last slot")
			}
			return nil
		})
	}
	return tasks
}

// install puts the view in its column's cache for its CSR of v, after
// checking that both exist and agree with it. maxRels holds each type's
// highest relationship id once a view of the type needed it (one pass
// over the type's slots at most, whatever the number of its views).
func (f *slotFile) install(v *Snapshot, maxRels map[int]uint64) error {
	if f.k >= len(v.relCols) || v.relCols[f.k] == nil {
		return badFile(f.sf.name, "no column of key %d", f.k)
	}
	if f.t >= len(v.adj) || v.adj[f.t][f.d] == nil {
		return badFile(f.sf.name, "no relationships of type %d", f.t)
	}
	c, base := v.relCols[f.k], v.adj[f.t][f.d].Base()
	maxRel, ok := maxRels[f.t]
	if !ok {
		maxRel = maxRelID(v.adj[f.t][Outgoing].Base()) // the same relationships, often numbered in slot order
		maxRels[f.t] = maxRel
	}
	if uint64(base.NumEdges()) != f.n {
		return badFile(f.sf.name, "%d slots for %d relationships", f.n, base.NumEdges())
	}
	switch typ := c.typ(); {
	case f.kind == slotKindInt && typ == vector.Int64:
		next := slotViews(withSlotView((*[]slotView)(c.cache.slots.Load()), slotView{base: base, view: f.iv, stored: true, maxRel: maxRel}))
		c.cache.slots.Store(&next)
	case f.kind == slotKindFloat && typ == vector.Float64:
		next := floatSlotViews(withSlotView((*[]floatSlotView)(c.cache.fslots.Load()), floatSlotView{base: base, view: f.fv, stored: true, maxRel: maxRel}))
		c.cache.fslots.Store(&next)
	default:
		return badFile(f.sf.name, "a view of kind %d for a column of type %v", f.kind, typ)
	}
	return nil
}
