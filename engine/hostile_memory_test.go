package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// heapPeak returns, at stop, the most the live heap held above what was
// live at the start, as the collector measured it over two collections
// in a row: the smaller of two consecutive collections' live heaps, the
// largest such pair. A collection counts as live what is allocated while
// it marks, so a statement that makes garbage fast (a reduce
// concatenating a string a million times) shows a live heap of hundreds
// of megabytes in a collection whose mark phase a loaded machine
// stretched, garbage the next collection frees; memory a statement keeps
// stays live through the next one too. The sampler forces a collection
// when none came for collectEvery, so that what a statement keeps longer
// than two of them is seen.
func heapPeak() (stop func() int64) {
	const collectEvery = 20 * time.Millisecond
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	read := func() (int64, uint64) {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64()), sample[1].Value.Uint64()
	}
	base, cycle := read()
	var lives []int64 // each collection's live heap, in order
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		last := time.Now()
		for {
			live, c := read()
			if c != cycle {
				cycle, last = c, time.Now()
				lives = append(lives, live)
			} else if time.Since(last) > collectEvery {
				runtime.GC()
				last = time.Now()
				continue
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		wg.Wait()
		var peak int64
		for i := 1; i < len(lives); i++ {
			peak = max(peak, min(lives[i-1], lives[i])-base)
		}
		return peak
	}
}

// runCode runs a statement to its end and returns its error code ("" on
// success), its rows and how long it took.
func runCode(t *testing.T, q querier, text string, params engine.Params) (string, []string, time.Duration) {
	t.Helper()
	start := time.Now()
	res, err := q.Query(context.Background(), text, params)
	var rows []string
	if err == nil {
		rows, err = drain(res)
	}
	if err == nil {
		return "", rows, time.Since(start)
	}
	e, ok := engine.AsError(err)
	if !ok {
		t.Fatalf("%s: %v is not an engine error", text, err)
	}
	return e.Code, nil, time.Since(start)
}

// The findings of the hardening issue, at the engine: each statement
// answers with its code, promptly, and the heap stays within the
// statement's memory limit (plus what the test's own graph and the
// collector's slack take).
func TestHostileStatementsAreGoverned(t *testing.T) {
	const limit = 32 << 20
	db, err := engine.Open("", engine.Options{MaxMemoryPerQuery: limit, QueryTimeout: time.Second, MaxMemory: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A complete graph of 12 nodes: its trails are astronomically many.
	mustQuery(t, db, "UNWIND range(0, 11) AS i CREATE (:K {i: i})", nil)
	mustQuery(t, db, "MATCH (a:K), (b:K) WHERE a <> b CREATE (a)-[:E]->(b)", nil)
	cases := []struct {
		name, text string
		want       string
		within     time.Duration // how long the answer may take
		churn      bool          // allocates and drops at memcpy speed until its deadline
	}{
		{"doubling string", `RETURN size(reduce(s = "x", x IN range(1, 40) | s + s))`, "53200", time.Second, false},
		{"doubling list", `RETURN size(reduce(l = [1], x IN range(1, 40) | l + l))`, "53200", time.Second, false},
		{"replace bomb", `RETURN size(reduce(s = "x", x IN range(1, 40) | replace(s, "x", "xx")))`, "53200|40003", 2 * time.Second, false},
		{"huge range", `RETURN size(range(1, 60000000))`, "53200", time.Second, false},
		{"huge comprehension", `RETURN size([x IN range(1, 2000000) | toString(x)])`, "53200", time.Second, false},
		{"UNWIND product", `UNWIND range(1, 60000000) AS x UNWIND range(1, 60000000) AS y RETURN count(*)`, "40003", 2 * time.Second, false},
		{"all trails", `MATCH p = (a)-[*]->(b) RETURN count(p)`, "40003", 2 * time.Second, false},
		// Its 32 MB take 0.4–0.5 s alone; under CI's load (a 2-core
		// machine running the other packages' tests) once 1.02 s, past
		// the deadline: either stop is the governor's, and the heap
		// bound below still holds it to the limit.
		{"collected paths", `MATCH p = (a)-[*1..6]->(b) RETURN size(collect(p))`, "53200|40003", 2 * time.Second, false},
		{"quadratic reduce", `RETURN size(reduce(s = "", x IN range(1, 1000000) | s + "x"))`, "40003", 2 * time.Second, true},
		{"deep value", `RETURN size(reduce(a = [], x IN range(1, 100000) | [a]))`, "22000", time.Second, false},
		{"long sort", `UNWIND range(1, 30000000) AS x WITH x ORDER BY -x RETURN count(*)`, "53200|40003", 2 * time.Second, false},
		// Each collected string carries 200 bytes, so the limit is passed
		// after some 150,000 rows: at batch size 2 (the batch2 build) on a
		// loaded machine, 7-byte strings took more than the second the
		// deadline allows to reach it.
		{"collected subquery", `RETURN size(COLLECT { UNWIND range(1, 5000000) AS x RETURN toString(x) + '` + strings.Repeat("p", 200) + `' })`, "53200", 2 * time.Second, false},
		{"counted subquery", `RETURN COUNT { UNWIND range(1, 60000000) AS x UNWIND range(1, 60000000) AS y RETURN y }`, "40003", 2 * time.Second, false},
		// A CALL holds the joined rows of one input batch: 1024 outer rows
		// times 100,000 are past the memory limit, while at batch size 2
		// (the batch2 build) each batch's 200,000 rows are let go before the
		// next, and the statement streams until its deadline.
		{"joined subquery", `UNWIND range(1, 1000) AS i CALL (i) { UNWIND range(1, 100000) AS x RETURN toString(x) AS s } RETURN count(*)`, "53200|40003", 2 * time.Second, false},
	}
	for _, c := range cases {
		stop := heapPeak()
		code, _, took := runCode(t, db, c.text, nil)
		peak := stop()
		// "a|b": memory or time, whichever runs out first. Under the race
		// detector, ten times slower, a statement that runs out of memory
		// at full speed may meet its deadline first: either stop is the
		// governor's (the accounting itself is held by the other stages).
		// So at batch size 2 (the batch2 build), where a statement runs
		// through 512 times as many batches: on a loaded machine "collected
		// paths" met its second before its 32 MB.
		want := strings.Split(c.want, "|")
		if (raceBuild || vector.Capacity < 64) && slices.Contains(want, "53200") {
			want = append(want, "40003")
		}
		if !slices.Contains(want, code) {
			t.Errorf("%s: code %q, want %q", c.name, code, c.want)
		}
		if raceBuild {
			c.within *= 5 // the race detector slows everything down
		}
		if took > c.within {
			t.Errorf("%s: answered after %v, want within %v", c.name, took, c.within)
		}
		// The live heap may hold what the statement charged (up to the
		// limit), the garbage of the collector's pacing (GOGC 100: as
		// much again) and a batch's slack.
		// A statement that makes garbage at memcpy speed until its
		// deadline (the quadratic reduce: gigabytes a second, keeping
		// one string) shows more: a collection counts as live all that
		// is allocated while it marks, and on a loaded machine marking
		// stretches (seen: +135 and +158 MB under CI load, +40 MB quiet).
		// It gets twice the room; keeping every string it made would
		// exceed that within its first second (23,000 steps of its ~50,000).
		bound := int64(4 * limit)
		if c.churn {
			bound *= 2
		}
		if peak > bound && !(raceBuild && peak < 10*bound) {
			t.Errorf("%s: the heap grew by %d MB, limit %d MB", c.name, peak>>20, limit>>20)
		}
		t.Logf("%-20s %-6s %8v heap +%d MB", c.name, code, took.Round(time.Millisecond), peak>>20)
	}
	// The false positive a naive accountant has: a list grown one
	// element per step holds its last version only.
	db, err = engine.Open("", engine.Options{MaxMemoryPerQuery: limit, MaxMemory: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if code, rows, _ := runCode(t, db, `RETURN size(reduce(l = [], x IN range(1, 5000) | l + [x])) AS n`, nil); code != "" || len(rows) != 1 || rows[0] != "5000" {
		t.Errorf("growing a list: %q %v", code, rows)
	}
	if code, rows, _ := runCode(t, db, `RETURN size(reduce(a = [], x IN range(1, 900) | [a])) AS n`, nil); code != "" || rows[0] != "1" {
		t.Errorf("a value nested 900 deep: %q %v", code, rows)
	}
}

// balancedText joins terms pairwise with op, in parentheses, until one
// is left: a text of any length that stays under the parser's depth
// limit.
func balancedText(terms []string, op string) string {
	for len(terms) > 1 {
		next := make([]string, 0, (len(terms)+1)/2)
		for i := 0; i < len(terms); i += 2 {
			if i+1 < len(terms) {
				next = append(next, "("+terms[i]+op+terms[i+1]+")")
			} else {
				next = append(next, terms[i])
			}
		}
		terms = next
	}
	return terms[0]
}

// Issue 27, defect 2: an expression of tens of thousands of terms,
// balanced to stay under the depth limit, held a vector of a batch per
// node while it ran (38 KB a term: 2.3 GB for 60,000 ORed comparisons,
// 1.24 GB for a 1 MiB sum of ones), none of it charged. Now its nodes
// share their outputs and what they hold is charged: the heap grows by a
// few megabytes, and a statement limit below what the compiled tree
// holds fails with 53200.
func TestBalancedExpressionMemory(t *testing.T) {
	terms, sumTerms := 20000, 200000 // 0.3 MiB and 0.8 MiB of text
	if raceBuild {
		terms, sumTerms = 4000, 20000 // ten times slower
	}
	db, err := engine.Open("", engine.Options{MaxMemory: -1, MaxMemoryPerQuery: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustQuery(t, db, "UNWIND range(0, 2999) AS i CREATE (:P {v: i})", nil)
	conds := make([]string, terms)
	for i := range conds {
		conds[i] = fmt.Sprintf("p.v=%d", i)
	}
	or := "MATCH (p:P) WHERE " + balancedText(conds, " OR ") + " RETURN count(p) AS n"
	ones := make([]string, sumTerms)
	for i := range ones {
		ones[i] = "1"
	}
	sum := "RETURN " + balancedText(ones, "+") + " AS n"
	for _, c := range []struct {
		name, text, want string
	}{
		{"ORed comparisons", or, fmt.Sprint(min(terms, 3000))},
		{"sum of ones", sum, fmt.Sprint(sumTerms)},
	} {
		stop := heapPeak()
		res, err := db.Query(context.Background(), c.text, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rows, err := drain(res)
		grew := stop()
		if err != nil || len(rows) != 1 || rows[0] != c.want {
			t.Fatalf("%s: %v %v, want %s", c.name, rows, err, c.want)
		}
		charged := res.Summary().MemoryPeak
		t.Logf("%s (%d KiB of text): heap +%d MiB, charged %d MiB", c.name, len(c.text)>>10, grew>>20, charged>>20)
		// Before: 20 KiB a term, 400 MB for the ORs, 1.1 GB for the sum.
		// The text, its parse and plan stay live while it runs: about 100
		// bytes a byte of text.
		if bound := int64(64<<20 + 100*len(c.text)); grew > bound {
			t.Errorf("%s: the heap grew by %d MiB, want under %d MiB", c.name, grew>>20, bound>>20)
		}
		if charged < int64(terms)*100 {
			t.Errorf("%s: charged %d bytes, less than its compiled nodes hold", c.name, charged)
		}
	}
	// What the compiled tree holds counts against the statement's limit.
	s := db.NewSession()
	mustQuery(t, s, "SET max_memory_per_query = 1000000", nil)
	if code, _, _ := runCode(t, s, or, nil); code != "53200" {
		t.Errorf("the ORed comparisons under a 1 MB limit: code %q, want 53200", code)
	}
}

// Preparing and compiling a statement are linear in its text: four times
// the terms cost four times the allocations and four times the bytes
// allocated, for each kind of node the texts stack up (a walk
// over the tree at every node, or a text printed once per level, would
// cost sixteen). Times are logged, not judged: on a machine shared with
// other work they vary more than the factor sought.
func TestPrepareAndCompileAreLinear(t *testing.T) {
	db, err := engine.Open("", engine.Options{MaxMemory: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustQuery(t, db, "UNWIND range(1, 10) AS i CREATE (:P {v: i})", nil)
	texts := []struct {
		name string
		term func(i int) string
		op   string
		text func(expr string) string
		flat bool // joined as written, not balanced
	}{
		{"ORed comparisons", func(i int) string { return fmt.Sprintf("p.v=%d", i) }, " OR ",
			func(e string) string { return "MATCH (p:P) WHERE " + e + " RETURN count(p)" }, false},
		{"sum", func(int) string { return "1" }, "+", func(e string) string { return "RETURN " + e }, false},
		{"CASE sum", func(i int) string { return fmt.Sprintf("CASE WHEN p.v = %d THEN 1 ELSE 0 END", i) }, "+",
			func(e string) string { return "MATCH (p:P) RETURN " + e }, false},
		{"ANDed negations", func(i int) string { return fmt.Sprintf("NOT p.v = %d", i) }, " AND ",
			func(e string) string { return "MATCH (p:P) WHERE " + e + " RETURN count(p)" }, false},
		// The binder makes these a left-deep AND as deep as they are many:
		// the parser's depth limit does not see it.
		{"pattern properties", func(i int) string { return fmt.Sprintf("k%d: %d", i, i) }, ", ",
			func(e string) string { return "MATCH (p:P {" + e + "}) RETURN count(p)" }, true},
	}
	// cost runs the text and returns its allocations, in number and
	// bytes, and its time. The text carries a comment of its own, so that
	// it is no parse cache's hit (texts up to 8 KiB are kept).
	run := 0
	cost := func(text string) (mallocs, bytes uint64, took time.Duration) {
		run++
		text = fmt.Sprintf("%s /* %d */", text, run)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		res, err := db.Query(context.Background(), text, nil)
		if err == nil {
			_, err = drain(res)
		}
		took = time.Since(start)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc, took
	}
	small := 2500
	if raceBuild {
		small = 500
	}
	for _, c := range texts {
		var mallocs, bytes [2]uint64
		var took [2]time.Duration
		for k, n := range []int{small, 4 * small} {
			terms := make([]string, n)
			for i := range terms {
				terms[i] = c.term(i)
			}
			e := balancedText(terms, c.op)
			if c.flat {
				e = strings.Join(terms, c.op)
			}
			mallocs[k], bytes[k], took[k] = cost(c.text(e))
		}
		m, b := float64(mallocs[1])/float64(mallocs[0]), float64(bytes[1])/float64(bytes[0])
		t.Logf("%s: 4× the terms, %.1f× the allocations, %.1f× the bytes, %.1f× the time (%v)",
			c.name, m, b, float64(took[1])/float64(took[0]), took[1])
		if m > 5 || b > 6 {
			t.Errorf("%s: 4× the terms cost %.1f× the allocations, %.1f× the bytes", c.name, m, b)
		}
	}
}
