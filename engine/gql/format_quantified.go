package gql

import (
	"strconv"
	"strings"
)

// formatSearch prints a path pattern's mode and selector.
func formatSearch(sb *strings.Builder, s *PathSearch) {
	k := strconv.FormatInt(s.K, 10)
	switch {
	case s.Select == SelectAll:
		sb.WriteString("ALL ")
	case s.Select == SelectAny:
		sb.WriteString("ANY " + k + " ")
	case s.Select == SelectShortest && s.Groups:
		sb.WriteString("SHORTEST " + k + " GROUPS ")
	case s.Select == SelectShortest:
		sb.WriteString("SHORTEST " + k + " ")
	}
	if s.Mode != ModeDefault {
		sb.WriteString(modeNames[s.Mode] + " ")
	}
}

// modeNames spells the path modes.
var modeNames = [...]string{ModeDefault: "", ModeWalk: "WALK", ModeTrail: "TRAIL", ModeAcyclic: "ACYCLIC", ModeSimple: "SIMPLE"}

// ModeName spells a path mode for messages and EXPLAIN.
func ModeName(mode int) string { return modeNames[mode] }

// formatGroup prints a quantified path pattern kept as relationship r.
func formatGroup(sb *strings.Builder, r *RelPattern) {
	g := r.Group
	sb.WriteByte('(')
	formatNode(sb, g.Path.Nodes[0])
	for i, in := range g.Path.Rels {
		formatRel(sb, in)
		formatNode(sb, g.Path.Nodes[i+1])
	}
	if g.Where != nil {
		sb.WriteString(" WHERE ")
		formatExpr(sb, g.Where)
	}
	sb.WriteString("){")
	if r.VarLength.Min != nil {
		sb.WriteString(strconv.FormatInt(*r.VarLength.Min, 10))
	}
	sb.WriteByte(',')
	if r.VarLength.Max != nil {
		sb.WriteString(strconv.FormatInt(*r.VarLength.Max, 10))
	}
	sb.WriteByte('}')
}
