package exec

import (
	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// mergeOp runs MERGE one input row at a time: it runs the match plan over
// that row; if it yields rows they are the output (after ON MATCH SET),
// otherwise the create plan makes the pattern and its one row is the
// output (after ON CREATE SET). Row at a time because each row must see
// what earlier rows created: the transaction reads its own writes, so the
// next row's match finds them.
type mergeOp struct {
	c  *Context
	p  *plan.Merge
	in Operator

	onMatch, onCreate *updater
	nulls             []*vector.Vector // a typed null per output column
	narg              int

	buf    []rowstore.Column // output rows of the current input batch
	n, pos int
	out    *vector.Batch
	one    []rowstore.Column // rows of the current input row
}

func newMerge(c *Context, p *plan.Merge, in Operator) (*mergeOp, error) {
	m := &mergeOp{c: c, p: p, in: in, narg: len(p.Arg.Cols), out: &vector.Batch{Cols: make([]*vector.Vector, len(p.Cols))}}
	var err error
	if m.onMatch, err = newUpdater(c, p.OnMatch); err != nil {
		return nil, err
	}
	if m.onCreate, err = newUpdater(c, p.OnCreate); err != nil {
		return nil, err
	}
	for _, col := range p.Cols {
		t := col.Type
		if t == vector.Null {
			t = vector.Any
		}
		v := vector.New(t, 1)
		v.SetNull(0)
		m.nulls = append(m.nulls, v)
	}
	return m, nil
}

func (m *mergeOp) Next() (*vector.Batch, error) {
	for m.pos >= m.n {
		b, err := m.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		if err := m.c.CheckCancel(); err != nil {
			return nil, err
		}
		m.buf, m.n, m.pos = make([]rowstore.Column, len(m.p.Cols)), 0, 0
		for i := 0; i < b.Rows(); i++ {
			if err := m.row(b, b.Row(i)); err != nil {
				return nil, err
			}
		}
	}
	n := min(m.n-m.pos, vector.Capacity)
	for c := range m.buf {
		m.out.Cols[c] = m.buf[c].Emit(m.out.Cols[c], m.pos, n)
	}
	m.out.Len, m.out.Sel = n, nil
	m.pos += n
	return m.out, nil
}

// row merges input row r of b.
func (m *mergeOp) row(b *vector.Batch, r int) error {
	arg := &vector.Batch{Cols: b.Cols, Len: b.Len, Sel: []int32{int32(r)}}
	m.one = make([]rowstore.Column, len(m.p.Cols))
	matched, err := m.run(m.p.Match, arg, func(ob *vector.Batch, or int) {
		for c := range m.one {
			m.one[c].Push(ob.Cols[c], or)
		}
	})
	if err != nil {
		return err
	}
	items := m.onMatch
	if matched == 0 {
		items = m.onCreate
		made, err := m.run(m.p.Create, arg, func(ob *vector.Batch, or int) {
			for c := 0; c < m.narg; c++ {
				m.one[c].Push(ob.Cols[c], or)
			}
			for j, from := range m.p.From {
				c := m.narg + j
				if from < 0 {
					m.one[c].Push(m.nulls[c], 0)
				} else {
					m.one[c].Push(ob.Cols[from], or)
				}
			}
		})
		if err != nil {
			return err
		}
		if made != 1 {
			return bug("MERGE created %d rows for one input row", made)
		}
		matched = 1
	}
	// ON MATCH / ON CREATE run over the row's output rows, a batch at a
	// time, before they are kept.
	one := &vector.Batch{Cols: make([]*vector.Vector, len(m.one))}
	for from := 0; from < matched; from += vector.Capacity {
		n := min(matched-from, vector.Capacity)
		for c := range m.one {
			one.Cols[c] = m.one[c].Emit(one.Cols[c], from, n)
		}
		one.Len = n
		if len(items.items) > 0 {
			if err := items.apply(one); err != nil {
				return err
			}
		}
		for i := 0; i < n; i++ {
			for c := range m.buf {
				m.buf[c].Push(one.Cols[c], i)
			}
			m.n++
		}
	}
	return nil
}

// run builds p over the argument batch arg, runs it to the end and calls
// fn for each row; it returns the number of rows.
func (m *mergeOp) run(p plan.Operator, arg *vector.Batch, fn func(*vector.Batch, int)) (int, error) {
	op, err := Build(m.c, p)
	if err != nil {
		return 0, err
	}
	a, ok := m.c.args[m.p.Arg]
	if !ok {
		return 0, bug("MERGE plan has no argument")
	}
	a.b, a.done = arg, false
	m.c.merging = p == plan.Operator(m.p.Create)
	defer func() { m.c.merging = false }()
	n := 0
	for {
		ob, err := op.Next()
		if err != nil {
			return 0, err
		}
		if ob == nil {
			return n, nil
		}
		for i := 0; i < ob.Rows(); i++ {
			fn(ob, ob.Row(i))
			n++
		}
	}
}
