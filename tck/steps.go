package tck

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// QueryTimeout bounds every query a scenario runs; hangGrace is how much
// longer the runner waits for a query that ignores its deadline before it
// gives the scenario up (leaving the query's goroutine behind).
const (
	QueryTimeout = 10 * time.Second
	hangGrace    = 5 * time.Second
)

// scenario is the state of one running scenario: its own database, the
// parameters, and the outcome of the last query.
type scenario struct {
	graphs string // the TCK's graphs folder
	db     *engine.DB
	params engine.Params

	ran       bool
	err       error
	cols      []string
	rows      [][]string // canonical cells
	rowsFlat  [][]string // canonical cells, list elements sorted
	sideEffts sideEffects
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newScenario(graphs string) (*scenario, error) {
	db, err := engine.Open("", engine.Options{QueryTimeout: QueryTimeout, Parallelism: 1, Logger: quiet})
	if err != nil {
		return nil, err
	}
	return &scenario{graphs: graphs, db: db, params: engine.Params{}}, nil
}

func (s *scenario) register(ctx *godog.ScenarioContext) {
	ctx.Step(`^an empty graph$`, func() error { return nil })
	ctx.Step(`^any graph$`, func() error { return nil })
	ctx.Step(`^the ([\w-]+) graph$`, s.namedGraph)
	ctx.Step(`^having executed:$`, s.havingExecuted)
	ctx.Step(`^parameters are:$`, s.parametersAre)
	ctx.Step(`^there exists a procedure (.+?)\s*:$`, s.procedure)
	ctx.Step(`^executing query:$`, s.executing)
	ctx.Step(`^executing control query:$`, s.executing)
	ctx.Step(`^the result should be, in any order:$`, func(t *godog.Table) error { return s.result(t, false, false) })
	ctx.Step(`^the result should be, in order:$`, func(t *godog.Table) error { return s.result(t, true, false) })
	ctx.Step(`^the result should be \(ignoring element order for lists\):$`, func(t *godog.Table) error { return s.result(t, false, true) })
	ctx.Step(`^the result should be, in order \(ignoring element order for lists\):$`, func(t *godog.Table) error { return s.result(t, true, true) })
	ctx.Step(`^the result should be empty$`, s.resultEmpty)
	ctx.Step(`^no side effects$`, func() error { return s.sideEffects(nil) })
	ctx.Step(`^the side effects should be:$`, s.sideEffects)
	ctx.Step(`^an? (\w+) should be raised at (compile time|runtime|any time): (.+)$`, s.raised)
}

func (s *scenario) namedGraph(name string) error {
	text, err := os.ReadFile(filepath.Join(s.graphs, name, name+".cypher"))
	if err != nil {
		return fmt.Errorf("graph %s: %w", name, err)
	}
	return s.havingExecuted(&godog.DocString{Content: string(text)})
}

func (s *scenario) havingExecuted(doc *godog.DocString) error {
	_, _, err := s.run(doc.Content)
	if err != nil {
		return fmt.Errorf("setup query failed: %w", err)
	}
	return nil
}

func (s *scenario) parametersAre(t *godog.Table) error {
	for _, row := range t.Rows {
		if len(row.Cells) != 2 {
			return fmt.Errorf("a parameters row must have two cells")
		}
		v, err := parseLiteral(row.Cells[1].Value)
		if err != nil {
			return err
		}
		s.params[row.Cells[0].Value] = v
	}
	return nil
}

// executing runs the query under test, recording its rows or its error and
// the side effects it had on the graph.
func (s *scenario) executing(doc *godog.DocString) error {
	before := captureState(s.db)
	s.ran = true
	s.cols, s.rows, s.err = nil, nil, nil
	var res *queryResult
	res, s.err = s.runRows(doc.Content)
	if res != nil {
		s.cols, s.rows, s.rowsFlat = res.cols, res.rows, res.rowsFlat
	}
	s.sideEffts = diffStates(before, captureState(s.db))
	return nil
}

type queryResult struct {
	cols           []string
	rows, rowsFlat [][]string
}

// run runs a query to completion, guarding against one that hangs.
func (s *scenario) run(text string) ([]string, [][]string, error) {
	r, err := s.runRows(text)
	if r == nil {
		return nil, nil, err
	}
	return r.cols, r.rows, err
}

func (s *scenario) runRows(text string) (*queryResult, error) {
	type outcome struct {
		r   *queryResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := s.query(text)
		done <- outcome{r, err}
	}()
	select {
	case o := <-done:
		return o.r, o.err
	case <-time.After(QueryTimeout + hangGrace):
		return nil, fmt.Errorf("query did not stop within %v of its timeout", hangGrace)
	}
}

// query runs text and renders every cell canonically while the result's
// snapshot is still open.
func (s *scenario) query(text string) (*queryResult, error) {
	res, err := s.db.Query(context.Background(), text, s.params)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	r := &queryResult{}
	for _, c := range res.Columns() {
		r.cols = append(r.cols, c.Name)
	}
	plain := &canon{ents: res.Entities()}
	flat := &canon{ents: res.Entities(), sortLists: true}
	for {
		b, err := res.Next()
		if err != nil {
			return r, err
		}
		if b == nil {
			return r, nil
		}
		for i := 0; i < b.Rows(); i++ {
			row := b.Row(i)
			cells := make([]string, len(b.Cols))
			flatCells := make([]string, len(b.Cols))
			for c, v := range b.Cols {
				val := vector.Value(v.Get(row))
				cells[c] = plain.value(val)
				flatCells[c] = flat.value(val)
			}
			r.rows = append(r.rows, cells)
			r.rowsFlat = append(r.rowsFlat, flatCells)
		}
	}
}

func (s *scenario) needSuccess() error {
	if !s.ran {
		return fmt.Errorf("no query was executed")
	}
	if s.err != nil {
		return fmt.Errorf("query failed: %v", s.err)
	}
	return nil
}

// result compares the rows with the expected table: columns by name,
// cells canonically, in order or as a multiset.
func (s *scenario) result(t *godog.Table, ordered, flatLists bool) error {
	if err := s.needSuccess(); err != nil {
		return err
	}
	if len(t.Rows) == 0 {
		return fmt.Errorf("an expected result table needs a header")
	}
	var header []string
	for _, c := range t.Rows[0].Cells {
		header = append(header, c.Value)
	}
	if !slices.Equal(header, s.cols) {
		return fmt.Errorf("columns %v, want %v", s.cols, header)
	}
	c := &canon{sortLists: flatLists}
	var want []string
	for _, row := range t.Rows[1:] {
		cells := make([]string, len(row.Cells))
		for i, cell := range row.Cells {
			v, err := parseLiteral(cell.Value)
			if err != nil {
				return err
			}
			cells[i] = c.value(v)
		}
		want = append(want, strings.Join(cells, " | "))
	}
	rows := s.rows
	if flatLists {
		rows = s.rowsFlat
	}
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r, " | "))
	}
	if !ordered {
		slices.Sort(want)
		slices.Sort(got)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("rows differ:\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
	return nil
}

func (s *scenario) resultEmpty() error {
	if err := s.needSuccess(); err != nil {
		return err
	}
	if len(s.rows) != 0 {
		return fmt.Errorf("want no rows, got %d (first: %s)", len(s.rows), strings.Join(s.rows[0], " | "))
	}
	return nil
}

func (s *scenario) sideEffects(t *godog.Table) error {
	if !s.ran {
		return fmt.Errorf("no query was executed")
	}
	want := sideEffects{}
	if t != nil {
		for _, row := range t.Rows {
			if len(row.Cells) != 2 {
				return fmt.Errorf("a side-effects row must have two cells")
			}
			var n int
			if _, err := fmt.Sscan(row.Cells[1].Value, &n); err != nil {
				return err
			}
			want[row.Cells[0].Value] = n
		}
	}
	return checkSideEffects(s.sideEffts, want)
}

// raised checks that the query failed with an error of the TCK's class;
// see errorMatches for the mapping to Quiver's codes.
func (s *scenario) raised(class, phase, detail string) error {
	if !s.ran {
		return fmt.Errorf("no query was executed")
	}
	if s.err == nil {
		return fmt.Errorf("want a %s (%s), the query succeeded", class, detail)
	}
	e, ok := engine.AsError(s.err)
	if !ok {
		return fmt.Errorf("want a %s (%s), got a non-engine error: %v", class, detail, s.err)
	}
	if !errorMatches(class, phase, e.Code) {
		return fmt.Errorf("want a %s (%s), got %s %s: %s", class, detail, e.Code, e.Category, oneLine(e.Error()))
	}
	// The engine does not say when an error arose, but one that follows
	// delivered rows surely arose at run time.
	if phase == "compile time" && len(s.rows) > 0 {
		return fmt.Errorf("want a %s (%s) at compile time, got it at run time after %d rows: %s", class, detail, len(s.rows), oneLine(e.Error()))
	}
	return nil
}

// errorMatches maps a TCK error class to the ISO status codes that stand
// for it in Quiver. The TCK's detail (e.g. UndefinedVariable) is not
// checked: Quiver's codes are coarser. 0A000 (feature not supported)
// never matches.
func errorMatches(class, phase, code string) bool {
	if code == "0A000" {
		return false
	}
	compile := strings.HasPrefix(code, "42")
	data := strings.HasPrefix(code, "22")
	switch class {
	case "SyntaxError":
		// One raised at run time is about a value the text does not fix
		// (a parameter's, as in SKIP $negative): data, 22xxx in Quiver.
		return compile || (data && phase == "runtime")
	case "SemanticError", "ProcedureError":
		return compile
	case "TypeError":
		// A type error the binder finds before running is a compile-time
		// error in Quiver (42000).
		return data || (compile && phase != "runtime")
	case "ArgumentError", "EntityNotFound":
		return data
	case "ParameterMissing":
		return code == "22023" || code == "42000"
	case "ConstraintVerificationFailed":
		return code == "23000"
	}
	return false
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
