package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/klauspost/compress/zstd"
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// ErrCorruptBase wraps every error about the content of a base directory:
// a bad manifest, a missing, truncated or corrupt file, a version this
// code does not read.
var ErrCorruptBase = errors.New("storage: corrupt base")

// HasBase reports whether dir holds a base (its manifest exists).
func HasBase(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ManifestName))
	return err == nil
}

// OpenBase reads the base in dir into a new Store whose latest version is
// the snapshot that was written (indexes and constraints are rebuilt from
// their definitions, in one schema commit on top of it). Every file is
// checksummed and every structure bounds-checked, so corrupt or truncated
// input is an ErrCorruptBase error naming the file, never a panic.
func OpenBase(dir string) (*Store, error) {
	// Opening allocates a few large arrays per file and drops each file's
	// decompressed bytes once it is decoded: a collection is cheap, and at
	// the default GOGC=100 the heap would grow to twice what stays live
	// before one. So the open runs at GOGC=openGCPercent, unless the
	// process is set lower (or off).
	if prev := debug.SetGCPercent(openGCPercent); prev < openGCPercent {
		debug.SetGCPercent(prev)
	} else {
		defer debug.SetGCPercent(prev)
	}
	mb, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, fmt.Errorf("storage: cannot read the manifest: %w", err)
	}
	files, m, err := parseManifest(mb)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorruptBase, ManifestName, err)
	}
	// DecodeAll is safe for concurrent use; up to GOMAXPROCS files
	// decompress at once (decodeBase loads columns in parallel).
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithDecoderMaxMemory(1<<36))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	load := func(name string) ([]byte, error) {
		f, ok := files[name]
		if !ok {
			return nil, nil
		}
		z, err := os.ReadFile(filepath.Join(dir, m.Base, name))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorruptBase, err)
		}
		if int64(len(z)) != f.Size {
			return nil, fmt.Errorf("%w: %s: %d bytes, manifest says %d (truncated?)", ErrCorruptBase, name, len(z), f.Size)
		}
		if crc32.Checksum(z, crcTable) != f.CRC {
			return nil, fmt.Errorf("%w: %s: checksum mismatch", ErrCorruptBase, name)
		}
		raw, err := dec.DecodeAll(z, make([]byte, 0, f.Raw))
		if err != nil || int64(len(raw)) != f.Raw {
			return nil, fmt.Errorf("%w: %s: cannot decompress (%v)", ErrCorruptBase, name, err)
		}
		return raw, nil
	}
	s, err := decodeBase(m, files, load)
	if err != nil {
		var ce *corruptFile
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%w: %s: %v", ErrCorruptBase, ce.name, ce.err)
		}
		return nil, err
	}
	return s, nil
}

type corruptFile struct {
	name string
	err  error
}

func (e *corruptFile) Error() string { return e.name + ": " + e.err.Error() }

func parseManifest(b []byte) (map[string]baseFile, *manifest, error) {
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, err
	}
	if m.FormatVersion != FormatVersion {
		return nil, nil, fmt.Errorf("format_version %d, this build reads %d", m.FormatVersion, FormatVersion)
	}
	if !strings.HasPrefix(m.Base, "base-") || strings.ContainsAny(m.Base, `/\`) {
		return nil, nil, fmt.Errorf("bad base directory name %q", m.Base)
	}
	if m.NodeBound > maxNodeID+1 || m.NodeCount < 0 || uint64(m.NodeCount) > m.NodeBound ||
		m.RelCount < 0 || uint64(m.RelCount) > m.RelBound || m.RelBound > 1<<40 {
		return nil, nil, fmt.Errorf("bounds out of range (nodes %d/%d, relationships %d/%d)", m.NodeCount, m.NodeBound, m.RelCount, m.RelBound)
	}
	files := map[string]baseFile{}
	for _, f := range m.Files {
		if strings.ContainsAny(f.Name, `/\`) || f.Name == "" || f.Size < 0 || f.Raw < 0 || f.Raw > 1<<40 {
			return nil, nil, fmt.Errorf("bad file entry %q", f.Name)
		}
		files[f.Name] = f
	}
	if _, ok := files["catalog.json"]; !ok {
		return nil, nil, fmt.Errorf("no catalog.json")
	}
	if _, ok := files["nodes.live"]; !ok {
		return nil, nil, fmt.Errorf("no nodes.live")
	}
	return files, &m, nil
}

// openGCPercent is the collector's GOGC while OpenBase runs.
const openGCPercent = 40

// decodeBase builds the store from the manifest and a file loader (load
// returns nil, nil for a file the manifest does not list).
func decodeBase(m *manifest, files map[string]baseFile, load func(string) ([]byte, error)) (*Store, error) {
	bad := func(name string, format string, args ...any) error {
		return &corruptFile{name: name, err: fmt.Errorf(format, args...)}
	}
	cb, err := load("catalog.json")
	if err != nil {
		return nil, err
	}
	var cf catalogFile
	if err := json.Unmarshal(cb, &cf); err != nil {
		return nil, bad("catalog.json", "%v", err)
	}
	s := New()
	cat := s.cat
	for i, n := range cf.Labels {
		if _, dup := cat.LookupLabel(n); dup || int(cat.EnsureLabel(n)) != i {
			return nil, bad("catalog.json", "label %q listed twice", n)
		}
	}
	for i, n := range cf.Types {
		if _, dup := cat.LookupType(n); dup || int(cat.EnsureType(n)) != i {
			return nil, bad("catalog.json", "type %q listed twice", n)
		}
	}
	for i, n := range cf.Keys {
		if _, dup := cat.LookupKey(n); dup || int(cat.EnsureKey(n)) != i {
			return nil, bad("catalog.json", "key %q listed twice", n)
		}
	}
	v := &Snapshot{ts: m.TS, nodeBound: m.NodeBound, nodeCount: m.NodeCount, relBound: m.RelBound, relCount: m.RelCount}
	for name := range files {
		if err := checkFileName(name, len(cf.Labels), len(cf.Types), len(cf.Keys)); err != nil {
			return nil, bad(name, "%v", err)
		}
	}
	readBitmap := func(name string) (*roaring.Bitmap, error) {
		raw, err := load(name)
		if err != nil || raw == nil {
			return nil, err
		}
		b, err := decodeBitmap(raw)
		if err != nil {
			return nil, bad(name, "%v", err)
		}
		if !b.IsEmpty() && uint64(b.Maximum()) >= m.NodeBound {
			return nil, bad(name, "node %d past the id bound %d", b.Maximum(), m.NodeBound)
		}
		return b, nil
	}
	if v.live, err = readBitmap("nodes.live"); err != nil {
		return nil, err
	}
	if v.live.GetCardinality() != uint64(m.NodeCount) {
		return nil, bad("nodes.live", "%d nodes, manifest says %d", v.live.GetCardinality(), m.NodeCount)
	}
	v.labels = make([]*roaring.Bitmap, len(cf.Labels))
	for l := range v.labels {
		name := fmt.Sprintf("label.%d", l)
		if v.labels[l], err = readBitmap(name); err != nil {
			return nil, err
		}
		if v.labels[l] != nil && v.labels[l].AndCardinality(v.live) != v.labels[l].GetCardinality() {
			return nil, bad(name, "labels nodes that do not exist")
		}
	}
	// Columns decompress and decode independently, on GOMAXPROCS
	// goroutines (load must be safe for concurrent use).
	type colFile struct {
		cols  []*column
		k     int
		name  string
		bound uint64
	}
	v.nodeCols, v.relCols = make([]*column, len(cf.Keys)), make([]*column, len(cf.Keys))
	var colFiles []colFile
	for k := range cf.Keys {
		colFiles = append(colFiles,
			colFile{v.nodeCols, k, fmt.Sprintf("node.%d.col", k), m.NodeBound},
			colFile{v.relCols, k, fmt.Sprintf("rel.%d.col", k), m.RelBound})
	}
	err = forEachParallel(len(colFiles), func(i int) error {
		f := colFiles[i]
		raw, err := load(f.name)
		if err != nil || raw == nil {
			return err
		}
		if f.cols[f.k], err = decodeColumn(raw, f.bound); err != nil {
			return bad(f.name, "%v", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for len(v.nodeCols) > 0 && v.nodeCols[len(v.nodeCols)-1] == nil {
		v.nodeCols = v.nodeCols[:len(v.nodeCols)-1]
	}
	for len(v.relCols) > 0 && v.relCols[len(v.relCols)-1] == nil {
		v.relCols = v.relCols[:len(v.relCols)-1]
	}
	if err := v.checkNodes(); err != nil {
		return nil, bad("node files", "%v", err)
	}
	if err := v.loadRels(len(cf.Types), load); err != nil {
		return nil, err
	}
	s.install(v)
	s.nextNode.Store(m.NodeBound)
	s.nextRel.Store(m.RelBound)
	if err := s.rebuildSchema(&cf); err != nil {
		return nil, bad("catalog.json", "%v", err)
	}
	// The version is the checkpoint's: its ts (rebuilding the schema
	// committed once more) and the log position its WAL replay starts at.
	opened := *s.cur.Load()
	opened.ts, opened.lsn = m.TS, m.WALLSN
	s.install(&opened)
	return s, nil
}

// checkFileName accepts only the files the format defines, with ids in
// the catalog's range.
func checkFileName(name string, labels, types, keys int) error {
	part := strings.Split(name, ".")
	id := func(s string, n int) error {
		i, err := strconv.Atoi(s)
		if err != nil || i < 0 || i >= n || strconv.Itoa(i) != s {
			return fmt.Errorf("unknown file (id %q out of range)", s)
		}
		return nil
	}
	switch {
	case name == "catalog.json" || name == "nodes.live":
		return nil
	case len(part) == 2 && part[0] == "label":
		return id(part[1], labels)
	case len(part) == 3 && (part[0] == "node" || part[0] == "rel") && part[2] == "col":
		return id(part[1], keys)
	case len(part) == 3 && part[0] == "csr" && (part[2] == "out" || part[2] == "in"):
		return id(part[1], types)
	}
	return fmt.Errorf("unknown file")
}

// decodeBitmap reads a roaring bitmap, validating it (roaring's own
// decoder trusts its input).
func decodeBitmap(raw []byte) (b *roaring.Bitmap, err error) {
	defer func() {
		if r := recover(); r != nil { // roaring may panic on hostile input
			b, err = nil, fmt.Errorf("corrupt roaring bitmap: %v", r)
		}
	}()
	b = roaring.New()
	if err := b.UnmarshalBinary(raw); err != nil {
		return nil, fmt.Errorf("corrupt roaring bitmap: %w", err)
	}
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("corrupt roaring bitmap: %w", err)
	}
	return b, nil
}

// decodeColumn reads a column file (base_write.go encodeColumn); chunks
// of complete groups (below bound) are sealed as a commit would.
func decodeColumn(raw []byte, bound uint64) (*column, error) {
	if len(raw) < len(colMagic) || string(raw[:len(colMagic)]) != colMagic {
		return nil, fmt.Errorf("bad magic")
	}
	d := &decoder{b: raw, p: len(colMagic)}
	n := d.count(1 + 1 + validBytes)
	c := &column{}
	var dict dictBuilder
	last := -1
	for range n {
		g := d.uvarint()
		if d.err != nil {
			break
		}
		if int64(g) <= int64(last) || g >= (bound+GroupSize-1)>>groupShift {
			return nil, fmt.Errorf("chunk of group %d out of order or past the id bound %d", g, bound)
		}
		last = int(g)
		ch := d.chunk(&dict)
		if d.err != nil {
			break
		}
		if ch.total() == 0 {
			return nil, fmt.Errorf("group %d: empty chunk", g)
		}
		if (g+1)<<groupShift <= bound {
			ch = ch.seal()
		}
		for len(c.groups) <= int(g) {
			c.groups = append(c.groups, nil)
		}
		c.groups[g] = ch
		for t, k := range ch.counts {
			c.counts[t] += int64(k)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.left() != 0 {
		return nil, fmt.Errorf("%d trailing bytes", d.left())
	}
	return c, nil
}

// chunk decodes one chunk record after its group number.
func (d *decoder) chunk(shared *dictBuilder) *chunk {
	typ := vector.Type(d.u8())
	switch typ {
	case vector.Bool, vector.Int64, vector.Float64, vector.String, vector.Any:
	default:
		d.fail("chunk type %d cannot be stored", typ)
		return nil
	}
	c := newChunk(0, typ)
	copy(c.valid, d.bytes(validBytes))
	rows := GroupSize
	if typ != vector.Bool {
		rows = int(d.uvarint())
		if rows > GroupSize {
			d.fail("%d rows in a chunk", rows)
			return nil
		}
	}
	switch typ {
	case vector.Bool:
		copy(c.bits, d.bytes(validBytes))
	case vector.Int64:
		b := d.bytes(8 * rows)
		c.i64 = make([]int64, rows)
		for r := range rows {
			if b != nil {
				c.i64[r] = int64(leU64(b[8*r:]))
			}
		}
	case vector.Float64:
		b := d.bytes(8 * rows)
		c.f64 = make([]float64, rows)
		for r := range rows {
			if b != nil {
				c.f64[r] = math.Float64frombits(leU64(b[8*r:]))
			}
		}
	case vector.String:
		c.str = make([]string, rows)
		switch enc := d.u8(); enc {
		case 0:
			for r := range rows {
				c.str[r] = d.str()
			}
		case 1:
			dict := make([]string, d.count(1))
			if len(dict) > 256 {
				d.fail("dictionary of %d strings", len(dict))
				return nil
			}
			for i := range dict {
				dict[i] = d.str()
			}
			codes := d.bytes(rows)
			for r := range rows {
				if codes != nil {
					if int(codes[r]) >= len(dict) {
						d.fail("dictionary code %d of %d", codes[r], len(dict))
						return nil
					}
					c.str[r] = dict[codes[r]]
				}
			}
			if d.err == nil && codes != nil && rows == GroupSize {
				shared.codeChunk(c, dict, codes)
			}
		default:
			d.fail("string encoding %d", enc)
		}
	case vector.Any:
		c.any = make([]vector.Value, rows)
		for r := range rows {
			c.any[r] = d.value(0)
		}
	}
	if d.err != nil {
		return nil
	}
	for r := 0; r < GroupSize; r++ {
		if bitAt(c.valid, r) {
			if r >= rows {
				d.fail("row %d valid past the %d rows", r, rows)
				return nil
			}
			if typ == vector.Any && c.any[r] == nil {
				d.fail("row %d valid but null", r)
				return nil
			}
		} else if typ == vector.Any && r < rows && c.any[r] != nil {
			d.fail("row %d holds a value but is not valid", r)
			return nil
		}
	}
	valid := 0
	for _, b := range c.valid {
		valid += bits.OnesCount8(b)
	}
	c.counts[typ] = int32(valid)
	ns := d.count(2)
	prev := -1
	for range ns {
		r := int(d.uvarint())
		v := d.value(0)
		if d.err != nil {
			return nil
		}
		t := vector.TypeOf(v)
		if r <= prev || r >= GroupSize || bitAt(c.valid, r) || t == typ || t == vector.Null {
			d.fail("bad side value at row %d", r)
			return nil
		}
		prev = r
		if c.side == nil {
			c.side = make(map[uint16]vector.Value, ns)
		}
		c.side[uint16(r)] = v
		c.counts[t]++
	}
	return c
}

func leU64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// loadRels decodes the CSRs and rebuilds the relationship table from the
// forward ones (the table is not stored: every relationship is one slot of
// its type's forward CSR), checking that every id appears once and that
// the backward CSR holds the same relationships.
func (v *Snapshot) loadRels(types int, load func(string) ([]byte, error)) error {
	bad := func(name string, format string, args ...any) error {
		return &corruptFile{name: name, err: fmt.Errorf(format, args...)}
	}
	groups := int((v.relBound + GroupSize - 1) >> groupShift)
	v.rels = make([]*relChunk, groups)
	for g := range v.rels {
		rows := GroupSize
		if g == groups-1 {
			rows = int(v.relBound - uint64(g)<<groupShift)
		}
		c := &relChunk{typ: make([]uint32, rows), src: make([]uint32, rows), dst: make([]uint32, rows)}
		for r := range c.typ {
			c.typ[r] = noRel
		}
		v.rels[g] = c
	}
	v.adj = make([]adjPair, types)
	v.typeRels = make([]int64, types)
	var total int64
	var err error
	// Every id below the bound exists (a bulk load): CSR ids are checked
	// against the bound, so no endpoint needs a bitmap probe.
	allLive := v.live.GetCardinality() == v.nodeBound && (v.nodeBound == 0 || uint64(v.live.Maximum()) == v.nodeBound-1)
	for t := range types {
		var pair [2]*csr.CSR
		var modes [2]byte
		// The two directions decompress and decode (with their checks)
		// independently.
		err = forEachParallel(len(pair), func(d int) error {
			name := fmt.Sprintf("csr.%d.%s", t, dirName[d])
			raw, err := load(name)
			if err != nil || raw == nil {
				return err
			}
			if len(raw) == 0 || raw[0] > csrFromForward || (raw[0] == csrFromForward && d == int(Outgoing)) {
				return bad(name, "bad mode byte")
			}
			modes[d] = raw[0]
			c, err := csr.Decode(raw[1:])
			if err != nil {
				return bad(name, "%v", err)
			}
			if c.NumNodes() != int(v.nodeBound) {
				return bad(name, "covers %d nodes, the graph %d", c.NumNodes(), v.nodeBound)
			}
			pair[d] = c
			return nil
		})
		if err != nil {
			return err
		}
		if (pair[0] == nil) != (pair[1] == nil) {
			return bad(fmt.Sprintf("csr.%d", t), "one direction is missing")
		}
		if pair[0] == nil {
			continue
		}
		out, in := pair[0], pair[1]
		name := fmt.Sprintf("csr.%d.out", t)
		if modes[Incoming] == csrFromForward {
			if in, err = fromForward(out, in); err != nil {
				return bad(fmt.Sprintf("csr.%d.in", t), "%v", err)
			}
		}
		if out.NumEdges() == 0 || out.NumEdges() != in.NumEdges() {
			return bad(name, "%d edges out, %d in", out.NumEdges(), in.NumEdges())
		}
		// Sequential forward ids are distinct per source node, so ranges of
		// sources fill disjoint rows; other ids may collide and are
		// checked on one goroutine.
		fill := func(lo, hi uint64) error {
			var nbrs, rels []uint64
			for src := lo; src < hi; src++ {
				rels = out.AppendRels(rels[:0], src) // sequential ids are not stored
				if len(rels) == 0 {
					continue
				}
				nbrs = out.AppendNeighbors(nbrs[:0], src)
				for i, id := range rels {
					if id >= v.relBound {
						return bad(name, "relationship %d past the id bound %d", id, v.relBound)
					}
					c, r := v.rels[id>>groupShift], int(id&groupMask)
					if c.typ[r] != noRel {
						return bad(name, "relationship %d stored twice", id)
					}
					if !allLive && (!v.nodeLive(src) || !v.nodeLive(nbrs[i])) {
						return bad(name, "relationship %d has an endpoint that does not exist", id)
					}
					c.typ[r], c.src[r], c.dst[r] = uint32(t), uint32(src), uint32(nbrs[i])
				}
			}
			return nil
		}
		if _, seq := out.SequentialBase(); seq {
			err = forNodeRanges(v.nodeBound, fill)
		} else {
			err = fill(0, v.nodeBound)
		}
		if err != nil {
			return err
		}
		derived := modes[Incoming] == csrFromForward
		err = forNodeRanges(v.nodeBound, func(lo, hi uint64) error {
			var nbrs, rels []uint64
			for dst := lo; dst < hi; dst++ {
				rels = in.AppendRels(rels[:0], dst)
				if len(rels) == 0 {
					continue
				}
				if derived {
					// fromForward made each id from its source's forward
					// list and a position inside it, and the fill above
					// wrote that source and type there: only the far end
					// is left to compare (one load, not four).
					for _, id := range rels {
						if c := v.rels[id>>groupShift]; c.dst[id&groupMask] != uint32(dst) {
							return bad(fmt.Sprintf("csr.%d.in", t), "relationship %d does not match the forward adjacency", id)
						}
					}
					continue
				}
				nbrs = in.AppendNeighbors(nbrs[:0], dst)
				for i, id := range rels {
					typ, s, e, ok := v.Rel(id)
					if !ok || typ != catalog.TypeID(t) || s != nbrs[i] || e != dst {
						return bad(fmt.Sprintf("csr.%d.in", t), "relationship %d does not match the forward adjacency", id)
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		v.adj[t] = adjPair{csr.NewAdjacency(out), csr.NewAdjacency(in)}
		v.typeRels[t] = int64(out.NumEdges())
		total += int64(out.NumEdges())
	}
	if total != v.relCount {
		return bad("csr files", "%d relationships, manifest says %d", total, v.relCount)
	}
	// Relationship properties only on existing relationships.
	for k, c := range v.relCols {
		if c == nil {
			continue
		}
		if err := c.check(v.relBound, v.relLive); err != nil {
			return bad(fmt.Sprintf("rel.%d.col", k), "%v", err)
		}
	}
	return nil
}

// rebuildSchema recreates the indexes and constraints of cf in one
// transaction: plain indexes first, then constraints (a UNIQUE constraint
// reuses an index on its key or creates the one it owns).
func (s *Store) rebuildSchema(cf *catalogFile) error {
	if len(cf.Indexes) == 0 && len(cf.Constraints) == 0 {
		return nil
	}
	tx := s.Begin()
	for _, ix := range cf.Indexes {
		if ix.Constraint != "" {
			continue
		}
		if ix.Type != catalog.BTree && ix.Type != catalog.Hash || len(ix.Keys) == 0 {
			tx.Rollback()
			return fmt.Errorf("index %q: bad definition", ix.Name)
		}
		if err := tx.CreateIndex(catalog.Index{Name: ix.Name, Type: ix.Type, Label: ix.Label, Keys: ix.Keys}); err != nil {
			tx.Rollback()
			return err
		}
	}
	for _, c := range cf.Constraints {
		if c.Kind != catalog.Unique && c.Kind != catalog.Exists {
			tx.Rollback()
			return fmt.Errorf("constraint %q: bad definition", c.Name)
		}
		if err := tx.CreateConstraint(catalog.Constraint{Name: c.Name, Kind: c.Kind, Label: c.Label, Key: c.Key}); err != nil {
			tx.Rollback()
			return err
		}
	}
	_, err := tx.Commit()
	return err
}

// fromForward turns a backward CSR stored with csrFromForward ids back
// into relationship ids, checking every position against the source's
// forward degree.
func fromForward(out, in *csr.CSR) (*csr.CSR, error) {
	base, ok := out.SequentialBase()
	if !ok {
		return nil, fmt.Errorf("ids relative to a forward CSR whose ids are not sequential")
	}
	offs, inOffs := out.Offsets(), in.Offsets()
	rel := make([]uint64, in.NumEdges())
	err := forNodeRanges(uint64(in.NumNodes()), func(lo, hi uint64) error {
		var nbrs, ks []uint64
		for v := lo; v < hi; v++ {
			ks = in.AppendRels(ks[:0], v)
			if len(ks) == 0 {
				continue
			}
			nbrs = in.AppendNeighbors(nbrs[:0], v)
			s := inOffs[v]
			for i, k := range ks {
				src := nbrs[i]
				if k >= offs[src+1]-offs[src] {
					return fmt.Errorf("node %d: position %d past the forward degree of %d", v, k, src)
				}
				rel[s+uint64(i)] = base + offs[src] + k
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return in.WithRels(rel), nil
}
