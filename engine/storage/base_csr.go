package storage

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/quiverdb/quiver/csr"
)

// CSR files (csr.<t>.out, csr.<t>.in) are sectioned files
// (base_sections.go) holding one flat CSR cut into parts of consecutive
// nodes (csr/parts.go):
//
//	per part, in node order:
//	  index    zstd   degree uvarint, block bytes uvarint, per node
//	  blocks   raw    the part's neighbour blocks, exactly as in memory
//	  ids      zstd   the part's slot ids, when they are stored (below)
//	header     raw    (the last section)
//	  "QCSR2"
//	  numNodes uvarint, numEdges uvarint, dataLen uvarint (block bytes)
//	  ids u8:  0 slot s holds base+s (a bulk load's forward CSR): base uvarint follows
//	           1 u32 LE per slot   2 u64 LE per slot
//	  nparts uvarint, then per part: nodes, slots, block bytes (uvarints)
//
// The blocks are not compressed: FOR-packed ids leave zstd nothing to
// gain (0.97 on the benchmark graph) and cost a decode and a copy. A
// reader allocates the CSR's arrays once, reads each part's blocks
// straight into them and verifies the part, on every core (base_rels.go).
//
// Why a backward CSR stores whole ids even when they follow from the
// forward one (a bulk load's: id = base + forward offset of the source +
// the slot's position in the source's list; format 1 stored those
// positions, about a byte each after zstd against three): restoring the
// ids costs a random read of the forward offsets per relationship, 50 ns
// on the 8 MB offsets of 1M nodes and a DRAM miss beyond, which made it
// the largest single cost of opening a graph.

const csrMagic = "QCSR2"

// CSR id encodings (the ids byte).
const (
	csrIDsSeq = 0
	csrIDs32  = 1
	csrIDs64  = 2
)

// csrPartNodes and csrPartSlots bound a part (tests shrink them). A part
// of 1M slots keeps a reader's scratch buffers at a few MiB and gives a
// graph of 10M relationships ten parts per direction to spread on cores.
var (
	csrPartNodes uint64 = 1 << 20
	csrPartSlots uint64 = 1 << 20
)

// writeCSR writes the flat CSR of one direction of a type.
func writeCSR(sw *sectionWriter, c *csr.CSR) {
	base, seq := c.SequentialBase()
	ids := byte(csrIDs32)
	switch {
	case seq:
		ids = csrIDsSeq
	default:
		for s := range uint64(c.NumEdges()) {
			if c.SlotRel(s) > math.MaxUint32 {
				ids = csrIDs64
				break
			}
		}
	}
	parts := c.Parts(csrPartNodes, csrPartSlots)
	var buf []byte
	for _, p := range parts {
		buf = c.AppendIndex(buf[:0], p)
		sw.compressed(buf)
		sw.raw(c.Blocks(p))
		if ids == csrIDsSeq {
			continue
		}
		buf = buf[:0]
		for s := p.Slot; s < p.SlotEnd; s++ {
			if ids == csrIDs32 {
				buf = binary.LittleEndian.AppendUint32(buf, uint32(c.SlotRel(s)))
			} else {
				buf = binary.LittleEndian.AppendUint64(buf, c.SlotRel(s))
			}
		}
		sw.compressed(buf)
	}
	h := append([]byte(nil), csrMagic...)
	h = binary.AppendUvarint(h, uint64(c.NumNodes()))
	h = binary.AppendUvarint(h, uint64(c.NumEdges()))
	h = binary.AppendUvarint(h, c.DataLen())
	h = append(h, ids)
	if ids == csrIDsSeq {
		h = binary.AppendUvarint(h, base)
	}
	h = binary.AppendUvarint(h, uint64(len(parts)))
	for _, p := range parts {
		h = binary.AppendUvarint(h, p.Hi-p.Lo)
		h = binary.AppendUvarint(h, p.SlotEnd-p.Slot)
		h = binary.AppendUvarint(h, p.PosEnd-p.Pos)
	}
	sw.raw(h)
}

// csrFile is an open CSR file whose header has been read.
type csrFile struct {
	sf                          *sectionFile
	numNodes, numEdges, dataLen uint64
	ids                         byte
	base                        uint64
	parts                       []csr.Part
	loader                      *csr.Loader
	loops                       [][]uint64
}

// idWidth is the bytes a slot's stored id takes (0: not stored).
func (cf *csrFile) idWidth() int {
	switch cf.ids {
	case csrIDs32:
		return 4
	case csrIDs64:
		return 8
	}
	return 0
}

// perPart is the number of sections a part takes.
func (cf *csrFile) perPart() int {
	if cf.ids == csrIDsSeq {
		return 2
	}
	return 3
}

// openCSR reads a CSR file's header, checks it against the graph's
// bounds (numNodes must be nodeBound; at most maxEdges slots) and
// allocates the CSR's arrays.
func openCSR(sf *sectionFile, nodeBound uint64, maxEdges int64, dec *zstd.Decoder) (*csrFile, error) {
	if len(sf.secs) == 0 {
		return nil, fmt.Errorf("no header")
	}
	last := len(sf.secs) - 1
	if sf.secs[last].codec != codecRaw {
		return nil, fmt.Errorf("compressed header")
	}
	hb, _, err := sf.readAll(last, dec, nil)
	if err != nil {
		return nil, err
	}
	if len(hb) < len(csrMagic) || string(hb[:len(csrMagic)]) != csrMagic {
		return nil, fmt.Errorf("bad magic")
	}
	d := &decoder{b: hb, p: len(csrMagic)}
	cf := &csrFile{sf: sf, numNodes: d.uvarint(), numEdges: d.uvarint(), dataLen: d.uvarint(), ids: d.u8()}
	if cf.ids > csrIDs64 {
		return nil, fmt.Errorf("relationship id encoding %d", cf.ids)
	}
	if cf.ids == csrIDsSeq {
		cf.base = d.uvarint()
	}
	n := d.count(3)
	if d.err != nil {
		return nil, d.err
	}
	if cf.numNodes != nodeBound {
		return nil, fmt.Errorf("covers %d nodes, the graph %d", cf.numNodes, nodeBound)
	}
	if cf.numEdges > uint64(maxEdges) {
		return nil, fmt.Errorf("%d edges, the graph has %d relationships", cf.numEdges, maxEdges)
	}
	if len(sf.secs) != n*cf.perPart()+1 {
		return nil, fmt.Errorf("%d sections for %d parts", len(sf.secs), n)
	}
	cf.parts = make([]csr.Part, n)
	var at csr.Part
	for i := range cf.parts {
		nodes, slots, bytes := d.uvarint(), d.uvarint(), d.uvarint()
		if d.err != nil {
			return nil, d.err
		}
		if nodes > cf.numNodes-at.Hi || slots > cf.numEdges-at.SlotEnd || bytes > cf.dataLen-at.PosEnd {
			return nil, fmt.Errorf("part %d reaches past the CSR", i)
		}
		at = csr.Part{Lo: at.Hi, Hi: at.Hi + nodes, Slot: at.SlotEnd, SlotEnd: at.SlotEnd + slots, Pos: at.PosEnd, PosEnd: at.PosEnd + bytes}
		cf.parts[i] = at
		// The sizes the structure implies, before anything is allocated
		// from them: the blocks are stored raw, the ids are a fixed width.
		s := i * cf.perPart()
		if sf.secs[s+1].raw != int64(bytes) {
			return nil, fmt.Errorf("part %d: %d block bytes stored, %d in the header", i, sf.secs[s+1].raw, bytes)
		}
		if w := cf.idWidth(); w > 0 && uint64(sf.secs[s+2].raw) != slots*uint64(w) {
			return nil, fmt.Errorf("part %d: %d id bytes for %d slots", i, sf.secs[s+2].raw, slots)
		}
		// Every node takes at least two index bytes, and a degree or a
		// length at most ten.
		if r := uint64(sf.secs[s].raw); r < 2*nodes || r > 20*nodes {
			return nil, fmt.Errorf("part %d: index of %d bytes for %d nodes", i, r, nodes)
		}
	}
	if d.left() != 0 {
		return nil, fmt.Errorf("%d trailing header bytes", d.left())
	}
	cf.loader, err = csr.NewLoader(cf.numNodes, cf.numEdges, cf.dataLen, cf.parts, [...]csr.IDs{csr.SeqIDs, csr.IDs32, csr.IDs64}[cf.ids], cf.base)
	if err != nil {
		return nil, err
	}
	cf.loops = make([][]uint64, n)
	return cf, nil
}

// csrScratch are one worker's buffers for loading parts.
type csrScratch struct {
	z, index []byte
}

// loadPart reads part p's sections, its blocks and its ids straight into
// the CSR's arrays, and loads it; visit sees each list with its ids
// (partIDs).
func (cf *csrFile) loadPart(p int, dec *zstd.Decoder, sc *csrScratch, visit func(node, slot uint64, nbrs []uint64, ids partIDs) error) error {
	s := p * cf.perPart()
	var err error
	sc.index = grow(sc.index, cf.sf.rawSize(s))
	if sc.z, err = cf.sf.readSection(s, sc.index, dec, sc.z); err != nil {
		return err
	}
	if sc.z, err = cf.sf.readSection(s+1, cf.loader.Data(p), dec, sc.z); err != nil {
		return err
	}
	ids := partIDs{first: cf.parts[p].Slot, base: cf.base, r32: cf.loader.Rels32(p), r64: cf.loader.Rels64(p)}
	if cf.idWidth() > 0 {
		if sc.z, err = cf.sf.readSection(s+2, ids.bytes(), dec, sc.z); err != nil {
			return err
		}
		ids.fromLE()
	}
	var fn func(node, slot uint64, nbrs []uint64) error
	if visit != nil {
		fn = func(node, slot uint64, nbrs []uint64) error { return visit(node, slot, nbrs, ids) }
	}
	cf.loops[p], err = cf.loader.Load(p, sc.index, fn)
	return err
}

// partIDs are the relationship ids of a part's slots: computed (base +
// slot) or held in the CSR's own id array, which the stored ids were
// read into.
type partIDs struct {
	first, base uint64
	r32         []uint32
	r64         []uint64
}

// id is slot s's relationship id.
func (x partIDs) id(s uint64) uint64 {
	switch {
	case x.r32 != nil:
		return uint64(x.r32[s-x.first])
	case x.r64 != nil:
		return x.r64[s-x.first]
	}
	return x.base + s
}

// bytes is the id array's memory, which the stored ids (little endian)
// are read into.
func (x partIDs) bytes() []byte {
	if x.r32 != nil {
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x.r32))), 4*len(x.r32))
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x.r64))), 8*len(x.r64))
}

// fromLE turns ids read as little-endian bytes into native integers.
func (x partIDs) fromLE() {
	if nativeLE {
		return
	}
	for i, r := range x.r32 {
		x.r32[i] = bits.ReverseBytes32(r)
	}
	for i, r := range x.r64 {
		x.r64[i] = bits.ReverseBytes64(r)
	}
}

// csr returns the loaded CSR (every part loaded).
func (cf *csrFile) csr() *csr.CSR { return cf.loader.CSR(cf.loops) }

// grow returns b resized to n bytes, reallocated (with a quarter to
// spare, as the next section may be a little larger) only when too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, n+n/4)
	}
	return b[:n]
}
