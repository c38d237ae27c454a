package plan

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/gql"
)

// QuantifiedExpand follows the iterations of a quantified path pattern
// ((x)-[r]->(y) WHERE c){Min,Max} from the node in column From, breadth
// first, one input row at a time (exec/quantified.go). Each iteration
// must pass HopTest, a predicate over a row of three columns (x, r, y),
// tested as the search expands; Mode says which repetitions a path may
// hold; Select, K and Groups choose among the paths of each pair of
// endpoints. It appends the relationship list, the far end unless Into
// names the column of a bound one, the lists of x's and y's nodes when
// XList and YList, and, when PathCol, a hidden vector.Path column.
type QuantifiedExpand struct {
	Input    Operator
	From     int
	Into     int
	Types    []string
	Dir      Direction
	Min, Max int // Max is Unbounded for no upper bound
	ToLabels []string
	HopTest  Expr // nil when an iteration has nothing to pass
	Mode     int  // gql.ModeDefault (a trail), ModeWalk, ModeTrail, ModeAcyclic, ModeSimple
	Select   int  // gql.SelectNone, SelectAll, SelectAny, SelectShortest
	K        int
	Groups   bool
	// Distinct are the columns of the MATCH's other relationships (single
	// ones or lists), which no iteration may use again.
	Distinct     []int
	XList, YList bool
	PathCol      bool
	Pattern      string
	Cols         []Column
}

func (o *QuantifiedExpand) Columns() []Column          { return o.Cols }
func (o *QuantifiedExpand) Children() []Operator       { return one(&o.Input) }
func (o *QuantifiedExpand) SetChild(i int, c Operator) { o.Input = only(i, c) }

func (o *QuantifiedExpand) estimated(k *coster, in estimate, kids []estimate) estimate {
	return k.chains(in, o.Types, o.Dir, o.Min, o.Max, o.ToLabels, o.Into)
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
	if o.HopTest != nil {
		args += " pruned: iterations " + o.HopTest.String()
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
