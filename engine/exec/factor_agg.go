package exec

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/exec/idset"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// factorAgg computes an Aggregate over one expansion from a node scan,
// grouped by the start node (or not grouped), without producing the
// expanded rows: `MATCH (a:Person)-[:KNOWS]->(b) RETURN a, avg(b.age),
// count(*)` is, per start node a, a walk of a's neighbour lists summing
// the far nodes' (or the relationships') integer values from the
// column's id-ordered view. No batch of rows is built, no row is hashed
// into a group: a's rows are its group (rule factorized-agg).
//
// It takes count(*), the count of a column of the chain, and count, sum,
// avg, min and max of a property of the far node or the relationship,
// none DISTINCT. It applies when the property's column is all INTEGER
// (it has an IntView), or, grouped by the start node and for count, sum
// and avg, all FLOAT (a FloatView: a start node's values are added in
// its rows' order, so the sums are the general path's to the bit);
// otherwise, or once the transaction has written, the Aggregate runs as
// usual. Results agree with the general path: a
// group is a start node with at least one row; sum is 0 and avg, min and
// max are null over no value; an integer sum that overflows is an error.
type factorAgg struct {
	c     *Context
	p     *plan.Aggregate
	ex    *plan.Expand
	scan  *plan.NodeScan
	adjs  []adjList
	to    idset.NodeSet // the far end's labels; nil: any node
	views []factorView
	// sumKind, per float view once run: the type its sums take over the
	// whole result, as the general path decides it: INTEGER when no
	// group met a value, FLOAT when every group did, else mixed (Any).
	sumKind []vector.Type
	specs   []factorSpec
	grouped bool

	done  bool
	parts []*factorPart // the start nodes' results, chunk by chunk in id order
	part  int           // the part Next emits from
	pos   int           // and the next result in it
	out   *vector.Batch
	total bool // the one row of an ungrouped aggregate was emitted
}

// factorView is a property's view over the far node or the relationship:
// an integer view, or for a FLOAT column a float view (whose sums are
// kept as their bits in factorResult.sum).
type factorView struct {
	key string
	rel bool
	v   *storage.IntView
	fv  *storage.FloatView
}

// factorSpec is one aggregate: its function and the view it reads (-1:
// it counts rows).
type factorSpec struct {
	fn   *functions.Agg
	view int
}

// factorResult holds, per start node with rows, its rows and per view
// the sum, count, minimum and maximum of its values.
type factorResult struct {
	nodes               []uint64
	rows                []int64
	sum, n, least, most [][]int64
}

// newFactorAgg returns the operator for p when the physical pass chose
// factorized-agg for it and its values have views; nil sends Build to
// the general plan (PROFILE says why).
func newFactorAgg(c *Context, p plan.Operator) *factorAgg {
	a, ok := p.(*plan.Aggregate)
	if !ok || !plan.Chose(a, plan.RuleFactorizedAgg) {
		return nil
	}
	if c.Tx.Writes() {
		c.fellBack(a, plan.RuleFactorizedAgg, "this transaction has written")
		return nil
	}
	ex := a.Input.(*plan.Expand) // the pass checked the shape
	f := &factorAgg{c: c, p: a, ex: ex, scan: ex.Input.(*plan.NodeScan), grouped: len(a.Keys) == 1}
	const relCol = 1
	for _, call := range a.Aggs {
		spec := factorSpec{fn: call.Func, view: -1}
		if arg, ok := call.Arg.(*plan.Property); ok {
			spec.view = f.viewOf(arg.Key, arg.Of.(*plan.ColRef).Idx == relCol)
		}
		f.specs = append(f.specs, spec)
	}
	f.adjs = openAdjs(c, ex.Types, ex.Dir)
	demand := 0
	for _, l := range f.adjs {
		demand += l.adj.NumEdges()
	}
	for i := range f.views {
		v := &f.views[i]
		k, ok := c.Catalog.LookupKey(v.key)
		if !ok {
			c.fellBack(a, plan.RuleFactorizedAgg, "property "+v.key+" has no values")
			return nil
		}
		if v.rel {
			v.v = c.Tx.RelIntView(k, demand)
		} else {
			v.v = c.Tx.NodeIntView(k, demand)
		}
		if v.v == nil && f.grouped {
			// FLOAT values, per start node only: a start node's sum adds
			// its rows in their order, as the general path does, where a
			// total over start nodes would round differently.
			if v.rel {
				v.fv = c.Tx.RelFloatView(k, demand)
			} else {
				v.fv = c.Tx.NodeFloatView(k, demand)
			}
		}
		if v.v == nil && v.fv == nil {
			why := "property " + v.key + " has no integer view (nor, for a grouped aggregate, a float view)"
			c.fellBack(a, plan.RuleFactorizedAgg, why)
			return nil
		}
	}
	for _, s := range f.specs {
		if s.view >= 0 && f.views[s.view].fv != nil && !s.fn.FloatSummaries {
			// FLOAT ordering (NaN) stays with the general path.
			c.fellBack(a, plan.RuleFactorizedAgg, s.fn.Name+" of FLOAT values")
			return nil
		}
	}
	to, none := farLabelSet(c, ex.ToLabels)
	if none {
		to = idset.NodeSet{}
	}
	f.to = to
	f.out = &vector.Batch{Cols: make([]*vector.Vector, len(a.Cols))}
	return f
}

// viewOf is the index of the view of key (on the relationship when rel),
// added on first use.
func (f *factorAgg) viewOf(key string, rel bool) int {
	for i, v := range f.views {
		if v.key == key && v.rel == rel {
			return i
		}
	}
	f.views = append(f.views, factorView{key: key, rel: rel})
	return len(f.views) - 1
}

func (f *factorAgg) Next() (*vector.Batch, error) {
	if !f.done {
		f.done = true
		if err := f.run(); err != nil {
			return nil, err
		}
	}
	if !f.grouped {
		if f.total {
			return nil, nil
		}
		f.total = true
		return f.emitTotal()
	}
	if err := f.c.CheckCancel(); err != nil {
		return nil, err
	}
	for f.part < len(f.parts) && f.pos >= len(f.parts[f.part].res.nodes) {
		f.part, f.pos = f.part+1, 0
	}
	if f.part >= len(f.parts) {
		return nil, nil
	}
	r := &f.parts[f.part].res
	n := min(len(r.nodes)-f.pos, vector.Capacity)
	key := vector.Reuse(f.out.Cols[0], vector.Node)
	copy(key.IDs[:n], r.nodes[f.pos:])
	f.out.Cols[0] = key
	for i, s := range f.specs {
		f.out.Cols[i+1] = f.column(f.out.Cols[i+1], s, r, f.pos, n)
	}
	f.pos += n
	f.out.Len, f.out.Sel = n, nil
	return f.out, nil
}

// column fills v with spec s's values for results from..from+n of r,
// computed by its function from the summaries.
func (f *factorAgg) column(v *vector.Vector, s factorSpec, r *factorResult, from, n int) *vector.Vector {
	to := from + n
	sum := functions.Summaries{N: r.rows[from:to]}
	if s.view >= 0 {
		sum = functions.Summaries{Sum: r.sum[s.view][from:to], N: r.n[s.view][from:to], Min: r.least[s.view][from:to], Max: r.most[s.view][from:to]}
		if f.views[s.view].fv != nil && f.sumKind != nil {
			sum.Float, sum.SumType = true, f.sumKind[s.view]
		}
	}
	return s.fn.FromSummaries(v, &sum)
}

// emitTotal is the one row of an ungrouped aggregate: the start nodes'
// results combined.
func (f *factorAgg) emitTotal() (*vector.Batch, error) {
	var t factorResult
	t.nodes, t.rows = []uint64{0}, []int64{0}
	for range f.views {
		t.sum, t.n = append(t.sum, []int64{0}), append(t.n, []int64{0})
		t.least, t.most = append(t.least, []int64{0}), append(t.most, []int64{0})
	}
	for _, p := range f.parts {
		r := &p.res
		for g := range r.nodes {
			t.rows[0] += r.rows[g]
			for v := range f.views {
				if r.n[v][g] == 0 {
					continue
				}
				if err := t.merge(v, 0, r.sum[v][g], r.n[v][g], r.least[v][g], r.most[v][g]); err != nil {
					return nil, err
				}
			}
		}
	}
	for i, s := range f.specs {
		f.out.Cols[i] = f.column(f.out.Cols[i], s, &t, 0, 1)
	}
	f.out.Len, f.out.Sel = 1, nil
	return f.out, nil
}

// merge adds a value summary (sum, count, min, max) into view v's
// group g.
func (r *factorResult) merge(v, g int, sum, n, least, most int64) error {
	if r.n[v][g] == 0 {
		r.sum[v][g], r.n[v][g], r.least[v][g], r.most[v][g] = sum, n, least, most
		return nil
	}
	s := r.sum[v][g] + sum
	if (r.sum[v][g]^s)&(sum^s) < 0 {
		return errs.DataCode(errs.CodeOverflow, "integer overflow in sum()")
	}
	r.sum[v][g], r.n[v][g] = s, r.n[v][g]+n
	r.least[v][g], r.most[v][g] = min(r.least[v][g], least), max(r.most[v][g], most)
	return nil
}

// run walks every start node's lists, in chunks on the query's workers;
// Next emits the chunks' results in id order.
func (f *factorAgg) run() error {
	start := idset.SpanOf(scanBitmap(f.c, f.scan))
	// Each chunk holds room for all of its start nodes' results.
	if err := f.c.Mem.Charge(start.Bytes() + int64(start.N)*int64(16+32*len(f.views))); err != nil {
		return err
	}
	nchunks := start.Chunks(countChunk)
	parts := make([]*factorPart, nchunks)
	err := runChunks(f.c, start, func(i int, ids []uint32) error {
		p := &factorPart{f: f}
		parts[i] = p
		return p.walk(ids)
	})
	if err != nil {
		return err
	}
	f.c.Counters.RowsScanned += int64(start.N)
	for _, p := range parts {
		f.c.Counters.RowsScanned += p.scanned
		f.c.Counters.DBHits += p.hits
	}
	f.parts = parts
	f.sumKind = make([]vector.Type, len(f.views))
	for v := range f.views {
		if f.views[v].fv == nil {
			continue
		}
		none, some := false, false
		for _, p := range parts {
			for _, n := range p.res.n[v] {
				none, some = none || n == 0, some || n > 0
			}
		}
		switch {
		case !some:
			f.sumKind[v] = vector.Int64
		case none:
			f.sumKind[v] = vector.Any
		default:
			f.sumKind[v] = vector.Float64
		}
	}
	return nil
}

// factorPart is the result of one chunk of start nodes, with scratch.
type factorPart struct {
	f             *factorAgg
	res           factorResult
	nbrs, rels    []uint64
	scanned, hits int64
}

// walk summarises the rows of each start node of ids: it keeps the
// entries of a's lists whose far node has the labels, then folds each
// view's values over them in one typed loop (IntView.Summarize).
func (p *factorPart) walk(ids []uint32) error {
	f := p.f
	nv := len(f.views)
	r := &p.res
	r.nodes, r.rows = make([]uint64, 0, len(ids)), make([]int64, 0, len(ids))
	r.sum, r.n = make([][]int64, nv), make([][]int64, nv)
	r.least, r.most = make([][]int64, nv), make([][]int64, nv)
	for v := range nv {
		r.sum[v], r.n[v] = make([]int64, 0, len(ids)), make([]int64, 0, len(ids))
		r.least[v], r.most[v] = make([]int64, 0, len(ids)), make([]int64, 0, len(ids))
	}
	for _, a32 := range ids {
		a := uint64(a32)
		p.nbrs, p.rels = appendAdj(f.adjs, p.nbrs[:0], p.rels[:0], a)
		p.scanned += int64(len(p.nbrs))
		p.hits += int64(len(f.adjs) + len(p.nbrs)*(1+nv))
		if f.to != nil {
			p.nbrs, p.rels = keepIn(f.to, p.nbrs, p.rels)
		}
		if len(p.nbrs) == 0 {
			continue
		}
		r.nodes, r.rows = append(r.nodes, a), append(r.rows, int64(len(p.nbrs)))
		for v := range nv {
			list := p.nbrs
			if f.views[v].rel {
				list = p.rels
			}
			if fv := f.views[v].fv; fv != nil {
				var s storage.FloatSummary
				fv.Summarize(list, &s)
				r.sum[v], r.n[v] = append(r.sum[v], int64(math.Float64bits(s.Sum))), append(r.n[v], s.N)
				r.least[v], r.most[v] = append(r.least[v], 0), append(r.most[v], 0)
				continue
			}
			var s storage.IntSummary
			if !f.views[v].v.Summarize(list, &s) {
				return errs.DataCode(errs.CodeOverflow, "integer overflow in sum()")
			}
			if s.N == 0 {
				s.Min, s.Max = 0, 0
			}
			r.sum[v], r.n[v] = append(r.sum[v], s.Sum), append(r.n[v], s.N)
			r.least[v], r.most[v] = append(r.least[v], s.Min), append(r.most[v], s.Max)
		}
	}
	return nil
}

// keepIn compacts a list to the entries whose neighbour is in set.
func keepIn(set idset.NodeSet, nbrs, rels []uint64) ([]uint64, []uint64) {
	w := 0
	for i, b := range nbrs {
		if set.Has(b) {
			nbrs[w], rels[w] = b, rels[i]
			w++
		}
	}
	return nbrs[:w], rels[:w]
}
