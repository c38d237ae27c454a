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
	cur   cursor
	p     *plan.ProcedureCall
	args  []expr.Evaluator
	types []vector.Type // of the yielded columns
	pctx  *procs.Context

	argv    []*vector.Vector // the evaluated arguments of the input batch
	pending [][]vector.Value // rows the procedure returned for the current row
	next    int

	vals []vector.Value

	// A streamed procedure (procs.Stream) fills the yielded columns
	// itself: stream is the current input row's result, scols the output
	// vectors by output index (nil for outputs not yielded).
	stream procs.Stream
	scols  []*vector.Vector
}

func newProcCall(c *Context, p *plan.ProcedureCall, in Operator) (*procCallOp, error) {
	o := &procCallOp{c: c, p: p, cur: newCursor(c.pool(), in, len(p.Cols)-len(p.Yield), len(p.Cols)),
		pctx: &procs.Context{Ctx: c.Ctx, Reader: c.Tx, Catalog: c.Catalog, Mem: &c.Mem, Parallelism: c.Parallelism}}
	o.cur.onBatch = o.evalArgs
	if p.Security.Restricts() {
		o.pctx.Visible = visibleOnce(c, p.Security)
	}
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
	out, nin := o.cur.out, o.cur.nin
	for i, t := range o.types {
		out.Cols[nin+i] = vector.Reuse(out.Cols[nin+i], t)
	}
	if o.p.Proc.Stream != nil {
		return o.nextStreamed(nin)
	}
	return o.cur.fill(o)
}

// produce emits the rows the procedure returned for the current row.
func (o *procCallOp) produce() error {
	for o.next < len(o.pending) && !o.cur.full() {
		if err := o.setOutputs(len(o.cur.idx), o.pending[o.next]); err != nil {
			return err
		}
		o.next++
		o.cur.emitRow()
	}
	return nil
}

// advance calls the procedure for the next input row; a void call emits
// the row itself.
func (o *procCallOp) advance() (bool, error) {
	ok, err := o.cur.nextRow()
	if !ok || err != nil {
		return false, err
	}
	rows, err := o.invoke(o.cur.row)
	if err != nil {
		return false, err
	}
	o.pending, o.next = rows, 0
	if o.p.Void {
		o.pending, o.next = nil, 0
		o.cur.emitRow()
	}
	return true, nil
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
		o.scols[j] = o.cur.out.Cols[nin+i]
	}
	return o.cur.fill((*streamedCall)(o))
}

// streamedCall is the rowWork of a streamed procedure's call.
type streamedCall procCallOp

// produce has the current row's stream fill the yielded columns.
func (s *streamedCall) produce() error {
	o := (*procCallOp)(s)
	for o.stream != nil && !o.cur.full() {
		k := len(o.cur.idx)
		n, err := o.stream.Fill(o.scols, k, vector.Capacity-k)
		if err != nil {
			o.closeStream()
			return procError(o.p.Proc, err)
		}
		if n == 0 {
			o.closeStream()
			return nil
		}
		for range n {
			o.cur.emitRow()
		}
		if err := o.c.CheckCancel(); err != nil {
			o.closeStream()
			return err
		}
	}
	return nil
}

// advance opens the stream of the next input row.
func (s *streamedCall) advance() (bool, error) {
	o := (*procCallOp)(s)
	ok, err := o.cur.nextRow()
	if !ok || err != nil {
		return false, err
	}
	if err := o.checkArgs(o.cur.row); err != nil {
		return false, err
	}
	st, err := o.p.Proc.Stream(o.pctx, o.vals)
	if err != nil {
		return false, procError(o.p.Proc, err)
	}
	o.stream = st
	o.c.streams = append(o.c.streams, st)
	return true, nil
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

// evalArgs evaluates the arguments over a new input batch b.
func (o *procCallOp) evalArgs(b *vector.Batch) error {
	o.argv = o.argv[:0]
	for _, ev := range o.args {
		v, err := ev.Eval(b)
		if err != nil {
			return err
		}
		o.argv = append(o.argv, v)
	}
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
	nin := o.cur.nin
	for i, j := range o.p.Yield {
		v, f := row[j], proc.Outputs[j]
		if v != nil {
			if !procs.Accepts(f.Type, v) {
				return errs.Data("procedure %s returned a value that is not %s for output %s", proc.Name, f.Type, f.Name)
			}
			v = procs.Coerce(f.Type, v)
		}
		o.cur.out.Cols[nin+i].Set(k, v)
	}
	return nil
}
