package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// A registered procedure runs once per input row with that row's
// arguments; its rows multiply the input row, and a row for which it
// returns nothing disappears.
func TestRegisteredProcedurePerRow(t *testing.T) {
	db := openTestDB(t)
	var calls int
	err := db.RegisterProcedure(engine.ProcedureSignature{
		Name:    "test.repeat",
		Inputs:  []engine.ProcedureField{{Name: "s", Type: "STRING"}, {Name: "n", Type: "INTEGER"}},
		Outputs: []engine.ProcedureField{{Name: "i", Type: "INTEGER"}, {Name: "s2", Type: "STRING"}},
	}, func(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
		calls++
		s, _ := args[0].(string)
		n, _ := args[1].(int64)
		var rows [][]vector.Value
		for i := int64(0); i < n; i++ {
			rows = append(rows, []vector.Value{i, s + s})
		}
		return rows, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := mustQuery(t, db, "UNWIND [{s: 'a', n: 2}, {s: 'b', n: 0}, {s: 'c', n: 1}] AS p CALL test.repeat(p.s, p.n) YIELD i, s2 AS d RETURN p.s AS k, i, d", nil)
	want := []string{"'a' | 0 | 'aa'", "'a' | 1 | 'aa'", "'c' | 0 | 'cc'"}
	slices.Sort(got)
	if !slices.Equal(got, want) || calls != 3 {
		t.Fatalf("got %v after %d calls, want %v after 3", got, calls, want)
	}
	// Standalone, with arguments taken from the parameters of the same name.
	got = mustQuery(t, db, "CALL test.repeat", engine.Params{"s": "x", "n": int64(2)})
	if !slices.Equal(got, []string{"0 | 'xx'", "1 | 'xx'"}) {
		t.Fatalf("implicit arguments: %v", got)
	}
	// A value of the wrong type, known only when the query runs, is a
	// data error; one the binder sees is a compile-time error.
	_, err = queryAll(db, "UNWIND [1, 'x'] AS v CALL test.repeat(v, 1) YIELD i RETURN i", nil)
	if e, ok := engine.AsError(err); !ok || e.Code != "22000" {
		t.Fatalf("runtime type error: %v", err)
	}
	_, err = queryAll(db, "CALL test.repeat(1, 1)", nil)
	if e, ok := engine.AsError(err); !ok || e.Code != "42000" {
		t.Fatalf("compile-time type error: %v", err)
	}
}

// A void procedure keeps every input row once and ends a query.
func TestVoidProcedure(t *testing.T) {
	db := openTestDB(t)
	var seen []vector.Value
	err := db.RegisterProcedure(engine.ProcedureSignature{Name: "test.note", Inputs: []engine.ProcedureField{{Name: "v", Type: "ANY"}}},
		func(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
			seen = append(seen, args[0])
			return nil, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	got := mustQuery(t, db, "UNWIND [1, 2, 3] AS x CALL test.note(x * 10) RETURN x", nil)
	slices.Sort(got)
	if !slices.Equal(got, []string{"1", "2", "3"}) || len(seen) != 3 {
		t.Fatalf("rows %v, calls %v", got, seen)
	}
	if got := mustQuery(t, db, "UNWIND [4] AS x CALL test.note(x)", nil); len(got) != 0 || len(seen) != 4 {
		t.Fatalf("void call ending a query: rows %v, calls %v", got, seen)
	}
}

// An unknown procedure is 42S02 / UnknownProcedure with the nearest name
// suggested; a failing procedure's error reaches the caller.
func TestUnknownAndFailingProcedure(t *testing.T) {
	db := openTestDB(t)
	_, err := queryAll(db, "CALL db.lables()", nil)
	e, ok := engine.AsError(err)
	if !ok || e.Code != "42S02" || e.Category != "UnknownProcedure" || !strings.Contains(e.Suggestion, "db.labels") {
		t.Fatalf("err = %#v", err)
	}
	if err := db.RegisterProcedure(engine.ProcedureSignature{Name: "test.fail", Outputs: []engine.ProcedureField{{Name: "x", Type: "INTEGER"}}},
		func(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
			return nil, errors.New("boom")
		}); err != nil {
		t.Fatal(err)
	}
	_, err = queryAll(db, "CALL test.fail()", nil)
	if e, ok := engine.AsError(err); !ok || e.Code != "22000" || !strings.Contains(e.Message, "boom") {
		t.Fatalf("err = %v", err)
	}
	if err := db.RegisterProcedure(engine.ProcedureSignature{Name: "bad", Inputs: []engine.ProcedureField{{Name: "x", Type: "WHATEVER"}}},
		func(ctx context.Context, args []vector.Value) ([][]vector.Value, error) { return nil, nil }); err == nil {
		t.Fatal("an unknown field type was accepted")
	}
	if err := db.RegisterProcedure(engine.ProcedureSignature{Name: "bad", Inputs: []engine.ProcedureField{{Name: "x", Type: "ANY", Optional: true}, {Name: "y", Type: "ANY"}}},
		func(ctx context.Context, args []vector.Value) ([][]vector.Value, error) { return nil, nil }); err == nil ||
		!strings.Contains(err.Error(), "required input y follows an optional one") {
		t.Fatalf("a required input after an optional one: %v", err)
	}
}

// An optional input left out of a call, with parentheses or through
// implicit parameters, is null; given, it is passed.
func TestProcedureOptionalInput(t *testing.T) {
	db := openTestDB(t)
	err := db.RegisterProcedure(engine.ProcedureSignature{Name: "test.opt",
		Inputs:  []engine.ProcedureField{{Name: "a", Type: "INTEGER"}, {Name: "b", Type: "STRING", Optional: true}},
		Outputs: []engine.ProcedureField{{Name: "out", Type: "STRING"}}},
		func(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
			return [][]vector.Value{{fmt.Sprintf("%v/%v", args[0], args[1])}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q      string
		params engine.Params
		want   string
	}{
		{"CALL test.opt(1)", nil, "'1/<nil>'"},
		{"CALL test.opt(1, 'x')", nil, "'1/x'"},
		{"CALL test.opt", engine.Params{"a": int64(2)}, "'2/<nil>'"},
		{"CALL test.opt", engine.Params{"a": int64(2), "b": "y"}, "'2/y'"},
	} {
		rows, err := queryAll(db, c.q, c.params)
		if err != nil || len(rows) != 1 || rows[0] != c.want {
			t.Fatalf("%s %v: %q, %v; want %s", c.q, c.params, rows, err, c.want)
		}
	}
	for _, q := range []string{"CALL test.opt()", "CALL test.opt(1, 'x', 3)"} {
		if _, err := queryAll(db, q, nil); err == nil || !strings.Contains(err.Error(), "takes 1 to 2 arguments") {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func queryAll(db *engine.DB, q string, params engine.Params) ([]string, error) {
	res, err := db.Query(context.Background(), q, params)
	if err != nil {
		return nil, err
	}
	return drain(res)
}
