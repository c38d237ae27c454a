package exec

import (
	"github.com/quiverdb/quiver/engine/exec/rowkey"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/physical"
	"github.com/quiverdb/quiver/vector"
)

// codeDistinctOp runs a Distinct over a Project of node properties, or a
// count(DISTINCT) of one node property, on codes (rule code-distinct,
// plan/physical/distinct.go): the rows of the Project's (the
// Aggregate's) input go into a codeSet, on the statement's workers when
// the physical pass chose that, each worker keeping a set of its own,
// merged when all are done. Then the distinct rows, or their count, are
// emitted. W33 of the wider suite at M (DISTINCT p.city, p.age over 1M
// nodes, 12,600 pairs) gathered two million values and hashed a byte key
// per row into a map on one goroutine.
type codeDistinctOp struct {
	c     *Context
	p     plan.Operator // the Distinct or the Aggregate
	in    plan.Operator
	props []*plan.Property
	count bool // count(DISTINCT): one row, the count
	run   *parRun

	done bool
	set  *codeSet
	// keys are the distinct combinations still to emit when no row took
	// the general path; rows those of the general path's map otherwise.
	keys []uint64
	rows [][]vector.Value
	out  *vector.Batch
}

// newCodeDistinct returns the code-distinct operator of p, nil when the
// physical pass did not choose it.
func newCodeDistinct(c *Context, p plan.Operator) (Operator, error) {
	if !plan.Chose(p, plan.RuleCodeDistinct) || c.worker != nil {
		return nil, nil
	}
	props, in := physical.DistinctProps(p)
	if props == nil {
		return nil, nil
	}
	_, count := p.(*plan.Aggregate)
	d := &codeDistinctOp{c: c, p: p, in: in, props: props, count: count}
	if plan.Chose(p, plan.StrategyParallel) {
		if c.Parallelism <= 1 {
			c.fellBack(p, plan.StrategyParallel, "one worker allowed")
		} else {
			run, err := newParRun(c, p, in)
			if err != nil {
				return nil, err
			}
			d.run = run
		}
	}
	return d, nil
}

func (d *codeDistinctOp) Next() (*vector.Batch, error) {
	if !d.done {
		d.done = true
		if err := d.consume(); err != nil {
			return nil, err
		}
		return d.prepare()
	}
	return d.emit()
}

// consume reads every input row into d.set.
func (d *codeDistinctOp) consume() error {
	if d.run == nil {
		s, err := d.fill(d.c)
		d.set = s
		return err
	}
	sets := make([]*codeSet, d.run.n)
	d.run.start(func(w int, c *Context, _ func(*vector.Batch) bool) (*hashAggregate, error) {
		s, err := d.fill(c)
		sets[w] = s // read after the worker's done message
		return nil, err
	})
	if err := d.run.wait(); err != nil {
		return err
	}
	for i, s := range sets {
		if s == nil {
			return bug("code-distinct: worker %d ended without its set", i)
		}
	}
	// The merged set is a pinned worker's, when one is.
	for i, s := range sets {
		if s.pinned {
			sets[0], sets[i] = sets[i], sets[0]
			break
		}
	}
	d.set = sets[0]
	for _, s := range sets[1:] {
		if err := d.set.merge(s); err != nil {
			return err
		}
	}
	return nil
}

// fill builds the input over c and adds its rows to a new set.
func (d *codeDistinctOp) fill(c *Context) (*codeSet, error) {
	in, err := Build(c, d.in)
	if err != nil {
		return nil, err
	}
	s, err := newCodeSet(c, d.p, d.props, d.count)
	if err != nil {
		return nil, err
	}
	for {
		b, err := in.Next()
		if err != nil || b == nil {
			return s, err
		}
		if b.Rows() > 0 {
			if err := s.add(b); err != nil {
				return s, err
			}
		}
	}
}

// prepare lists what to emit and emits the first batch.
func (d *codeDistinctOp) prepare() (*vector.Batch, error) {
	s := d.set
	if len(s.rows) > 0 {
		if err := s.decodeInto(s); err != nil {
			return nil, err
		}
	}
	if d.count {
		n := int64(len(s.rows))
		if len(s.rows) == 0 {
			s.each(func(x uint64) {
				if x != 0 { // the null combination is not counted
					n++
				}
			})
		}
		out := vector.NewBatch(vector.Int64)
		out.Cols[0].I64[0] = n
		out.Len = 1
		return out, nil
	}
	if len(s.rows) > 0 {
		d.rows = s.rows
	} else {
		s.each(func(x uint64) { d.keys = append(d.keys, x) })
		if err := d.c.Mem.Charge(8 * int64(cap(d.keys))); err != nil {
			return nil, err
		}
	}
	d.out = &vector.Batch{Cols: make([]*vector.Vector, len(d.props))}
	for i := range d.props {
		d.out.Cols[i] = vector.New(s.outType(i), vector.Capacity)
	}
	return d.emit()
}

// emit returns the next batch of distinct rows.
func (d *codeDistinctOp) emit() (*vector.Batch, error) {
	if d.count || d.out == nil {
		return nil, nil
	}
	s, out := d.set, d.out
	n := 0
	switch {
	case len(d.keys) > 0:
		n = min(len(d.keys), vector.Capacity)
		for r, x := range d.keys[:n] {
			for i := range d.props {
				s.setCoded(out.Cols[i], r, i, x)
			}
		}
		d.keys = d.keys[n:]
	case len(d.rows) > 0:
		n = min(len(d.rows), vector.Capacity)
		for r, row := range d.rows[:n] {
			for i, v := range row {
				out.Cols[i].Set(r, v)
			}
		}
		d.rows = d.rows[n:]
	default:
		return nil, nil
	}
	out.Len, out.Sel = n, nil
	return out, nil
}

// keyOf appends the general path's byte key of a row of values.
func keyOf(dst []byte, row []vector.Value) []byte {
	for _, v := range row {
		dst = rowkey.AppendValue(dst, v)
	}
	return dst
}
