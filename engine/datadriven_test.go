package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// The query corpus: testdata/*.test files run against a fresh database
// each (with change capture on for the files named cdc*). A file is a sequence of blocks separated by blank lines:
//
//	# comment
//	statement ok              run a statement, expect success
//	statement error 42000     expect an error with this code
//	query [ordered]           run a query and compare its result
//	params {"n": 1}           (optional, after the directive) parameters as JSON
//	<query text, one or more lines>
//	----                      (query, or statement with counters)
//	col:TYPE | col:TYPE       header: column names and types ("(no columns)" for none)
//	1 | 'x'                   rows, as the TCK writes values
//
// A query's expected output may instead be `error CODE [LINE:COL]`. Rows
// compare as a bag unless the directive says ordered. Expected output of
// a statement, when given, is its write counters. A file's statements run
// in one session (a SET holds for the rest of the file); `reset` starts a
// new, empty database and session. After each successful statement the
// store's invariants are checked.
var rewrite = flag.Bool("rewrite", false, "rewrite expected outputs of testdata/*.test (review the diff!)")

func TestQueryCorpus(t *testing.T) {
	engine.CheckPlanCache(t)
	files, err := filepath.Glob("../testdata/*.test")
	if err != nil || len(files) == 0 {
		t.Fatalf("no query corpus found: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".test"), func(t *testing.T) { runCorpusFile(t, f) })
	}
}

type block struct {
	line      int
	directive string
	params    string
	query     []string
	expected  []string
	hasSep    bool
}

func parseBlocks(t *testing.T, path string) []*block {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []*block
	var cur *block
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && (strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#")):
		case cur == nil:
			cur = &block{line: n, directive: line}
			blocks = append(blocks, cur)
			if line == "reset" {
				cur = nil
			}
		case strings.TrimSpace(line) == "":
			cur = nil
		case line == "----" && !cur.hasSep:
			cur.hasSep = true
		case cur.hasSep:
			cur.expected = append(cur.expected, line)
		case strings.HasPrefix(line, "params ") && len(cur.query) == 0:
			cur.params = strings.TrimPrefix(line, "params ")
		default:
			cur.query = append(cur.query, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

func runCorpusFile(t *testing.T, path string) {
	blocks := parseBlocks(t, path)
	open := openTestDB
	if strings.HasPrefix(filepath.Base(path), "cdc") { // change capture on (docs/cdc.md)
		open = func(t *testing.T) *engine.DB {
			return openTestDBWith(t, engine.Options{CDCRetention: engine.CDCRetention{MaxAge: time.Hour}})
		}
	}
	db := open(t)
	s := db.NewSession()
	changed := false
	for _, b := range blocks {
		if b.directive == "reset" {
			db.Close() // now: its preallocated log segment is freed
			db = open(t)
			s = db.NewSession()
			continue
		}
		where := fmt.Sprintf("%s:%d", filepath.Base(path), b.line)
		got := runBlock(t, db, s, b, where)
		if got == nil {
			continue
		}
		ordered := strings.HasSuffix(b.directive, "ordered")
		if text := strings.Join(b.query, "\n"); strings.HasPrefix(b.directive, "query") && !writeClause.MatchString(text) {
			// A reading query runs again, on the plan its first run
			// cached, and answers the same.
			if again := runBlock(t, db, s, b, where); !equalOutput(again, got, ordered) {
				t.Errorf("%s: the second run differs\n%s\nfirst:\n%s\nsecond:\n%s", where, text, strings.Join(got, "\n"), strings.Join(again, "\n"))
			}
		}
		if equalOutput(got, b.expected, ordered) {
			continue
		}
		if *rewrite {
			b.expected, b.hasSep, changed = got, true, true
			continue
		}
		t.Errorf("%s: %s\n%s\ngot:\n%s\nwant:\n%s", where, b.directive, strings.Join(b.query, "\n"),
			strings.Join(got, "\n"), strings.Join(b.expected, "\n"))
	}
	if changed {
		writeBlocks(t, path, blocks)
	}
	// Reading queries ran twice, the second time on the cached plan:
	// it must be the plan a fresh run would make.
	for _, text := range engine.PlanCacheMismatches() {
		t.Errorf("after %s, a cached plan differs from a fresh plan of its statement: %s", filepath.Base(path), text)
	}
	// Statements share cached syntax trees: running them must leave the
	// trees as parsed.
	if trees := engine.ChangedParseTrees(); len(trees) > 0 {
		t.Errorf("after %s, %d cached syntax trees differ from a fresh parse of their text, first:\n%s",
			filepath.Base(path), len(trees), trees[0])
	}
}

// openTestDB opens a database in a fresh directory, closed when the test
// ends.
func openTestDB(t *testing.T) *engine.DB { return openTestDBWith(t, engine.Options{}) }

// openTestDBWith is openTestDB with options.
func openTestDBWith(t *testing.T, opts engine.Options) *engine.DB {
	t.Helper()
	db, err := engine.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// runBlock runs one block and returns its actual output, or nil when there
// is nothing to compare.
func runBlock(t *testing.T, db *engine.DB, s *engine.Session, b *block, where string) []string {
	params := engine.Params{}
	if b.params != "" {
		var raw map[string]any
		dec := json.NewDecoder(strings.NewReader(b.params))
		dec.UseNumber()
		if err := dec.Decode(&raw); err != nil {
			t.Fatalf("%s: bad params: %v", where, err)
		}
		for k, v := range raw {
			params[k] = fromJSON(v)
		}
	}
	text := strings.Join(b.query, "\n")
	var q querier = db // nil s: a session per statement
	if s != nil {
		q = s
	}
	res, err := q.Query(context.Background(), text, params)
	var rowsOut []string
	if err == nil {
		rowsOut, err = drain(res)
	}
	if err != nil {
		e, ok := engine.AsError(err)
		if !ok {
			t.Fatalf("%s: error is not an engine error: %v", where, err)
		}
		got := "error " + e.Code
		if e.Position != nil && len(b.expected) > 0 && strings.Count(b.expected[0], " ") == 2 {
			got += fmt.Sprintf(" %d:%d", e.Position.Line, e.Position.Column)
		}
		if strings.HasPrefix(b.directive, "statement ok") {
			t.Fatalf("%s: statement failed: %v\n%s", where, err, text)
		}
		if strings.HasPrefix(b.directive, "statement error") {
			if want := strings.TrimPrefix(b.directive, "statement error "); want != e.Code {
				t.Errorf("%s: error code %s (%v), want %s", where, e.Code, err, want)
			}
			return nil
		}
		return []string{got}
	}
	if err := db.Check(); err != nil {
		t.Fatalf("%s: store invariants broken after the statement: %v", where, err)
	}
	switch {
	case strings.HasPrefix(b.directive, "statement error"):
		t.Errorf("%s: statement succeeded, want %s", where, b.directive)
		return nil
	case strings.HasPrefix(b.directive, "statement ok"):
		if !b.hasSep {
			return nil
		}
		sum := res.Summary()
		if len(res.Columns()) > 0 || len(rowsOut) > 0 {
			t.Errorf("%s: statement returned columns or rows: %v %v", where, res.Columns(), rowsOut)
		}
		line := fmt.Sprintf("nodes_created: %d, relationships_created: %d, properties_set: %d, labels_added: %d, rows_affected: %d",
			sum.NodesCreated, sum.RelationshipsCreated, sum.PropertiesSet, sum.LabelsAdded, sum.RowsAffected)
		// Counters of updates and deletions are shown when one is set.
		if sum.NodesDeleted+sum.RelationshipsDeleted+sum.PropertiesRemoved+sum.LabelsRemoved > 0 {
			line += fmt.Sprintf(", nodes_deleted: %d, relationships_deleted: %d, properties_removed: %d, labels_removed: %d",
				sum.NodesDeleted, sum.RelationshipsDeleted, sum.PropertiesRemoved, sum.LabelsRemoved)
		}
		return []string{line}
	}
	header := make([]string, len(res.Columns()))
	for i, c := range res.Columns() {
		header[i] = c.Name + ":" + c.Type
	}
	if len(header) == 0 {
		header = []string{"(no columns)"}
	}
	return append([]string{strings.Join(header, " | ")}, rowsOut...)
}

func drain(res *engine.Result) ([]string, error) {
	defer res.Close()
	var out []string
	ents := res.Entities()
	for {
		b, err := res.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			cells := make([]string, len(b.Cols))
			for c, v := range b.Cols {
				cells[c] = formatValue(ents, v.Get(r))
			}
			out = append(out, strings.Join(cells, " | "))
		}
	}
	if got := res.Summary().RowsReturned; got != int64(len(out)) {
		return nil, fmt.Errorf("summary says %d rows returned, %d were", got, len(out))
	}
	return out, nil
}

func equalOutput(got, want []string, ordered bool) bool {
	if len(got) != len(want) {
		return false
	}
	if len(got) == 0 {
		return true
	}
	g, w := append([]string(nil), got[1:]...), append([]string(nil), want[1:]...)
	if !ordered {
		sort.Strings(g)
		sort.Strings(w)
	}
	if got[0] != want[0] {
		return false
	}
	for i := range g {
		if g[i] != w[i] {
			return false
		}
	}
	return true
}

func writeBlocks(t *testing.T, path string, blocks []*block) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	// Rebuild bottom-up so earlier line numbers stay valid.
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		if b.directive == "reset" {
			continue
		}
		start := b.line - 1
		end := start + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "" {
			end++
		}
		var nb []string
		nb = append(nb, b.directive)
		if b.params != "" {
			nb = append(nb, "params "+b.params)
		}
		nb = append(nb, b.query...)
		if b.hasSep {
			nb = append(nb, "----")
			nb = append(nb, b.expected...)
		}
		lines = append(lines[:start], append(nb, lines[end:]...)...)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fromJSON converts decoded JSON to engine parameter values.
func fromJSON(v any) vector.Value {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		out := make([]vector.Value, len(x))
		for i, e := range x {
			out[i] = fromJSON(e)
		}
		return out
	case map[string]any:
		out := make(map[string]vector.Value, len(x))
		for k, e := range x {
			out[k] = fromJSON(e)
		}
		return out
	}
	return v
}

// formatValue writes a value the way the openCypher TCK writes expected
// results.
func formatValue(ents engine.Entities, v vector.Value) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case string:
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(x) + "'"
	case []vector.Value:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = formatValue(ents, e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]vector.Value:
		return formatMap(ents, x)
	case vector.NodeRef:
		return formatNode(ents, uint64(x))
	case vector.RelRef:
		return formatRel(ents, uint64(x))
	case vector.Path:
		var sb strings.Builder
		sb.WriteString("<")
		sb.WriteString(formatNode(ents, x.Nodes[0]))
		for i, r := range x.Rels {
			_, start, _ := ents.Relationship(r)
			if start == x.Nodes[i] {
				sb.WriteString("-" + formatRel(ents, r) + "->")
			} else {
				sb.WriteString("<-" + formatRel(ents, r) + "-")
			}
			sb.WriteString(formatNode(ents, x.Nodes[i+1]))
		}
		sb.WriteString(">")
		return sb.String()
	}
	return fmt.Sprintf("%v", v)
}

func formatMap(ents engine.Entities, m map[string]vector.Value) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + formatValue(ents, m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func formatNode(ents engine.Entities, id uint64) string {
	labels := ents.NodeLabels(nil, id)
	sort.Strings(labels)
	props := map[string]vector.Value{}
	ents.NodeProperties(id, func(k string, v vector.Value) { props[k] = v })
	s := "("
	for _, l := range labels {
		s += ":" + l
	}
	if len(props) > 0 {
		if len(labels) > 0 {
			s += " "
		}
		s += formatMap(ents, props)
	}
	return s + ")"
}

func formatRel(ents engine.Entities, id uint64) string {
	typ, _, _ := ents.Relationship(id)
	props := map[string]vector.Value{}
	ents.RelationshipProperties(id, func(k string, v vector.Value) { props[k] = v })
	s := "[:" + typ
	if len(props) > 0 {
		s += " " + formatMap(ents, props)
	}
	return s + "]"
}
