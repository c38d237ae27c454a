package storage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/klauspost/compress/zstd"
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/vector"
)

// The base format: one committed Snapshot written to a directory. The
// layout and every file's encoding are in docs/storage-format.md; this file
// writes it, base_read.go reads it.
//
//	D/manifest.json        written last (tmp + fsync + rename): the commit point
//	D/base-<ts>/...        the data files the manifest lists, with sizes and
//	                       CRC-32C checksums of their stored (compressed) bytes
//	                       (system.kv: the system records, system.go)
//
// A new base goes to a new base-<ts>[-n] directory and becomes current
// only when the manifest rename lands, so a crash mid-write leaves the old
// base (or none) intact; older base directories are removed afterwards.
//
// The order of syncs (docs/durability.md, "The sync protocol"): every
// data file is fsynced, then base-<ts>/ (its entries), then
// manifest.json.tmp is written and fsynced, renamed over manifest.json,
// and D is fsynced, which makes both the new base directory's entry and
// the rename durable at once. Until that last sync a power cut leaves the
// old manifest, naming the old base, which is still there.

// FormatVersion is the base format version this code writes. It reads
// it and format 2, which is format 3 without flat vector chunks
// (chunkFlatVectors): a format 2 base opens unchanged, its vector chunks
// turning flat as they are sealed at read.
const FormatVersion = 3

// ManifestName is the manifest's file name in a data directory.
const ManifestName = "manifest.json"

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type manifest struct {
	FormatVersion int        `json:"format_version"`
	Base          string     `json:"base"`
	TS            uint64     `json:"ts"`
	NodeBound     uint64     `json:"node_bound"`
	NodeCount     int64      `json:"node_count"`
	RelBound      uint64     `json:"rel_bound"`
	RelCount      int64      `json:"rel_count"`
	Files         []baseFile `json:"files"`
	// WALLSN is the log position of the version written: recovery
	// replays the write-ahead log from it (0 for an imported base).
	WALLSN uint64 `json:"wal_lsn"`
	// Writer is the identity of the server whose log record made the
	// version written (writer.go), in hex; absent for an imported base
	// and in manifests written before writers had one.
	Writer string `json:"writer,omitempty"`
}

type baseFile struct {
	Name string `json:"name"`
	Size int64  `json:"size"`     // stored (compressed) bytes
	Raw  int64  `json:"raw_size"` // decompressed bytes
	CRC  uint32 `json:"crc32c"`
}

type catalogFile struct {
	Labels      []string             `json:"labels"`
	Types       []string             `json:"types"`
	Keys        []string             `json:"keys"`
	Indexes     []catalog.Index      `json:"indexes"`
	Constraints []catalog.Constraint `json:"constraints"`
}

// SaveBase writes the latest committed version to dir as the base format
// and returns the bytes written. Concurrent writers are not blocked (the
// version is immutable); the catalog is read as of the call.
func (s *Store) SaveBase(dir string) (int64, error) {
	n, _, err := s.cur.Load().writeBase(vfs.Default, s.cat, dir, nil, nil, nil)
	return n, err
}

// SaveBaseWithIndexes is SaveBase with indexes added to the written
// schema as definitions only. A base stores index definitions and Open
// builds their entries, so a bulk import declares its key indexes this
// way instead of building entries it would discard. A name the schema
// already has is an error. prog, when set, is told the writing's phases
// (progress.go).
func (s *Store) SaveBaseWithIndexes(dir string, indexes []catalog.Index, prog *progress.Tracker) (int64, error) {
	return s.SaveBaseWithIndexesFS(vfs.Default, dir, indexes, prog)
}

// SaveBaseWithIndexesFS is SaveBaseWithIndexes on fsys.
func (s *Store) SaveBaseWithIndexesFS(fsys vfs.FS, dir string, indexes []catalog.Index, prog *progress.Tracker) (int64, error) {
	v := s.cur.Load()
	seen := map[string]bool{}
	for _, ix := range v.Schema().Indexes {
		seen[ix.Name] = true
	}
	indexes = slices.Clone(indexes)
	for i := range indexes {
		ix := &indexes[i]
		if seen[ix.Name] {
			return 0, fmt.Errorf("storage: index %q defined twice", ix.Name)
		}
		if ix.Type != catalog.BTree && ix.Type != catalog.Hash || len(ix.Keys) == 0 || ix.Constraint != "" {
			return 0, fmt.Errorf("storage: index %q: bad definition", ix.Name)
		}
		seen[ix.Name] = true
		ix.Slot = len(seen) - 1
	}
	n, _, err := v.writeBase(fsys, s.cat, dir, indexes, nil, prog)
	return n, err
}

type baseWriter struct {
	fs       vfs.FS
	dir, sub string
	files    []baseFile
	total    int64
	prog     *progress.Tracker // told the bytes written and the files done
}

// put writes sub/name, fsynced: a blob (task.write) streams its raw bytes
// into one zstd frame (encoder enc) as it encodes them, and a sectioned
// file (task.sections, base_sections.go) compresses section by section,
// so that no file is ever held whole, raw or compressed (the CSRs and
// columns of a large graph are hundreds of megabytes). Write errors stick
// in the bufio.Writer.
func (w *baseWriter) put(enc *zstd.Encoder, t fileTask) (baseFile, error) {
	f, err := w.fs.OpenFile(filepath.Join(w.dir, w.sub, t.name), os.O_CREATE|os.O_EXCL|os.O_WRONLY)
	if err != nil {
		return baseFile{}, err
	}
	z := &sumWriter{w: f, prog: w.prog}
	var raw int64
	var crc uint32
	if t.sections != nil {
		bw := bufio.NewWriterSize(z, 256<<10)
		sw := &sectionWriter{w: bw, enc: enc}
		t.sections(sw)
		crc, raw = sw.finish()
		err = bw.Flush()
	} else {
		enc.Reset(z)
		rw := &sumWriter{w: enc, noCRC: true}
		bw := bufio.NewWriterSize(rw, 256<<10)
		t.write(bw)
		err = bw.Flush()
		if cerr := enc.Close(); err == nil {
			err = cerr
		}
		crc, raw = z.crc, rw.n
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return baseFile{}, err
	}
	return baseFile{Name: t.name, Size: z.n, Raw: raw, CRC: crc}, nil
}

// sumWriter counts (and checksums) the bytes written through it.
type sumWriter struct {
	w     io.Writer
	n     int64
	crc   uint32
	noCRC bool
	prog  *progress.Tracker
}

func (s *sumWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.n += int64(n)
	s.prog.Add(int64(n), 0)
	if !s.noCRC {
		s.crc = crc32.Update(s.crc, crcTable, p[:n])
	}
	return n, err
}

// fileTask is one data file: its name and how to encode it, as a blob
// (write) or as a sectioned file (sections).
type fileTask struct {
	name     string
	write    func(*bufio.Writer)
	sections func(*sectionWriter)
}

// bytesTask is a file whose encoding is built whole (small files).
func bytesTask(name string, encode func() []byte) fileTask {
	return fileTask{name: name, write: func(w *bufio.Writer) { w.Write(encode()) }}
}

// run encodes, compresses and writes the tasks on GOMAXPROCS goroutines
// (the CSRs of a large graph dominate: each is its own task), each with
// its own encoder, and records the files in task order.
func (w *baseWriter) run(tasks []fileTask) error {
	out := make([]baseFile, len(tasks))
	errs := make([]error, len(tasks))
	next := make(chan int, len(tasks))
	for i := range tasks {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
			if err != nil {
				for i := range next {
					errs[i] = err
				}
				return
			}
			defer enc.Close()
			for i := range next {
				out[i], errs[i] = w.put(enc, tasks[i])
				w.prog.Add(0, 1)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return err
		}
		w.files = append(w.files, out[i])
		w.total += out[i].Size
	}
	return nil
}

// writeBase writes v to dir as a new base and switches the manifest to
// it. With expect set, the manifest in dir must still be the one expect
// stamps (the last this process wrote or read), or nothing is switched
// and the error is an *OtherWriterError: another process checkpointed
// into the directory meanwhile. It returns the bytes written and the new
// manifest's stamp.
func (v *Snapshot) writeBase(fsys vfs.FS, cat *catalog.Catalog, dir string, indexes []catalog.Index, expect *ManifestStamp, prog *progress.Tracker) (int64, ManifestStamp, error) {
	if _, err := vfs.MkdirAllSync(fsys, dir); err != nil {
		return 0, ManifestStamp{}, fmt.Errorf("storage: cannot create %s: %w", dir, err)
	}
	sub := fmt.Sprintf("base-%d", v.ts)
	for i := 1; vfs.Exists(fsys, filepath.Join(dir, sub)); i++ {
		sub = fmt.Sprintf("base-%d-%d", v.ts, i)
	}
	if err := fsys.Mkdir(filepath.Join(dir, sub)); err != nil {
		return 0, ManifestStamp{}, fmt.Errorf("storage: cannot create base directory: %w", err)
	}
	w := &baseWriter{fs: fsys, dir: dir, sub: sub, prog: prog}
	abandon := func(err error) (int64, ManifestStamp, error) {
		fsys.RemoveAll(filepath.Join(dir, sub))
		return 0, ManifestStamp{}, err
	}
	if err := v.writeFiles(w, cat, indexes); err != nil {
		return abandon(fmt.Errorf("storage: cannot write base: %w", err))
	}
	if err := vfs.SyncDir(fsys, filepath.Join(dir, sub)); err != nil {
		return abandon(fmt.Errorf("storage: cannot sync the base directory: %w", err))
	}
	m := manifest{FormatVersion: FormatVersion, Base: sub, TS: v.ts, NodeBound: v.nodeBound, NodeCount: v.nodeCount,
		RelBound: v.relBound, RelCount: v.relCount, Files: w.files, WALLSN: v.lsn, Writer: formatWriter(v.writer)}
	mb, err := json.MarshalIndent(&m, "", "  ")
	if err != nil {
		return abandon(err)
	}
	tmp := filepath.Join(dir, ManifestName+".tmp")
	if err := vfs.WriteFileSync(fsys, tmp, mb); err != nil {
		return abandon(fmt.Errorf("storage: cannot write manifest: %w", err))
	}
	if expect != nil {
		if err := checkManifest(fsys, dir, *expect); err != nil {
			fsys.Remove(tmp)
			return abandon(err)
		}
	}
	if err := fsys.Rename(tmp, filepath.Join(dir, ManifestName)); err != nil {
		return abandon(fmt.Errorf("storage: cannot install manifest: %w", err))
	}
	if err := vfs.SyncDir(fsys, dir); err != nil {
		// The rename may or may not survive a power cut, so the new base
		// must stay: the manifest on disk may name it.
		return 0, ManifestStamp{}, fmt.Errorf("storage: cannot sync %s after installing the manifest: %w", dir, err)
	}
	// Older bases are garbage once the manifest names the new one.
	if ents, err := fsys.ReadDir(dir); err == nil {
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), "base-") && e.Name() != sub {
				fsys.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
	return w.total + int64(len(mb)), ManifestStamp{Base: sub, Writer: v.writer, LSN: v.lsn}, nil
}

func (v *Snapshot) writeFiles(w *baseWriter, cat *catalog.Catalog, indexes []catalog.Index) error {
	cf := catalogFile{Labels: []string{}, Types: []string{}, Keys: []string{}}
	for _, l := range cat.Labels() {
		cf.Labels = append(cf.Labels, cat.LabelName(l))
	}
	for _, t := range cat.Types() {
		cf.Types = append(cf.Types, cat.TypeName(t))
	}
	for _, k := range cat.Keys() {
		cf.Keys = append(cf.Keys, cat.KeyName(k))
	}
	sc := v.Schema()
	for _, ix := range sc.Indexes {
		cf.Indexes = append(cf.Indexes, *ix)
	}
	cf.Indexes = append(cf.Indexes, indexes...)
	for _, c := range sc.Constraints {
		cf.Constraints = append(cf.Constraints, *c)
	}
	cb, err := json.MarshalIndent(&cf, "", "  ")
	if err != nil {
		return err
	}
	tasks := []fileTask{
		bytesTask("catalog.json", func() []byte { return cb }),
		bytesTask("nodes.live", func() []byte { return bitmapBytes(v.live) }),
	}
	if sys := v.encodeSystemFile(); sys != nil {
		tasks = append(tasks, bytesTask(systemFileName, func() []byte { return sys }))
	}
	for l, b := range v.labels {
		if b != nil && !b.IsEmpty() {
			tasks = append(tasks, bytesTask(fmt.Sprintf("label.%d", l), func() []byte { return bitmapBytes(b) }))
		}
	}
	for k, c := range v.nodeCols {
		if c != nil {
			tasks = append(tasks, fileTask{name: fmt.Sprintf("node.%d.col", k), sections: func(sw *sectionWriter) { writeColumn(sw, c) }})
		}
	}
	for k, c := range v.relCols {
		if c != nil {
			tasks = append(tasks, fileTask{name: fmt.Sprintf("rel.%d.col", k), sections: func(sw *sectionWriter) { writeColumn(sw, c) }})
		}
	}
	compact := func(a *csr.Adjacency) bool {
		return a.OverlaySize() > 0 || a.Base().NumNodes() != int(v.nodeBound)
	}
	ids := newIDViews(v)
	var compacting int64
	for _, p := range v.adj {
		for _, a := range p {
			if p[Outgoing] != nil && compact(a) {
				compacting++
			}
		}
	}
	if compacting > 0 {
		w.prog.Begin(progress.Phase{Name: PhaseCompactAdjacency, Unit: "adjacencies", TotalItems: compacting})
	}
	for t, p := range v.adj {
		if p[Outgoing] == nil {
			continue
		}
		var flat [2]*csr.CSR
		for d, a := range p {
			if compact(a) {
				a = a.Compact(int(v.nodeBound))
				w.prog.Add(0, 1)
			}
			flat[d] = a.Base()
		}
		for d := range flat {
			tasks = append(tasks, fileTask{name: fmt.Sprintf("csr.%d.%s", t, dirName[d]), sections: func(sw *sectionWriter) { writeCSR(sw, flat[d]) }})
		}
		tasks = append(tasks, ids.slotViewTasks(t, flat)...) // base_slots.go
	}
	w.prog.Begin(progress.Phase{Name: PhaseWriteFiles, Unit: "files", TotalItems: int64(len(tasks))})
	return w.run(tasks)
}

var dirName = [2]string{"out", "in"}

func bitmapBytes(b *roaring.Bitmap) []byte {
	out, err := b.ToBytes()
	if err != nil {
		panic(fmt.Sprintf("BUG: storage: roaring serialization: %v", err))
	}
	return out
}

// Column files are sectioned files (base_sections.go):
//
//	part × nparts    zstd   chunks uvarint, then that many chunk records;
//	                        groups strictly increasing over the whole file
//	header           raw    "QCOL2" nparts uvarint (the last section)
//
//	chunk record: group uvarint | type u8 | valid [256]byte | data | side
//	  Bool    bits [256]byte
//	  Int64   rows uvarint, rows × 8 bytes LE
//	  Float64 rows uvarint, rows × 8 bytes LE (IEEE bits)
//	  String  rows uvarint, enc u8:
//	            0 plain: rows × (uvarint len, bytes)
//	            1 dict:  n uvarint, n × (uvarint len, bytes), rows × u8 code
//	  Any     rows uvarint, rows × value (base_value.go)
//	  side    n uvarint, n × (row uvarint, value)
//
// A part ends after the record that takes it past colPartBytes, so that
// readers decode a large column's parts on all cores, each into a
// buffer of a few MiB.
const colMagic = "QCOL2"

// colPartBytes is the raw size after which a column part ends (tests
// shrink it): 8 MiB, small enough that the parts of a column of 10M
// relationships keep two cores busy, large enough that a part's values
// fill whole huge pages (colSlabs).
var colPartBytes = 8 << 20

func encodeColumn(c *column) []byte {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	writeColumnPart(w, c)
	w.Flush()
	return b.Bytes()
}

// writeColumnPart writes all of c as one part's bytes (tests, fuzzing).
func writeColumnPart(w *bufio.Writer, c *column) {
	n := 0
	for range c.groups.all() {
		n++
	}
	b := binary.AppendUvarint(nil, uint64(n))
	for g, ch := range c.groups.all() {
		b = ch.appendEncoded(binary.AppendUvarint(b, uint64(g)))
	}
	w.Write(b)
}

// writeColumn writes c's file part by part.
func writeColumn(sw *sectionWriter, c *column) {
	var part, recs []byte
	n, parts := 0, 0
	flush := func() {
		part = append(binary.AppendUvarint(part[:0], uint64(n)), recs...)
		sw.compressed(part)
		recs, n = recs[:0], 0
		parts++
	}
	for g, ch := range c.groups.all() {
		recs = ch.appendEncoded(binary.AppendUvarint(recs, uint64(g)))
		if n++; len(recs) >= colPartBytes {
			flush()
		}
	}
	if n > 0 || parts == 0 {
		flush()
	}
	sw.raw(binary.AppendUvarint([]byte(colMagic), uint64(parts)))
}

// chunkFlatVectors is the type byte of a flat Any chunk's record (its
// values LISTs of FLOAT of one dimension, chunk_vector.go): a code no
// vector.Type uses.
const chunkFlatVectors = 16

func (c *chunk) appendEncoded(b []byte) []byte {
	if c.dim > 0 {
		b = append(b, chunkFlatVectors)
	} else {
		b = append(b, byte(c.typ))
	}
	b = append(b, c.valid...)
	rows := c.rows()
	switch c.typ {
	case vector.Bool:
		b = append(b, c.bits...)
	case vector.Int64:
		b = binary.AppendUvarint(b, uint64(rows))
		for _, x := range c.i64[:rows] {
			b = binary.LittleEndian.AppendUint64(b, uint64(x))
		}
	case vector.Float64:
		b = binary.AppendUvarint(b, uint64(rows))
		for _, x := range c.f64[:rows] {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	case vector.String:
		b = binary.AppendUvarint(b, uint64(rows))
		b = appendStrings(b, rows, func(r int) string {
			if !bitAt(c.valid, r) {
				return ""
			}
			if c.sarr != nil {
				return c.sarr.Value(r)
			}
			return c.str[r]
		})
	case vector.Any:
		b = binary.AppendUvarint(b, uint64(rows))
		if c.dim > 0 {
			b = binary.AppendUvarint(b, uint64(c.dim))
			for _, x := range c.vec[:rows*c.dim] {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
			}
			break
		}
		for _, x := range c.any[:rows] {
			b = appendValue(b, x)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(c.side)))
	for r := 0; r < GroupSize && len(c.side) > 0; r++ {
		if v, ok := c.side[uint16(r)]; ok {
			b = appendValue(binary.AppendUvarint(b, uint64(r)), v)
		}
	}
	return b
}

// appendStrings writes a chunk's strings, dictionary-encoded (one byte per
// row) when at most 256 distinct values repeat, plain otherwise.
func appendStrings(b []byte, rows int, at func(r int) string) []byte {
	dict := map[string]byte{}
	var order []string
	for r := 0; r < rows; r++ {
		s := at(r)
		if _, ok := dict[s]; ok {
			continue
		}
		if len(dict) == 256 || len(dict) > rows/2 {
			dict = nil
			break
		}
		dict[s] = byte(len(order))
		order = append(order, s)
	}
	if dict == nil {
		b = append(b, 0)
		for r := 0; r < rows; r++ {
			b = appendString(b, at(r))
		}
		return b
	}
	b = binary.AppendUvarint(append(b, 1), uint64(len(order)))
	for _, s := range order {
		b = appendString(b, s)
	}
	for r := 0; r < rows; r++ {
		b = append(b, dict[at(r)])
	}
	return b
}
