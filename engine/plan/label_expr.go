package plan

import (
	"slices"

	"github.com/quiverdb/quiver/engine/gql"
)

// LabelKind is the kind of a LabelExpr node.
type LabelKind uint8

// Label expression kinds (gql.LabelKind).
const (
	LabelName LabelKind = iota
	LabelAnd
	LabelOr
	LabelNot
	LabelAny
)

// LabelExpr is a bound label expression (gql.LabelExpr): names joined by
// & and |, negated by !, and % for any label. On a node a name holds when
// the node carries that label and % when it carries at least one; on a
// relationship a name holds when it is the relationship's type and %
// always. A name the catalog does not know holds for no element.
type LabelExpr struct {
	Kind LabelKind
	Name string
	Args []*LabelExpr
}

// bindLabelExpr copies a parsed label expression.
func bindLabelExpr(e *gql.LabelExpr) *LabelExpr {
	if e == nil {
		return nil
	}
	out := &LabelExpr{Kind: LabelKind(e.Kind), Name: e.Name}
	for _, a := range e.Args {
		out.Args = append(out.Args, bindLabelExpr(a))
	}
	return out
}

// String writes the expression in GQL syntax, as the parser's
// expression writes itself.
func (e *LabelExpr) String() string { return e.gql().String() }

// gql is e as a parsed expression (with no positions).
func (e *LabelExpr) gql() *gql.LabelExpr {
	out := &gql.LabelExpr{Kind: gql.LabelKind(e.Kind), Name: e.Name}
	for _, a := range e.Args {
		out.Args = append(out.Args, a.gql())
	}
	return out
}

// Names lists the names e mentions, each once, in order of appearance.
func (e *LabelExpr) Names() []string {
	var out []string
	var walk func(*LabelExpr)
	walk = func(x *LabelExpr) {
		if x.Kind == LabelName && !slices.Contains(out, x.Name) {
			out = append(out, x.Name)
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	return out
}

// typeSet is the set of relationship types a type expression admits:
// the types Names or, with Co, every type but Names. A relationship has
// exactly one type, so these sets are closed under |, & and !, and a
// type expression needs no catalog to be resolved: R&S is empty, !R is
// every type but R, % every type.
type typeSet struct {
	names []string
	co    bool
}

func relTypeSet(e *LabelExpr) typeSet {
	switch e.Kind {
	case LabelName:
		return typeSet{names: []string{e.Name}}
	case LabelAny:
		return typeSet{co: true}
	case LabelNot:
		s := relTypeSet(e.Args[0])
		s.co = !s.co
		return s
	}
	s := relTypeSet(e.Args[0])
	for _, a := range e.Args[1:] {
		t := relTypeSet(a)
		if e.Kind == LabelAnd {
			s = s.and(t)
		} else {
			s = s.or(t)
		}
	}
	return s
}

func (s typeSet) and(t typeSet) typeSet {
	switch {
	case !s.co && !t.co:
		return typeSet{names: intersect(s.names, t.names)}
	case !s.co:
		return typeSet{names: minus(s.names, t.names)}
	case !t.co:
		return typeSet{names: minus(t.names, s.names)}
	}
	return typeSet{names: union(s.names, t.names), co: true}
}

func (s typeSet) or(t typeSet) typeSet {
	switch {
	case !s.co && !t.co:
		return typeSet{names: union(s.names, t.names)}
	case !s.co:
		return typeSet{names: minus(t.names, s.names), co: true}
	case !t.co:
		return typeSet{names: minus(s.names, t.names), co: true}
	}
	return typeSet{names: intersect(s.names, t.names), co: true}
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
