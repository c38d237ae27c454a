package plan

// rewrite rebuilds e bottom-up where f returns a replacement; f sees each
// node before its children and returns (nil, false) to descend. width is
// the number of columns of the scope the result is evaluated over: the
// local variables of inner scopes move to the columns after it, and f
// does not see references to them.
func rewrite(e Expr, width int, f func(Expr) (Expr, bool)) Expr {
	return rewriteScoped(e, -1, 0, width, f)
}

// rewriteScoped is rewrite inside an inner scope whose local columns start
// at localFrom (-1 outside any) and move by delta.
func rewriteScoped(e Expr, localFrom, delta, width int, f func(Expr) (Expr, bool)) Expr {
	if c, ok := e.(*ColRef); ok && localFrom >= 0 && c.Idx >= localFrom {
		return &ColRef{Idx: c.Idx + delta, Name: c.Name, T: c.T, Kind: c.Kind, Elem: c.Elem}
	}
	if r, ok := f(e); ok {
		return r
	}
	rw := func(x Expr) Expr {
		if x == nil {
			return nil
		}
		return rewriteScoped(x, localFrom, delta, width, f)
	}
	// in rewrites the expressions of an inner scope starting at column w.
	in := func(w int, x Expr) Expr {
		if x == nil {
			return nil
		}
		if localFrom < 0 {
			return rewriteScoped(x, w, width-w, width, f)
		}
		return rw(x)
	}
	newWidth := func(w int) int {
		if localFrom < 0 {
			return width
		}
		return w + delta
	}
	switch x := e.(type) {
	case *ListComp:
		return &ListComp{List: rw(x.List), Var: x.Var, Width: newWidth(x.Width), Pred: in(x.Width, x.Pred), Proj: in(x.Width, x.Proj)}
	case *Quantifier:
		return &Quantifier{Kind: x.Kind, List: rw(x.List), Var: x.Var, Width: newWidth(x.Width), Pred: in(x.Width, x.Pred)}
	case *Reduce:
		return &Reduce{Init: rw(x.Init), List: rw(x.List), Acc: x.Acc, Var: x.Var, Width: newWidth(x.Width), Expr: in(x.Width, x.Expr)}
	case *MapProjection:
		mp := &MapProjection{X: rw(x.X)}
		for _, it := range x.Items {
			mp.Items = append(mp.Items, MapProjItem{Key: it.Key, All: it.All, Val: rw(it.Val)})
		}
		return mp
	}
	switch x := e.(type) {
	case *Property:
		return &Property{Of: rw(x.Of), Key: x.Key}
	case *Binary:
		return &Binary{Op: x.Op, L: rw(x.L), R: rw(x.R)}
	case *Not:
		return &Not{X: rw(x.X)}
	case *Neg:
		return &Neg{X: rw(x.X)}
	case *IsNull:
		return &IsNull{X: rw(x.X), Negate: x.Negate}
	case *HasLabels:
		return &HasLabels{X: rw(x.X), Labels: x.Labels, Any: x.Any, Expr: x.Expr}
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = rw(a)
		}
		return &Call{Name: x.Name, Args: args, T: x.T, Kind: x.Kind}
	case *List:
		elems := make([]Expr, len(x.Elems))
		for i, a := range x.Elems {
			elems[i] = rw(a)
		}
		return &List{Elems: elems}
	case *Map:
		vals := make([]Expr, len(x.Vals))
		for i, a := range x.Vals {
			vals[i] = rw(a)
		}
		return &Map{Keys: x.Keys, Vals: vals}
	}
	return e
}
