package csr

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Stored form of a CSR (the CSR files of docs/storage-format.md). A CSR
// is cut into parts, ranges of consecutive nodes; a part is stored as its
// index and its blocks:
//
//	index    per node of the part: degree uvarint, block bytes uvarint
//	blocks   the part's encoded lists exactly as in memory (block.go)
//
// A reader allocates the CSR's final arrays once (NewLoader) and loads
// every part independently (Load): it copies the part's blocks straight
// into their place in the data array, and Load turns the index into the
// part's offsets and block starts and verifies every list of the part
// with the bounds-checked decoder. Parts load concurrently, so opening a
// large graph is neither a copy of its blocks nor one core's work.
//
// A part's first slot and first block byte are stored with it (Part), so
// no part waits for the prefix sums of the parts before it; NewLoader
// checks that the parts tile the nodes, slots and bytes exactly.

// Part is a range of nodes [Lo, Hi), their slots [Slot, SlotEnd) and
// their block bytes [Pos, PosEnd).
type Part struct {
	Lo, Hi        uint64
	Slot, SlotEnd uint64
	Pos, PosEnd   uint64
}

// Parts cuts c into parts of at most maxNodes nodes and at most maxSlots
// slots, except that a node is never split (a hub whose list is longer
// than maxSlots gets a part of its own). A CSR without nodes has no part.
func (c *CSR) Parts(maxNodes, maxSlots uint64) []Part {
	maxNodes, maxSlots = max(maxNodes, 1), max(maxSlots, 1)
	n := uint64(c.numNodes)
	var out []Part
	for lo := uint64(0); lo < n; {
		hi := lo + 1
		for hi < n && hi-lo < maxNodes && c.offsets[hi+1]-c.offsets[lo] <= maxSlots {
			hi++
		}
		out = append(out, Part{Lo: lo, Hi: hi, Slot: c.offsets[lo], SlotEnd: c.offsets[hi],
			Pos: uint64(c.start(lo)), PosEnd: uint64(c.start(hi))})
		lo = hi
	}
	return out
}

// DataLen is the number of block bytes (the data without its padding).
func (c *CSR) DataLen() uint64 { return uint64(len(c.data) - padBytes) }

// AppendIndex appends part p's index: for every node, its degree and the
// length of its blocks in bytes, as uvarints.
func (c *CSR) AppendIndex(dst []byte, p Part) []byte {
	for v := p.Lo; v < p.Hi; v++ {
		dst = binary.AppendUvarint(dst, c.offsets[v+1]-c.offsets[v])
		dst = binary.AppendUvarint(dst, uint64(c.start(v+1)-c.start(v)))
	}
	return dst
}

// Blocks is part p's encoded lists, shared with c: read-only.
func (c *CSR) Blocks(p Part) []byte { return c.data[p.Pos:p.PosEnd:p.PosEnd] }

// SlotRel is the relationship id of slot s (< NumEdges).
func (c *CSR) SlotRel(s uint64) uint64 { return c.rel(s) }

// SlotNode is the node whose list holds slot s (< NumEdges): a binary
// search of the offsets.
func (c *CSR) SlotNode(s uint64) uint64 { return c.nodeOfSlot(int(s)) }

// SlotEdge returns the node whose list holds slot s (< NumEdges) and the
// neighbour in that slot: a binary search of the offsets and a decode of
// the list's blocks up to the slot's, on the stack.
func (c *CSR) SlotEdge(s uint64) (node, nbr uint64) {
	v := c.nodeOfSlot(int(s))
	return v, c.neighborAt(v, int(s-c.offsets[v]))
}

// neighborAt decodes node's list up to its i-th neighbour (i < degree).
func (c *CSR) neighborAt(node uint64, i int) uint64 {
	var buf [blockSize + decodeSlack]uint64
	d := c.Degree(node)
	p := c.start(node)
	gapMask := uint64(1)<<(8*c.bb) - 1
	var prev uint64
	for b := 0; ; b += blockSize {
		k := min(d-b, blockSize)
		width := uint(0)
		if k > 1 {
			width = uint(c.data[p])
			p++
		}
		base := prev + binary.LittleEndian.Uint64(c.data[p:p+8])&gapMask
		p += int(c.bb)
		buf[0] = base
		unpack(buf[1:], k-1, c.data[p:], width, base)
		if i < b+k {
			return buf[i-b]
		}
		p += packedLen(k, width)
		prev = buf[k-1]
	}
}

// EachSlot calls fn for every slot s in [lo, hi) (≤ NumEdges) with the
// node whose list holds it and its neighbour, in slot order.
func (c *CSR) EachSlot(lo, hi uint64, fn func(s, node, nbr uint64)) {
	if lo >= hi {
		return
	}
	var nbrs []uint64
	for v := c.nodeOfSlot(int(lo)); lo < hi; v++ {
		first, end := c.offsets[v], c.offsets[v+1]
		if end <= lo {
			continue
		}
		nbrs = c.AppendNeighbors(nbrs[:0], v)
		for s := lo; s < min(end, hi); s++ {
			fn(s, v, nbrs[s-first])
		}
		lo = min(end, hi)
	}
}

// IDs is how a loaded CSR holds its slots' relationship ids.
type IDs uint8

const (
	// SeqIDs: slot s holds id base+s, computed (nothing to fill).
	SeqIDs IDs = iota
	// IDs32: ids below 2^32, filled through Rels32.
	IDs32
	// IDs64: any ids, filled through Rels64.
	IDs64
)

// Loader assembles a stored CSR in place: see the comment at the top of
// this file. Distinct parts may be filled and loaded by concurrent
// goroutines; CSR must wait for all of them.
type Loader struct {
	c      *CSR
	parts  []Part
	loaded []bool // loaded[p]: Load(p) succeeded (each written by its own part's goroutine)
}

// NewLoader allocates a CSR of numNodes nodes, numEdges slots and dataLen
// block bytes, stored as parts, which must tile the nodes, the slots and
// the bytes in order. ids says how the slots' relationship ids are held:
// with SeqIDs, slot s holds base+s; otherwise each part's Rels32 or
// Rels64 must be filled (by Load's visit). The caller bounds the sizes by
// what its input can hold: they are allocated here.
func NewLoader(numNodes, numEdges, dataLen uint64, parts []Part, ids IDs, base uint64) (*Loader, error) {
	if numNodes > maxNodes || dataLen > math.MaxInt-padBytes || numEdges > math.MaxInt || ids > IDs64 ||
		(ids == SeqIDs && base > math.MaxUint64-numEdges) {
		return nil, fmt.Errorf("%w: %d nodes, %d edges, %d bytes", ErrOffsets, numNodes, numEdges, dataLen)
	}
	var want Part
	for i, p := range parts {
		if p.Lo != want.Hi || p.Slot != want.SlotEnd || p.Pos != want.PosEnd || p.Hi <= p.Lo || p.SlotEnd < p.Slot || p.PosEnd < p.Pos {
			return nil, fmt.Errorf("%w: part %d (nodes %d-%d, slots %d-%d, bytes %d-%d) does not follow the one before",
				ErrOffsets, i, p.Lo, p.Hi, p.Slot, p.SlotEnd, p.Pos, p.PosEnd)
		}
		want = p
	}
	if want.Hi != numNodes || want.SlotEnd != numEdges || want.PosEnd != dataLen {
		return nil, fmt.Errorf("%w: parts end at node %d, slot %d, byte %d; want %d, %d, %d",
			ErrOffsets, want.Hi, want.SlotEnd, want.PosEnd, numNodes, numEdges, dataLen)
	}
	n := int(numNodes)
	c := &CSR{numNodes: n, bb: baseBytes(n), offsets: MakeHuge[uint64](n + 1), data: MakeHuge[byte](int(dataLen) + padBytes)}
	if len(c.data) <= math.MaxUint32 {
		c.start32 = MakeHuge[uint32](n + 1)
	} else {
		c.start64 = MakeHuge[uint64](n + 1)
	}
	switch ids {
	case SeqIDs:
		c.seq, c.seqBase = true, base
	case IDs32:
		c.rels32 = MakeHuge[uint32](int(numEdges))
	default:
		c.rels = MakeHuge[uint64](int(numEdges))
	}
	return &Loader{c: c, parts: parts, loaded: make([]bool, len(parts))}, nil
}

// Data is part p's block bytes, for the caller to fill before Load(p).
func (l *Loader) Data(p int) []byte {
	pt := l.parts[p]
	return l.c.data[pt.Pos:pt.PosEnd:pt.PosEnd]
}

// Rels64 is part p's slot ids for Load's visit to fill (IDs64; nil
// otherwise).
func (l *Loader) Rels64(p int) []uint64 {
	if l.c.rels == nil {
		return nil
	}
	pt := l.parts[p]
	return l.c.rels[pt.Slot:pt.SlotEnd:pt.SlotEnd]
}

// Rels32 is part p's slot ids for Load's visit to fill (IDs32; nil
// otherwise).
func (l *Loader) Rels32(p int) []uint32 {
	if l.c.rels32 == nil {
		return nil
	}
	pt := l.parts[p]
	return l.c.rels32[pt.Slot:pt.SlotEnd:pt.SlotEnd]
}

// Load turns part p's index (AppendIndex) into its offsets and block
// starts and verifies each of its lists as Check does: the blocks decode
// exactly within the node's bytes, neighbours are below NumNodes, and
// slots are sorted by (neighbour, relationship id). visit, when not nil,
// sees every non-empty list decoded, with its first slot, before the
// order check: it must fill the list's Rels32 or Rels64 when the ids are
// not sequential. Load returns the part's self-loops. Data(p) must be filled.
func (l *Loader) Load(p int, index []byte, visit func(node, slot uint64, nbrs []uint64) error) ([]uint64, error) {
	c, pt := l.c, l.parts[p]
	slot, pos, i := pt.Slot, pt.Pos, 0
	for v := pt.Lo; v < pt.Hi; v++ {
		d, n := binary.Uvarint(index[i:])
		if n <= 0 {
			return nil, fmt.Errorf("%w: node %d: truncated degree", ErrOffsets, v)
		}
		i += n
		b, n := binary.Uvarint(index[i:])
		if n <= 0 {
			return nil, fmt.Errorf("%w: node %d: truncated block length", ErrOffsets, v)
		}
		i += n
		if d > pt.SlotEnd-slot || b > pt.PosEnd-pos {
			return nil, fmt.Errorf("%w: node %d: degree %d or %d block bytes past its part", ErrOffsets, v, d, b)
		}
		slot, pos = slot+d, pos+b
		c.offsets[v+1] = slot
		if c.start32 != nil {
			c.start32[v+1] = uint32(pos)
		} else {
			c.start64[v+1] = pos
		}
	}
	if i != len(index) || slot != pt.SlotEnd || pos != pt.PosEnd {
		return nil, fmt.Errorf("%w: nodes %d-%d: index of %d bytes ends at byte %d, slot %d, block byte %d; part says %d, %d",
			ErrOffsets, pt.Lo, pt.Hi, len(index), i, slot, pos, pt.SlotEnd, pt.PosEnd)
	}
	// The decoder's loads run up to padBytes past a list's blocks: a list
	// that ends near its part's end is decoded from a padded copy, since
	// the next part's bytes may be being written meanwhile.
	var ids, loops []uint64
	var pad []byte
	slot, pos = pt.Slot, pt.Pos
	for v := pt.Lo; v < pt.Hi; v++ {
		end, endPos := c.offsets[v+1], uint64(c.start(v+1))
		d := int(end - slot)
		data, at := c.data, int(pos)
		if endPos+padBytes > pt.PosEnd {
			pad = append(append(pad[:0], c.data[pos:endPos]...), make([]byte, padBytes)...)
			data, at = pad, 0
		}
		var err error
		if ids, err = checkedList(ids[:0], data, at, at+int(endPos-pos), d, c.bb, v); err != nil {
			return nil, err
		}
		if d > 0 {
			if visit != nil {
				if err := visit(v, slot, ids); err != nil {
					return nil, err
				}
			}
			// Sorted by (neighbour, id): the ids are compared only between
			// parallel edges, and the last neighbour is the largest.
			prev := ids[0]
			for k := 1; k < d; k++ {
				id := ids[k]
				if id < prev || id == prev && c.rel(slot+uint64(k-1)) >= c.rel(slot+uint64(k)) {
					return nil, fmt.Errorf("%w: node %d slots %d,%d", ErrUnsorted, v, k-1, k)
				}
				prev = id
			}
			if prev >= uint64(c.numNodes) {
				return nil, fmt.Errorf("%w: node %d: neighbour %d >= %d", ErrNodeRange, v, prev, c.numNodes)
			}
			if ids[0] <= v && v <= prev {
				loops = appendLoopsOf(loops, ids, v)
			}
		}
		slot, pos = end, endPos
	}
	l.loaded[p] = true
	return loops, nil
}

// CSR returns the assembled CSR once every part is loaded; loops are the
// parts' self-loops in part order.
func (l *Loader) CSR(loops [][]uint64) *CSR {
	var all []uint64
	for p, ok := range l.loaded {
		if !ok {
			panic(fmt.Sprintf("BUG: csr: CSR before part %d loaded", p))
		}
		if p < len(loops) {
			all = append(all, loops[p]...)
		}
	}
	l.c.setLoops(all)
	return l.c
}

// checkedList decodes a list of d ids from the blocks at data[p:end],
// checking every header and payload against that range, which the list
// must fill exactly (data must extend padBytes past end).
func checkedList(dst []uint64, data []byte, p, end, d int, bb uint, v uint64) ([]uint64, error) {
	var prev uint64
	for b := 0; d > 0; b++ {
		k := min(d, blockSize)
		width := uint(0)
		if k > 1 {
			if p >= end {
				return dst, fmt.Errorf("%w: node %d block %d: header past the node's bytes", ErrBlock, v, b)
			}
			width = uint(data[p])
			p++
			if width > maxWidth {
				return dst, fmt.Errorf("%w: node %d block %d: width %d > %d", ErrBlock, v, b, width, maxWidth)
			}
		}
		if end-p < int(bb) {
			return dst, fmt.Errorf("%w: node %d block %d: gap past the node's bytes", ErrBlock, v, b)
		}
		gap := binary.LittleEndian.Uint64(data[p:p+8]) & (1<<(8*bb) - 1)
		p += int(bb)
		base := prev + gap
		if base < prev || base >= maxNodes {
			return dst, fmt.Errorf("%w: node %d block %d: base overflows", ErrBlock, v, b)
		}
		if k > 1 {
			pl := packedLen(k, width)
			if pl > end-p {
				return dst, fmt.Errorf("%w: node %d block %d: %d payload bytes past the node's bytes", ErrBlock, v, b, pl)
			}
			n0 := len(dst)
			dst = append(dst, make([]uint64, k+decodeSlack)...)
			dst[n0] = base
			unpack(dst[n0+1:], k-1, data[p:], width, base)
			dst = dst[:n0+k]
			p += pl
		} else {
			dst = append(dst, base)
		}
		prev = dst[len(dst)-1]
		d -= k
	}
	if p != end {
		return dst, fmt.Errorf("%w: node %d: blocks end at %d, next node starts at %d", ErrBlock, v, p, end)
	}
	return dst, nil
}
