package export

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/vector"
)

// Formats of an export's files.
const (
	FormatParquet = "parquet"
	FormatCSV     = "csv"
)

// DefaultBatchRows is the rows of a file held in memory before they are
// written (a Parquet row group).
const DefaultBatchRows = 1 << 16

// Phases of an export, in order.
const (
	PhaseScan      = "reading the graph"
	PhaseNodes     = "writing nodes"
	PhaseRels      = "writing relationships"
	PhaseFinishing = "writing the schema and manifest"
)

// Options configure an export.
type Options struct {
	// Dir is the folder to write: it must not exist or be empty, and its
	// parent must exist.
	Dir string
	// Format is FormatParquet (the default) or FormatCSV.
	Format string
	// FS is the filesystem written to; nil means the operating system's.
	FS vfs.FS
	// Progress, when set, is told the phases and their advance.
	Progress *progress.Tracker
	// Stop, when set, is polled every few thousand rows: an error it
	// returns ends the export (nothing is left behind).
	Stop func() error
	// BatchRows bounds the rows of a file held in memory; zero means
	// DefaultBatchRows.
	BatchRows int
}

// Summary is what an export wrote.
type Summary struct {
	Dir                  string
	Format               string
	Nodes, Relationships int64
	Files                int
	Bytes                int64
	Seconds              float64
}

// Graph writes every node and relationship of snap, and its schema, into
// the folder o.Dir (see the package comment and docs/export.md). The
// snapshot is one version of the graph: writes committed meanwhile are
// not in the files. On any error nothing is left behind.
func Graph(snap *storage.Snapshot, cat *catalog.Catalog, o Options) (Summary, error) {
	start := time.Now()
	sum := Summary{Dir: o.Dir, Format: o.Format}
	if sum.Format == "" {
		sum.Format = FormatParquet
	}
	if sum.Format != FormatParquet && sum.Format != FormatCSV {
		return sum, errs.DataCode(errs.CodeInvalidParam, "the format is %q; use %q or %q", o.Format, FormatParquet, FormatCSV)
	}
	fsys := o.FS
	if fsys == nil {
		fsys = vfs.Default
	}
	stop := o.Stop
	if stop == nil {
		stop = func() error { return nil }
	}
	rows := o.BatchRows
	if rows <= 0 {
		rows = DefaultBatchRows
	}
	st, err := newStage(fsys, o.Dir)
	if err != nil {
		return sum, err
	}
	ok := false
	defer func() {
		if !ok {
			st.abort()
		}
	}()
	pr := o.Progress
	pr.Begin(progress.Phase{Name: PhaseScan, Unit: "objects", TotalItems: snap.NodeCount() + snap.RelCount()})
	p, err := scan(snap, cat, stop, func(n int64) { pr.Add(0, n) })
	if err != nil {
		return sum, err
	}
	ext := "." + sum.Format
	for i, g := range p.nodes {
		g.file = fileName("nodes", i, g.name, ext)
	}
	for i, g := range p.rels {
		g.file = fileName("relationships", i, g.name, ext)
	}
	w := &writer{st: st, format: sum.Format, rows: rows, stop: stop, pr: pr}
	pr.Begin(progress.Phase{Name: PhaseNodes, Unit: "nodes", TotalItems: snap.NodeCount()})
	if err := w.nodes(snap, cat, p); err != nil {
		return sum, err
	}
	pr.Begin(progress.Phase{Name: PhaseRels, Unit: "relationships", TotalItems: snap.RelCount()})
	if err := w.rels(snap, cat, p); err != nil {
		return sum, err
	}
	pr.Begin(progress.Phase{Name: PhaseFinishing, Unit: "files", TotalItems: 2})
	m := Manifest{Format: sum.Format, IDColumn: p.idCol, FromColumn: p.fromCol, ToColumn: p.toCol, Schema: SchemaFile,
		Nodes: []ManifestEntry{}, Relationships: []ManifestEntry{}, Version: snap.TS()}
	for _, g := range p.nodes {
		m.Nodes = append(m.Nodes, ManifestEntry{Name: g.name, File: g.file, Rows: g.rows})
		m.NodeCount += g.rows
	}
	for _, g := range p.rels {
		m.Relationships = append(m.Relationships, ManifestEntry{Name: g.name, File: g.file, Rows: g.rows})
		m.RelationshipCount += g.rows
	}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return sum, err
	}
	for _, f := range []struct {
		name string
		body []byte
	}{{SchemaFile, []byte(schemaScript(snap.Schema()))}, {ManifestFile, append(js, '\n')}} {
		out, err := st.create(f.name)
		if err != nil {
			return sum, err
		}
		before := st.bytes
		out.Write(f.body)
		if err := out.close(); err != nil {
			return sum, err
		}
		pr.Add(st.bytes-before, 1)
	}
	if err := stop(); err != nil {
		return sum, err
	}
	if err := st.commit(); err != nil {
		return sum, err
	}
	pr.End()
	ok = true
	sum.Nodes, sum.Relationships = m.NodeCount, m.RelationshipCount
	sum.Files, sum.Bytes = st.files, st.bytes
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}

// fileName is a file's name: its kind, its place, and its labels or type
// with what a file name should not hold replaced by `_` (the manifest
// holds the real names).
func fileName(kind string, i int, name, ext string) string {
	clean := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
	if len(clean) > 64 {
		clean = clean[:64]
	}
	if clean == "" {
		return fmt.Sprintf("%s-%03d%s", kind, i, ext)
	}
	return fmt.Sprintf("%s-%03d-%s%s", kind, i, clean, ext)
}

// writer is pass two: it fills each file's batch and writes it out when
// full.
type writer struct {
	st     *stage
	format string
	rows   int
	stop   func() error
	pr     *progress.Tracker
}

// open starts one file per group.
func (w *writer) open(gs []*group, keyNames []string) ([]sink, []*batch, error) {
	sinks := make([]sink, len(gs))
	batches := make([]*batch, len(gs))
	for i, g := range gs {
		out, err := w.st.create(g.file)
		if err != nil {
			return nil, nil, err
		}
		if w.format == FormatCSV {
			sinks[i], err = newCSVSink(out, g, keyNames, csvOptions{delim: ',', header: true})
		} else {
			sinks[i], err = newParquetSink(out, g, keyNames, compress.Codecs.Snappy)
		}
		if err != nil {
			return nil, nil, err
		}
		batches[i] = newBatch(g)
	}
	return sinks, batches, nil
}

// flush writes a batch and reports it.
func (w *writer) flush(s sink, b *batch) error {
	if b.rows == 0 {
		return nil
	}
	before := w.st.bytes
	if err := s.write(b); err != nil {
		return err
	}
	w.pr.Add(w.st.bytes-before, int64(b.rows))
	b.reset()
	return w.stop()
}

// finish writes the last batches and closes the files.
func (w *writer) finish(sinks []sink, batches []*batch) error {
	for i, s := range sinks {
		if err := w.flush(s, batches[i]); err != nil {
			return err
		}
		before := w.st.bytes
		if err := s.close(); err != nil {
			return err
		}
		w.pr.Add(w.st.bytes-before, 0)
	}
	return nil
}

func (w *writer) nodes(snap *storage.Snapshot, cat *catalog.Catalog, p *plan) error {
	sinks, batches, err := w.open(p.nodes, []string{p.idCol})
	if err != nil {
		return err
	}
	index := map[*group]int{}
	for i, g := range p.nodes {
		index[g] = i
	}
	var labels []catalog.LabelID
	var buf []byte
	it := snap.LiveNodes().Iterator()
	for n := 1; it.HasNext(); n++ {
		if n%4096 == 0 {
			if err := w.stop(); err != nil {
				return err
			}
		}
		id := uint64(it.Next())
		labels = snap.AppendNodeLabels(labels[:0], id)
		i := index[p.nodeOf[labelKey(labels)].fileOf(func(k catalog.KeyID) vector.Value { return snap.NodeProp(id, k) }, buf)]
		g, b := p.nodes[i], batches[i]
		b.keys[0] = append(b.keys[0], int64(id))
		for c := range g.cols {
			b.add(c, &g.cols[c], snap.NodeProp(id, g.cols[c].key))
		}
		if b.rows++; b.rows >= w.rows {
			if err := w.flush(sinks[i], b); err != nil {
				return err
			}
		}
	}
	return w.finish(sinks, batches)
}

func (w *writer) rels(snap *storage.Snapshot, cat *catalog.Catalog, p *plan) error {
	sinks, batches, err := w.open(p.rels, []string{p.fromCol, p.toCol})
	if err != nil {
		return err
	}
	index := map[*group]int{}
	for i, g := range p.rels {
		index[g] = i
	}
	var buf []byte
	err = eachRel(snap, cat, w.stop, func(int64) {}, func(t catalog.TypeID, id, src, dst uint64) error {
		i := index[p.relOf[t].fileOf(func(k catalog.KeyID) vector.Value { return snap.RelProp(id, k) }, buf)]
		g, b := p.rels[i], batches[i]
		b.keys[0] = append(b.keys[0], int64(src))
		b.keys[1] = append(b.keys[1], int64(dst))
		for c := range g.cols {
			b.add(c, &g.cols[c], snap.RelProp(id, g.cols[c].key))
		}
		if b.rows++; b.rows >= w.rows {
			return w.flush(sinks[i], b)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return w.finish(sinks, batches)
}
