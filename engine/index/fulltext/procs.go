package fulltext

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/index"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// Search limits (docs/search.md).
const (
	// DefaultLimit is a search's limit when its options give none.
	DefaultLimit = 1000
	// MaxLimit bounds skip + limit: a search holds that many hits twice
	// (committed and overlay) before it returns.
	MaxLimit = 1_000_000
)

var searchInputs = []procs.Field{{Name: "index", Type: "STRING"}, {Name: "query", Type: "STRING"}, {Name: "options", Type: "MAP", Optional: true}}

// Register adds the FULLTEXT procedures to reg, answering through m:
// quiver.fts.search (node, relationship, score) and Neo4j's
// db.index.fulltext.queryNodes (node, score) and queryRelationships
// (relationship, score).
func Register(reg *procs.Registry, m *index.Manager) error {
	score := procs.Field{Name: "score", Type: "FLOAT"}
	node := procs.Field{Name: "node", Type: "NODE"}
	rel := procs.Field{Name: "relationship", Type: "RELATIONSHIP"}
	list := []*procs.Procedure{
		{Signature: procs.Signature{Name: "quiver.fts.search", Inputs: searchInputs, Outputs: []procs.Field{node, rel, score}, Requires: procs.PrivRead},
			Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) { return search(c, m, args, 0) }},
		{Signature: procs.Signature{Name: "db.index.fulltext.queryNodes", Inputs: searchInputs, Outputs: []procs.Field{node, score}, Requires: procs.PrivRead},
			Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) { return search(c, m, args, 1) }},
		{Signature: procs.Signature{Name: "db.index.fulltext.queryRelationships", Inputs: searchInputs, Outputs: []procs.Field{rel, score}, Requires: procs.PrivRead},
			Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) { return search(c, m, args, 2) }},
	}
	for _, p := range list {
		if err := reg.Register(p); err != nil {
			return err
		}
	}
	return nil
}

// search runs one call; shape 0 yields (node, relationship, score), 1
// (node, score) of a node index, 2 (relationship, score) of a
// relationship index.
func search(c *procs.Context, m *index.Manager, args []vector.Value, shape int) ([][]vector.Value, error) {
	name, _ := args[0].(string)
	text, _ := args[1].(string)
	if args[0] == nil || args[1] == nil {
		return nil, errs.DataCode(errs.CodeInvalidParam, "fulltext search needs an index name and a query")
	}
	skip, limit, err := options(args[2])
	if err != nil {
		return nil, err
	}
	var def *catalog.Index
	if sc := c.Reader.Schema(); sc != nil {
		def = sc.Index(name)
	}
	if def == nil || def.Type != catalog.FullText {
		return nil, errs.New(errs.CodeNoObject, errs.CatNoObject, "there is no FULLTEXT index named %s", name)
	}
	switch {
	case shape == 1 && def.Rel:
		return nil, errs.Semantic("index %s indexes relationships: use db.index.fulltext.queryRelationships", name)
	case shape == 2 && !def.Rel:
		return nil, errs.Semantic("index %s indexes nodes: use db.index.fulltext.queryNodes", name)
	}
	e, err := m.Lookup(def)
	if err != nil {
		return nil, err
	}
	var tx Txn
	var ts uint64
	switch r := c.Reader.(type) {
	case Txn:
		tx, ts = r, r.BaseTS()
	case interface{ TS() uint64 }:
		ts = r.TS()
	default:
		return nil, errs.Internal("fulltext search: reader %T has no snapshot timestamp", c.Reader)
	}
	if err := e.Await(c.Ctx, ts); err != nil {
		return nil, err
	}
	x, ok := e.Index().(*Index)
	if !ok {
		return nil, errs.Internal("index %s is not a FULLTEXT index", name)
	}
	held := int64(2*(skip+limit)) * HitBytes
	if c.Mem != nil {
		if err := c.Mem.Charge(held); err != nil {
			c.Mem.Release(held)
			return nil, err
		}
		defer c.Mem.Release(held)
	}
	hits, err := x.Search(c.Ctx, text, ts, tx, skip, limit, c.Mem)
	if err != nil {
		return nil, err
	}
	rows := make([][]vector.Value, len(hits))
	for i, h := range hits {
		var el vector.Value = vector.NodeRef(h.ID)
		if def.Rel {
			el = vector.RelRef(h.ID)
		}
		switch {
		case shape != 0:
			rows[i] = []vector.Value{el, h.Score}
		case def.Rel:
			rows[i] = []vector.Value{nil, el, h.Score}
		default:
			rows[i] = []vector.Value{el, nil, h.Score}
		}
	}
	return rows, nil
}

// options reads {skip, limit}.
func options(v vector.Value) (skip, limit int, err error) {
	limit = DefaultLimit
	if v == nil {
		return 0, limit, nil
	}
	m, _ := v.(map[string]vector.Value)
	for k, x := range m {
		n, ok := x.(int64)
		switch {
		case k != "skip" && k != "limit":
			return 0, 0, errs.DataCode(errs.CodeInvalidParam, "unknown fulltext search option %s: skip or limit", k)
		case !ok || n < 0 || n > MaxLimit:
			return 0, 0, errs.DataCode(errs.CodeInvalidParam, "fulltext search option %s must be an integer from 0 to %d", k, MaxLimit)
		case k == "skip":
			skip = int(n)
		default:
			limit = int(n)
		}
	}
	if skip+limit > MaxLimit {
		return 0, 0, errs.DataCode(errs.CodeInvalidParam, "fulltext search: skip + limit is at most %d", MaxLimit)
	}
	return skip, limit, nil
}
