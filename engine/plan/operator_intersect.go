package plan

// ExpandIntersect is two expansions that close a cycle, fused: First
// binds a new node c from column First.From, and Close (whose Input is
// First) keeps the rows where a relationship joins c to the node already
// bound in column Close.Into. The executor does not emit every c to look
// for the closing relationship row by row: it intersects First.From's
// neighbour list with the Into node's list the other way, both sorted by
// node id, so each input row costs the two lists (or a binary search of
// the shorter into the longer) instead of a closing lookup per
// candidate, as a worst-case optimal join's multiway intersection does
// (rules.go, RuleExpandIntersect). Its columns are Close's: the input's,
// then First's relationship and c, then Close's relationship.
type ExpandIntersect struct {
	Physical
	First, Close *Expand
}

func (o *ExpandIntersect) Columns() []Column    { return o.Close.Cols }
func (o *ExpandIntersect) Children() []Operator { return []Operator{o.First.Input} }

// SetChild replaces the input of First, which is the fused pair's input.
func (o *ExpandIntersect) SetChild(i int, c Operator) { o.First.Input = only(i, c) }

func (o *ExpandIntersect) Describe() Description {
	first, closing := o.First.Describe(), o.Close.Describe()
	return Description{Name: "ExpandIntersect", Args: first.Args + " ∩ " + closing.Args, Pattern: first.Pattern + ", " + closing.Pattern}
}
