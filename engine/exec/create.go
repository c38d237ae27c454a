package exec

import (
	"sort"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// create makes nodes and relationships for every input row through the
// statement's transaction, and appends their ids as columns. Output rows
// map one to one to input rows, so the input columns pass through.
type create struct {
	c  *Context
	p  *plan.Create
	in Operator

	nodeVals [][]expr.Evaluator // per created node, per property
	relVals  [][]expr.Evaluator
	made     []*vector.Vector
	out      *vector.Batch

	labels []catalog.LabelID
	keys   []catalog.KeyID
	vals   []vector.Value
}

func newCreate(c *Context, p *plan.Create, in Operator) (*create, error) {
	cr := &create{c: c, p: p, in: in, out: &vector.Batch{}}
	for _, n := range p.Nodes {
		evs, err := compileAll(c, n.Vals)
		if err != nil {
			return nil, err
		}
		cr.nodeVals = append(cr.nodeVals, evs)
	}
	for _, r := range p.Rels {
		evs, err := compileAll(c, r.Vals)
		if err != nil {
			return nil, err
		}
		cr.relVals = append(cr.relVals, evs)
	}
	for _, m := range p.Made {
		t := vector.Node
		if m < 0 {
			t = vector.Rel
		}
		// Sized by the first batch: a statement creating one element
		// should not allocate (and clear) a whole batch's ids.
		cr.made = append(cr.made, vector.New(t, 0))
	}
	return cr, nil
}

func compileAll(c *Context, es []plan.Expr) ([]expr.Evaluator, error) {
	evs := make([]expr.Evaluator, len(es))
	for i, e := range es {
		ev, err := compile(c, e)
		if err != nil {
			return nil, err
		}
		evs[i] = ev
	}
	return evs, nil
}

func (cr *create) Next() (*vector.Batch, error) {
	b, err := cr.in.Next()
	if err != nil || b == nil {
		return nil, err
	}
	if err := cr.c.CheckCancel(); err != nil {
		return nil, err
	}
	for i, v := range cr.made {
		if v.Len() < b.Len {
			cr.made[i] = vector.New(v.Type, max(b.Len, 2*v.Len()))
		}
	}
	cr.out.Cols = append(append(cr.out.Cols[:0], b.Cols...), cr.made...)
	cr.out.Len, cr.out.Sel = b.Len, b.Sel
	// Element by element over all rows: an element's properties may read
	// the elements made before it (their columns are filled by then).
	for m, which := range cr.p.Made {
		if which >= 0 {
			vecs, err := evalList(cr.nodeVals[which], cr.out)
			if err != nil {
				return nil, err
			}
			for i := 0; i < b.Rows(); i++ {
				r := b.Row(i)
				id, err := cr.createNode(&cr.p.Nodes[which], vecs, r)
				if err != nil {
					return nil, err
				}
				cr.made[m].IDs[r] = id
			}
			continue
		}
		ri := -which - 1
		rel := &cr.p.Rels[ri]
		vecs, err := evalList(cr.relVals[ri], cr.out)
		if err != nil {
			return nil, err
		}
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			from, fromOK, err := nodeAt(cr.out.Cols[rel.From], r)
			if err != nil {
				return nil, err
			}
			to, toOK, err := nodeAt(cr.out.Cols[rel.To], r)
			if err != nil {
				return nil, err
			}
			if !fromOK || !toOK {
				return nil, errNullEndpoint(rel.Type)
			}
			id, err := cr.createRel(rel, vecs, from, to, r)
			if err != nil {
				return nil, err
			}
			cr.made[m].IDs[r] = id
		}
	}
	return cr.out, nil
}

// errNullEndpoint is raised when a relationship would start or end at a
// null (an unmatched optional node).
func errNullEndpoint(typ string) error {
	return errs.Data("cannot create a relationship of type %s with a null endpoint", typ)
}

// evalList evaluates expressions over b.
func evalList(evs []expr.Evaluator, b *vector.Batch) ([]*vector.Vector, error) {
	out := make([]*vector.Vector, len(evs))
	for j, e := range evs {
		v, err := e.Eval(b)
		if err != nil {
			return nil, err
		}
		out[j] = v
	}
	return out, nil
}

// props collects the non-null property values of row r.
func (cr *create) props(keys []string, vecs []*vector.Vector, r int) error {
	cr.keys, cr.vals = cr.keys[:0], cr.vals[:0]
	for i, k := range keys {
		v := vecs[i].Get(r)
		if k == "" { // CREATE (n $map)
			if err := cr.spread(v); err != nil {
				return err
			}
			continue
		}
		if v == nil {
			if cr.c.merging {
				return errs.Semantic("cannot merge a pattern with a null value for property %q: use ON CREATE SET or a non-null value", k)
			}
			continue // a null property is no property
		}
		if err := checkPropertyValue(k, v); err != nil {
			return err
		}
		cr.keys = append(cr.keys, cr.c.Catalog.EnsureKey(k))
		cr.vals = append(cr.vals, v)
	}
	return nil
}

// spread adds the entries of a whole property map, in key order.
func (cr *create) spread(v vector.Value) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]vector.Value)
	if !ok {
		return errs.Data("a property map must be a map, not a %s", functions.TypeName(v))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		x := m[k]
		if x == nil {
			continue
		}
		if err := checkPropertyValue(k, x); err != nil {
			return err
		}
		cr.keys = append(cr.keys, cr.c.Catalog.EnsureKey(k))
		cr.vals = append(cr.vals, x)
	}
	return nil
}

func (cr *create) createNode(n *plan.CreateNode, vecs []*vector.Vector, r int) (uint64, error) {
	cr.labels = cr.labels[:0]
	for _, l := range n.Labels {
		cr.labels = append(cr.labels, cr.c.Catalog.EnsureLabel(l))
	}
	if err := cr.props(n.Keys, vecs, r); err != nil {
		return 0, err
	}
	id, err := cr.c.Tx.CreateNode(cr.labels, cr.keys, cr.vals)
	if err != nil {
		return 0, err
	}
	cr.c.Counters.NodesCreated++
	cr.c.Counters.LabelsAdded += int64(len(cr.labels))
	cr.c.Counters.PropertiesSet += int64(len(cr.keys))
	return id, nil
}

func (cr *create) createRel(rel *plan.CreateRel, vecs []*vector.Vector, from, to uint64, r int) (uint64, error) {
	t := cr.c.Catalog.EnsureType(rel.Type)
	if err := cr.props(rel.Keys, vecs, r); err != nil {
		return 0, err
	}
	id, err := cr.c.Tx.CreateRel(t, from, to, cr.keys, cr.vals)
	if err != nil {
		return 0, err
	}
	cr.c.Counters.RelationshipsCreated++
	cr.c.Counters.PropertiesSet += int64(len(cr.keys))
	return id, nil
}
