package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
)

// TestCodeCallMatchesGeneral runs string functions of imported
// (dictionary-coded) STRING properties with rule code-call on and off:
// every answer and every error must agree, on the base as loaded (the
// coded path), after writes that leave rows the dictionary does not
// cover (new values, new nodes, removed values, deleted nodes: the
// general path for their batches), and inside a transaction with writes
// of its own. The plan must name the rule where it applies.
func TestCodeCallMatchesGeneral(t *testing.T) {
	in := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	words := []string{"Ada", "ada", " Alan ", "BARBARA", "Ñame", "ñandú", "", "x y z", "Grace Hopper", "42", "-7", "3.5", "true", "nope", "  "}
	var sb strings.Builder
	sb.WriteString("id:INT64,name:STRING,num:STRING,flag:STRING,mixed\n")
	const n = 6000
	for i := range n {
		name := words[rng.IntN(len(words))]
		if i%11 == 4 {
			name = "" // no value
		}
		num := []string{"1", "22", "-3", "4.5", "x", "", "007"}[rng.IntN(7)]
		flag := []string{"true", "false", "TRUE", "no", ""}[rng.IntN(5)]
		mixed := fmt.Sprint(rng.IntN(5))
		if i%3 == 0 {
			mixed = "s" + mixed
		}
		fmt.Fprintf(&sb, "%d,%q,%s,%s,%s\n", i, name, num, flag, mixed)
	}
	path := filepath.Join(in, "p.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(disabled []string) *engine.DB {
		dir := filepath.Join(t.TempDir(), "data")
		if _, err := engine.Import(engine.ImportOptions{Dir: dir, Nodes: []engine.ImportInput{{Name: "P", Path: path}}}); err != nil {
			t.Fatal(err)
		}
		db, err := engine.Open(dir, engine.Options{DisabledRules: disabled})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	on, off := open(nil), open([]string{"code-call"})
	queries := []struct {
		text   string
		params engine.Params
	}{
		{"MATCH (p:P) RETURN toLower(p.name) AS x, count(*) AS n ORDER BY x", nil},
		{"MATCH (p:P) RETURN p.id, toUpper(p.name), trim(p.name), lTrim(p.name), rTrim(p.name), size(p.name), length(p.name) ORDER BY p.id", nil},
		{"MATCH (p:P) RETURN p.id, substring(p.name, 1, 3), substring(p.name, $s), left(p.name, 2), right(p.name, 3), replace(p.name, 'a', '_') ORDER BY p.id", engine.Params{"s": int64(2)}},
		{"MATCH (p:P) RETURN p.id, toInteger(p.num), toFloat(p.num), toBoolean(p.flag), upper(p.flag), lower(p.num) ORDER BY p.id", nil},
		{"MATCH (p:P) RETURN p.id, p.name STARTS WITH 'A' AS a, p.name CONTAINS 'ñ' AS b, p.name ENDS WITH $e AS c ORDER BY p.id", engine.Params{"e": "a"}},
		{"MATCH (p:P) WHERE toLower(p.name) = 'ada' RETURN count(*)", nil},
		{"MATCH (p:P) WITH toInteger(p.num) AS k, count(*) AS c RETURN k, c ORDER BY k", nil},
		{"MATCH (p:P) RETURN toInteger(p.mixed) AS k, count(*) AS c ORDER BY k", nil},
		{"MATCH (p:P) RETURN p.id, toLower(p.mixed) ORDER BY p.id", nil},
		{"MATCH (p:P) RETURN substring(p.name, -1)", nil},
		{"MATCH (p:P) RETURN left(p.name, $k)", engine.Params{"k": int64(-2)}},
	}
	compare := func(stage string, qon, qoff querier) {
		t.Helper()
		for _, q := range queries {
			got, gerr := rowsOrError(qon, q.text, q.params)
			want, werr := rowsOrError(qoff, q.text, q.params)
			if !sameError(gerr, werr) || !slices.Equal(got, want) {
				t.Fatalf("%s: %s\nrule on:  %v %v\nrule off: %v %v", stage, q.text, firstRows(got), gerr, firstRows(want), werr)
			}
		}
	}
	compare("base", on, off)
	res, err := on.Query(context.Background(), "EXPLAIN MATCH (p:P) RETURN toLower(p.name)", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Plan().Rules, "code-call") {
		t.Fatalf("EXPLAIN rules %v, want code-call", res.Plan().Rules)
	}
	res.Close()
	writes := []string{
		"MATCH (p:P) WHERE p.id % 97 = 1 SET p.name = 'Fresh ' + toString(p.id)",
		"MATCH (p:P) WHERE p.id % 101 = 2 REMOVE p.name",
		"MATCH (p:P) WHERE p.id % 89 = 3 SET p.name = p.id",
		"MATCH (p:P) WHERE p.id % 103 = 5 DETACH DELETE p",
		"UNWIND range(1, 700) AS i CREATE (:P {id: 100000 + i, name: CASE i % 3 WHEN 0 THEN 'ada' ELSE 'New' + toString(i) END, num: toString(i), flag: 'true', mixed: i})",
	}
	for _, w := range writes {
		mustQuery(t, on, w, nil)
		mustQuery(t, off, w, nil)
	}
	compare("after writes", on, off)
	var txs [2]*engine.Transaction
	for i, db := range []*engine.DB{on, off} {
		tx, err := db.BeginTransaction(engine.TransactionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		mustQuery(t, tx, "MATCH (p:P) WHERE p.id % 7 = 0 SET p.name = toUpper(toString(p.name)) + '!'", nil)
		txs[i] = tx
	}
	compare("in a transaction", txs[0], txs[1])
}

// rowsOrError runs q to the end: its rows, or its error.
func rowsOrError(db querier, q string, params engine.Params) ([]string, error) {
	res, err := db.Query(context.Background(), q, params)
	if err != nil {
		return nil, err
	}
	return drain(res)
}

// sameError reports whether a and b are both nil or carry the same code.
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ea, oka := errs.As(a)
	eb, okb := errs.As(b)
	return oka && okb && ea.Code == eb.Code
}

// firstRows is rows cut to a readable length.
func firstRows(rows []string) []string { return rows[:min(len(rows), 8)] }
