package plan_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/plan"
)

// everyOperator holds one value of each plan operator type. The test below
// checks it against the operator types the plan package declares (every
// type with a Children method), so a new operator cannot be left out.
var everyOperator = []plan.Operator{
	&plan.Unit{}, &plan.NodeScan{}, &plan.LabelScan{}, &plan.Expand{}, &plan.Filter{}, &plan.Project{},
	&plan.Aggregate{}, &plan.Sort{}, &plan.Distinct{}, &plan.Skip{}, &plan.Limit{},
	&plan.Unwind{}, &plan.Argument{}, &plan.Optional{}, &plan.CrossProduct{}, &plan.CallSubquery{},
	&plan.Create{}, &plan.ProcedureCall{}, &plan.CountExpand{}, &plan.IndexSeek{},
	&plan.HashJoin{}, &plan.IndexJoin{}, &plan.ExpandIntersect{}, &plan.LabelSets{}, &plan.IndexUnion{},
	&plan.Union{}, &plan.VarLengthExpand{}, &plan.ShortestPath{}, &plan.QuantifiedExpand{}, &plan.Update{},
	&plan.Delete{}, &plan.Merge{}, &plan.Eager{},
}

// TestEveryOperatorListed fails when the plan package declares an
// operator everyOperator does not hold.
func TestEveryOperatorListed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var declared []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Children" {
				continue
			}
			star, _ := fn.Recv.List[0].Type.(*ast.StarExpr)
			if id, ok := star.X.(*ast.Ident); ok {
				declared = append(declared, id.Name)
			}
		}
	}
	listed := map[string]bool{}
	for _, op := range everyOperator {
		listed[reflect.TypeOf(op).Elem().Name()] = true
	}
	sort.Strings(declared)
	for _, name := range declared {
		if !listed[name] {
			t.Errorf("plan.%s is an operator everyOperator does not list", name)
		}
	}
	if len(declared) != len(everyOperator) {
		t.Errorf("plan declares %d operators, everyOperator lists %d", len(declared), len(everyOperator))
	}
}

// filled is a new operator of op's type whose operator fields hold fresh
// leaves (two in a list of inputs), and whose operator-typed structs
// (ExpandIntersect's expansions) are filled likewise.
func filled(op plan.Operator) plan.Operator {
	v := reflect.New(reflect.TypeOf(op).Elem())
	fill(v.Elem())
	return v.Interface().(plan.Operator)
}

var operatorType = reflect.TypeOf((*plan.Operator)(nil)).Elem()

func fill(v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch {
		case f.Type() == operatorType:
			f.Set(reflect.ValueOf(plan.Operator(&plan.Unit{})))
		case f.Type() == reflect.SliceOf(operatorType):
			f.Set(reflect.ValueOf([]plan.Operator{&plan.Unit{}, &plan.Unit{}}))
		case f.Kind() == reflect.Pointer && f.Type().Implements(operatorType) && f.Type().Elem().Kind() == reflect.Struct:
			p := reflect.New(f.Type().Elem())
			fill(p.Elem())
			f.Set(p)
		}
	}
}

// TestEveryOperatorRebuilds replaces each input of every operator type
// and checks that the operator then reads the new input: a rewrite pass
// may never silently keep the old one.
func TestEveryOperatorRebuilds(t *testing.T) {
	for _, proto := range everyOperator {
		op := filled(proto)
		name := reflect.TypeOf(op).Elem().Name()
		for i, old := range op.Children() {
			n := &plan.Unit{}
			if !plan.ReplaceChild(op, old, n) {
				t.Errorf("%s: input %d cannot be replaced", name, i)
				continue
			}
			if got := op.Children()[i]; got != plan.Operator(n) {
				t.Errorf("%s: input %d is %p after its replacement by %p", name, i, got, n)
			}
		}
	}
}
