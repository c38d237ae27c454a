package vectorindex

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/index"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// The search procedures (docs/search.md):
//
//	quiver.vector.search(target, vector, k [, {ef, filter, similarity}]) YIELD node, score
//	db.index.vector.queryNodes(target, k, vector) YIELD node, score   (Neo4j's argument order)
//
// target names what is searched: a VECTOR index's name searches the
// index at the query's snapshot (search_tx.go), or exactly while the
// index cannot answer (populating, failed, or the snapshot older than
// what it keeps); 'Label.property' is an exact (brute-force) search over
// the label's nodes holding the property, run in parallel morsels.

// MaxK bounds k (and ef): a search holds that many hits.
const MaxK = 100_000

var searchOutputs = []procs.Field{{Name: "node", Type: "NODE"}, {Name: "score", Type: "FLOAT"}}

// RegisterProcedures makes the search procedures callable through reg,
// searching the VECTOR indexes m keeps.
func RegisterProcedures(reg *procs.Registry, m *index.Manager) error {
	for _, p := range []*procs.Procedure{
		{Signature: procs.Signature{Name: "quiver.vector.search", Requires: procs.PrivRead,
			Inputs: []procs.Field{{Name: "index", Type: "STRING"}, {Name: "vector", Type: "LIST"},
				{Name: "k", Type: "INTEGER"}, {Name: "options", Type: "MAP", Optional: true}},
			Outputs: searchOutputs},
			Fn: func(c *procs.Context, a []vector.Value) ([][]vector.Value, error) {
				return search(c, m, "quiver.vector.search", a[0], a[1], a[2], a[3])
			}},
		{Signature: procs.Signature{Name: "db.index.vector.queryNodes", Requires: procs.PrivRead,
			Inputs: []procs.Field{{Name: "indexName", Type: "STRING"}, {Name: "numberOfNearestNeighbours", Type: "INTEGER"},
				{Name: "query", Type: "LIST"}},
			Outputs: searchOutputs},
			Fn: func(c *procs.Context, a []vector.Value) ([][]vector.Value, error) {
				return search(c, m, "db.index.vector.queryNodes", a[0], a[2], a[1], nil)
			}},
	} {
		if err := reg.Register(p); err != nil {
			return fmt.Errorf("cannot register %s: %w", p.Name, err)
		}
	}
	return nil
}

// searchOptions is the options map of quiver.vector.search.
type searchOptions struct {
	metric Metric
	// similarity says the options named the metric.
	similarity bool
	ef         int
	filter     map[string]vector.Value
}

func parseOptions(fn string, v vector.Value) (searchOptions, error) {
	o := searchOptions{metric: Cosine}
	m, _ := v.(map[string]vector.Value)
	for key, x := range m {
		switch key {
		case "similarity":
			s, ok := x.(string)
			if !ok {
				return o, errs.DataCode(errs.CodeInvalidParam, "%s(): similarity is a STRING, not %s", fn, functions.TypeName(x))
			}
			metric, err := ParseMetric(s)
			if err != nil {
				return o, err
			}
			o.metric, o.similarity = metric, true
		case "ef":
			n, ok := x.(int64)
			if !ok || n < 1 || n > MaxK {
				return o, errs.DataCode(errs.CodeInvalidParam, "%s(): ef is an INTEGER from 1 to %d, not %v", fn, MaxK, x)
			}
			o.ef = int(n)
		case "filter":
			f, ok := x.(map[string]vector.Value)
			if !ok {
				return o, errs.DataCode(errs.CodeInvalidParam, "%s(): filter is a MAP of property values, not %s", fn, functions.TypeName(x))
			}
			o.filter = f
		default:
			return o, errs.DataCode(errs.CodeInvalidParam, "%s(): unknown option %q (ef, filter, similarity)", fn, key)
		}
	}
	return o, nil
}

// search answers both procedures.
func search(c *procs.Context, m *index.Manager, fn string, target, query, kv, opts vector.Value) ([][]vector.Value, error) {
	if target == nil || query == nil || kv == nil {
		return nil, errs.DataCode(errs.CodeInvalidParam, "%s(): the index, the vector and k cannot be null", fn)
	}
	k := kv.(int64)
	if k < 1 || k > MaxK {
		return nil, errs.DataCode(errs.CodeInvalidParam, "%s(): k must be from 1 to %d, not %d", fn, MaxK, k)
	}
	q, err := functions.VectorArg(fn, query)
	if err != nil {
		return nil, err
	}
	o, err := parseOptions(fn, opts)
	if err != nil {
		return nil, err
	}
	tx, ok := c.Reader.(*storage.Tx)
	if !ok {
		return nil, errs.Internal("%s: the query reads no transaction", fn)
	}
	name := target.(string)
	if def := tx.Schema().Index(name); def != nil {
		if def.Type != catalog.Vector {
			return nil, errs.New(errs.CodeNoObject, errs.CatNoObject, "%s(): index %s is a %s index, not a VECTOR index", fn, name, def.Type)
		}
		return indexSearch(c, m, fn, tx, def, q, int(k), o)
	}
	if o.metric == Cosine && vector.Norm(q) == 0 {
		return nil, errs.Data("%s(): the query vector has length zero, which has no cosine", fn)
	}
	label, prop, ok := strings.Cut(name, ".")
	if !ok || label == "" || prop == "" {
		return nil, errs.New(errs.CodeNoObject, errs.CatNoObject, "%s(): there is no vector index named %q; search a label's property exactly with 'Label.property'", fn, name)
	}
	lid, okL := c.Catalog.LookupLabel(label)
	key, okK := c.Catalog.LookupKey(prop)
	if !okL || !okK {
		return nil, nil // nothing carries the label or the property
	}
	accept, err := filterFunc(c, tx, o.filter)
	if err != nil {
		return nil, err
	}
	hits, err := exactSearch(c, fn, tx, lid, key, q, int(k), o.metric, accept, true)
	return hitRows(hits), err
}

// exactSearch is the exact top k of the label's nodes' vectors of key at
// tx. strict makes a label's node holding another value an error (the
// 'Label.property' form); an index's exact answer skips such values, as
// the index does.
func exactSearch(c *procs.Context, fn string, tx *storage.Tx, lid catalog.LabelID, key catalog.KeyID, q []float64, k int, metric Metric, accept func(uint64) bool, strict bool) ([]Hit, error) {
	view := tx.NodeVectorView(key, len(q))
	if view == nil {
		return nil, nil
	}
	// The statement holds the view while it searches (shared with
	// others reading this version of the column, but charged to each).
	if c.Mem != nil {
		if err := c.Mem.Charge(view.Bytes()); err != nil {
			c.Mem.Release(view.Bytes())
			return nil, err
		}
		defer c.Mem.Release(view.Bytes())
	}
	col, err := newViewColumn(fn, view, tx.LabelNodes(lid), DefaultMorselRows, strict)
	if err != nil {
		return nil, err
	}
	return Exact(c.Ctx, col, q, min(k, len(view.IDs)), metric, Options{Workers: max(1, c.Parallelism), Mem: c.Mem, Accept: accept})
}

func hitRows(hits []Hit) [][]vector.Value {
	rows := make([][]vector.Value, len(hits))
	for i, h := range hits {
		rows[i] = []vector.Value{vector.NodeRef(h.ID), h.Score}
	}
	return rows
}

// filterFunc turns {filter: {prop: value, …}} into a candidate check:
// every listed property equals its value (Cypher equality; null never
// passes).
func filterFunc(c *procs.Context, tx *storage.Tx, f map[string]vector.Value) (func(uint64) bool, error) {
	if len(f) == 0 {
		return nil, nil
	}
	type cond struct {
		key  catalog.KeyID
		want vector.Value
	}
	conds := make([]cond, 0, len(f))
	for name, want := range f {
		key, ok := c.Catalog.LookupKey(name)
		if !ok {
			return func(uint64) bool { return false }, nil // no node has it
		}
		conds = append(conds, cond{key, want})
	}
	return func(id uint64) bool {
		for _, cd := range conds {
			eq, null := functions.EqualValues(tx.NodeProp(id, cd.key), cd.want)
			if null || !eq {
				return false
			}
		}
		return true
	}, nil
}
