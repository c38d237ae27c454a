package plan

import (
	"strings"

	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// FuncSig describes a scalar function for binding: how many arguments it
// takes and its result type (vector.Any when it depends on the values),
// with Kind naming generic results the plan knows (LIST, MAP).
type FuncSig struct {
	Min, Max int
	T        vector.Type
	Kind     string
	Doc      string
}

// Functions are the scalar functions a query may call, by lower-case name.
// engine/exec implements each one; a test holds the two lists together.
var Functions = map[string]FuncSig{
	// graph
	"id":            {1, 1, vector.Int64, "", "id(n) — a node's or relationship's id"},
	"labels":        {1, 1, vector.Any, "LIST", "labels(n) — a node's labels"},
	"type":          {1, 1, vector.String, "", "type(r) — a relationship's type"},
	"keys":          {1, 1, vector.Any, "LIST", "keys(x) — property keys of a node, relationship or map"},
	"properties":    {1, 1, vector.Any, "MAP", "properties(x) — properties as a map"},
	"startnode":     {1, 1, vector.Node, "", "startNode(r) — a relationship's start node"},
	"endnode":       {1, 1, vector.Node, "", "endNode(r) — a relationship's end node"},
	"outdegree":     {1, 2, vector.Int64, "", "outdegree(n[, type]) — number of outgoing relationships"},
	"indegree":      {1, 2, vector.Int64, "", "indegree(n[, type]) — number of incoming relationships"},
	"nodes":         {1, 1, vector.Any, "LIST", "nodes(p) — a path's nodes"},
	"relationships": {1, 1, vector.Any, "LIST", "relationships(p) — a path's relationships"},
	// strings
	"upper":     {1, 1, vector.String, "", "upper(s)"},
	"toupper":   {1, 1, vector.String, "", "toUpper(s)"},
	"lower":     {1, 1, vector.String, "", "lower(s)"},
	"tolower":   {1, 1, vector.String, "", "toLower(s)"},
	"trim":      {1, 1, vector.String, "", "trim(s)"},
	"ltrim":     {1, 1, vector.String, "", "lTrim(s)"},
	"rtrim":     {1, 1, vector.String, "", "rTrim(s)"},
	"substring": {2, 3, vector.String, "", "substring(s, start[, length]) — 0-based, in characters"},
	"left":      {2, 2, vector.String, "", "left(s, n)"},
	"right":     {2, 2, vector.String, "", "right(s, n)"},
	"replace":   {3, 3, vector.String, "", "replace(s, search, replacement)"},
	"split":     {2, 2, vector.Any, "LIST", "split(s, delimiter)"},
	"concat":    {1, 1 << 16, vector.String, "", "concat(s1, s2, …)"},
	"reverse":   {1, 1, vector.Any, "", "reverse(s or list)"},
	"length":    {1, 1, vector.Int64, "", "length(s, list or path)"},
	"size":      {1, 1, vector.Int64, "", "size(list or s)"},
	// numbers
	"abs":      {1, 1, vector.Any, "", "abs(x)"},
	"ceil":     {1, 1, vector.Float64, "", "ceil(x)"},
	"floor":    {1, 1, vector.Float64, "", "floor(x)"},
	"round":    {1, 3, vector.Float64, "", "round(x[, precision[, mode]]) — half away from zero by default"},
	"sign":     {1, 1, vector.Int64, "", "sign(x)"},
	"sqrt":     {1, 1, vector.Float64, "", "sqrt(x)"},
	"pow":      {2, 2, vector.Float64, "", "pow(x, y)"},
	"log":      {1, 1, vector.Float64, "", "log(x) — natural logarithm"},
	"log10":    {1, 1, vector.Float64, "", "log10(x)"},
	"exp":      {1, 1, vector.Float64, "", "exp(x)"},
	"sin":      {1, 1, vector.Float64, "", "sin(x)"},
	"cos":      {1, 1, vector.Float64, "", "cos(x)"},
	"tan":      {1, 1, vector.Float64, "", "tan(x)"},
	"cot":      {1, 1, vector.Float64, "", "cot(x)"},
	"asin":     {1, 1, vector.Float64, "", "asin(x)"},
	"acos":     {1, 1, vector.Float64, "", "acos(x)"},
	"atan":     {1, 1, vector.Float64, "", "atan(x)"},
	"atan2":    {2, 2, vector.Float64, "", "atan2(y, x)"},
	"degrees":  {1, 1, vector.Float64, "", "degrees(x) — radians to degrees"},
	"radians":  {1, 1, vector.Float64, "", "radians(x) — degrees to radians"},
	"haversin": {1, 1, vector.Float64, "", "haversin(x) — half of 1 - cos(x)"},
	"isnan":    {1, 1, vector.Bool, "", "isNaN(x)"},
	"rand":     {0, 0, vector.Float64, "", "rand() — uniform in [0, 1)"},
	"pi":       {0, 0, vector.Float64, "", "pi()"},
	"e":        {0, 0, vector.Float64, "", "e()"},
	// lists
	"head":  {1, 1, vector.Any, "", "head(list)"},
	"last":  {1, 1, vector.Any, "", "last(list)"},
	"tail":  {1, 1, vector.Any, "LIST", "tail(list)"},
	"range": {2, 3, vector.Any, "LIST", "range(start, end[, step]) — inclusive"},
	// conversion and null handling
	"tointeger":       {1, 1, vector.Int64, "", "toInteger(x)"},
	"tofloat":         {1, 1, vector.Float64, "", "toFloat(x)"},
	"tostring":        {1, 1, vector.String, "", "toString(x)"},
	"toboolean":       {1, 1, vector.Bool, "", "toBoolean(x)"},
	"tointegerornull": {1, 1, vector.Int64, "", "toIntegerOrNull(x) — null where toInteger fails"},
	"tofloatornull":   {1, 1, vector.Float64, "", "toFloatOrNull(x) — null where toFloat fails"},
	"tostringornull":  {1, 1, vector.String, "", "toStringOrNull(x) — null where toString fails"},
	"tobooleanornull": {1, 1, vector.Bool, "", "toBooleanOrNull(x) — null where toBoolean fails"},
	"coalesce":        {1, 1 << 16, vector.Any, "", "coalesce(x, …) — the first non-null argument"},
}

// Operator functions implement operators that have no typed kernel; users
// cannot call them by name.
const (
	FnStartsWith = "#startswith"
	FnEndsWith   = "#endswith"
	FnContains   = "#contains"
	FnRegex      = "#regex"
	FnIn         = "#in"
	FnIndex      = "#index"
	FnSlice      = "#slice"
	FnCase       = "#case"
)

// Static argument kinds, for the compile-time argument type check. An
// argument whose kind the plan does not know (a property, a parameter-free
// generic value) is checked when the query runs.
type argKind uint16

const (
	kBool argKind = 1 << iota
	kInt
	kFloat
	kString
	kList
	kMap
	kNode
	kRel
	kPath
	kOther // types added later (temporal values)

	kNum    = kInt | kFloat
	kAll    = ^argKind(0)
	kScalar = kBool | kNum | kString | kOther
)

// funcArgs are the argument kinds each function accepts, by position; the
// last entry repeats for further arguments. Functions not listed take any
// argument.
var funcArgs = map[string][]argKind{
	"id": {kNode | kRel}, "labels": {kNode}, "type": {kRel},
	"keys": {kNode | kRel | kMap}, "properties": {kNode | kRel | kMap},
	"startnode": {kRel}, "endnode": {kRel},
	"outdegree": {kNode, kString}, "indegree": {kNode, kString},
	"nodes": {kPath}, "relationships": {kPath},

	"upper": {kString}, "toupper": {kString}, "lower": {kString}, "tolower": {kString},
	"trim": {kString}, "ltrim": {kString}, "rtrim": {kString},
	"substring": {kString, kInt}, "left": {kString, kInt}, "right": {kString, kInt},
	"replace": {kString}, "split": {kString, kString | kList}, "concat": {kString},
	"reverse": {kString | kList}, "length": {kString | kList | kPath}, "size": {kString | kList},

	"abs": {kNum}, "ceil": {kNum}, "floor": {kNum}, "round": {kNum, kInt, kString}, "sign": {kNum},
	"sqrt": {kNum}, "pow": {kNum}, "log": {kNum}, "log10": {kNum}, "exp": {kNum},
	"sin": {kNum}, "cos": {kNum}, "tan": {kNum}, "cot": {kNum}, "asin": {kNum}, "acos": {kNum},
	"atan": {kNum}, "atan2": {kNum}, "degrees": {kNum}, "radians": {kNum}, "haversin": {kNum},
	"isnan": {kNum},

	"head": {kList}, "last": {kList}, "tail": {kList},

	"tointeger": {kBool | kNum | kString}, "tofloat": {kNum | kString},
	"toboolean": {kBool | kInt | kString}, "tostring": {kScalar},
}

// kindOf is the static kind of an argument, 0 when unknown.
func kindOf(e Expr) argKind {
	switch t := e.Type(); t {
	case vector.Null:
		return 0
	case vector.Bool:
		return kBool
	case vector.Int64:
		return kInt
	case vector.Float64:
		return kFloat
	case vector.String:
		return kString
	case vector.Node:
		return kNode
	case vector.Rel:
		return kRel
	case vector.Any:
		switch KindOf(e) {
		case "LIST":
			return kList
		case "MAP":
			return kMap
		case "PATH":
			return kPath
		}
		return 0
	}
	return kOther
}

// CheckArgs reports the index of the first argument whose static type the
// function cannot take, or -1. Only arguments of a known type are checked.
func CheckArgs(name string, args []Expr) int {
	spec, ok := funcArgs[name]
	if !ok {
		return -1
	}
	for i, a := range args {
		k := kindOf(a)
		if k == 0 {
			continue
		}
		want := spec[min(i, len(spec)-1)]
		if k&want == 0 {
			return i
		}
	}
	return -1
}

// ResultType is a call's static result type and kind: the table's, made
// precise where the arguments' types decide it.
func ResultType(name string, args []Expr) (vector.Type, string) {
	sig := Functions[name]
	switch name {
	case "abs":
		if t := args[0].Type(); t == vector.Int64 || t == vector.Float64 {
			return t, ""
		}
	case "reverse":
		switch kindOf(args[0]) {
		case kString:
			return vector.String, ""
		case kList:
			return vector.Any, "LIST"
		}
	case "coalesce":
		// One common type (nulls aside) types the result.
		t, kind := vector.Null, ""
		for _, a := range args {
			at := a.Type()
			switch {
			case at == vector.Null:
				continue
			case t == vector.Null:
				t, kind = at, KindOf(a)
			case t != at || kind != KindOf(a):
				return vector.Any, ""
			}
		}
		if t == vector.Null {
			return vector.Any, ""
		}
		return t, kind
	}
	return sig.T, sig.Kind
}

// staticTypeName names an expression's static type for error messages.
func staticTypeName(e Expr) string {
	if e.Type() == vector.Any {
		if k := KindOf(e); k != "" {
			return k
		}
	}
	return e.Type().String()
}

// findCall reports the position of a call of function name (lower case)
// inside exprs.
func findCall(exprs []gql.Expr, name string) (gql.Pos, bool) {
	var found *gql.Pos
	for _, e := range exprs {
		gql.Walk(e, func(x gql.Expr) bool {
			if f, ok := x.(*gql.FuncCall); ok && found == nil && len(f.Namespace) == 0 && strings.EqualFold(f.Name, name) {
				p := f.Pos
				found = &p
			}
			return found == nil
		})
	}
	if found == nil {
		return gql.Pos{}, false
	}
	return *found, true
}
