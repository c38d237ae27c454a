package admin

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/load"
	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Counts are what a COPY wrote.
type Counts struct {
	NodesCreated, RelationshipsCreated, PropertiesSet, LabelsAdded int64
}

// Copy runs COPY <name> FROM '<path>': the CSV or Parquet file (the
// import formats, docs/import.md) is parsed in parallel, then its rows are
// created in one transaction: all of them or, on any error, none. A file
// whose header (schema) has the from and to columns (and no id column) holds
// relationships of type name, whose endpoints are the existing nodes
// with those id values; any other file holds nodes with label(s) name.
//
// Files are read with the server's permissions, so COPY is refused
// unless the database was opened with an import directory (importDir),
// and only paths under it are read. A long COPY logs its progress
// through log.
func Copy(ctx context.Context, env Env, importDir string, log progress.Log, c *gql.Copy) (Counts, error) {
	var sum Counts
	path, err := copyPath(importDir, c)
	if err != nil {
		return sum, err
	}
	o := &load.Options{}
	rels, err := load.IsRelationshipFile(path, o)
	if err != nil {
		return sum, copyError(err, c)
	}
	w := log.Start("COPY", "name", c.Name, "path", path)
	o.Progress = w.Tracker()
	in := env.In
	tx := in
	if tx == nil {
		tx = env.Store.Begin()
		defer tx.Rollback() // a panic must not leave the writer's lock held; a no-op after Commit
	}
	if rels {
		err = copyRels(ctx, env.Store, tx, c.Name, path, o, &sum)
	} else {
		err = copyNodes(ctx, env.Store, tx, c.Name, path, o, &sum)
	}
	if err == nil && env.BeforeCommit != nil {
		env.BeforeCommit()
	}
	if err == nil && in == nil {
		w.Tracker().Begin(progress.Phase{Name: "committing"})
		_, err = tx.Commit()
	}
	w.End(err, "nodes_created", sum.NodesCreated, "relationships_created", sum.RelationshipsCreated)
	if err != nil {
		if in == nil {
			tx.Rollback()
		}
		return Counts{}, copyError(err, c)
	}
	return sum, nil
}

// copyPath resolves the statement's path under the import directory.
func copyPath(importDir string, c *gql.Copy) (string, error) {
	if importDir == "" {
		return "", errs.New(errs.CodePermission, errs.CatPermission,
			"COPY FROM reads files on the server and is disabled; start the server with --import-dir DIR to allow reading files under DIR").At(c.Pos.Line, c.Pos.Column)
	}
	root, err := filepath.Abs(importDir)
	if err != nil {
		return "", err
	}
	p := c.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if rel, err := filepath.Rel(root, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errs.New(errs.CodePermission, errs.CatPermission,
			"COPY FROM: %s is outside the import directory %s", c.Path, root).At(c.PathPos.Line, c.PathPos.Column)
	}
	return p, nil
}

// copyError turns a load error into a 22000 data error at the statement.
func copyError(err error, c *gql.Copy) error {
	if _, ok := errs.As(err); ok {
		return err
	}
	var le *load.Error
	if errors.As(err, &le) {
		return errs.Data("COPY %s: %s", c.Name, le.Error())
	}
	return errs.Data("COPY %s: %v", c.Name, err)
}

func copyNodes(ctx context.Context, store *storage.Store, tx *storage.Tx, name, path string, o *load.Options, sum *Counts) error {
	var labels []string
	for _, l := range strings.Split(name, ":") {
		if l = strings.TrimSpace(l); l != "" {
			labels = append(labels, l)
		}
	}
	bn, err := load.ParseNodeFile(path, labels, o)
	if err != nil {
		return err
	}
	cat := store.Catalog()
	lids := make([]catalog.LabelID, len(labels))
	for i, l := range labels {
		lids[i] = cat.EnsureLabel(l)
	}
	kids := make([]catalog.KeyID, len(bn.Cols))
	for i := range bn.Cols {
		kids[i] = cat.EnsureKey(bn.Cols[i].Key)
	}
	o.Progress.Begin(progress.Phase{Name: "creating nodes", Unit: "rows", TotalItems: int64(bn.Count)})
	var keys []catalog.KeyID
	var vals []vector.Value
	for r := 0; r < bn.Count; r++ {
		if r%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		keys, vals = keys[:0], vals[:0]
		for i := range bn.Cols {
			if v := bn.Cols[i].Value(r); v != nil {
				keys = append(keys, kids[i])
				vals = append(vals, v)
			}
		}
		if _, err := tx.CreateNode(lids, keys, vals); err != nil {
			return err
		}
		sum.NodesCreated++
		sum.PropertiesSet += int64(len(keys))
		if (r+1)%4096 == 0 {
			o.Progress.Add(0, 4096)
		}
	}
	o.Progress.Add(0, int64(bn.Count%4096))
	sum.LabelsAdded = sum.NodesCreated * int64(len(lids))
	return nil
}

// ambiguous marks a key that several nodes carry (an error where a
// relationship names it).
const ambiguous = load.Ambiguous

func copyRels(ctx context.Context, store *storage.Store, tx *storage.Tx, typ, path string, o *load.Options, sum *Counts) error {
	cat := store.Catalog()
	snap := store.Snapshot()
	idKey := "id"
	k, ok := cat.LookupKey(idKey)
	kt := vector.Null
	if ok {
		kt = snap.NodePropType(k)
	}
	var ints map[int64]uint64
	var strs map[string]uint64
	switch kt {
	case vector.Int64:
		ints = map[int64]uint64{}
	case vector.String:
		strs = map[string]uint64{}
	default:
		return errs.Data("COPY %s: relationships refer to nodes by their %s property, which nodes lack or hold with mixed types", typ, idKey)
	}
	live := snap.LiveNodes()
	o.Progress.Begin(progress.Phase{Name: "reading node keys", Unit: "nodes", TotalItems: int64(live.GetCardinality())})
	it := live.Iterator()
	for n := int64(1); it.HasNext(); n++ {
		if n%4096 == 0 {
			o.Progress.Add(0, 4096)
		}
		id := uint64(it.Next())
		snap.NodeProps(id, func(key catalog.KeyID, v vector.Value) {
			if key != k {
				return
			}
			switch x := v.(type) {
			case int64:
				if _, dup := ints[x]; dup {
					ints[x] = ambiguous
				} else {
					ints[x] = id
				}
			case string:
				if _, dup := strs[x]; dup {
					strs[x] = ambiguous
				} else {
					strs[x] = id
				}
			}
		})
	}
	o.Progress.Add(0, int64(live.GetCardinality()%4096))
	br, err := load.ParseRelFile(path, typ, o, ints, strs)
	if err != nil {
		return err
	}
	t := cat.EnsureType(typ)
	kids := make([]catalog.KeyID, len(br.Cols))
	for i := range br.Cols {
		kids[i] = cat.EnsureKey(br.Cols[i].Key)
	}
	o.Progress.Begin(progress.Phase{Name: "creating relationships", Unit: "rows", TotalItems: int64(len(br.Src))})
	var keys []catalog.KeyID
	var vals []vector.Value
	for r := range br.Src {
		if r%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		keys, vals = keys[:0], vals[:0]
		for i := range br.Cols {
			if v := br.Cols[i].Value(r); v != nil {
				keys = append(keys, kids[i])
				vals = append(vals, v)
			}
		}
		if _, err := tx.CreateRel(t, uint64(br.Src[r]), uint64(br.Dst[r]), keys, vals); err != nil {
			return err
		}
		sum.RelationshipsCreated++
		sum.PropertiesSet += int64(len(keys))
		if (r+1)%4096 == 0 {
			o.Progress.Add(0, 4096)
		}
	}
	o.Progress.Add(0, int64(len(br.Src)%4096))
	return nil
}
