package exec

import (
	"slices"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// procCallOp runs a procedure once per input row and emits, per row the
// procedure returns, the input row followed by the yielded outputs. Like
// unwind, it gathers the input columns per output batch with typed
// copies. A void call emits each input row once.
type procCallOp struct {
	c     *Context
	in    Operator
	p     *plan.ProcedureCall
	args  []expr.Evaluator
	types []vector.Type // of the yielded columns
	pctx  *procs.Context

	inb     *vector.Batch
	argv    []*vector.Vector // the evaluated arguments of inb
	pos     int
	row     int
	pending [][]vector.Value // rows the procedure returned for row
	next    int

	vals []vector.Value
	idx  []int32
	out  *vector.Batch

	// A streamed procedure (procs.Stream) fills the yielded columns
	// itself: stream is the current input row's result, scols the output
	// vectors by output index (nil for outputs not yielded).
	stream procs.Stream
	scols  []*vector.Vector
}

func newProcCall(c *Context, p *plan.ProcedureCall, in Operator) (*procCallOp, error) {
	o := &procCallOp{c: c, in: in, p: p, out: &vector.Batch{Cols: make([]*vector.Vector, len(p.Cols))},
		pctx: &procs.Context{Ctx: c.Ctx, Reader: c.Tx, Catalog: c.Catalog, Mem: &c.Mem, Parallelism: c.Parallelism}}
	for _, a := range p.Args {
		ev, err := compile(c, a)
		if err != nil {
			return nil, err
		}
		o.args = append(o.args, ev)
	}
	nin := len(p.Cols) - len(p.Yield)
	for _, col := range p.Cols[nin:] {
		o.types = append(o.types, col.Type)
	}
	return o, nil
}

func (o *procCallOp) Next() (*vector.Batch, error) {
	if err := o.c.CheckCancel(); err != nil {
		return nil, err
	}
	nin := len(o.out.Cols) - len(o.types)
	for i, t := range o.types {
		o.out.Cols[nin+i] = vector.Reuse(o.out.Cols[nin+i], t)
	}
	o.idx = o.idx[:0]
	if o.p.Proc.Stream != nil {
		return o.nextStreamed(nin)
	}
	for len(o.idx) < vector.Capacity {
		if o.next < len(o.pending) {
			k := len(o.idx)
			if err := o.setOutputs(k, o.pending[o.next]); err != nil {
				return nil, err
			}
			o.next++
			o.idx = append(o.idx, int32(o.row))
			continue
		}
		if o.inb == nil || o.pos >= o.inb.Rows() {
			if len(o.idx) > 0 {
				break // the output still refers to this input batch
			}
			b, err := o.in.Next()
			if err != nil || b == nil {
				return nil, err
			}
			if err := o.evalArgs(b); err != nil {
				return nil, err
			}
			continue
		}
		o.row = o.inb.Row(o.pos)
		o.pos++
		rows, err := o.invoke(o.row)
		if err != nil {
			return nil, err
		}
		o.pending, o.next = rows, 0
		if o.p.Void {
			o.pending, o.next = nil, 0
			o.idx = append(o.idx, int32(o.row))
		}
	}
	return o.emit(nin)
}

// emit finishes the output batch: the input columns of the rows o.idx
// beside the yielded columns already filled.
func (o *procCallOp) emit(nin int) (*vector.Batch, error) {
	if len(o.idx) == 0 {
		return nil, nil
	}
	for i, src := range o.inb.Cols[:nin] {
		o.out.Cols[i] = vector.Reuse(o.out.Cols[i], src.Type)
		vector.CopyRows(o.out.Cols[i], 0, src, o.idx)
	}
	o.out.Len, o.out.Sel = len(o.idx), nil
	return o.out, nil
}

// nextStreamed is Next for a streamed procedure: the stream writes the
// yielded columns of up to a batch of rows in place, and the input row's
// columns are copied beside them as for any procedure.
func (o *procCallOp) nextStreamed(nin int) (*vector.Batch, error) {
	proc := o.p.Proc
	if o.scols == nil {
		o.scols = make([]*vector.Vector, len(proc.Outputs))
	}
	for i, j := range o.p.Yield {
		o.scols[j] = o.out.Cols[nin+i]
	}
	for len(o.idx) < vector.Capacity {
		if o.stream != nil {
			k := len(o.idx)
			n, err := o.stream.Fill(o.scols, k, vector.Capacity-k)
			if err != nil {
				o.closeStream()
				return nil, procError(proc, err)
			}
			if n == 0 {
				o.closeStream()
				continue
			}
			for range n {
				o.idx = append(o.idx, int32(o.row))
			}
			if err := o.c.CheckCancel(); err != nil {
				o.closeStream()
				return nil, err
			}
			continue
		}
		if o.inb == nil || o.pos >= o.inb.Rows() {
			if len(o.idx) > 0 {
				break // the output still refers to this input batch
			}
			b, err := o.in.Next()
			if err != nil || b == nil {
				return nil, err
			}
			if err := o.evalArgs(b); err != nil {
				return nil, err
			}
			continue
		}
		o.row = o.inb.Row(o.pos)
		o.pos++
		if err := o.checkArgs(o.row); err != nil {
			return nil, err
		}
		st, err := proc.Stream(o.pctx, o.vals)
		if err != nil {
			return nil, procError(proc, err)
		}
		o.stream = st
		o.c.streams = append(o.c.streams, st)
	}
	return o.emit(nin)
}

func (o *procCallOp) closeStream() {
	if o.stream != nil {
		if i := slices.Index(o.c.streams, o.stream); i >= 0 {
			o.c.streams = slices.Delete(o.c.streams, i, i+1)
		}
		o.stream.Close()
		o.stream = nil
	}
}

// evalArgs evaluates the arguments over input batch b.
func (o *procCallOp) evalArgs(b *vector.Batch) error {
	o.argv = o.argv[:0]
	for _, ev := range o.args {
		v, err := ev.Eval(b)
		if err != nil {
			return err
		}
		o.argv = append(o.argv, v)
	}
	o.inb, o.pos = b, 0
	return nil
}

// checkArgs checks the arguments of physical row r against the inputs
// and puts them in o.vals.
func (o *procCallOp) checkArgs(r int) error {
	proc := o.p.Proc
	o.vals = o.vals[:0]
	for i, v := range o.argv {
		x := v.Get(r)
		in := proc.Inputs[i]
		if x != nil {
			if !procs.Accepts(in.Type, x) {
				return errs.Data("argument %s of procedure %s must be %s", in.Name, proc.Name, in.Type)
			}
			x = procs.Coerce(in.Type, x)
		}
		o.vals = append(o.vals, x)
	}
	return nil
}

// invoke checks the arguments of physical row r against the inputs and
// calls the procedure.
func (o *procCallOp) invoke(r int) ([][]vector.Value, error) {
	if err := o.checkArgs(r); err != nil {
		return nil, err
	}
	rows, err := o.p.Proc.Fn(o.pctx, o.vals)
	if err != nil {
		return nil, procError(o.p.Proc, err)
	}
	return rows, nil
}

// procError passes the engine's errors on and makes others 22000.
func procError(proc *procs.Procedure, err error) error {
	if _, ok := errs.As(err); ok {
		return err
	}
	return errs.Wrap(errs.CodeData, errs.CatData, err, "procedure "+proc.Name+" failed")
}

// setOutputs stores the yielded outputs of one returned row in output row
// k, checking them against the declared output types.
func (o *procCallOp) setOutputs(k int, row []vector.Value) error {
	proc := o.p.Proc
	if len(row) != len(proc.Outputs) {
		return errs.Data("procedure %s returned a row of %d values for %d outputs", proc.Name, len(row), len(proc.Outputs))
	}
	nin := len(o.out.Cols) - len(o.types)
	for i, j := range o.p.Yield {
		v, f := row[j], proc.Outputs[j]
		if v != nil {
			if !procs.Accepts(f.Type, v) {
				return errs.Data("procedure %s returned a value that is not %s for output %s", proc.Name, f.Type, f.Name)
			}
			v = procs.Coerce(f.Type, v)
		}
		o.out.Cols[nin+i].Set(k, v)
	}
	return nil
}
