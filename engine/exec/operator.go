package exec

import (
	"fmt"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// Operator is a physical operator. Next returns the next batch, or nil when
// the operator is exhausted. A returned batch is valid until the following
// call; an operator that keeps rows across calls copies them.
type Operator interface {
	Next() (*vector.Batch, error)
}

// Build turns a logical plan into physical operators bound to c.
func Build(c *Context, p plan.Operator) (Operator, error) {
	// Operators that copy their input's columns into batches of their
	// own hold a vector per column; a statement with a thousand such
	// operators and a thousand columns (the parser's limits allow that)
	// would hold gigabytes of them, which the accountant must see before
	// they exist.
	// Operators rebuilt per batch (OPTIONAL MATCH, subqueries, MERGE)
	// reuse the memory of their previous build: charged once.
	if _, seen := c.built[p]; !seen {
		if c.built == nil {
			c.built = map[plan.Operator]struct{}{}
		}
		c.built[p] = struct{}{}
		if err := c.Mem.Charge(operatorBatchBytes(p)); err != nil {
			return nil, err
		}
	}
	if op := newCountRange(c, p); op != nil {
		return c.profile(p, op), nil
	}
	if op := newCountCodes(c, p); op != nil {
		return c.profile(p, op), nil
	}
	if op := newFactorAgg(c, p); op != nil {
		return c.profile(p, op), nil
	}
	if op := newRelScanAgg(c, p); op != nil {
		return c.profile(p, op), nil
	}
	if proj, ok := newIdentityAgg(c, p).(*plan.Project); ok {
		// Profiled as the Aggregate it computes.
		in, err := Build(c, proj.Input)
		if err != nil {
			return nil, err
		}
		op, err := newProject(c, proj, in)
		if err != nil {
			return nil, err
		}
		return c.profile(p, op), nil
	}
	if op, err := newCodeDistinct(c, p); op != nil || err != nil {
		return c.profile(p, op), err
	}
	if op, ok, err := buildParallel(c, p); ok || err != nil {
		return op, err
	}
	op, err := build(c, p)
	if err != nil || c.Profile == nil {
		return op, err
	}
	return c.profile(p, op), nil
}

// operatorBatchBytes estimates the vectors an operator fills, one of the
// batch size (8 bytes a row) per column it makes: every column for an
// operator that copies its rows into vectors of its own (expansions,
// joins, UNWIND, sorts, buffers), only the columns it adds for one that
// passes its input's vectors on (filters, projections, writes).
func operatorBatchBytes(p plan.Operator) int64 {
	cols := len(p.Columns())
	switch p.(type) {
	case *plan.Unwind, *plan.Expand, *plan.VarLengthExpand, *plan.ShortestPath, *plan.QuantifiedExpand, *plan.CrossProduct,
		*plan.HashJoin, *plan.IndexJoin, *plan.Optional, *plan.CallSubquery, *plan.Merge, *plan.Sort, *plan.ProcedureCall, *plan.Eager:
	default:
		if kids := p.Children(); len(kids) > 0 {
			cols -= len(kids[0].Columns())
		}
	}
	return int64(max(cols, 0)) * vector.Capacity * 8
}

// buildUnprofiled is Build without the PROFILE shell of p itself, for an
// operator that builds p's general form as its fallback inside its own
// shell.
func buildUnprofiled(c *Context, p plan.Operator) (Operator, error) {
	if op, ok, err := buildParallel(c, p); ok || err != nil {
		if pr, isShell := op.(*profiled); isShell && pr.e.Plan == p {
			op = pr.in
		}
		return op, err
	}
	return build(c, p)
}

// build makes the physical operator for p; Build wraps it for PROFILE.
// The operator's first input is built first (a Filter over an Expand may
// fuse with it instead, below), then the operator over it; an operator
// of several inputs builds the others itself, in order (Optional runs its
// Inner itself, per input batch).
func build(c *Context, p plan.Operator) (Operator, error) {
	if f, ok := p.(*plan.Filter); ok {
		if ex, ok := f.Input.(*plan.Expand); ok {
			if plan.Chose(ex, plan.StrategyRangeExpand) {
				if op, ok, err := buildExpandFilter(c, f, ex); ok || err != nil {
					return op, err
				}
			}
			if op, ok, err := buildFarSetFilter(c, f, ex); ok || err != nil {
				return op, err
			}
		}
	}
	if s, ok := p.(*plan.Sort); ok && plan.Chose(s, plan.RuleTopKBar) {
		c.registerBar(s)
	}
	if j, ok := p.(*plan.HashJoin); ok && plan.Chose(j, plan.StrategyParallel) {
		// Either side may end up probed by the workers, which build their
		// own copies of it: each side is built when first read.
		return newHashJoin(c, j, &buildOnRead{c: c, p: j.Left}, &buildOnRead{c: c, p: j.Right})
	}
	var in Operator
	if kids := p.Children(); len(kids) > 0 {
		var err error
		if in, err = Build(c, kids[0]); err != nil {
			return nil, err
		}
	}
	return buildOver(c, p, in)
}

// buildOver makes the operator for p over its built first input in (nil
// for a leaf). It is one case per logical operator, each a line or two:
// the length is the number of operators, kept in one switch so that a new
// operator has one place to be built.
func buildOver(c *Context, p plan.Operator, in Operator) (Operator, error) {
	switch p := p.(type) {
	case *plan.Unit:
		return &unitOp{}, nil
	case *plan.NodeScan:
		if c.worker != nil && c.worker.scan == p {
			return newMorselScan(c), nil
		}
		return newNodeScan(c, p), nil
	case *plan.LabelScan:
		if c.worker != nil && c.worker.scan == p {
			return newMorselScan(c), nil
		}
		return newLabelScan(c, p), nil
	case *plan.IndexSeek:
		return newIndexSeek(c, p), nil
	case *plan.IndexUnion:
		return newIndexUnion(c, p), nil
	case *plan.CountExpand:
		return newCountExpand(c, p), nil
	case *plan.LabelSets:
		return newLabelSets(c, p), nil
	case *plan.Argument:
		if c.args == nil {
			c.args = map[*plan.Argument]*argumentOp{}
		}
		a, ok := c.args[p]
		if !ok {
			a = &argumentOp{done: true}
			c.args[p] = a
		}
		// Each leaf of the Argument yields its batch once: the parts of
		// a UNION inside a subquery each read it (call_subquery.go).
		return &argumentLeaf{src: a}, nil
	case *plan.Skip:
		return newSkipLimit(c, in, p.Count, true)
	case *plan.Limit:
		return newSkipLimit(c, in, p.Count, false)
	case *plan.HashJoin:
		r, err := Build(c, p.Right)
		if err != nil {
			return nil, err
		}
		return newHashJoin(c, p, in, r)
	case *plan.CrossProduct:
		r, err := Build(c, p.Right)
		if err != nil {
			return nil, err
		}
		return &crossOp{c: c, left: in, right: r, nl: len(p.Left.Columns())}, nil
	case *plan.Union:
		u := &unionOp{mixed: p.Mixed, ins: []Operator{in}}
		for _, next := range p.Inputs[1:] {
			op, err := Build(c, next)
			if err != nil {
				return nil, err
			}
			u.ins = append(u.ins, op)
		}
		return u, nil
	case *plan.IndexJoin:
		return newIndexJoin(c, p, in)
	case *plan.Expand:
		return newExpand(c, p, in), nil
	case *plan.ExpandIntersect:
		return newExpandIntersect(c, p, in), nil
	case *plan.Filter:
		pred, err := compile(c, p.Pred)
		if err != nil {
			return nil, err
		}
		gen := &filterOp{c: c, in: in, pred: pred}
		if plan.Chose(p, plan.RuleRangeFilter) {
			if rf := newRangeFilter(c, p, in, gen); rf != nil {
				return rf, nil
			}
		}
		if plan.Chose(p, plan.RuleCodeFilter) {
			if cf := newCodeFilter(c, p, in, gen); cf != nil {
				return cf, nil
			}
		}
		if plan.Chose(p, plan.RuleCodeMatch) {
			cm, err := newCodeMatch(c, p, in, gen)
			if err != nil {
				return nil, err
			}
			if cm != nil {
				return cm, nil
			}
		}
		return gen, nil
	case *plan.Project:
		return newProject(c, p, withBar(c, p, in))
	case *plan.Aggregate:
		return newHashAggregate(c, p, in)
	case *plan.Distinct:
		return &distinctOp{c: c, in: in, seen: map[string]struct{}{}}, nil
	case *plan.Unwind:
		return newUnwind(c, p, in)
	case *plan.Optional:
		return newOptional(c, p, in), nil
	case *plan.CallSubquery:
		return newCallSubquery(c, p, in), nil
	case *plan.Sort:
		s, err := newSort(c, p, in)
		if err == nil && plan.Chose(p, plan.RuleTopKBar) && s.topK >= 0 {
			s.pub = c.barOf(p.Input.(*plan.Project))
			s.prime = primeScan(p)
		}
		return s, err
	case *plan.VarLengthExpand:
		return newVarLength(c, p, in)
	case *plan.ShortestPath:
		return newShortest(c, p, in)
	case *plan.QuantifiedExpand:
		return newQuantified(c, p, in)
	case *plan.Create:
		return newCreate(c, p, in)
	case *plan.Update:
		return newUpdate(c, p, in)
	case *plan.Delete:
		return newDelete(c, p, in)
	case *plan.Merge:
		return newMerge(c, p, in)
	case *plan.Eager:
		return newEager(c, in, len(p.Columns())), nil
	case *plan.ProcedureCall:
		return newProcCall(c, p, in)
	}
	return nil, errs.NotSupported("operator %T cannot be executed yet", p)
}

// unitOp yields one row without columns.
type unitOp struct{ done bool }

func (u *unitOp) Next() (*vector.Batch, error) {
	if u.done {
		return nil, nil
	}
	u.done = true
	return &vector.Batch{Len: 1}, nil
}

// bug reports an impossible state as an internal error instead of crashing
// the server.
func bug(format string, args ...any) error {
	return errs.Internal("internal error: %s", fmt.Sprintf(format, args...))
}
