package plan

import (
	"fmt"
	"strings"
)

// The updating operators other than Create: SET and REMOVE (Update),
// DELETE (Delete), MERGE (Merge), and the Eager barrier that gives
// updates Cypher's clause-at-a-time semantics.

// UpdateKind is what one SET or REMOVE item does.
type UpdateKind uint8

// Update item kinds.
const (
	// SetProp is SET e.key = Value (a null value removes the property).
	SetProp UpdateKind = iota
	// SetAll is SET e = Value: the map (or the properties of the entity)
	// Value evaluates to replaces every property.
	SetAll
	// SetMerge is SET e += Value: the map's keys are set, null values
	// remove, other properties stay.
	SetMerge
	// SetLabels is SET e:L1:L2.
	SetLabels
	// RemoveProp is REMOVE e.key.
	RemoveProp
	// RemoveLabels is REMOVE e:L1:L2.
	RemoveLabels
)

// UpdateItem is one item of SET or REMOVE (or of MERGE's ON CREATE / ON
// MATCH). Entity evaluates to the node or relationship changed; a null
// entity (an unmatched OPTIONAL MATCH) is skipped.
type UpdateItem struct {
	Kind   UpdateKind
	Entity Expr
	Key    string
	Value  Expr
	Labels []string
}

// Update applies its items, in order, to every input row; rows pass
// through unchanged.
type Update struct {
	Physical
	Input Operator
	Items []UpdateItem
	// Remove tells REMOVE from SET, for plans.
	Remove bool
}

// Delete deletes, for every input row, the nodes, relationships, paths
// and lists of them its expressions evaluate to. A node that still has
// relationships is an error unless Detach. Rows pass through.
type Delete struct {
	Physical
	Input  Operator
	Exprs  []Expr
	Detach bool
}

// Merge matches its pattern for each input row, or creates it when there
// is no match, one row at a time so that a row sees what earlier rows
// created. Match is planned over Arg (the input's columns); its columns
// are the Merge's output. Create is planned over Arg as well; From maps
// each output column past the input's to the Create column holding the
// same variable (-1: none, the column is null on the create path).
type Merge struct {
	Physical
	Input    Operator
	Arg      *Argument
	Match    Operator
	Create   Operator // a Create, under a Project when the path is named
	From     []int
	OnMatch  []UpdateItem
	OnCreate []UpdateItem
	Cols     []Column
}

// Eager runs its input to completion before it returns the first row:
// the barrier between an updating clause and the clauses around it, so
// that a clause never sees part of another clause's writes.
type Eager struct{ Input Operator }

func (o *Update) Columns() []Column { return o.Input.Columns() }
func (o *Delete) Columns() []Column { return o.Input.Columns() }
func (o *Merge) Columns() []Column  { return o.Cols }
func (o *Eager) Columns() []Column  { return o.Input.Columns() }

func (o *Update) Children() []Operator { return one(&o.Input) }
func (o *Delete) Children() []Operator { return one(&o.Input) }
func (o *Merge) Children() []Operator  { return one(&o.Input) }
func (o *Eager) Children() []Operator  { return one(&o.Input) }

func (o *Update) SetChild(i int, c Operator) { o.Input = only(i, c) }
func (o *Delete) SetChild(i int, c Operator) { o.Input = only(i, c) }
func (o *Merge) SetChild(i int, c Operator)  { o.Input = only(i, c) }
func (o *Eager) SetChild(i int, c Operator)  { o.Input = only(i, c) }

func (o *Update) Describe() Description {
	d := Description{Name: "Update", Verb: "Set", Args: itemsText(o.Items)}
	if o.Remove {
		d.Verb = "Remove"
	}
	return d
}

func (o *Delete) Describe() Description {
	var es []string
	for _, e := range o.Exprs {
		es = append(es, e.String())
	}
	d := Description{Name: "Delete", Args: strings.Join(es, ", ")}
	if o.Detach {
		d.Verb = "DetachDelete"
	}
	return d
}

func (o *Merge) Describe() Description {
	var parts []string
	if len(o.OnMatch) > 0 {
		parts = append(parts, "on match "+itemsText(o.OnMatch))
	}
	if len(o.OnCreate) > 0 {
		parts = append(parts, "on create "+itemsText(o.OnCreate))
	}
	return Description{Name: "Merge", Args: strings.Join(parts, " ")}
}

func (*Eager) Describe() Description { return Description{Name: "Eager"} }

func itemsText(items []UpdateItem) string {
	var out []string
	for _, it := range items {
		switch it.Kind {
		case SetProp:
			out = append(out, fmt.Sprintf("%s.%s = %s", it.Entity, it.Key, it.Value))
		case SetAll:
			out = append(out, fmt.Sprintf("%s = %s", it.Entity, it.Value))
		case SetMerge:
			out = append(out, fmt.Sprintf("%s += %s", it.Entity, it.Value))
		case SetLabels, RemoveLabels:
			out = append(out, it.Entity.String()+":"+strings.Join(it.Labels, ":"))
		case RemoveProp:
			out = append(out, fmt.Sprintf("%s.%s", it.Entity, it.Key))
		}
	}
	return strings.Join(out, ", ")
}
