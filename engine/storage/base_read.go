package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/klauspost/compress/zstd"
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// ErrCorruptBase wraps every error about the content of a base directory:
// a bad manifest, a missing, truncated or corrupt file, a version this
// code does not read.
var ErrCorruptBase = errors.New("storage: corrupt base")

// HasBase reports whether dir holds a base (its manifest exists).
func HasBase(dir string) bool { return HasBaseFS(vfs.Default, dir) }

// HasBaseFS is HasBase on fsys.
func HasBaseFS(fsys vfs.FS, dir string) bool {
	return vfs.Exists(fsys, filepath.Join(dir, ManifestName))
}

// OpenBase reads the base in dir into a new Store whose latest version is
// the snapshot that was written (indexes and constraints are rebuilt from
// their definitions, in one schema commit on top of it). Every file is
// checksummed and every structure bounds-checked, so corrupt or truncated
// input is an ErrCorruptBase error naming the file, never a panic.
func OpenBase(dir string) (*Store, error) { return OpenBaseFS(vfs.Default, dir) }

// OpenBaseFS is OpenBase on fsys.
func OpenBaseFS(fsys vfs.FS, dir string) (*Store, error) {
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
	mb, err := vfs.ReadFile(fsys, filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, fmt.Errorf("storage: cannot read the manifest: %w", err)
	}
	files, m, err := parseManifest(mb)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorruptBase, ManifestName, err)
	}
	// DecodeAll is safe for concurrent use: sections decompress on up to
	// GOMAXPROCS goroutines.
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithDecoderMaxMemory(1<<36))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	o := &opener{fs: fsys, dir: filepath.Join(dir, m.Base), files: files, dec: dec}
	defer o.close()
	s, err := decodeBase(m, files, o)
	if err != nil {
		var ce *corruptFile
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%w: %s: %v", ErrCorruptBase, ce.name, ce.err)
		}
		return nil, err
	}
	return s, nil
}

// opener reads the files of one base directory.
type opener struct {
	fs    vfs.FS
	dir   string
	files map[string]baseFile
	dec   *zstd.Decoder
	open  []*sectionFile
}

// blob reads a small file stored as one zstd frame (catalog.json and the
// bitmaps), checksummed before it is decompressed; nil, nil when the
// manifest does not list it.
func (o *opener) blob(name string) ([]byte, error) {
	f, ok := o.files[name]
	if !ok {
		return nil, nil
	}
	z, err := vfs.ReadFile(o.fs, filepath.Join(o.dir, name))
	if err != nil {
		return nil, &corruptFile{name, err}
	}
	if int64(len(z)) != f.Size {
		return nil, &corruptFile{name, fmt.Errorf("%d bytes, manifest says %d (truncated?)", len(z), f.Size)}
	}
	if crc32.Checksum(z, crcTable) != f.CRC {
		return nil, &corruptFile{name, fmt.Errorf("checksum mismatch")}
	}
	raw, err := o.dec.DecodeAll(z, make([]byte, 0, f.Raw))
	if err != nil || int64(len(raw)) != f.Raw {
		return nil, &corruptFile{name, fmt.Errorf("cannot decompress (%v)", err)}
	}
	return raw, nil
}

// sections opens a sectioned file and checks its table; nil, nil when
// the manifest does not list it.
func (o *opener) sections(name string) (*sectionFile, error) {
	f, ok := o.files[name]
	if !ok {
		return nil, nil
	}
	sf, err := openSections(o.fs, filepath.Join(o.dir, name), f)
	if err != nil {
		return nil, &corruptFile{name, err}
	}
	o.open = append(o.open, sf)
	return sf, nil
}

func (o *opener) close() {
	for _, sf := range o.open {
		sf.close()
	}
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
	if m.FormatVersion != FormatVersion && m.FormatVersion != 2 {
		if m.FormatVersion == 1 {
			return nil, nil, fmt.Errorf("format_version 1 is an older base format that this build does not read (it reads 2 and %d): "+
				"re-create the data directory with quiver import, or export it with the build that wrote it", FormatVersion)
		}
		return nil, nil, fmt.Errorf("format_version %d, this build reads 2 and %d", m.FormatVersion, FormatVersion)
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

// decodeBase builds the store from the manifest and the base's files.
// The small files come first (catalog, bitmaps); then the columns and the
// CSRs, which are nearly all of a base, load part by part on every core,
// and then the columns' chunks are checked, also on every core (a
// relationship column's rows must be live relationships, which the
// loaded CSRs tell).
func decodeBase(m *manifest, files map[string]baseFile, o *opener) (*Store, error) {
	s, cf, err := readCatalog(o)
	if err != nil {
		return nil, err
	}
	v := &Snapshot{ts: m.TS, nodeBound: m.NodeBound, nodeCount: m.NodeCount, relBound: m.RelBound, relCount: m.RelCount}
	for name := range files {
		if err := checkFileName(name, len(cf.Labels), len(cf.Types), len(cf.Keys)); err != nil {
			return nil, badFile(name, "%v", err)
		}
	}
	if err := readNodeSets(v, m, len(cf.Labels), o); err != nil {
		return nil, err
	}
	cols, err := openColumns(m, len(cf.Keys), o)
	if err != nil {
		return nil, err
	}
	rl, err := openRels(v, len(cf.Types), o)
	if err != nil {
		return nil, err
	}
	slots, err := openSlotFiles(files, o)
	if err != nil {
		return nil, err
	}
	tasks := rl.tasks()
	for _, c := range cols {
		tasks = append(tasks, c.decodeTasks()...)
	}
	for _, f := range slots {
		tasks = append(tasks, f.decodeTasks()...)
	}
	if err := runTasks(tasks, o.dec); err != nil {
		return nil, err
	}
	if err := assembleColumns(v, cols, len(cf.Keys)); err != nil {
		return nil, err
	}
	if err := rl.finish(); err != nil {
		return nil, err
	}
	maxRels := map[int]uint64{}
	for _, f := range slots {
		if err := f.install(v, maxRels); err != nil {
			return nil, err
		}
	}
	tasks = nil
	for _, c := range cols {
		tasks = append(tasks, c.checkTasks(v, rl.allLive)...)
	}
	if err := runTasks(tasks, o.dec); err != nil {
		return nil, err
	}
	s.install(v)
	s.nextNode.Store(m.NodeBound)
	s.nextRel.Store(m.RelBound)
	if err := s.rebuildSchema(cf); err != nil {
		return nil, badFile("catalog.json", "%v", err)
	}
	// The version is the checkpoint's: its ts (rebuilding the schema
	// committed once more) and the log position its WAL replay starts at.
	opened := *s.cur.Load()
	opened.ts, opened.lsn = m.TS, m.WALLSN
	if opened.writer, err = parseWriter(m.Writer); err != nil {
		return nil, badFile(ManifestName, "%v", err)
	}
	s.install(&opened)
	return s, nil
}

// readCatalog reads catalog.json into a new store's catalog: labels,
// types and keys get the ids they are listed at.
func readCatalog(o *opener) (*Store, *catalogFile, error) {
	cb, err := o.blob("catalog.json")
	if err != nil {
		return nil, nil, err
	}
	var cf catalogFile
	if err := json.Unmarshal(cb, &cf); err != nil {
		return nil, nil, badFile("catalog.json", "%v", err)
	}
	s := New()
	cat := s.cat
	for i, n := range cf.Labels {
		if _, dup := cat.LookupLabel(n); dup || int(cat.EnsureLabel(n)) != i {
			return nil, nil, badFile("catalog.json", "label %q listed twice", n)
		}
	}
	for i, n := range cf.Types {
		if _, dup := cat.LookupType(n); dup || int(cat.EnsureType(n)) != i {
			return nil, nil, badFile("catalog.json", "type %q listed twice", n)
		}
	}
	for i, n := range cf.Keys {
		if _, dup := cat.LookupKey(n); dup || int(cat.EnsureKey(n)) != i {
			return nil, nil, badFile("catalog.json", "key %q listed twice", n)
		}
	}
	return s, &cf, nil
}

// readNodeSets reads the live nodes, the system records and the labels'
// bitmaps into v.
func readNodeSets(v *Snapshot, m *manifest, labels int, o *opener) error {
	var err error
	if v.live, err = readNodeBitmap(o, m, "nodes.live"); err != nil {
		return err
	}
	if v.live.GetCardinality() != uint64(m.NodeCount) {
		return badFile("nodes.live", "%d nodes, manifest says %d", v.live.GetCardinality(), m.NodeCount)
	}
	// A base written before system records existed has no system.kv:
	// it holds none.
	if raw, err := o.blob(systemFileName); err != nil {
		return err
	} else if raw != nil {
		if v.sys, err = decodeSystemFile(raw); err != nil {
			return badFile(systemFileName, "%v", err)
		}
		v.noteLoadedSealRecords()
	}
	v.labels = make([]*roaring.Bitmap, labels)
	for l := range v.labels {
		name := fmt.Sprintf("label.%d", l)
		if v.labels[l], err = readNodeBitmap(o, m, name); err != nil {
			return err
		}
		if v.labels[l] != nil && v.labels[l].AndCardinality(v.live) != v.labels[l].GetCardinality() {
			return badFile(name, "labels nodes that do not exist")
		}
	}
	return nil
}

// readNodeBitmap reads a bitmap of node ids, nil when the file is absent.
func readNodeBitmap(o *opener, m *manifest, name string) (*roaring.Bitmap, error) {
	raw, err := o.blob(name)
	if err != nil || raw == nil {
		return nil, err
	}
	b, err := decodeBitmap(raw)
	if err != nil {
		return nil, badFile(name, "%v", err)
	}
	if !b.IsEmpty() && uint64(b.Maximum()) >= m.NodeBound {
		return nil, badFile(name, "node %d past the id bound %d", b.Maximum(), m.NodeBound)
	}
	return b, nil
}

// openColumns opens the property column files there are, node and
// relationship columns of each key; their parts decode later.
func openColumns(m *manifest, keys int, o *opener) ([]*colFile, error) {
	var cols []*colFile
	for k := range keys {
		for _, rel := range []bool{false, true} {
			name, bound := fmt.Sprintf("node.%d.col", k), m.NodeBound
			if rel {
				name, bound = fmt.Sprintf("rel.%d.col", k), m.RelBound
			}
			sf, err := o.sections(name)
			if err != nil {
				return nil, err
			}
			if sf == nil {
				continue
			}
			c, err := openColumn(sf, k, rel, bound, o.dec)
			if err != nil {
				return nil, badFile(name, "%v", err)
			}
			cols = append(cols, c)
		}
	}
	return cols, nil
}

// assembleColumns puts the decoded parts of cols together as v's columns,
// dropping the trailing keys with none.
func assembleColumns(v *Snapshot, cols []*colFile, keys int) error {
	v.nodeCols, v.relCols = make([]*column, keys), make([]*column, keys)
	for _, c := range cols {
		var err error
		if c.col, err = assembleColumn(c.parts, c.bound); err != nil {
			return badFile(c.sf.name, "%v", err)
		}
		if c.rel {
			v.relCols[c.k] = c.col
		} else {
			v.nodeCols[c.k] = c.col
		}
	}
	for len(v.nodeCols) > 0 && v.nodeCols[len(v.nodeCols)-1] == nil {
		v.nodeCols = v.nodeCols[:len(v.nodeCols)-1]
	}
	for len(v.relCols) > 0 && v.relCols[len(v.relCols)-1] == nil {
		v.relCols = v.relCols[:len(v.relCols)-1]
	}
	return nil
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
	case name == "catalog.json" || name == "nodes.live" || name == systemFileName:
		return nil
	case len(part) == 2 && part[0] == "label":
		return id(part[1], labels)
	case len(part) == 3 && (part[0] == "node" || part[0] == "rel") && part[2] == "col":
		return id(part[1], keys)
	case len(part) == 3 && part[0] == "csr" && (part[2] == "out" || part[2] == "in"):
		return id(part[1], types)
	case len(part) == 5 && part[0] == "rel" && part[2] == "slots" && (part[4] == "out" || part[4] == "in"):
		if err := id(part[1], keys); err != nil {
			return err
		}
		return id(part[3], types)
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

// colFile is an open column file (base_write.go writeColumn).
type colFile struct {
	sf    *sectionFile
	k     int
	rel   bool
	bound uint64
	parts [][]decodedChunk
	col   *column
}

// decodedChunk is a chunk as decoded, with the local dictionary and codes
// of a dictionary-encoded sealed String chunk (coded in the column's
// shared dictionary once all parts are decoded, in group order).
type decodedChunk struct {
	g     int
	ch    *chunk
	dict  []string
	codes []byte
}

func openColumn(sf *sectionFile, k int, rel bool, bound uint64, dec *zstd.Decoder) (*colFile, error) {
	if len(sf.secs) == 0 || sf.secs[len(sf.secs)-1].codec != codecRaw {
		return nil, fmt.Errorf("no header")
	}
	hb, _, err := sf.readAll(len(sf.secs)-1, dec, nil)
	if err != nil {
		return nil, err
	}
	if len(hb) < len(colMagic) || string(hb[:len(colMagic)]) != colMagic {
		return nil, fmt.Errorf("bad magic")
	}
	d := &decoder{b: hb, p: len(colMagic)}
	n := d.uvarint()
	if d.err != nil || d.left() != 0 || n != uint64(len(sf.secs)-1) {
		return nil, fmt.Errorf("header says %d parts, the file holds %d", n, len(sf.secs)-1)
	}
	return &colFile{sf: sf, k: k, rel: rel, bound: bound, parts: make([][]decodedChunk, n)}, nil
}

// decodeTasks decode each part.
func (c *colFile) decodeTasks() []loadTask {
	tasks := make([]loadTask, len(c.parts))
	for p := range c.parts {
		tasks[p] = func(sc *loadScratch, dec *zstd.Decoder) error {
			var err error
			sc.part = grow(sc.part, c.sf.rawSize(p))
			if sc.csr.z, err = c.sf.readSection(p, sc.part, dec, sc.csr.z); err != nil {
				return badFile(c.sf.name, "%v", err)
			}
			if c.parts[p], err = decodeColumnPart(sc.part, c.bound); err != nil {
				return badFile(c.sf.name, "part %d: %v", p, err)
			}
			return nil
		}
	}
	return tasks
}

// checkTasks check each part's chunks (column.check, on every core).
func (c *colFile) checkTasks(v *Snapshot, allLive bool) []loadTask {
	tasks := make([]loadTask, len(c.parts))
	for p := range c.parts {
		tasks[p] = func(*loadScratch, *zstd.Decoder) error {
			for _, dc := range c.parts[p] {
				var live func(uint64) bool
				switch {
				case !c.rel && !allLive:
					live = v.nodeLive
				case c.rel && v.derived == nil:
					live = v.relLive
				case c.rel:
					if _, whole := v.derived.liveIn(dc.g); !whole {
						live = v.relLive
					}
				}
				if err := checkGroup(dc.ch, dc.g, c.bound, live); err != nil {
					return badFile(c.sf.name, "%v", err)
				}
			}
			return nil
		}
	}
	return tasks
}

// decodeColumn reads a column file's part written whole (encodeColumn):
// the fuzzer's entry to the chunk decoder.
func decodeColumn(raw []byte, bound uint64) (*column, error) {
	chunks, err := decodeColumnPart(raw, bound)
	if err != nil {
		return nil, err
	}
	return assembleColumn([][]decodedChunk{chunks}, bound)
}

// decodeColumnPart decodes one column part: a chunk count and the chunk
// records, groups strictly increasing; chunks of complete groups (below
// bound) are sealed as a commit would.
func decodeColumnPart(raw []byte, bound uint64) ([]decodedChunk, error) {
	d := &decoder{b: raw}
	n := d.count(1 + 1 + validBytes)
	out := make([]decodedChunk, 0, n)
	last := -1
	d.slabs.left = n
	for range n {
		g := d.uvarint()
		if d.err != nil {
			break
		}
		if int64(g) <= int64(last) || g >= (bound+GroupSize-1)>>groupShift {
			return nil, fmt.Errorf("chunk of group %d out of order or past the id bound %d", g, bound)
		}
		last = int(g)
		ch, dict, codes := d.chunk((g+1)<<groupShift <= bound)
		d.slabs.left--
		if d.err != nil {
			break
		}
		if ch.total() == 0 {
			return nil, fmt.Errorf("group %d: empty chunk", g)
		}
		out = append(out, decodedChunk{g: int(g), ch: ch, dict: dict, codes: codes})
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.left() != 0 {
		return nil, fmt.Errorf("%d trailing bytes", d.left())
	}
	return out, nil
}

// colSlabs hold the values of a column part's INTEGER and FLOAT chunks:
// one allocation (of huge pages, csr.MakeHuge) per part instead of 16 KiB
// per chunk, whose first-touch page faults were a tenth of the time to
// open a base. A chunk's slice has no spare capacity, so a write that
// grows it reallocates instead of running into the next chunk.
type colSlabs struct {
	i64  []int64
	f64  []float64
	left int // chunks left in the part (a bound on what a slab may need)
}

// take cuts n values off *slab, refilled with room for the part's
// remaining chunks when short.
func take[T int64 | float64](slab *[]T, n, chunks int) []T {
	if len(*slab) < n {
		*slab = csr.MakeHuge[T](max(n, chunks*GroupSize))
	}
	out := (*slab)[:n:n]
	*slab = (*slab)[n:]
	return out
}

// assembleColumn builds a column from its decoded parts, in order,
// coding dictionary-encoded chunks in one dictionary for the column.
func assembleColumn(parts [][]decodedChunk, bound uint64) (*column, error) {
	last, n := -1, 0
	for _, p := range parts {
		if len(p) > 0 {
			if p[0].g <= last {
				return nil, fmt.Errorf("chunk of group %d out of order", p[0].g)
			}
			last = p[len(p)-1].g
		}
		n += len(p)
	}
	if n == 0 {
		return nil, fmt.Errorf("no chunk")
	}
	c := &column{}
	var dict dictBuilder
	for _, p := range parts {
		for _, dc := range p {
			c.groups.set(dc.g, dc.ch, 0)
			for t, k := range dc.ch.counts {
				c.counts[t] += int64(k)
			}
			if dc.codes != nil {
				dict.codeChunk(dc.ch, dc.dict, dc.codes)
			}
		}
	}
	return c, nil
}

// rebuildSchema recreates the indexes and constraints of cf in one
// transaction: plain indexes first, then constraints (a UNIQUE constraint
// checks through the index it checked through before: a plain one, or
// one it creates and owns).
func (s *Store) rebuildSchema(cf *catalogFile) error {
	if len(cf.Indexes) == 0 && len(cf.Constraints) == 0 {
		return nil
	}
	tx := s.Begin()
	for _, ix := range cf.Indexes {
		if ix.Constraint != "" {
			continue
		}
		if ix.Type != catalog.BTree && ix.Type != catalog.Hash && !ix.Type.Secondary() || len(ix.Keys) == 0 {
			tx.Rollback()
			return fmt.Errorf("index %q: bad definition", ix.Name)
		}
		if err := tx.CreateIndex(catalog.Index{Name: ix.Name, Type: ix.Type, Label: ix.Label, Keys: ix.Keys, Rel: ix.Rel, Analyzer: ix.Analyzer, Vector: ix.Vector}); err != nil {
			tx.Rollback()
			return err
		}
	}
	for _, c := range cf.Constraints {
		if c.Kind != catalog.Unique && c.Kind != catalog.Exists {
			tx.Rollback()
			return fmt.Errorf("constraint %q: bad definition", c.Name)
		}
		def := catalog.Constraint{Name: c.Name, Kind: c.Kind, Label: c.Label, Key: c.Key}
		for _, ix := range cf.Indexes {
			if c.Kind == catalog.Unique && ix.Name == c.Index && (ix.Constraint == "" || ix.Constraint == c.Name) {
				def.Index = c.Index // the index it checked through: a plain one, or its own
			}
		}
		if err := tx.CreateConstraint(def); err != nil {
			tx.Rollback()
			return err
		}
	}
	_, err := tx.Commit()
	return err
}
