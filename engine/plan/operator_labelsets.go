package plan

// LabelSets yields the nodes of a scan grouped by their set of labels:
// one row per distinct label set among the scanned nodes, holding one of
// its nodes and the number of nodes with that set. An Aggregate that
// counts the rows of a node scan, grouped by keys that read the node only
// through labels(n), gets the same groups from these rows with its counts
// replaced by sums of the count column, since every node of a row's set
// gives the keys the same values (opt/label_sets.go, RuleLabelSets). When
// the scanned nodes carry too many distinct label sets to split by bitmap
// operations, the executor yields one row per node with a count of 1,
// which the Aggregate sums to the same counts.
type LabelSets struct {
	Var    string
	Labels []string
	Cols   []Column // the representative node, then the hidden count
}

func (o *LabelSets) Columns() []Column        { return o.Cols }
func (o *LabelSets) Children() []Operator     { return nil }
func (*LabelSets) SetChild(i int, _ Operator) { noChild(i) }

func (o *LabelSets) Describe() Description {
	return Description{Name: "LabelSets", Args: "(" + o.Var + labelText(o.Labels) + ") per label set", Label: labelList(o.Labels)}
}
