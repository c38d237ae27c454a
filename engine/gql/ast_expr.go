package gql

// Expr is an expression.
type Expr interface{ Position() Pos }

// Op is an operator.
type Op uint8

// Operators.
const (
	OpAdd Op = iota
	OpSub
	OpMul
	OpDiv
	OpMod
	OpPow
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpAnd
	OpOr
	OpXor
	OpNot
	OpNeg
	OpPlus
	OpStartsWith
	OpEndsWith
	OpContains
	OpRegex
	OpIn
)

var opText = [...]string{"+", "-", "*", "/", "%", "^", "=", "<>", "<", "<=", ">", ">=", "AND", "OR", "XOR", "NOT", "-", "+",
	"STARTS WITH", "ENDS WITH", "CONTAINS", "=~", "IN"}

func (o Op) String() string { return opText[o] }

type (
	// Literal is a constant: int64, float64, string, bool or nil.
	Literal struct {
		Pos   Pos
		Value any
	}
	// Param is $name.
	Param struct {
		Pos  Pos
		Name string
	}
	// Variable is a name.
	Variable struct {
		Pos  Pos
		Name string
	}
	// PropertyAccess is X.Key.
	PropertyAccess struct {
		Pos Pos
		X   Expr
		Key string
	}
	// LabelTest is X:L1:L2 (every label) or, with Any, X:L1|L2 (one of
	// them). A relationship's label is its type.
	LabelTest struct {
		Pos    Pos
		X      Expr
		Labels []string
		Any    bool
		Expr   *LabelExpr // any other label expression (then Labels is empty)
	}
	// IsNull is X IS [NOT] NULL.
	IsNull struct {
		Pos Pos
		X   Expr
		Not bool
	}
	// Unary is NOT X, -X or +X.
	Unary struct {
		Pos Pos
		Op  Op
		X   Expr
	}
	// Binary is L Op R for arithmetic, AND/OR/XOR, string predicates and IN.
	Binary struct {
		Pos  Pos
		Op   Op
		L, R Expr
	}
	// Comparison is a chain a op1 b op2 c.
	Comparison struct {
		Pos      Pos
		Operands []Expr
		Ops      []Op
	}
	// FuncCall is ns.name(args), with count(*) as Star.
	FuncCall struct {
		Pos       Pos
		Namespace []string
		Name      string
		Distinct  bool
		Star      bool
		Args      []Expr
	}
	// ListLit is [a, b].
	ListLit struct {
		Pos   Pos
		Elems []Expr
	}
	// MapLit is {k: v}.
	MapLit struct {
		Pos    Pos
		Keys   []string
		Values []Expr
	}
	// Index is X[I].
	Index struct {
		Pos  Pos
		X, I Expr
	}
	// Slice is X[From..To] with optional bounds.
	Slice struct {
		Pos      Pos
		X        Expr
		From, To Expr
	}
	// Case is CASE [Subject] WHEN .. THEN .. [ELSE ..] END.
	Case struct {
		Pos     Pos
		Subject Expr
		Whens   []Expr
		Thens   []Expr
		Else    Expr
	}
	// ListComprehension is [Var IN List WHERE Pred | Proj].
	ListComprehension struct {
		Pos  Pos
		Var  string
		List Expr
		Pred Expr
		Proj Expr
	}
	// Quantifier is any/all/none/single(Var IN List WHERE Pred).
	Quantifier struct {
		Pos  Pos
		Kind string
		Var  string
		List Expr
		Pred Expr
	}
	// PatternExpr is a pattern used as an expression (a predicate in WHERE).
	PatternExpr struct {
		Pos  Pos
		Part *PatternPart
	}
	// Reduce is reduce(Acc = Init, Var IN List | Expr).
	Reduce struct {
		Pos  Pos
		Acc  string
		Init Expr
		Var  string
		List Expr
		Expr Expr
	}
	// MapProjection is X{.key, key: expr, .*, var}.
	MapProjection struct {
		Pos   Pos
		X     *Variable
		Items []MapProjItem
	}
	// Exists is EXISTS { [MATCH] pattern [WHERE pred] }; EXISTS { a
	// query } is a Subquery (ast_subqueries.go).
	Exists struct {
		Pos     Pos
		Pattern *Pattern
		Where   Expr
	}
	// PatternComprehension is [[v =] pattern [WHERE Where] | Proj].
	PatternComprehension struct {
		Pos   Pos
		Part  *PatternPart
		Where Expr
		Proj  Expr
	}
)

// MapProjKind says what a map projection item adds.
type MapProjKind uint8

// Map projection items: .key, key: expr, .* and a variable.
const (
	MapProjProperty MapProjKind = iota
	MapProjLiteral
	MapProjAll
	MapProjVariable
)

// MapProjItem is one item of a map projection; Value is set for
// MapProjLiteral (the expression) and MapProjVariable (the variable).
type MapProjItem struct {
	Kind  MapProjKind
	Key   string
	Value Expr
}

func (e *Literal) Position() Pos           { return e.Pos }
func (e *Param) Position() Pos             { return e.Pos }
func (e *Variable) Position() Pos          { return e.Pos }
func (e *PropertyAccess) Position() Pos    { return e.Pos }
func (e *LabelTest) Position() Pos         { return e.Pos }
func (e *IsNull) Position() Pos            { return e.Pos }
func (e *Unary) Position() Pos             { return e.Pos }
func (e *Binary) Position() Pos            { return e.Pos }
func (e *Comparison) Position() Pos        { return e.Pos }
func (e *FuncCall) Position() Pos          { return e.Pos }
func (e *ListLit) Position() Pos           { return e.Pos }
func (e *MapLit) Position() Pos            { return e.Pos }
func (e *Index) Position() Pos             { return e.Pos }
func (e *Slice) Position() Pos             { return e.Pos }
func (e *Case) Position() Pos              { return e.Pos }
func (e *ListComprehension) Position() Pos { return e.Pos }
func (e *Quantifier) Position() Pos        { return e.Pos }
func (e *PatternExpr) Position() Pos       { return e.Pos }
func (e *Reduce) Position() Pos            { return e.Pos }
func (e *MapProjection) Position() Pos     { return e.Pos }
func (e *Exists) Position() Pos            { return e.Pos }
func (e *PatternComprehension) Position() Pos {
	return e.Pos
}

// Walk calls fn for e and, while fn returns true, for its sub-expressions.
func Walk(e Expr, fn func(Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	switch x := e.(type) {
	case *PropertyAccess:
		Walk(x.X, fn)
	case *LabelTest:
		Walk(x.X, fn)
	case *IsNull:
		Walk(x.X, fn)
	case *TypePredicate:
		Walk(x.X, fn)
	case *Cast:
		Walk(x.X, fn)
	case *Unary:
		Walk(x.X, fn)
	case *Binary:
		Walk(x.L, fn)
		Walk(x.R, fn)
	case *Comparison:
		for _, o := range x.Operands {
			Walk(o, fn)
		}
	case *FuncCall:
		for _, a := range x.Args {
			Walk(a, fn)
		}
	case *ListLit:
		for _, a := range x.Elems {
			Walk(a, fn)
		}
	case *MapLit:
		for _, a := range x.Values {
			Walk(a, fn)
		}
	case *Index:
		Walk(x.X, fn)
		Walk(x.I, fn)
	case *Slice:
		Walk(x.X, fn)
		Walk(x.From, fn)
		Walk(x.To, fn)
	case *Case:
		Walk(x.Subject, fn)
		for i := range x.Whens {
			Walk(x.Whens[i], fn)
			Walk(x.Thens[i], fn)
		}
		Walk(x.Else, fn)
	case *ListComprehension:
		Walk(x.List, fn)
		Walk(x.Pred, fn)
		Walk(x.Proj, fn)
	case *Quantifier:
		Walk(x.List, fn)
		Walk(x.Pred, fn)
	case *Reduce:
		Walk(x.Init, fn)
		Walk(x.List, fn)
		Walk(x.Expr, fn)
	case *MapProjection:
		Walk(x.X, fn)
		for _, it := range x.Items {
			Walk(it.Value, fn)
		}
	case *Exists:
		Walk(x.Where, fn)
	case *PatternComprehension:
		Walk(x.Where, fn)
		Walk(x.Proj, fn)
	}
}
