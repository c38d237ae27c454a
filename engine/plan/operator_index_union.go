package plan

import (
	"fmt"
	"strings"
)

// IndexUnion produces the nodes of a scan without a single label, when a
// Filter above constrains a property indexed on some labels: the union of
// one IndexSeek per indexed label and, read as a scan would, the nodes no
// seek covers that hold Key (opt/index_union.go). It replaces a NodeScan
// with no labels: `MATCH (m {id: $x})`, or `MATCH (m) WHERE m:Post|Comment
// AND m.id = $x` (Any lists the labels of such a disjunction; the Filter
// keeps the test). As for an IndexSeek, the Filter stays above, so the
// union only has to return a superset of the matching nodes.
//
// Which nodes can match: every live node (Any empty: a pattern without a
// label matches unlabelled nodes too) or every node with one of Any's
// labels. Each seek returns the matches among its label's nodes; those
// nodes are covered. Of the rest, only a node holding Key can satisfy the
// predicate on it, so the residual is the uncovered nodes holding Key. A
// seek whose index is gone when the query runs, or whose values the index
// cannot compare, covers nothing: its label's nodes fall to the residual.
type IndexUnion struct {
	Var   string
	Any   []string
	Seeks []*IndexSeek // Labels: the one label the seek's index is on
	Key   string
	Cols  []Column
}

func (o *IndexUnion) Columns() []Column        { return o.Cols }
func (*IndexUnion) Children() []Operator       { return nil }
func (*IndexUnion) SetChild(i int, _ Operator) { noChild(i) }

// Indexes are the names of the seeks' indexes, in the seeks' order.
func (o *IndexUnion) Indexes() []string {
	names := make([]string, len(o.Seeks))
	for i, s := range o.Seeks {
		names[i] = s.Index
	}
	return names
}

// Detail renders the union as EXPLAIN shows it: "m:Post|Comment
// [index_post_id m.id = $x, index_comment_id m.id = $x] residual
// holding id".
func (o *IndexUnion) Detail() string {
	seeks := make([]string, len(o.Seeks))
	for i, s := range o.Seeks {
		seeks[i] = fmt.Sprintf("%s:%s %s %s", s.Labels[0], s.Type, s.Index, s.Condition())
	}
	return fmt.Sprintf("%s%s [%s] residual holding %s", o.Var, anyText(o.Any), strings.Join(seeks, ", "), o.Key)
}

func anyText(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	return ":" + strings.Join(labels, "|")
}

func (o *IndexUnion) Describe() Description {
	cond := ""
	if len(o.Seeks) > 0 {
		cond = o.Seeks[0].Condition()
	}
	return Description{Name: "IndexUnion", Args: o.Detail(), Label: strings.Join(o.Any, "|"),
		Index: strings.Join(o.Indexes(), ","), Filter: cond}
}

func (o *IndexUnion) estimated(k *coster, in estimate, kids []estimate) estimate {
	// The seeks' rows, plus a scan of the nodes of labels no seek
	// covers, at the default selectivity of an equality.
	var rows, cost float64
	covered := 0.0
	for _, s := range o.Seeks {
		e := s.estimated(k, in, nil)
		rows += e.rows
		cost += e.cost
		covered += float64(k.st.LabelNodes[s.Labels[0]])
	}
	all := k.labelRows(nil)
	if len(o.Any) > 0 {
		all = 0
		for _, l := range o.Any {
			all += float64(k.st.LabelNodes[l])
		}
	}
	rest := max(all-covered, 0)
	return estimate{rows: rows + rest*selEquality, cost: cost + rest}
}
