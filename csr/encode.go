package csr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Encoded form of a CSR (the on-disk CSR block of docs/storage-format.md).
// The blocks are stored as they are in memory; offsets and block starts
// become per-node lengths, which are small and compress well:
//
//	magic      "QCSR1"
//	numNodes   uvarint
//	degree     uvarint × numNodes        offsets[v+1]-offsets[v]
//	blockLen   uvarint × numNodes        start[v+1]-start[v] (bytes)
//	relWidth   1 byte: 4 or 8, or 0 when slot s holds base+s (bulk loads)
//	rels       relWidth bytes LE × ΣDegree, slot order; for relWidth 0 the
//	           base as a uvarint
//	data       Σ blockLen bytes (the padding is not stored)
//
// Decode rebuilds offsets and starts by prefix sums and verifies the
// result with the bounds-checked decoder (Check without its duplicate-id
// map), so corrupt input is an error, never a panic or an out-of-range
// read later.

const encodeMagic = "QCSR1"

// ErrEncoding reports encoded CSR bytes that are truncated or malformed.
var ErrEncoding = errors.New("csr: corrupt encoding")

// AppendEncode appends c's encoded form to dst.
func (c *CSR) AppendEncode(dst []byte) []byte {
	dst = append(dst, encodeMagic...)
	dst = binary.AppendUvarint(dst, uint64(c.numNodes))
	for v := 0; v < c.numNodes; v++ {
		dst = binary.AppendUvarint(dst, c.offsets[v+1]-c.offsets[v])
	}
	for v := uint64(0); v < uint64(c.numNodes); v++ {
		dst = binary.AppendUvarint(dst, uint64(c.start(v+1)-c.start(v)))
	}
	if base, ok := c.sequentialBase(); ok {
		dst = binary.AppendUvarint(append(dst, 0), base)
		return append(dst, c.data[:len(c.data)-padBytes]...)
	}
	wide := false
	for _, r := range c.rels {
		if r > math.MaxUint32 {
			wide = true
			break
		}
	}
	if wide {
		dst = append(dst, 8)
		for _, r := range c.rels {
			dst = binary.LittleEndian.AppendUint64(dst, r)
		}
	} else {
		dst = append(dst, 4)
		for _, r := range c.rels {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(r))
		}
	}
	return append(dst, c.data[:len(c.data)-padBytes]...)
}

// EncodeTo writes the encoding AppendEncode appends, in pieces: the
// blocks straight from c, the rest through a small buffer, so that a
// large CSR is never copied whole. rels, when not nil, replaces c's
// relationship ids (len NumEdges; written 4 bytes each).
func (c *CSR) EncodeTo(w io.Writer, rels []uint32) error {
	if rels != nil && len(rels) != c.NumEdges() {
		panic("BUG: csr: EncodeTo with the wrong number of ids")
	}
	buf := make([]byte, 0, 64<<10)
	var err error
	flush := func(limit int) {
		if len(buf) >= limit && err == nil {
			_, err = w.Write(buf)
			buf = buf[:0]
		}
	}
	const full = 64<<10 - 16
	buf = append(buf, encodeMagic...)
	buf = binary.AppendUvarint(buf, uint64(c.numNodes))
	for v := 0; v < c.numNodes; v++ {
		buf = binary.AppendUvarint(buf, c.offsets[v+1]-c.offsets[v])
		flush(full)
	}
	for v := uint64(0); v < uint64(c.numNodes); v++ {
		buf = binary.AppendUvarint(buf, uint64(c.start(v+1)-c.start(v)))
		flush(full)
	}
	switch base, seq := c.sequentialBase(); {
	case rels != nil:
		buf = append(buf, 4)
		for _, r := range rels {
			buf = binary.LittleEndian.AppendUint32(buf, r)
			flush(full)
		}
	case seq:
		buf = binary.AppendUvarint(append(buf, 0), base)
	case slices.ContainsFunc(c.rels, func(r uint64) bool { return r > math.MaxUint32 }):
		buf = append(buf, 8)
		for _, r := range c.rels {
			buf = binary.LittleEndian.AppendUint64(buf, r)
			flush(full)
		}
	default:
		buf = append(buf, 4)
		for _, r := range c.rels {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(r))
			flush(full)
		}
	}
	flush(0)
	if err == nil {
		_, err = w.Write(c.data[:len(c.data)-padBytes])
	}
	return err
}

// Decode parses an encoded CSR (AppendEncode) and verifies it. The
// returned CSR does not alias b.
func Decode(b []byte) (*CSR, error) {
	if len(b) < len(encodeMagic) || string(b[:len(encodeMagic)]) != encodeMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrEncoding)
	}
	p := len(encodeMagic)
	uv := func(what string) (uint64, error) {
		x, n := binary.Uvarint(b[p:])
		if n <= 0 {
			return 0, fmt.Errorf("%w: truncated %s at byte %d", ErrEncoding, what, p)
		}
		p += n
		return x, nil
	}
	nn, err := uv("node count")
	if err != nil {
		return nil, err
	}
	// Every node takes at least two bytes, which bounds the allocation.
	if nn > maxNodes || nn > uint64(len(b)-p)/2 {
		return nil, fmt.Errorf("%w: %d nodes in %d bytes", ErrEncoding, nn, len(b))
	}
	n := int(nn)
	offsets := make([]uint64, n+1)
	for v := 0; v < n; v++ {
		d, err := uv("degree")
		if err != nil {
			return nil, err
		}
		if d > uint64(len(b)) { // a slot takes at least 4 bytes
			return nil, fmt.Errorf("%w: node %d degree %d", ErrEncoding, v, d)
		}
		offsets[v+1] = offsets[v] + d
	}
	starts := make([]uint64, n+1)
	for v := 0; v < n; v++ {
		l, err := uv("block length")
		if err != nil {
			return nil, err
		}
		if l > uint64(len(b)) {
			return nil, fmt.Errorf("%w: node %d block length %d", ErrEncoding, v, l)
		}
		starts[v+1] = starts[v] + l
	}
	if p >= len(b) {
		return nil, fmt.Errorf("%w: truncated before the relationship ids", ErrEncoding)
	}
	width := uint64(b[p])
	p++
	if width != 0 && width != 4 && width != 8 {
		return nil, fmt.Errorf("%w: relationship id width %d", ErrEncoding, width)
	}
	m := offsets[n]
	var base uint64
	if width == 0 {
		if base, err = uv("relationship id base"); err != nil {
			return nil, err
		}
		if base > math.MaxUint64-m {
			return nil, fmt.Errorf("%w: relationship ids overflow", ErrEncoding)
		}
	}
	rest := uint64(len(b) - p)
	if (width > 0 && m > rest/width) || rest-m*width != starts[n] {
		return nil, fmt.Errorf("%w: %d slots and %d block bytes do not fill the %d bytes left", ErrEncoding, m, starts[n], rest)
	}
	if width == 0 && m > rest*uint64(blockSize+1)/2+1024 { // a block of up to blockSize ids takes at least 2 bytes
		return nil, fmt.Errorf("%w: %d slots in %d block bytes", ErrEncoding, m, rest)
	}
	var rels []uint64
	if width != 0 {
		rels = make([]uint64, m)
	}
	for i := range rels {
		if width == 4 {
			rels[i] = uint64(binary.LittleEndian.Uint32(b[p:]))
		} else {
			rels[i] = binary.LittleEndian.Uint64(b[p:])
		}
		p += int(width)
	}
	data := make([]byte, int(starts[n])+padBytes)
	copy(data, b[p:])
	c := &CSR{numNodes: n, bb: baseBytes(n), offsets: offsets, rels: rels, data: data, seq: width == 0, seqBase: base}
	c.setStarts(starts)
	if err := c.checkLists(); err != nil {
		return nil, err
	}
	return c, nil
}
