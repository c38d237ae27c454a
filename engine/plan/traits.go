package plan

// Traits an operator declares once, here, for every pass that needs them:
// the executor's parallel marking and morsel sizing, and the optimizer's
// filter pushdown read these instead of keeping lists of operator types
// of their own (which drifted apart: one list let ExpandIntersect into a
// parallel pipeline but not at its top).

// streaming is implemented by the operators that turn each row of their
// first input into zero or more rows on their own, reading only that row
// and the snapshot.
type streaming interface{ streams() }

func (*Filter) streams()          {}
func (*Project) streams()         {}
func (*Expand) streams()          {}
func (*VarLengthExpand) streams() {}
func (*ExpandIntersect) streams() {}

// Streams reports whether op maps each row of its first input to zero or
// more rows independently of every other row, reading only that row and
// the snapshot, with no effect: a pipeline of such operators over a node
// scan can be cut into morsels of the scan's node ids and run on workers,
// each morsel giving the rows the whole scan would give for those nodes.
// Operators that would qualify but have not been run on workers (UNWIND,
// index joins) are left out until a parallel test shows they agree with
// the serial run.
func Streams(op Operator) bool {
	_, ok := op.(streaming)
	return ok
}

// extending is implemented by the operators whose rows extend rows of
// their first input, keeping its columns in place.
type extending interface{ extends() }

func (*Filter) extends()          {}
func (*Expand) extends()          {}
func (*VarLengthExpand) extends() {}
func (*ExpandIntersect) extends() {}
func (*CrossProduct) extends()    {}

// KeepsInputColumns reports whether a conjunct that reads only the
// columns of op's first input may be tested below op: each row op yields
// extends one row of that input, with its columns in place, op never
// tests the values such a conjunct reads, counts no rows and has no
// effect (filter pushdown, opt/filter_pushdown.go).
func KeepsInputColumns(op Operator) bool {
	_, ok := op.(extending)
	return ok
}

// Hop is an operator that follows relationships from the node in one of
// its input's columns.
type Hop interface {
	Operator
	// FirstHop is the first expansion the operator makes: the column of
	// the node it starts from, the relationship types (any when empty)
	// and the direction.
	FirstHop() (from int, types []string, dir Direction)
}

func (o *Expand) FirstHop() (int, []string, Direction) { return o.From, o.Types, o.Dir }
func (o *VarLengthExpand) FirstHop() (int, []string, Direction) {
	return o.From, o.Types, o.Dir
}
func (o *ExpandIntersect) FirstHop() (int, []string, Direction) { return o.First.FirstHop() }
