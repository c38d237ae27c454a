package plan

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/gql"
)

// QuantifiedExpand follows a path pattern of quantified groups (or
// relationships, which are groups of one iteration) from the node in
// column From, breadth first, one input row at a time
// (exec/quantified.go). Each group is a Seg; the node patterns between
// two are Mids. Mode says which repetitions a path may hold; Select, K
// and Groups choose among the paths of each pair of endpoints. It
// appends the list of the path's relationships, the far end unless Into
// names the column of a bound one, each Seg's columns (Lists, in order),
// each Mid's node when Out, and, when PathCol, a hidden vector.Path
// column.
type QuantifiedExpand struct {
	Input    Operator
	From     int
	Into     int
	Segs     []QuantSeg
	Mids     []QuantMid // len(Segs)-1
	ToLabels []string
	Mode     int // gql.ModeDefault (a trail), ModeWalk, ModeTrail, ModeAcyclic, ModeSimple
	Select   int // gql.SelectNone, SelectAll, SelectAny, SelectShortest
	K        int
	Groups   bool
	// Distinct are the columns of the MATCH's other relationships (single
	// ones or lists), which no iteration may use again.
	Distinct []int
	PathCol  bool
	Pattern  string
	Cols     []Column
}

// QuantSeg is a quantified group ((n0)-[r0]->(n1)-[r1]->(n2) WHERE c)
// {Min,Max}: an iteration is one hop per Step; at its end it must pass
// Test, a predicate over a row of its elements in order (n0, r0, n1, r1,
// …) followed by the input columns Outer (variables bound before it),
// tested as the search expands.
type QuantSeg struct {
	Steps    []QuantStep
	Min, Max int  // iterations; Max is Unbounded for no upper bound
	Test     Expr // nil when an iteration has nothing to pass
	Outer    []int
	// Lists are positions in an iteration (node i at 2i, relationship i
	// at 2i+1) whose values the operator lists, one column each; with
	// Single, the group is one relationship taken once and its column
	// holds that relationship, not a list.
	Lists  []int
	Single bool
}

// QuantStep is one relationship of a quantified group.
type QuantStep struct {
	Types []string
	Dir   Direction
}

// QuantMid is a node pattern between two groups: the node there must
// pass Test, over a row of the node followed by the input columns Outer;
// Out appends a column of it.
type QuantMid struct {
	Test  Expr
	Outer []int
	Out   bool
}

func (o *QuantifiedExpand) Columns() []Column          { return o.Cols }
func (o *QuantifiedExpand) Children() []Operator       { return one(&o.Input) }
func (o *QuantifiedExpand) SetChild(i int, c Operator) { o.Input = only(i, c) }

func (o *QuantifiedExpand) estimated(k *coster, in estimate, kids []estimate) estimate {
	lo, hi := 0, 0
	for _, s := range o.Segs {
		lo += s.Min * len(s.Steps)
		if s.Max == Unbounded || hi == Unbounded {
			hi = Unbounded
		} else {
			hi += s.Max * len(s.Steps)
		}
	}
	return k.chains(in, o.Segs[0].Steps[0].Types, o.Segs[0].Steps[0].Dir, lo, hi, o.ToLabels, o.Into)
}

// Describe shows the pattern, the mode and selector and the test each
// iteration passes while the search expands.
func (o *QuantifiedExpand) Describe() Description {
	args := o.Pattern
	if o.Into >= 0 {
		args += " into"
	}
	if o.Mode != gql.ModeDefault {
		args += " " + gql.ModeName(o.Mode)
	}
	switch o.Select {
	case gql.SelectAll:
		args += " ALL"
	case gql.SelectAny:
		args += fmt.Sprintf(" ANY %d", o.K)
	case gql.SelectShortest:
		args += fmt.Sprintf(" SHORTEST %d", o.K)
		if o.Groups {
			args += " GROUPS"
		}
	}
	for _, s := range o.Segs {
		if s.Test != nil {
			args += " pruned: iterations " + s.Test.String()
		}
	}
	if len(o.Distinct) > 0 {
		var names []string
		for _, d := range o.Distinct {
			names = append(names, colName(o.Cols[d]))
		}
		args += " distinct from " + strings.Join(names, ", ")
	}
	return Description{Name: "QuantifiedExpand", Args: args, Pattern: anonymous.Replace(o.Pattern)}
}

// The path modes and selectors of QuantifiedExpand, for the executor.
const (
	ModeWalk       = gql.ModeWalk
	ModeAcyclic    = gql.ModeAcyclic
	ModeSimple     = gql.ModeSimple
	SelectAny      = gql.SelectAny
	SelectShortest = gql.SelectShortest
)
