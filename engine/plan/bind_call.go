package plan

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// procedureCall plans CALL ns.proc(args) [YIELD ...] [WHERE ...]. A standalone call
// (the statement's only clause) returns the yielded columns, or all of
// them without YIELD; it may take its arguments implicitly from the
// parameters of the same names (CALL ns.proc without parentheses). Inside
// a query, a procedure with outputs needs YIELD with named columns.
func (b *binder) procedureCall(c *gql.Call, standalone bool) error {
	name := strings.Join(append(append([]string{}, c.Namespace...), c.Name), ".")
	if b.procs == nil {
		return errs.UnknownProcedure("there is no procedure %s", name).At(c.Pos.Line, c.Pos.Column)
	}
	p, ok := b.procs.Lookup(name)
	if !ok {
		return b.procs.Unknown(name).At(c.Pos.Line, c.Pos.Column)
	}
	b.calls = addCall(b.calls, p)
	b.set(b.input())
	args, err := b.callArgs(c, p, standalone)
	if err != nil {
		return err
	}
	op := &ProcedureCall{Input: b.root, Proc: p, Args: args, Void: len(p.Outputs) == 0}
	if b.sec.Restricts() {
		op.Security = b.sec
	}
	cols := b.sc.cols
	switch {
	case c.YieldStar && !standalone:
		return syntaxAt(c.Pos, "YIELD * is only allowed in a standalone procedure call")
	case op.Void && (len(c.Yield) > 0 || c.YieldStar):
		return semanticAt(c.Pos, "procedure %s has no output columns to yield", name)
	case op.Void:
	case c.YieldStar || (standalone && len(c.Yield) == 0):
		for i, f := range p.Outputs {
			op.Yield = append(op.Yield, i)
			cols = appendCols(cols, outputColumn(f.Name, f.Type))
		}
	case len(c.Yield) == 0:
		return semanticAt(c.Pos, "procedure %s has outputs: name the columns to keep with YIELD", name)
	default:
		for _, it := range c.Yield {
			i := outputIndex(p, it.Name)
			if i < 0 {
				return semanticAt(c.Pos, "procedure %s has no output %s (outputs: %s)", name, it.Name, outputNames(p))
			}
			as := it.Name
			if it.Alias != "" {
				as = it.Alias
			}
			for _, col := range cols {
				if !col.Hidden && col.Name == as {
					return semanticAt(c.Pos, "variable %s is already defined", as)
				}
			}
			op.Yield = append(op.Yield, i)
			cols = appendCols(cols, outputColumn(as, p.Outputs[i].Type))
		}
	}
	op.Cols = cols
	b.set(op)
	b.lastCall = op
	if c.Where != nil {
		return b.where(c.Where)
	}
	return nil
}

// callArgs binds the arguments and checks their number and, where the
// plan knows it, their type.
func (b *binder) callArgs(c *gql.Call, p *procs.Procedure, standalone bool) ([]Expr, error) {
	var args []Expr
	if !c.HasArgs {
		if !standalone {
			return nil, syntaxAt(c.Pos, "a procedure call inside a query needs parentheses around its arguments")
		}
		// Implicit arguments: the parameters named like the inputs.
		for _, in := range p.Inputs {
			_, ok := b.params[in.Name]
			if !ok && in.Optional {
				args = append(args, &Const{T: vector.TypeOf(nil)})
				continue
			}
			if !ok {
				return nil, errs.New(errs.CodeInvalidParam, errs.CatData,
					"procedure %s takes its argument %s from the parameter $%s, which is missing", p.Name, in.Name, in.Name).At(c.Pos.Line, c.Pos.Column)
			}
			args = append(args, b.param(in.Name))
		}
	} else {
		if req := p.RequiredInputs(); len(c.Args) < req || len(c.Args) > len(p.Inputs) {
			want := fmt.Sprint(len(p.Inputs))
			if req < len(p.Inputs) {
				want = fmt.Sprintf("%d to %d", req, len(p.Inputs))
			}
			return nil, semanticAt(c.Pos, "procedure %s takes %s arguments, not %d: %s", p.Name, want, len(c.Args), p.Signature)
		}
		for _, a := range c.Args {
			e, err := b.expr(a, noAggregates)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
		}
		for range len(p.Inputs) - len(args) {
			args = append(args, &Const{T: vector.TypeOf(nil)}) // left-out optional inputs are null
		}
	}
	for i, a := range args {
		if !procs.StaticAccepts(p.Inputs[i].Type, a.Type()) {
			return nil, semanticAt(c.Pos, "argument %s of procedure %s must be %s, not %s", p.Inputs[i].Name, p.Name, p.Inputs[i].Type, a.Type())
		}
	}
	return args, nil
}

func outputColumn(name, typ string) Column {
	c := Column{Name: name, Type: procs.VectorType(typ)}
	if c.Type == vector.Any && (typ == "LIST" || typ == "MAP") {
		c.Kind = typ
	}
	return c
}

func outputIndex(p *procs.Procedure, name string) int {
	for i, f := range p.Outputs {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func outputNames(p *procs.Procedure) string {
	names := make([]string, len(p.Outputs))
	for i, f := range p.Outputs {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
