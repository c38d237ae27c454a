package vectorindex

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// header opens a saved index (format 2; format 1 held the graph of
// github.com/coder/hnsw and was never persisted by the engine). The rest
// follows it, little-endian:
//
//	magic "QVHNSW\x00\x01" | version 2 | dim | metric | m | ef_construction | ef | seed | slots | entry | top   (int64 each)
//	node id of each slot (uint64 × slots) | dead flag (byte × slots) | level (byte × slots)
//	vectors (float32 × slots·dim, as given)
//	layer-0 rows (int32 × slots·(2m+1): count, neighbours, unused)
//	upper rows of each slot of level > 0, in slot order (int32 × level·(m+1))
type header struct {
	Magic, Version, Dim, Metric, M, EfConstruction, EfSearch, Seed, Slots, Entry, Top int64
}

const (
	headerMagic   = 0x0100_57534e48_5651 // "QVHNSW\x00\x01" read as little-endian
	formatVersion = 2
	// maxSlots and maxDim bound what Load allocates from a header.
	maxSlots = 1 << 32
	maxDim   = 1 << 16
)

// Save writes the index (configuration and graph) to w.
func (ix *Index) Save(w io.Writer) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	g := ix.g
	h := header{Magic: headerMagic, Version: formatVersion, Dim: int64(ix.cfg.Dim), Metric: int64(ix.cfg.Metric),
		M: int64(ix.cfg.M), EfConstruction: int64(ix.cfg.EfConstruction), EfSearch: int64(ix.cfg.EfSearch),
		Seed: ix.cfg.Seed, Slots: int64(len(ix.ids)), Entry: int64(g.entry), Top: int64(g.top)}
	bw := bufio.NewWriterSize(w, 1<<16)
	err := binary.Write(bw, binary.LittleEndian, &h)
	for _, x := range []any{ix.ids, ix.dead, g.levels, g.vecs, g.layer0} {
		if err == nil {
			err = writeChunked(bw, x)
		}
	}
	for _, row := range g.upper {
		if err == nil && row != nil {
			err = writeChunked(bw, row)
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("vector index: cannot write the index: %w", err)
	}
	return nil
}

// chunk is the elements binary.Write or Read converts at a time: it
// buffers a whole slice's bytes, which for the vectors of a large index
// would be a second copy of them.
const chunk = 1 << 14

func writeChunked(w io.Writer, x any) error {
	switch s := x.(type) {
	case []uint64:
		return eachChunk(s, func(c []uint64) error { return binary.Write(w, binary.LittleEndian, c) })
	case []bool:
		return eachChunk(s, func(c []bool) error { return binary.Write(w, binary.LittleEndian, c) })
	case []uint8:
		_, err := w.Write(s)
		return err
	case []float32:
		return eachChunk(s, func(c []float32) error { return binary.Write(w, binary.LittleEndian, c) })
	case []int32:
		return eachChunk(s, func(c []int32) error { return binary.Write(w, binary.LittleEndian, c) })
	}
	panic(fmt.Sprintf("vector index: cannot write %T", x))
}

func readChunked[T any](r io.Reader, s []T) error {
	return eachChunk(s, func(c []T) error { return binary.Read(r, binary.LittleEndian, c) })
}

func eachChunk[T any](s []T, fn func([]T) error) error {
	for len(s) > 0 {
		n := min(len(s), chunk)
		if err := fn(s[:n]); err != nil {
			return err
		}
		s = s[n:]
	}
	return nil
}

// Load reads an index Save wrote, checking that every neighbour is a
// slot of the layer it is linked on.
func Load(r io.Reader) (*Index, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var h header
	if err := binary.Read(br, binary.LittleEndian, &h); err != nil {
		return nil, fmt.Errorf("vector index: cannot read the header: %w", err)
	}
	if h.Magic != headerMagic || h.Version != formatVersion || h.Metric < 0 || h.Metric >= int64(len(metricNames)) ||
		h.Slots < 0 || h.Slots > maxSlots || h.Dim <= 0 || h.Dim > maxDim || h.M < 2 || h.M > 1024 ||
		h.Entry < -1 || h.Entry >= h.Slots || (h.Entry < 0) != (h.Slots == 0) || h.Top < 0 || h.Top > maxLevel {
		return nil, fmt.Errorf("vector index: not an index file, or an unknown version %d, metric %d or %d slots", h.Version, h.Metric, h.Slots)
	}
	cfg, err := Config{Dim: int(h.Dim), Metric: Metric(h.Metric), M: int(h.M), EfConstruction: int(h.EfConstruction), EfSearch: int(h.EfSearch), Seed: h.Seed}.withDefaults()
	if err != nil {
		return nil, err
	}
	ix := newIndex(cfg)
	g := ix.g
	n := int(h.Slots)
	ix.ids, ix.dead, g.vecs = make([]uint64, n), make([]bool, n), make([]float32, n*cfg.Dim)
	levels := make([]uint8, n)
	if err := readChunked(br, ix.ids); err != nil {
		return nil, fmt.Errorf("vector index: cannot read the slots: %w", err)
	}
	if err := readChunked(br, ix.dead); err != nil {
		return nil, fmt.Errorf("vector index: cannot read the slots: %w", err)
	}
	if _, err := io.ReadFull(br, levels); err != nil {
		return nil, fmt.Errorf("vector index: cannot read the levels: %w", err)
	}
	if err := readChunked(br, g.vecs); err != nil {
		return nil, fmt.Errorf("vector index: cannot read the vectors: %w", err)
	}
	for s, l := range levels {
		if l > maxLevel {
			return nil, fmt.Errorf("vector index: slot %d has level %d", s, l)
		}
	}
	g.grow(levels)
	for s, inv := range g.inv {
		if cfg.Metric == Cosine && (math.IsInf(float64(inv), 0) || math.IsNaN(float64(inv))) {
			return nil, fmt.Errorf("vector index: slot %d of a cosine index has no direction", s)
		}
	}
	if err := readChunked(br, g.layer0); err != nil {
		return nil, fmt.Errorf("vector index: cannot read the graph: %w", err)
	}
	for _, row := range g.upper {
		if row != nil {
			if err := readChunked(br, row); err != nil {
				return nil, fmt.Errorf("vector index: cannot read the graph: %w", err)
			}
		}
	}
	if err := ix.validate(int32(h.Entry), int(h.Top)); err != nil {
		return nil, err
	}
	for s, id := range ix.ids {
		if ix.dead[s] {
			ix.ndead++
		} else if _, dup := ix.slot[id]; dup {
			return nil, fmt.Errorf("vector index: node %d has two live slots", id)
		} else {
			ix.slot[id] = int32(s)
		}
	}
	return ix, nil
}

// validate checks a loaded graph's rows and entry point.
func (ix *Index) validate(entry int32, top int) error {
	g := ix.g
	if entry >= 0 && int(g.levels[entry]) != top {
		return fmt.Errorf("vector index: entry slot %d has level %d, the header %d", entry, g.levels[entry], top)
	}
	g.entry, g.top = entry, top
	for s := range int32(g.slots()) {
		for l := 0; l <= int(g.levels[s]); l++ {
			row := g.list(s, l)
			if row[0] < 0 || int(row[0]) >= len(row) {
				return fmt.Errorf("vector index: slot %d has %d neighbours on layer %d", s, row[0], l)
			}
			for _, n := range row[1 : 1+row[0]] {
				if n < 0 || int(n) >= g.slots() || int(g.levels[n]) < l {
					return fmt.Errorf("vector index: slot %d links to %d on layer %d, not a slot of that layer", s, n, l)
				}
			}
		}
	}
	return nil
}
