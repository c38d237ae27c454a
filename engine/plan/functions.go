package plan

import "github.com/quiverdb/quiver/vector"

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
	"outdegree":     {1, 1, vector.Int64, "", "outdegree(n) — number of outgoing relationships"},
	"indegree":      {1, 1, vector.Int64, "", "indegree(n) — number of incoming relationships"},
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
	"abs":   {1, 1, vector.Any, "", "abs(x)"},
	"ceil":  {1, 1, vector.Float64, "", "ceil(x)"},
	"floor": {1, 1, vector.Float64, "", "floor(x)"},
	"round": {1, 1, vector.Float64, "", "round(x) — half away from zero"},
	"sign":  {1, 1, vector.Int64, "", "sign(x)"},
	"sqrt":  {1, 1, vector.Float64, "", "sqrt(x)"},
	"pow":   {2, 2, vector.Float64, "", "pow(x, y)"},
	"log":   {1, 1, vector.Float64, "", "log(x) — natural logarithm"},
	"log10": {1, 1, vector.Float64, "", "log10(x)"},
	"exp":   {1, 1, vector.Float64, "", "exp(x)"},
	"sin":   {1, 1, vector.Float64, "", "sin(x)"},
	"cos":   {1, 1, vector.Float64, "", "cos(x)"},
	"tan":   {1, 1, vector.Float64, "", "tan(x)"},
	"rand":  {0, 0, vector.Float64, "", "rand() — uniform in [0, 1)"},
	"pi":    {0, 0, vector.Float64, "", "pi()"},
	"e":     {0, 0, vector.Float64, "", "e()"},
	// lists
	"head":  {1, 1, vector.Any, "", "head(list)"},
	"last":  {1, 1, vector.Any, "", "last(list)"},
	"tail":  {1, 1, vector.Any, "LIST", "tail(list)"},
	"range": {2, 3, vector.Any, "LIST", "range(start, end[, step]) — inclusive"},
	// conversion and null handling
	"tointeger": {1, 1, vector.Int64, "", "toInteger(x)"},
	"tofloat":   {1, 1, vector.Float64, "", "toFloat(x)"},
	"tostring":  {1, 1, vector.String, "", "toString(x)"},
	"toboolean": {1, 1, vector.Bool, "", "toBoolean(x)"},
	"coalesce":  {1, 1 << 16, vector.Any, "", "coalesce(x, …) — the first non-null argument"},
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
