package plan

import "slices"

// Physical strategies. The physical-planning pass (engine/plan/physical)
// decides, once per statement and from the plan alone, which strategy
// each operator runs with, and records it on the operator; the executor
// follows the record and keeps only the guards that must see data (has
// the statement written, does a column view exist), and PROFILE says when
// such a guard sent the work back to the general path. EXPLAIN names the
// strategies in its rules and in each operator's details. Most strategies
// are optimizer rules (rules.go) and are never chosen while switched off;
// parallel and hop-map have no switch, and count-range and range-expand
// are forms of rule range-filter.
const (
	// StrategyParallel runs the pipeline ending at the operator (or the
	// Aggregate over one) on workers, each taking morsels of the scan's
	// node ids (exec/parallel.go), when the query may use several
	// workers and the scan has more than one morsel.
	StrategyParallel = "parallel"
	// StrategyHopMap lets an ExpandIntersect close cycles from a map of
	// the paths of a start node met on many rows, built once probing
	// would cost more than building (exec/intersect_hops.go).
	StrategyHopMap = "hop-map"
	// StrategyCountRange answers an Aggregate of count(*) over a range
	// filter over a node scan from the columns' integer views, without
	// batches (exec/count_range.go). Rule range-filter switches it off.
	StrategyCountRange = "count-range"
	// StrategyCountCodes answers an Aggregate of count(*) over a Filter
	// that is one code-match term over a node scan from the column's
	// dictionary codes, without batches (exec/count_codes.go). Rule
	// code-match switches it off.
	StrategyCountCodes = "count-codes"
	// StrategyRangeExpand applies the range filter above an Expand to the
	// Expand's input rows and neighbour lists, before it emits a row
	// (exec/expand_filter.go). Rule range-filter switches it off.
	StrategyRangeExpand = "range-expand"
	// StrategyMatchRange tests the other conjuncts of a code-match Filter,
	// when they are integer range terms, on the rows the codes kept
	// through the columns' integer views (exec/filter_match.go). Rule
	// range-filter switches it off.
	StrategyMatchRange = "match-range"
)

// Physical is the record of the strategies chosen for an operator,
// embedded in each operator that can take one.
type Physical struct {
	// Strategies are the names of the chosen strategies, in the order
	// they were chosen.
	Strategies []string
}

func (p *Physical) physical() *Physical { return p }

// physicalOp is an operator that can take a strategy.
type physicalOp interface{ physical() *Physical }

// StrategiesOf returns the strategies chosen for op, none for an operator
// that takes none.
func StrategiesOf(op Operator) []string {
	if p, ok := op.(physicalOp); ok {
		return p.physical().Strategies
	}
	return nil
}

// Choose records strategy s for op and reports whether op can take it.
func Choose(op Operator, s string) bool {
	p, ok := op.(physicalOp)
	if !ok {
		return false
	}
	if ph := p.physical(); !slices.Contains(ph.Strategies, s) {
		ph.Strategies = append(ph.Strategies, s)
	}
	return true
}

// Chose reports whether strategy s was chosen for op.
func Chose(op Operator, s string) bool {
	return slices.Contains(StrategiesOf(op), s)
}
