package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// countCodesGraph imports n persons (label P, ids 0..n-1) and then m
// cities (label C, ids and node ids n..n+m-1: C's scanned ids start
// past 0), with names from a few words, every 13th without one, and an
// age i % 90; the last group of each label is a partly filled, open
// chunk. It returns the database and the names by label, "" for none.
func countCodesGraph(t *testing.T, n, m int) (*engine.DB, map[string][]string) {
	t.Helper()
	words := []string{"Ada Lovelace", "Ada Hopper", "Grace Hopper", "Alan Turing", "Barbara Liskov", "Ken Thompson", ""}
	names := map[string][]string{}
	in := t.TempDir()
	write := func(file, label string, first, count int) string {
		var b strings.Builder
		b.WriteString("id:INT64,name:STRING,age:INT64\n")
		for i := range count {
			name := words[(i*5+i/7)%len(words)]
			if i%13 == 0 {
				name = ""
			}
			names[label] = append(names[label], name)
			fmt.Fprintf(&b, "%d,%s,%d\n", first+i, name, i%90)
		}
		path := filepath.Join(in, file)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p, c := write("p.csv", "P", 0, n), write("c.csv", "C", n, m)
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := engine.Import(engine.ImportOptions{Dir: dir, Nodes: []engine.ImportInput{{Name: "P", Path: p}, {Name: "C", Path: c}}}); err != nil {
		t.Fatal(err)
	}
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, names
}

// TestCountCodes checks strategy count-codes (a count(*) of a node scan
// under one string test, counted from the column's codes) against the
// names themselves and against the query with rule code-match off: on the
// imported base, with a label whose ids start past 0, after a committed
// write (a chunk coded with a dictionary of its own), after a value of
// another type (the count goes to the general operators) and after a
// deletion that leaves a hole in the scanned ids. PROFILE names each
// fallback.
func TestCountCodes(t *testing.T) {
	const n, m = 3*2048 + 500, 2048 + 70
	db, names := countCodesGraph(t, n, m)
	ages := map[string][]int{}
	for l, ns := range names {
		for i := range ns {
			ages[l] = append(ages[l], i%90)
		}
	}
	// A check's group is its label, and "+age" when it has range terms;
	// test is the string test, ages the range (every age when nil).
	type check struct {
		query  string
		params engine.Params
		group  string
		test   func(string) bool
		ages   func(int) bool
	}
	checks := []check{
		{"MATCH (x:P) WHERE x.name CONTAINS 'Hop' RETURN count(*) AS c", nil, "P", func(s string) bool { return strings.Contains(s, "Hop") }, nil},
		{"MATCH (x:P) WHERE x.name STARTS WITH $p RETURN count(*) AS c", engine.Params{"p": "Ada"}, "P", func(s string) bool { return strings.HasPrefix(s, "Ada") }, nil},
		{"MATCH (x:P) WHERE x.name ENDS WITH '' RETURN count(*) AS c", nil, "P", func(string) bool { return true }, nil},
		{"MATCH (x:P) WHERE x.age >= 30 AND x.name STARTS WITH 'Ada' AND x.age < 60 RETURN count(*) AS c", nil, "P+age", func(s string) bool { return strings.HasPrefix(s, "Ada") }, func(a int) bool { return a >= 30 && a < 60 }},
		{"MATCH (x:P) WHERE x.name ENDS WITH '' AND x.age < 45 RETURN count(*) AS c", nil, "P+age", func(string) bool { return true }, func(a int) bool { return a >= 0 && a < 45 }},
		{"MATCH (x:C) WHERE x.name IN ['Alan Turing', 'Ken Thompson', 'nobody'] RETURN count(*) AS c", nil, "C", func(s string) bool { return s == "Alan Turing" || s == "Ken Thompson" }, nil},
		{"MATCH (x:C) WHERE x.name CONTAINS 'a' RETURN count(*) AS c", nil, "C", func(s string) bool { return strings.Contains(s, "a") }, nil},
		{"MATCH (x:C) WHERE x.name CONTAINS 'a' AND x.age > $lo RETURN count(*) AS c", engine.Params{"lo": int64(40)}, "C+age", func(s string) bool { return strings.Contains(s, "a") }, func(a int) bool { return a > 40 }},
	}
	label := func(c check) string { return c.group[:1] }
	count := func(q string, params engine.Params, off bool) (int64, []string) {
		t.Helper()
		engine.SetDisabledRules(db, nil)
		if off {
			engine.SetDisabledRules(db, []string{"code-match"})
		}
		defer engine.SetDisabledRules(db, nil)
		res, err := db.Query(context.Background(), "PROFILE "+q, params)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		rows, err := drain(res)
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s: %v rows, %v", q, rows, err)
		}
		var notes []string
		for _, op := range res.Profile().Operators {
			if op.Name == "Aggregate" {
				notes = append(notes, op.Fallbacks...)
			}
		}
		var c int64
		if _, err := fmt.Sscan(rows[0], &c); err != nil {
			t.Fatalf("%s: row %q", q, rows[0])
		}
		return c, notes
	}
	// stage runs every check; fallback is the count-codes note PROFILE
	// must show on the Aggregate of the checks of each group, or else of
	// each label (none for one not named).
	stage := func(name string, fallback map[string]string) {
		t.Helper()
		for _, c := range checks {
			want := int64(0)
			for i, s := range names[label(c)] {
				if s != "" && c.test(s) && (c.ages == nil || c.ages(ages[label(c)][i])) {
					want++
				}
			}
			got, notes := count(c.query, c.params, false)
			general, _ := count(c.query, c.params, true)
			if got != want || general != want {
				t.Fatalf("%s: %s = %d, with code-match off %d, want %d", name, c.query, got, general, want)
			}
			note := fallback[c.group]
			if note == "" {
				note = fallback[label(c)]
			}
			var own []string
			for _, x := range notes {
				if strings.HasPrefix(x, "count-codes: ") {
					own = append(own, x)
				}
			}
			if note == "" && len(own) > 0 || note != "" && !slices.Contains(own, "count-codes: "+note) {
				t.Errorf("%s: %s fell back %v, want %q", name, c.query, notes, note)
			}
		}
	}
	// The parallel mark stays for the general operators of a fallback.
	if got, rules := strategiesOf(t, db, checks[0].query, nil); !slices.Contains(strings.Split(got["Aggregate"], ", "), "count-codes") || !slices.Contains(rules, "count-codes") {
		t.Fatalf("EXPLAIN: Aggregate shows %q, rules %v, want count-codes", got["Aggregate"], rules)
	}
	stage("imported", nil)
	// A new name in a sealed chunk: the chunk is copied, written and
	// sealed again with a dictionary of its own.
	mustQuery(t, db, "MATCH (x:P {id: 100}) SET x.name = 'Grace Hopper Jr'", nil)
	names["P"][100] = "Grace Hopper Jr"
	stage("after a write", nil)
	// The deletion of a C node leaves a hole in C's ids.
	mustQuery(t, db, "MATCH (x:C {id: $id}) DELETE x", engine.Params{"id": int64(n + 5)})
	names["C"] = slices.Delete(names["C"], 5, 6)
	hole := "the scanned nodes are not one range of ids"
	stage("after a deletion", map[string]string{"C": hole})
	// A STRING among P's ages: no integer view for the range terms.
	mustQuery(t, db, "MATCH (x:P {id: 300}) SET x.age = 'old'", nil)
	ages["P"][300] = -1 // in no range of the checks
	stage("a string age", map[string]string{"C": hole, "P+age": "a column without an integer view"})
	// An INTEGER among P's names.
	mustQuery(t, db, "MATCH (x:P {id: 200}) SET x.name = 7", nil)
	names["P"][200] = ""
	stage("a value of another type", map[string]string{"C": hole, "P+age": "a column without an integer view", "P": "a value of another type than STRING"})
}

// TestCountCodesOnWorkers: a scan of more than eight morsels counts on the
// statement's workers, each over the ranges of ids it takes, and gives the
// count of the names themselves, at one worker and at four, with and
// without range terms, and after an INTEGER name sends the count to the
// general operators from whichever worker meets it. PROFILE notes why a
// count stayed on one goroutine, and nothing when it did not.
func TestCountCodesOnWorkers(t *testing.T) {
	const n = 9*8*1024 + 333 // P: past eight morsels of 8192 ids
	db, names := countCodesGraph(t, n, 10)
	checks := []struct {
		query string
		test  func(name string, age int) bool
	}{
		{"MATCH (x:P) WHERE x.name CONTAINS 'Hop' RETURN count(*) AS c", func(s string, _ int) bool { return strings.Contains(s, "Hop") }},
		{"MATCH (x:P) WHERE x.name STARTS WITH 'Ada' AND x.age >= 30 AND x.age < 60 RETURN count(*) AS c",
			func(s string, a int) bool { return strings.HasPrefix(s, "Ada") && a >= 30 && a < 60 }},
	}
	run := func(stage string, workers int, note string) {
		t.Helper()
		engine.SetParallelism(db, workers)
		defer engine.SetParallelism(db, 0)
		for _, c := range checks {
			want := int64(0)
			for i, s := range names["P"] {
				if s != "" && c.test(s, i%90) {
					want++
				}
			}
			res, err := db.Query(context.Background(), "PROFILE "+c.query, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.query, err)
			}
			rows, err := drain(res)
			if err != nil || len(rows) != 1 || rows[0] != fmt.Sprint(want) {
				t.Fatalf("%s, %d workers: %s: rows %v (%v), want %d", stage, workers, c.query, rows, err, want)
			}
			var notes []string
			for _, op := range res.Profile().Operators {
				if op.Name == "Aggregate" {
					notes = append(notes, op.Fallbacks...)
				}
			}
			if note == "" && len(notes) > 0 || note != "" && !slices.Contains(notes, note) {
				t.Errorf("%s, %d workers: %s: fallbacks %v, want %q", stage, workers, c.query, notes, note)
			}
		}
	}
	run("imported", 4, "")
	run("imported", 1, "parallel: one worker allowed")
	// An INTEGER name in the scan's last morsels.
	mustQuery(t, db, "MATCH (x:P {id: $id}) SET x.name = 7", engine.Params{"id": int64(n - 100)})
	names["P"][n-100] = ""
	run("a value of another type", 4, "count-codes: a value of another type than STRING")
	run("a value of another type", 1, "count-codes: a value of another type than STRING")
}
