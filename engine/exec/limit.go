package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// skipLimit drops the first skip rows or passes at most limit rows by
// trimming batch selections. After the limit it stops pulling its input.
type skipLimit struct {
	in     Operator
	skip   bool
	remain int64
	sel    []int32
}

// newSkipLimit skips or limits its built input in by count, evaluated
// once, now.
func newSkipLimit(c *Context, in Operator, count plan.Expr, skip bool) (Operator, error) {
	what := "LIMIT"
	if skip {
		what = "SKIP"
	}
	n, err := countValue(c, count, what)
	if err != nil {
		return nil, err
	}
	return &skipLimit{in: in, skip: skip, remain: n}, nil
}

// countValue evaluates a SKIP or LIMIT count, an expression that reads no
// row, once; it must be a non-negative INTEGER.
func countValue(c *Context, count plan.Expr, what string) (int64, error) {
	ev, err := compile(c, count)
	if err != nil {
		return 0, err
	}
	v, err := ev.Eval(&vector.Batch{Len: 1})
	if err != nil {
		return 0, err
	}
	val := v.Get(0)
	if err := plan.CheckCountOf(count, val, what, 0, 0); err != nil {
		return 0, err
	}
	return val.(int64), nil
}

func (s *skipLimit) Next() (*vector.Batch, error) {
	for {
		if !s.skip && s.remain == 0 {
			return nil, nil
		}
		b, err := s.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		n := int64(b.Rows())
		switch {
		case s.skip && s.remain >= n:
			s.remain -= n
			continue
		case s.skip && s.remain > 0:
			s.sel = s.sel[:0]
			for i := int(s.remain); i < int(n); i++ {
				s.sel = append(s.sel, int32(b.Row(i)))
			}
			s.remain = 0
			b.Sel = s.sel
		case !s.skip && n > s.remain:
			s.sel = s.sel[:0]
			for i := 0; i < int(s.remain); i++ {
				s.sel = append(s.sel, int32(b.Row(i)))
			}
			b.Sel = s.sel
			s.remain = 0
		case !s.skip:
			s.remain -= n
		}
		return b, nil
	}
}
