package exec

import (
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// project computes its expressions over each batch. The output batch shares
// the input's length and selection, and its columns are the evaluators'
// vectors (a plain column reference passes the input vector through).
type project struct {
	in    Operator
	exprs []expr.Evaluator
	out   *vector.Batch
}

func newProject(c *Context, p *plan.Project, in Operator) (*project, error) {
	pr := &project{in: in, out: &vector.Batch{Cols: make([]*vector.Vector, len(p.Exprs))}}
	for _, e := range p.Exprs {
		ev, err := compile(c, e)
		if err != nil {
			return nil, err
		}
		pr.exprs = append(pr.exprs, ev)
	}
	return pr, nil
}

func (p *project) Next() (*vector.Batch, error) {
	b, err := p.in.Next()
	if err != nil || b == nil {
		return nil, err
	}
	for i, e := range p.exprs {
		v, err := e.Eval(b)
		if err != nil {
			return nil, err
		}
		p.out.Cols[i] = v
	}
	p.out.Len, p.out.Sel = b.Len, b.Sel
	return p.out, nil
}
