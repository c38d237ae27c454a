package quiver_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestArchitectureOperators checks that docs/architecture.md's operator
// table names every plan operator, and nothing else: a new operator
// without a row fails it, as does a row left behind by a removed one.
// The operators are the types of engine/plan with plan.Operator's
// Columns and Describe methods, found in the package's source.
func TestArchitectureOperators(t *testing.T) {
	ops := planOperators(t, "engine/plan")
	if len(ops) < 20 {
		t.Fatalf("found %d plan operators (%v): the scan of engine/plan is broken", len(ops), ops)
	}
	data, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := operatorRows(string(data))
	if len(rows) == 0 {
		t.Fatal("docs/architecture.md has no operator table under its \"## Operators\" heading")
	}
	for _, op := range ops {
		if !rows[op] {
			t.Errorf("docs/architecture.md's operator table has no row for plan.%s", op)
		}
	}
	for name := range rows {
		if !slices.Contains(ops, name) {
			t.Errorf("docs/architecture.md's operator table names %s, which is not a plan operator", name)
		}
	}
}

// operatorMethods are methods of plan.Operator that only operators have
// (Describe returns a plan.Description): a type of the package with both
// is an operator. How an operator exposes its inputs is left out, so the
// check holds however that is spelled.
var operatorMethods = []string{"Columns", "Describe"}

// planOperators returns the names of the types declared in the
// non-test files of dir that have every method of operatorMethods.
func planOperators(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	methods := map[string]map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			typ := receiverName(fn.Recv.List[0].Type)
			if typ == "" {
				continue
			}
			if methods[typ] == nil {
				methods[typ] = map[string]bool{}
			}
			methods[typ][fn.Name.Name] = true
		}
	}
	var ops []string
	for name, ms := range methods {
		all := true
		for _, m := range operatorMethods {
			all = all && ms[m]
		}
		if all {
			ops = append(ops, name)
		}
	}
	slices.Sort(ops)
	return ops
}

// receiverName is the type name of a method's receiver (T or *T).
func receiverName(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// operatorRows returns the operators named in the first cell of the
// rows of the table under the "## Operators" heading of an architecture
// document: each name in backquotes (a row may name several, as
// "`Distinct`, `Skip`, `Limit`").
func operatorRows(doc string) map[string]bool {
	rows := map[string]bool{}
	in := false
	name := regexp.MustCompile("`([A-Za-z]+)`")
	for line := range strings.Lines(doc) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "## ") {
			in = line == "## Operators"
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			rows[m[1]] = true
		}
	}
	return rows
}
