package gql

import "strings"

// LabelKind is the kind of a LabelExpr node.
type LabelKind uint8

// Label expression kinds.
const (
	LabelName LabelKind = iota // a label (or relationship type) name
	LabelAnd                   // A&B: every operand holds
	LabelOr                    // A|B: one operand holds
	LabelNot                   // !A
	LabelAny                   // %: any label (a node with at least one)
)

// LabelExpr is a GQL label expression (ISO/IEC 39075 §16.8): names joined
// by & and |, negated by !, the wildcard %, and parentheses. ! binds
// tightest, then &, then |. The parser keeps the forms older plans know
// as plain name lists (a node's conjunction :A:B or :A&B, a relationship's
// disjunction :R|S) and builds a LabelExpr only for the others.
type LabelExpr struct {
	Pos  Pos
	Kind LabelKind
	Name string       // LabelName
	Args []*LabelExpr // LabelAnd, LabelOr: two or more; LabelNot: one
}

// String writes the expression in GQL syntax, with the parentheses its
// precedence needs.
func (e *LabelExpr) String() string {
	var sb strings.Builder
	e.format(&sb, LabelOr)
	return sb.String()
}

// format writes e inside an operator of kind outer: an operand binding
// less tightly than the operator around it gets parentheses.
func (e *LabelExpr) format(sb *strings.Builder, outer LabelKind) {
	switch e.Kind {
	case LabelName:
		sb.WriteString(quoteName(e.Name))
	case LabelAny:
		sb.WriteByte('%')
	case LabelNot:
		sb.WriteByte('!')
		e.Args[0].format(sb, LabelNot)
	case LabelAnd, LabelOr:
		paren := outer == LabelNot || outer == LabelAnd && e.Kind == LabelOr
		if paren {
			sb.WriteByte('(')
		}
		op := "|"
		if e.Kind == LabelAnd {
			op = "&"
		}
		for i, a := range e.Args {
			if i > 0 {
				sb.WriteString(op)
			}
			a.format(sb, e.Kind)
		}
		if paren {
			sb.WriteByte(')')
		}
	}
}

// names returns the names of e when it is a name or a kind-operation of
// names only (A&B&C or (A&B)&C for LabelAnd), else ok false.
func (e *LabelExpr) names(kind LabelKind) (out []string, ok bool) {
	if e.Kind == LabelName {
		return []string{e.Name}, true
	}
	if e.Kind != kind {
		return nil, false
	}
	// (A&B)&C is A&B&C: a parenthesized operand of the same kind is
	// flattened, or its canonical form, A&B&C, would print as :A:B:C
	// once parsed again.
	for _, a := range e.Args {
		sub, ok := a.names(kind)
		if !ok {
			return nil, false
		}
		out = append(out, sub...)
	}
	return out, true
}
