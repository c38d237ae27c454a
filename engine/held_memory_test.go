package engine_test

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// heapObjectsPeak samples, every millisecond until stop, the bytes of
// heap objects (what is live and the garbage the collector has not freed
// yet: what the process holds of its heap) and returns the most it saw
// above what it held at the start.
func heapObjectsPeak() (stop func() int64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 { metrics.Read(sample); return int64(sample[0].Value.Uint64()) }
	base := read()
	var peak int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, read()-base)
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
		return peak
	}
}

// Issue 27, defect 5: the operators that keep rows charged the rows, not
// the room their growing arrays kept beside them, nor the arrays a growth
// copies from, nor a sort's permutation; at a 256 MiB limit collect(x)
// took the process to 2.8 times the limit and ORDER BY to 2.8 times. Now
// their arrays are charged by capacity, a growth before it allocates, and
// a sort keeps its rows in chunks until it has them all: each statement
// stops with 53200 holding about its limit, and the heap (live and not yet
// collected) stays within the slack docs/limits.md gives.
//
// The statements run in a child process (TestHeldMemoryChild): the
// collector lets garbage grow in proportion to all the heap holds, and
// in this package's process the earlier tests leave tens of megabytes.
func TestOperatorsHoldWithinTheirLimit(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHeldMemoryChild$")
	cmd.Env = append(os.Environ(), "QUIVER_HELD_MEMORY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child process: %v\n%s", err, out)
	}
	var limit int64
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "held" {
			continue
		}
		if f[1] == "limit" {
			limit, _ = strconv.ParseInt(f[2], 10, 64)
			continue
		}
		name, code := strings.ReplaceAll(f[1], "_", " "), f[2]
		grew, _ := strconv.ParseInt(f[3], 10, 64)
		took, _ := time.ParseDuration(f[4])
		seen++
		t.Logf("%-16s %-6s %8v heap +%.1f MiB (%.2f× the limit)", name, code, took.Round(time.Millisecond),
			float64(grew)/(1<<20), float64(grew)/float64(limit))
		if code != "53200" {
			t.Errorf("%s: code %q, want 53200", name, code)
		}
		// docs/limits.md: a statement stopped at its limit holds at most
		// 1.5 times it, here plus 8 MiB for the collector's pacing on a
		// loaded machine (its minimum heap, a mark running late). The race
		// detector's runtime paces differently (a third more, measured).
		bound := limit*3/2 + 8<<20
		if raceBuild {
			bound = 2*limit + 8<<20
		}
		if grew > bound {
			t.Errorf("%s: the heap grew by %.1f MiB, %.2f times the limit of %d MiB", name,
				float64(grew)/(1<<20), float64(grew)/float64(limit), limit>>20)
		}
	}
	if limit == 0 || seen != len(heldStatements) {
		t.Fatalf("the child reported %d statements, want %d:\n%s", seen, len(heldStatements), out)
	}
}

// heldStatements are the statements of docs/limits.md's slack table,
// and a grouped collect() and a DISTINCT of rows.
var heldStatements = []struct{ name, text string }{
	{"doubling string", `RETURN size(reduce(s = "x", x IN range(1, 40) | s + s))`},
	{"doubling list", `RETURN size(reduce(l = [1], x IN range(1, 40) | l + l))`},
	{"count DISTINCT", "UNWIND range(1, 20000000) AS x RETURN count(DISTINCT toString(x))"},
	{"collect strings", "UNWIND range(1, 20000000) AS x WITH collect(toString(x)) AS c RETURN size(c)"},
	{"collect integers", "UNWIND range(1, 20000000) AS x WITH collect(x) AS c RETURN size(c)"},
	{"grouped collect", "UNWIND range(1, 20000000) AS x WITH x % 100 AS g, collect(x) AS c RETURN count(*)"},
	{"sort", "UNWIND range(1, 20000000) AS x WITH toString(x) AS s ORDER BY s DESC RETURN count(*)"},
	{"DISTINCT rows", "UNWIND range(1, 20000000) AS x WITH DISTINCT toString(x) AS s RETURN count(*)"},
}

// TestHeldMemoryChild is not a test: TestOperatorsHoldWithinTheirLimit
// runs the test binary with it as a child process, which runs each of
// heldStatements under a 64 MiB limit (32 under the race detector, ten
// times slower) and prints its code, the heap's growth and its time.
func TestHeldMemoryChild(t *testing.T) {
	if os.Getenv("QUIVER_HELD_MEMORY_CHILD") == "" {
		return
	}
	limit := int64(64 << 20)
	if raceBuild {
		limit = 32 << 20
	}
	db, err := engine.Open("", engine.Options{MaxMemoryPerQuery: limit, MaxMemory: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fmt.Printf("held limit %d\n", limit)
	for _, c := range heldStatements {
		stop := heapObjectsPeak()
		code, _, took := runCode(t, db, c.text, nil)
		grew := stop()
		fmt.Printf("held %s %s %d %v\n", strings.ReplaceAll(c.name, " ", "_"), cmp.Or(code, "ok"), grew, took)
	}
}
