package expr

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// caseEval is CASE. Arguments (from the binder): simple?, subject (null
// constant when searched), WHEN/THEN pairs, ELSE (null constant when
// absent). Branches are evaluated lazily: each WHEN only on the rows no
// earlier WHEN took, each THEN only on the rows its WHEN took, so a
// branch cannot fail on a row it does not decide (CASE WHEN x = 0 THEN 0
// ELSE 1 / x END). Every WHEN and THEN is consumed before the next is
// evaluated, so they share one slot, and a CASE of 30,000 branches costs
// one vector; the subject of a simple CASE is held throughout, in a slot
// of its own.
type caseEval struct {
	output
	simple  bool
	subject Evaluator
	whens   []Evaluator
	thens   []Evaluator
	els     Evaluator
	t       vector.Type

	sub vector.Batch
}

func init() { registerCompiler(functions.OpCase, compileCase) }

func compileCase(c *Env, e *plan.Call) (Evaluator, error) {
	k, ok := e.Args[0].(*plan.Const)
	if !ok || len(e.Args) < 3 {
		return nil, errs.Internal("malformed CASE call %s", e)
	}
	simple, _ := k.Val.(bool)
	subject, err := compileNode(c, e.Args[1])
	if err != nil {
		return nil, err
	}
	args, err := compileSeq(c, e.Args[2:])
	if err != nil {
		return nil, err
	}
	ev := &caseEval{simple: simple, subject: subject, els: args[len(args)-1]}
	for i := 0; i+1 < len(args)-1; i += 2 {
		ev.whens = append(ev.whens, args[i])
		ev.thens = append(ev.thens, args[i+1])
	}
	// The result is typed when every branch has the same typed type.
	t := vector.Null
	branches := []plan.Expr{e.Args[len(e.Args)-1]}
	for i := 3; i < len(e.Args)-1; i += 2 {
		branches = append(branches, e.Args[i])
	}
	for _, x := range branches {
		switch bt := x.Type(); {
		case bt == vector.Null:
		case t == vector.Null:
			t = bt
		case t != bt:
			t = vector.Any
		}
	}
	ev.t = outType(t)
	if t == vector.Null {
		ev.t = vector.Any
	}
	return ev, nil
}

func (e *caseEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	s := e.slot()
	out := s.vec(e.t, b.Len)
	rest, hit, miss := selected(s.sel(0), b), s.sel(1), s.sel(2)
	var subj *vector.Vector
	if e.simple {
		var err error
		if subj, err = e.subject.Eval(b); err != nil {
			return nil, err
		}
	}
	for w := range e.whens {
		if len(rest) == 0 {
			break
		}
		cond, err := e.eval1(e.whens[w], b, rest)
		if err != nil {
			return nil, err
		}
		hit, miss = hit[:0], miss[:0]
		for _, r := range rest {
			var take bool
			if e.simple {
				eq, _ := functions.EqualValues(subj.Get(int(r)), cond.Get(int(r)))
				take = eq
			} else if !cond.IsNull(int(r)) {
				switch cond.Type {
				case vector.Bool:
					take = cond.Bools[r]
				default:
					bv, isBool := cond.Get(int(r)).(bool)
					if !isBool {
						return nil, errs.Data("CASE WHEN expects a boolean, got %s", functions.TypeName(cond.Get(int(r))))
					}
					take = bv
				}
			}
			if take {
				hit = append(hit, r)
			} else {
				miss = append(miss, r)
			}
		}
		if err := e.fill(out, e.thens[w], b, hit); err != nil {
			return nil, err
		}
		rest, miss = miss, rest
	}
	if err := e.fill(out, e.els, b, rest); err != nil {
		return nil, err
	}
	return out, nil
}

// eval1 evaluates x on the given rows of b.
func (e *caseEval) eval1(x Evaluator, b *vector.Batch, sel []int32) (*vector.Vector, error) {
	e.sub = vector.Batch{Cols: b.Cols, Len: b.Len, Sel: sel}
	return x.Eval(&e.sub)
}

// fill computes x on rows sel and stores it in out.
func (e *caseEval) fill(out *vector.Vector, x Evaluator, b *vector.Batch, sel []int32) error {
	if len(sel) == 0 {
		return nil
	}
	v, err := e.eval1(x, b, sel)
	if err != nil {
		return err
	}
	for _, r := range sel {
		if err := copyValue(out, int(r), v, int(r)); err != nil {
			return err
		}
	}
	return nil
}
