package plan

import "strings"

// Description is what an operator says of itself, once, for every
// renderer: the plan printer (Format), EXPLAIN (explain.go) and PROFILE
// (engine/exec). Empty strings mean a field does not apply.
type Description struct {
	// Name is the operator's name as EXPLAIN and PROFILE show it.
	Name string
	// Verb, when set, starts the plan printer's line instead of Name: Set
	// and Remove are both an Update.
	Verb string
	// Args are the operator's arguments, as the plan printer writes them
	// after the name and EXPLAIN shows them as details.
	Args string
	// Pattern is the relationship pattern an expansion follows, as
	// "(a)-[r:KNOWS]->(b)" (anonymous variables left out).
	Pattern string
	// Label, Filter and Index describe a scan or a seek: the labels it
	// reads, a predicate applied while scanning, the index it uses.
	Label  string
	Filter string
	Index  string
}

// line is the plan printer's line for the operator.
func (d Description) line() string {
	verb := d.Name
	if d.Verb != "" {
		verb = d.Verb
	}
	if d.Args == "" {
		return verb
	}
	return verb + " " + d.Args
}

// OperatorName is the name EXPLAIN and PROFILE show for op.
func OperatorName(op Operator) string { return op.Describe().Name }

// anonymous drops the "_" the plan printer writes for anonymous variables
// from a pattern.
var anonymous = strings.NewReplacer("(_)", "()", "(_:", "(:", "[_]", "[]", "[_:", "[:", "[_*", "[*")

// labelList renders labels as a scan's label field: "Person" or
// "Person:Admin".
func labelList(labels []string) string { return strings.Join(labels, ":") }
