package plan

import (
	"slices"

	"github.com/quiverdb/quiver/vector"
)

// Row-level security over elements known by value (a change event's
// node or relationship: its id, labels or type and properties) rather
// than read from a snapshot by a plan. The visibility test is bound over
// the element as column 0 (NodeTest, RelTest); OnElementValues puts the
// element's values in place of every read of that column, leaving an
// expression of constants the caller evaluates.

// Element is a node or relationship by value.
type Element struct {
	ID     uint64
	Rel    bool
	Type   string   // a relationship's type
	Labels []string // a node's labels
	Props  map[string]vector.Value
}

// OnElementValues returns test with el's values in place of its reads of
// column 0. ok is false when test reads the element in a way values
// cannot answer (a pattern from it, its degree, a path): the caller
// then cannot decide and must not show the element.
func OnElementValues(test Expr, el *Element) (Expr, bool) {
	ok := true
	isElem := func(e Expr) bool {
		c, is := e.(*ColRef)
		return is && c.Idx == 0
	}
	out := rewrite(test, 1, func(e Expr) (Expr, bool) {
		switch x := e.(type) {
		case *Property:
			if isElem(x.Of) {
				v := el.Props[x.Key]
				return &Const{Val: v, T: vector.TypeOf(v)}, true
			}
		case *HasLabels:
			if isElem(x.X) {
				return &Const{Val: el.hasLabels(x), T: vector.Bool}, true
			}
		case *Call:
			if len(x.Args) == 1 && isElem(x.Args[0]) {
				if v, known := el.call(x.Name); known {
					return &Const{Val: v, T: vector.TypeOf(v)}, true
				}
				ok = false
			}
		case *ColRef:
			if x.Idx == 0 {
				ok = false
			}
		}
		return nil, false
	})
	known := Walk(out, func(e Expr) {
		switch x := e.(type) {
		case *ColRef:
			if x.Idx == 0 {
				ok = false
			}
		case *PatternSubquery:
			ok = false
		case *Call:
			if x.Name == FnDecrypt || x.Name == FnSeal {
				ok = false
			}
		}
	})
	return out, ok && known
}

// hasLabels answers a label test of the element.
func (el *Element) hasLabels(h *HasLabels) bool {
	names := el.Labels
	if el.Rel {
		names = []string{el.Type}
	}
	if h.Expr != nil {
		return matchLabelExpr(h.Expr, names)
	}
	if len(h.Labels) == 0 {
		return true
	}
	for _, l := range h.Labels {
		has := slices.Contains(names, l)
		if h.Any && has {
			return true
		}
		if !h.Any && !has {
			return false
		}
	}
	return !h.Any
}

func matchLabelExpr(e *LabelExpr, names []string) bool {
	switch e.Kind {
	case LabelName:
		return slices.Contains(names, e.Name)
	case LabelAny:
		return len(names) > 0
	case LabelNot:
		return !matchLabelExpr(e.Args[0], names)
	case LabelAnd:
		for _, a := range e.Args {
			if !matchLabelExpr(a, names) {
				return false
			}
		}
		return true
	}
	for _, a := range e.Args {
		if matchLabelExpr(a, names) {
			return true
		}
	}
	return false
}

// call answers the functions of one element its values know.
func (el *Element) call(name string) (vector.Value, bool) {
	switch name {
	case "id":
		return int64(el.ID), true
	case "labels":
		if el.Rel {
			return nil, false
		}
		out := make([]vector.Value, len(el.Labels))
		for i, l := range el.Labels {
			out[i] = l
		}
		return out, true
	case "type":
		if !el.Rel {
			return nil, false
		}
		return el.Type, true
	case "keys":
		keys := make([]string, 0, len(el.Props))
		for k := range el.Props {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make([]vector.Value, len(keys))
		for i, k := range keys {
			out[i] = k
		}
		return out, true
	case "properties":
		out := make(map[string]vector.Value, len(el.Props))
		for k, v := range el.Props {
			out[k] = v
		}
		return out, true
	}
	return nil, false
}
