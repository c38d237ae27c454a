package exec

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/physical"
	"github.com/quiverdb/quiver/vector"
)

// A Filter right above an expansion whose conjuncts test only the far
// node (`(p)-[:KNOWS]->(q) WHERE q.city IN ['City000', 'City001']`)
// evaluates them once per emitted row: a random read of q's property for
// each of millions of rows, though q ranges over far fewer nodes. Once the
// rows it has filtered pass a batch's worth and an eighth of the nodes q
// can be (those of its rarest label, or every live node), those
// conjuncts are evaluated once over all those nodes, in batches through
// the usual filter kernels, into a bitset; the expansion then tests each neighbour's bit as it tests a
// label and emits only the rows that pass, and the Filter keeps only its
// other conjuncts (rule far-set).
//
// The set is the statement's: it is kept in the Context, by plan node, so
// the inner plan of an OPTIONAL MATCH, built again for each input batch,
// reuses it. It is never built, and is dropped, once the statement has
// written (a property or label may have changed). An error evaluating the
// conjuncts over a node abandons the set, since that node may be one no
// row reaches: the rows then go on through the general filter, which
// raises the error only for a row that meets it. The bitset is charged to
// the query.

// farSet is the state of one Filter's set for the statement.
type farSet struct {
	seen      int64    // rows the general filter has tested
	bits      []uint64 // the nodes passing the conjuncts; nil until built
	abandoned bool
	why       string // why it was abandoned, for PROFILE
}

// notBuilt says, for PROFILE, why the rows went through the general
// filter.
func (st *farSet) notBuilt(c *Context) string {
	switch {
	case st.abandoned:
		return st.why
	case c.Tx.Writes():
		return "this transaction has written (a property or label may have changed)"
	}
	return "the rows filtered stayed too few to pay for the set (under an eighth of the candidate nodes)"
}

// farSetRatio: the set is built once the rows filtered reach the
// candidate nodes over this, and at least farSetMinRows. A row costs a
// random property read; a candidate a sequential one in a batch kernel.
// An expansion that yields fewer rows than a batch holds is done before
// a set could serve it.
const (
	farSetRatio   = 8
	farSetMinRows = 1024
)

// farSetFilter is a Filter over an expand that may switch to a set.
type farSetFilter struct {
	c     *Context
	key   *plan.Filter
	st    *farSet
	e     *expand
	in    Operator    // e, inside its PROFILE shell when profiling
	src   *argumentOp // feeds full one batch
	full  Operator    // the whole predicate, over src
	rest  *filterOp   // the other conjuncts; nil when there are none
	far   plan.Expr   // the far conjuncts, over column 0
	cands func() *roaring.Bitmap
}

// buildFarSetFilter builds Filter p over Expand ex when the physical
// pass chose far-set for it; ok is false when it did not.
func buildFarSetFilter(c *Context, p *plan.Filter, ex *plan.Expand) (Operator, bool, error) {
	if !plan.Chose(p, plan.RuleFarSet) {
		return nil, false, nil
	}
	far, rest := physical.FarConjuncts(p.Pred, ex)
	if far == nil {
		return nil, true, bug("far-set chosen for a filter without far conjuncts")
	}
	in, err := Build(c, ex.Input)
	if err != nil {
		return nil, true, err
	}
	e := newExpand(c, ex, in)
	f := &farSetFilter{c: c, key: p, e: e, in: c.profile(ex, e), src: &argumentOp{done: true},
		far: far, cands: func() *roaring.Bitmap { return farCandidates(c, ex.ToLabels) }}
	if f.full, err = buildOver(c, &plan.Filter{Input: ex, Pred: p.Pred}, f.src); err != nil {
		return nil, true, err
	}
	if len(rest) > 0 {
		pred, err := compile(c, physical.AndAll(rest))
		if err != nil {
			return nil, true, err
		}
		f.rest = &filterOp{c: c, in: f.src, pred: pred}
	}
	if c.farSets == nil {
		c.farSets = map[*plan.Filter]*farSet{}
	}
	if f.st = c.farSets[p]; f.st == nil {
		f.st = &farSet{}
		c.farSets[p] = f.st
	}
	if f.st.bits != nil && !c.Tx.Writes() {
		e.farSet = f.st.bits
	}
	return f, true, nil
}

func (f *farSetFilter) Next() (*vector.Batch, error) {
	for {
		b, err := f.in.Next()
		if err != nil || b == nil {
			if err == nil && f.st.bits == nil {
				f.c.fellBack(f.key, plan.RuleFarSet, f.st.notBuilt(f.c))
			}
			return nil, err
		}
		if f.e.farSet != nil {
			// The expansion emitted only rows whose far node passes.
			if f.rest == nil {
				return b, nil
			}
			if b, err = f.rest.filter(b); err != nil || b != nil {
				return b, err
			}
			continue
		}
		f.st.seen += int64(b.Rows())
		f.src.b, f.src.done = b, false
		out, err := f.full.Next()
		if err != nil {
			return nil, err
		}
		if err := f.consider(); err != nil {
			return nil, err
		}
		if out != nil {
			return out, nil
		}
	}
}

// consider builds the set once the rows filtered have paid for it.
func (f *farSetFilter) consider() error {
	st := f.st
	if st.abandoned || st.bits != nil || f.c.Tx.Writes() {
		return nil
	}
	if st.seen < farSetMinRows {
		return nil
	}
	cands := f.cands()
	if st.seen*farSetRatio < int64(cands.GetCardinality()) {
		return nil
	}
	bits, why, err := f.build(cands)
	if err != nil || bits == nil {
		st.abandoned, st.why = true, why
		return err
	}
	st.bits, f.e.farSet = bits, bits
	return nil
}

// build evaluates the far conjuncts over the candidates. A nil set with
// no error means the evaluation failed on some node or the memory budget
// refused the set (why says which): the caller abandons it. Only
// cancellation is an error.
func (f *farSetFilter) build(cands *roaring.Bitmap) ([]uint64, string, error) {
	c := f.c
	words := int64(cands.Maximum())/64 + 1
	if cands.IsEmpty() {
		words = 0
	}
	if c.Mem.Charge(words*8) != nil {
		return nil, "the memory budget refused the set", nil
	}
	bits := make([]uint64, words)
	failed, err := forPassingNodes(c, cands, f.far, func(id uint64) { bits[id>>6] |= 1 << (id & 63) })
	switch {
	case err != nil:
		return nil, "", err
	case failed != nil:
		// That node may be one no row reaches: the rows raise the
		// error only where they meet it.
		return nil, "evaluating the conjuncts over a candidate node failed", nil
	}
	return bits, "", nil
}

// farCandidates is the set of nodes a far end with labels can be: the
// rarest label's nodes, or every live node.
func farCandidates(c *Context, labels []string) *roaring.Bitmap {
	var best *roaring.Bitmap
	for _, name := range labels {
		id, ok := c.Catalog.LookupLabel(name)
		if !ok {
			return roaring.New()
		}
		if bm := c.Tx.LabelNodes(id); best == nil || bm.GetCardinality() < best.GetCardinality() {
			best = bm
		}
	}
	if best == nil {
		return c.Tx.LiveNodes()
	}
	return best
}
