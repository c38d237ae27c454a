package engine

// Exporting the whole graph as files `quiver import` reads back
// (package export, docs/export.md): DB.Export for the offline `quiver
// export`, and the admin procedure quiver.export(dir [, options]) for a
// running server, which writes only under Options.ExportDir.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/export"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// ExportOptions configure an export (export.Options).
type ExportOptions = export.Options

// ExportSummary is what an export wrote.
type ExportSummary = export.Summary

// ExportManifest describes an export's folder (its manifest.json).
type ExportManifest = export.Manifest

// The formats of an export's files.
const (
	ExportParquet = export.FormatParquet
	ExportCSV     = export.FormatCSV
)

// ReadExportManifest reads the manifest of the export in dir.
func ReadExportManifest(dir string) (*ExportManifest, error) { return export.ReadManifest(dir) }

// ImportFromExport sets o's files from the manifest of the export in
// dir: its node and relationship files, and its key and endpoint columns,
// which link relationships to nodes but are not stored (KeyOnly). The
// schema script is the caller's to run once the import is done
// (ApplySchemaScript).
func ImportFromExport(o *ImportOptions, dir string) (*ExportManifest, error) {
	m, err := export.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	o.IDColumn, o.FromColumn, o.ToColumn, o.KeyOnly = m.IDColumn, m.FromColumn, m.ToColumn, true
	for _, f := range m.Nodes {
		o.Nodes = append(o.Nodes, ImportInput{Name: f.Name, Path: filepath.Join(dir, f.File)})
	}
	for _, f := range m.Relationships {
		o.Rels = append(o.Rels, ImportInput{Name: f.Name, Path: filepath.Join(dir, f.File)})
	}
	if len(o.Nodes) == 0 {
		return nil, fmt.Errorf("%s: the export holds no nodes: there is nothing to import", dir)
	}
	return m, nil
}

// ExportSchemaStatements splits an export's schema script into its
// statements, to run one by one.
func ExportSchemaStatements(script string) []string { return export.SchemaStatements(script) }

// ResolveExportPath applies the export directory's rules (export.Resolve)
// to a path a statement would write: under root only, never through `..`
// or a symbolic link out of it; refused when root is empty.
func ResolveExportPath(root, path, what string) (string, error) {
	return export.Resolve(root, path, what)
}

// Export writes the latest committed version of the whole graph, with its
// schema, into the folder o.Dir: no server's rules apply (the caller
// chose the folder). `quiver export` calls it on a directory it holds.
func (db *DB) Export(o ExportOptions) (ExportSummary, error) {
	return export.Graph(db.store.Snapshot(), db.store.Catalog(), o)
}

// ApplySchemaScript runs the statements of an export's schema script
// (schema.gql) one by one, each in its own transaction, and returns how
// many ran; the first that fails stops it, naming the statement.
func (db *DB) ApplySchemaScript(ctx context.Context, script string) (int, error) {
	stmts := export.SchemaStatements(script)
	for i, q := range stmts {
		res, err := db.Query(ctx, q, nil)
		if err == nil {
			for {
				var b *vector.Batch
				if b, err = res.Next(); b == nil || err != nil {
					break
				}
			}
			res.Close()
		}
		if err != nil {
			return i, fmt.Errorf("%s: %w", q, err)
		}
	}
	return len(stmts), nil
}

var exportFields = []procs.Field{
	{Name: "dir", Type: "STRING"}, {Name: "format", Type: "STRING"},
	{Name: "nodes", Type: "INTEGER"}, {Name: "relationships", Type: "INTEGER"},
	{Name: "files", Type: "INTEGER"}, {Name: "bytes", Type: "INTEGER"}, {Name: "seconds", Type: "FLOAT"},
}

// registerExport makes quiver.export(dir [, {format}]) callable: admin
// only, as it reads every record and writes files on the server.
func (db *DB) registerExport() error {
	return db.procs.Register(&procs.Procedure{Signature: procs.Signature{Name: "quiver.export",
		Inputs:   []procs.Field{{Name: "dir", Type: "STRING"}, {Name: "options", Type: "MAP", Optional: true}},
		Outputs:  exportFields,
		Requires: procs.PrivAdmin},
		Fn: db.exportProc})
}

// exportProc runs quiver.export and records it in the audit trail
// (category admin, action export, the folder as written).
func (db *DB) exportProc(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
	rows, err := db.exportRun(c, args)
	dir, _ := args[0].(string)
	db.trail().Audit(c.Ctx, access.AuditEvent{Category: "admin", Action: "export", Outcome: access.OutcomeOf(err), Detail: dir})
	return rows, err
}

func (db *DB) exportRun(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
	dir, ok := args[0].(string)
	if !ok {
		return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.export: the folder is null")
	}
	o := ExportOptions{Format: ExportParquet}
	if m, ok := args[1].(map[string]vector.Value); ok {
		for k, v := range m {
			switch k {
			case "format":
				f, ok := v.(string)
				if !ok {
					return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.export: the format option is a string ('parquet' or 'csv')")
				}
				o.Format = strings.ToLower(f)
			default:
				return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.export: unknown option %q (the options are: format)", k)
			}
		}
	}
	path, err := export.Resolve(db.opts.ExportDir, dir, "quiver.export")
	if err != nil {
		return nil, err
	}
	o.Dir = path
	o.Stop = func() error { return errs.Stopped(c.Ctx) }
	// The statement's own snapshot, so that the files show what the
	// statement reads; the latest committed version inside an explicit
	// transaction (whose own writes are not exported).
	snap, ok := c.Reader.(*storage.Snapshot)
	if !ok {
		snap = db.store.Snapshot()
	}
	w := db.longWork().Start("export", "dir", path, "format", o.Format)
	o.Progress = w.Tracker()
	sum, err := export.Graph(snap, db.store.Catalog(), o)
	w.End(err, "nodes", sum.Nodes, "relationships", sum.Relationships, "bytes", sum.Bytes)
	if err != nil {
		if e, ok := errs.As(err); ok {
			e.Message = "quiver.export: " + e.Message
			return nil, e
		}
		return nil, errs.Wrap(errs.CodeTransaction, errs.CatTransaction, err, fmt.Sprintf("quiver.export to %s", path))
	}
	return [][]vector.Value{{sum.Dir, sum.Format, sum.Nodes, sum.Relationships, int64(sum.Files), sum.Bytes, sum.Seconds}}, nil
}
