package plan

import (
	"math"
	"reflect"
	"strings"
)

// EXPLAIN describes operators it has no case for by reading their fields
// by name, so that an operator added to the plan shows a sensible pattern
// and estimate without a change here. The names read are the conventions
// of operator.go: Types, Dir, ToLabels, Min, Max (a variable-length
// range, negative Max for no bound), Pattern (the pattern as written).
// This runs once per operator per EXPLAIN, never during execution.

// displayNames renames operators whose type name is an abbreviation of
// the name the interface contract uses.
var displayNames = map[string]string{
	"VarLengthExpand": "VariableLengthExpand",
}

// maxHopsAssumed bounds the hops the model sums over for a
// variable-length pattern without an upper bound.
const maxHopsAssumed = 10

// field returns op's exported field name, if op is a pointer to a struct
// with one.
func field(op Operator, name string) (reflect.Value, bool) {
	v := reflect.ValueOf(op)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	f := v.Elem().FieldByName(name)
	return f, f.IsValid()
}

func stringField(op Operator, name string) string {
	if f, ok := field(op, name); ok && f.Kind() == reflect.String {
		return f.String()
	}
	return ""
}

func stringsField(op Operator, name string) []string {
	if f, ok := field(op, name); ok {
		if s, ok := f.Interface().([]string); ok {
			return s
		}
	}
	return nil
}

func intField(op Operator, name string) (int64, bool) {
	if f, ok := field(op, name); ok && f.CanInt() {
		return f.Int(), true
	}
	return 0, false
}

// genericPattern is an unknown operator's pattern: its Pattern field, or
// the pattern in its Format line for an expansion or path operator.
func genericPattern(op Operator, name, details string) string {
	if p := stringField(op, "Pattern"); p != "" {
		return anonymous.Replace(p)
	}
	if strings.Contains(name, "Expand") || strings.Contains(name, "Path") {
		return patternText(details)
	}
	return ""
}

// genericEstimate estimates an unknown operator that follows
// relationships (it has Types, Dir, Min and Max), or returns false.
//
// A shortest-path search (its name says Shortest) yields at most one
// chain per input row (the model assumes one) and may visit every node.
// A variable-length expansion yields in × Σ degree^h for h in Min..Max,
// times the fraction of nodes carrying each far-end label.
func (k *coster) genericEstimate(op Operator, in estimate) (estimate, bool) {
	minHops, ok1 := intField(op, "Min")
	maxHops, ok2 := intField(op, "Max")
	dirField, ok3 := field(op, "Dir")
	if !ok1 || !ok2 || !ok3 {
		return estimate{}, false
	}
	dir, ok := dirField.Interface().(Direction)
	if !ok {
		return estimate{}, false
	}
	if strings.Contains(OperatorName(op), "Shortest") {
		return estimate{rows: in.rows, cost: in.rows * k.nodes()}, true
	}
	if maxHops < 0 || maxHops > minHops+maxHopsAssumed {
		maxHops = minHops + maxHopsAssumed
	}
	deg := k.degree(stringsField(op, "Types"), dir)
	chains := 0.0
	for h := minHops; h <= maxHops; h++ {
		chains += math.Pow(deg, float64(h))
	}
	rows := in.rows * chains
	for _, l := range stringsField(op, "ToLabels") {
		rows *= float64(k.st.LabelNodes[l]) / k.nodes()
	}
	if into, ok := intField(op, "Into"); ok && into >= 0 {
		rows /= k.nodes() // the far end is a given node
	}
	return estimate{rows: rows, cost: in.rows + in.rows*chains}, true
}
