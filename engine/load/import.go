package load

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Input is one file to load: Name is the node label(s) ("Person", or
// "Person:Employee" for several) or the relationship type.
type Input struct {
	Name string
	Path string
}

// Options configure a load.
type Options struct {
	// Dir is the data directory Import creates.
	Dir   string
	Nodes []Input
	Rels  []Input
	// IDColumn is the node files' key column ("id" by default);
	// FromColumn and ToColumn the relationship files' endpoint columns
	// ("from" and "to").
	IDColumn, FromColumn, ToColumn string
	// Delimiter separates fields (',' by default).
	Delimiter byte
	// Graphalytics, instead of Nodes and Rels, is the path prefix NAME of
	// an LDBC Graphalytics graph (NAME.v, NAME.e, NAME.properties; see
	// graphalytics.go).
	Graphalytics string
	// KeyOnly makes the node files' key column a link only, as an
	// export's files need (docs/export.md): relationship files name
	// nodes by it, but it is neither stored as a property nor indexed,
	// and a node file may have no label (Name "").
	KeyOnly bool
	// Progress, when set, is told the load's phases and their advance
	// (progress.go): input bytes parsed and rows read, then the storage
	// layer's phases.
	Progress *progress.Tracker
}

func (o *Options) delim() byte {
	if o.Delimiter == 0 {
		return ','
	}
	return o.Delimiter
}

func (o *Options) idColumn() string   { return or(o.IDColumn, "id") }
func (o *Options) fromColumn() string { return or(o.FromColumn, "from") }
func (o *Options) toColumn() string   { return or(o.ToColumn, "to") }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Summary is what Import did.
type Summary struct {
	Nodes, Relationships int64
	InputBytes           int64 // CSV bytes read
	Bytes                int64 // bytes of the data directory written
	Seconds              float64
	// StaleImports are the staging directories of interrupted imports
	// of the same directory that Import removed first.
	StaleImports []string
}

// importGCPercent is the collector's GOGC while Import runs (see Import).
const importGCPercent = 40

// Import builds the data directory o.Dir from CSV files. The directory is
// built beside it under a temporary name and renamed into place at the
// end, so bad input (reported with file, line and column) or a crash
// leaves no half-written directory. o.Dir must not exist or be empty.
func Import(o Options) (Summary, error) {
	start := time.Now()
	// The load's memory is a few large pointer-free arrays that die phase
	// by phase (the raw file, the parsed columns, the sort's
	// permutations): a collection is cheap, and the default GOGC=100
	// would let the heap grow to twice what is live before one. So the
	// import runs at GOGC=importGCPercent, unless the process is set lower
	// (or off).
	if prev := debug.SetGCPercent(importGCPercent); prev < importGCPercent {
		debug.SetGCPercent(prev)
	} else {
		defer debug.SetGCPercent(prev)
	}
	var sum Summary
	if o.Dir == "" {
		return sum, errors.New("no data directory given")
	}
	var g *Graphalytics
	if o.Graphalytics != "" {
		if len(o.Nodes)+len(o.Rels) > 0 {
			return sum, errors.New("a Graphalytics graph is imported alone, without node or relationship files")
		}
		var err error
		if g, err = ReadGraphalytics(o.Graphalytics); err != nil {
			return sum, err
		}
	} else if len(o.Nodes) == 0 {
		return sum, errors.New("no node files given (--nodes Label=file.csv)")
	}
	dir := filepath.Clean(o.Dir)
	stale, err := CleanStaleImports(dir)
	sum.StaleImports = stale
	if err != nil {
		return sum, err
	}
	if err := checkTarget(dir); err != nil {
		return sum, err
	}
	inputs := append(append([]Input(nil), o.Nodes...), o.Rels...)
	if g != nil {
		inputs = []Input{{Path: g.VertexFile}, {Path: g.EdgeFile}}
	}
	for _, in := range inputs {
		if _, err := os.Stat(in.Path); err != nil {
			return sum, err
		}
	}
	var store *storage.Store
	var indexes []catalog.Index
	if g != nil {
		store, indexes, err = buildGraphalytics(&o, g, &sum)
	} else {
		store, indexes, err = build(&o, &sum)
	}
	if err != nil {
		return sum, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return sum, err
	}
	tmp, release, err := newStaging(dir)
	if err != nil {
		return sum, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
		release()
	}()
	if sum.Bytes, err = store.SaveBaseWithIndexes(tmp, indexes, o.Progress); err != nil {
		return sum, err
	}
	if err := moveIntoPlace(tmp, dir); err != nil {
		return sum, err
	}
	o.Progress.End()
	ok = true
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}

// checkTarget fails unless dir is absent or an empty data directory no
// other import or server holds.
func checkTarget(dir string) error {
	if err := ImportRunning(dir); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	if err := storage.DataDirHeld(dir); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if !storage.EmptyDatabaseDir(dir, ents) {
		return fmt.Errorf("data directory %s exists and is not empty: import builds a new database (remove it or pick another directory)", dir)
	}
	return nil
}

// moveIntoPlace renames the built staging directory tmp to dir, durably.
func moveIntoPlace(tmp, dir string) error {
	if err := os.Remove(filepath.Join(tmp, stagingLockName)); err != nil {
		return err
	}
	// A server may have opened the directory while the import ran.
	if err := storage.DataDirHeld(dir); err != nil {
		return err
	}
	// The directory is empty but for the lock file and the empty log a
	// server that opened it and stopped left behind.
	if err := os.Remove(filepath.Join(dir, storage.DataDirLockName)); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.RemoveAll(filepath.Join(dir, storage.WALDirName)); err != nil {
		return err
	}
	if err := os.Remove(dir); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	// The rename is durable once the parent is synced: a power cut before
	// that could leave the staging directory, or nothing, under D's name.
	if err := vfs.SyncDir(vfs.Default, filepath.Dir(dir)); err != nil {
		return fmt.Errorf("cannot sync %s after the import: %w", filepath.Dir(dir), err)
	}
	return nil
}

// build parses every file and bulk-loads the store.
func build(o *Options, sum *Summary) (*storage.Store, []catalog.Index, error) {
	var done int64
	var nodes []storage.BulkNodes
	km := &keyMap{}
	var next uint64
	var keyed []keyIndex
	o.Progress.Begin(readPhase(PhaseReadNodes, o.Nodes))
	for _, in := range o.Nodes {
		if len(labels(in.Name)) == 0 && !o.KeyOnly {
			return nil, nil, fmt.Errorf("%s: a node file needs a label (Label=file.csv)", in.Path)
		}
		t, data, err := readTable(in, o, false, nil)
		if err != nil {
			return nil, nil, err
		}
		done += int64(len(data))
		bn, err := nodeSet(t, in, km, next)
		if err != nil {
			return nil, nil, err
		}
		next += uint64(t.rows)
		if o.KeyOnly {
			bn.Cols = slices.DeleteFunc(bn.Cols, func(c storage.BulkColumn) bool { return c.Key == o.idColumn() })
		}
		nodes = append(nodes, bn)
		for _, c := range t.cols {
			if c.role == roleKey && !o.KeyOnly {
				keyed = append(keyed, keyIndex{label: bn.Labels[0], key: c.name})
			}
		}
		sum.Nodes += int64(t.rows)
	}
	var rels []storage.BulkRels
	if len(o.Rels) > 0 {
		o.Progress.Begin(readPhase(PhaseReadRels, o.Rels))
	}
	for _, in := range o.Rels {
		if in.Name == "" || strings.Contains(in.Name, ":") {
			return nil, nil, fmt.Errorf("%s: a relationship file needs one type name (TYPE=file.csv)", in.Path)
		}
		t, data, err := readTable(in, o, true, km)
		if err != nil {
			return nil, nil, err
		}
		done += int64(len(data))
		rels = append(rels, relSet(t, in.Name))
		sum.Relationships += int64(t.rows)
	}
	sum.InputBytes = done
	store, err := storage.BulkLoadProgress(nodes, rels, o.Progress)
	if err != nil {
		return nil, nil, err
	}
	return store, keyIndexes(keyed), nil
}

// buildGraphalytics parses a Graphalytics graph and bulk-loads the store.
func buildGraphalytics(o *Options, g *Graphalytics, sum *Summary) (*storage.Store, []catalog.Index, error) {
	bn, br, read, err := graphalyticsSets(g, o.Progress)
	if err != nil {
		return nil, nil, err
	}
	sum.InputBytes, sum.Nodes, sum.Relationships = read, int64(bn.Count), int64(len(br.Src))
	store, err := storage.BulkLoadProgress([]storage.BulkNodes{bn}, []storage.BulkRels{br}, o.Progress)
	if err != nil {
		return nil, nil, err
	}
	return store, keyIndexes([]keyIndex{{label: GraphalyticsLabel, key: "id"}}), nil
}

// keyIndex is a node file's key column under the file's first label.
type keyIndex struct{ label, key string }

// keyIndexes gives every node file's key column a BTREE index on its
// first label, as a primary key has: relationship files name nodes by
// key, and so do queries (MATCH (p:Person {id: 42})), which then seek
// instead of scanning the label. Files sharing a label and key share the
// index; DROP INDEX removes it like any other. The data directory stores
// the definitions; opening it builds the entries.
func keyIndexes(keyed []keyIndex) []catalog.Index {
	var out []catalog.Index
	seen := map[keyIndex]bool{}
	for _, k := range keyed {
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, catalog.Index{Name: catalog.IndexName(k.label, []string{k.key}), Type: catalog.BTree, Label: k.label, Keys: []string{k.key}})
	}
	return out
}

// readTable reads and parses one input file.
func readTable(in Input, o *Options, rels bool, km *keyMap) (*table, []byte, error) {
	data, err := os.ReadFile(in.Path)
	if err != nil {
		return nil, nil, err
	}
	if IsParquet(in.Path) {
		t, err := parseParquet(in.Path, data, o, rels, km)
		return t, data, err
	}
	t, err := parseTable(in.Path, data, o, rels, km)
	return t, data, err
}

// labels splits "A:B" into label names.
func labels(name string) []string {
	var out []string
	for _, l := range strings.Split(name, ":") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// nodeSet registers t's keys (ids first..) in km and returns the bulk
// node set.
func nodeSet(t *table, in Input, km *keyMap, first uint64) (storage.BulkNodes, error) {
	bn := storage.BulkNodes{Labels: labels(in.Name), Count: t.rows}
	for i, c := range t.cols {
		cd := &t.data[i]
		if c.role == roleKey {
			if err := km.add(t.file, c, i, cd, t.rows, first); err != nil {
				return bn, t.locate(err)
			}
		}
		bn.Cols = append(bn.Cols, bulkColumn(c, cd))
	}
	return bn, nil
}

// add registers a key column's values; a key seen before (in this file or
// an earlier node file) is an error at its line.
func (km *keyMap) add(file string, c colSpec, col int, cd *colData, rows int, first uint64) error {
	if km.kind == kindInfer {
		km.kind = c.kind
		if km.kind != kindInt {
			km.strs = map[string]uint64{}
		}
	} else if km.kind != c.kind {
		return &Error{File: file, Line: 1, Column: col + 1, Name: c.name,
			Msg: fmt.Sprintf("key type %s, an earlier node file's keys are %s (declare the type in the header)", c.kind, km.kind)}
	}
	dup := func(r int, key any) error {
		return &Error{File: file, Line: r + 2, Column: col + 1, Name: c.name, Msg: fmt.Sprintf("duplicate node key %v", key)}
	}
	if km.kind == kindInt {
		if km.ints == nil {
			ok, err := km.addDense(cd.i64, first, dup)
			if ok || err != nil {
				return err
			}
			km.ints = map[int64]uint64{}
			km.toMap()
		}
		for r, k := range cd.i64 {
			if _, seen := km.ints[k]; seen {
				return dup(r, k)
			}
			km.ints[k] = first + uint64(r)
		}
		return nil
	}
	for r, k := range cd.str {
		if _, seen := km.strs[k]; seen {
			return dup(r, fmt.Sprintf("%q", k))
		}
		km.strs[k] = first + uint64(r)
	}
	return nil
}

func bulkColumn(c colSpec, cd *colData) storage.BulkColumn {
	return storage.BulkColumn{Key: c.name, Type: c.kind.vectorType(), Bool: cd.b, I64: cd.i64, F64: cd.f64,
		Str: cd.str, Any: cd.any, Null: cd.null}
}

func relSet(t *table, typ string) storage.BulkRels {
	br := storage.BulkRels{Type: typ}
	for i, c := range t.cols {
		cd := &t.data[i]
		switch c.role {
		case roleFrom:
			br.Src = cd.ids
		case roleTo:
			br.Dst = cd.ids
		default:
			br.Cols = append(br.Cols, bulkColumn(c, cd))
		}
	}
	if br.Src == nil {
		br.Src, br.Dst = []uint32{}, []uint32{}
	}
	return br
}
