package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// logRecords is a JSON log that tests read back, written from any
// goroutine.
type logRecords struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (l *logRecords) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// records are the log's records whose message starts with prefix.
func (l *logRecords) records(t *testing.T, prefix string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if strings.HasPrefix(r["msg"].(string), prefix) {
			out = append(out, r)
		}
	}
	return out
}

// openLogged opens a database whose progress logging starts at once and
// logs every millisecond (the threshold option, so that work of a
// test's size is long), logging JSON into the returned records.
func openLogged(t *testing.T, importDir string, after time.Duration) (*engine.DB, *logRecords) {
	t.Helper()
	logs := &logRecords{}
	db, err := engine.Open(t.TempDir(), engine.Options{ImportDir: importDir, ProgressLogAfter: after, ProgressLogEvery: time.Millisecond,
		Logger: slog.New(slog.NewJSONHandler(logs, nil)), CheckpointInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, logs
}

// phases are the phase attributes of records, each once, in order.
func phases(recs []map[string]any) []string {
	var out []string
	for _, r := range recs {
		p, _ := r["phase"].(string)
		if len(out) == 0 || out[len(out)-1] != p {
			out = append(out, p)
		}
	}
	return out
}

// TestCopyProgressLog: a COPY past the threshold logs progress lines
// with its phases in order, their counts never above their totals, and
// a last line with what it created and the time it took.
func TestCopyProgressLog(t *testing.T) {
	in := t.TempDir()
	const n = 200000
	var b strings.Builder
	b.WriteString("id,name\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,p%d\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(in, "p.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db, logs := openLogged(t, in, time.Nanosecond)
	copySummary(t, db, "COPY Person FROM 'p.csv'")
	lines := logs.records(t, "COPY in progress")
	if len(lines) == 0 {
		t.Fatal("no progress line")
	}
	order := map[string]int{"starting": 0, "1 reading nodes": 1, "2 creating nodes": 2, "3 committing": 3}
	last := -1
	for _, r := range lines {
		p, _ := r["phase"].(string)
		i, ok := order[p]
		if !ok || i < last {
			t.Fatalf("phases out of order: %q", phases(lines))
		}
		last = i
		if r["name"] != "Person" {
			t.Errorf("line without the statement's name: %v", r)
		}
		if total, ok := r["total"].(float64); ok && r["done"].(float64) > total {
			t.Errorf("done above total: %v", r)
		}
		if total, ok := r["total_bytes"].(float64); ok && r["bytes"].(float64) > total {
			t.Errorf("bytes above total: %v", r)
		}
	}
	end := logs.records(t, "COPY done")
	if len(end) != 1 || end[0]["nodes_created"] != float64(n) || end[0]["took"] == nil {
		t.Fatalf("end lines %v", end)
	}
}

// TestCheckpointProgressLog: a checkpoint past the threshold logs its
// phases (writing files, with the files' count as total) before the
// line that says it wrote the checkpoint; with the default threshold a
// short checkpoint logs no progress.
func TestCheckpointProgressLog(t *testing.T) {
	for _, long := range []bool{true, false} {
		after := time.Nanosecond
		if !long {
			after = 0 // the default, 2 s
		}
		db, logs := openLogged(t, "", after)
		mustQuery(t, db, "UNWIND range(1, 20000) AS i CREATE (:N {i: i})-[:R]->(:M {s: toString(i)})", nil)
		mustQuery(t, db, "CHECKPOINT", nil)
		lines := logs.records(t, "checkpoint in progress")
		wrote := logs.records(t, "wrote a checkpoint")
		if len(wrote) != 1 {
			t.Fatalf("checkpoint lines %v", wrote)
		}
		if !long {
			if len(lines) != 0 {
				t.Fatalf("a short checkpoint logged progress: %v", lines)
			}
			continue
		}
		if len(lines) == 0 {
			t.Fatal("no progress line")
		}
		for _, r := range lines {
			p := r["phase"].(string)
			if r["reason"] != "CHECKPOINT statement" || p != "starting" && !strings.HasSuffix(p, " compacting adjacency") && !strings.HasSuffix(p, " writing files") {
				t.Errorf("line %v", r)
			}
			if strings.HasSuffix(p, "writing files") && (r["unit"] != "files" || r["total"] == nil || r["done"].(float64) > r["total"].(float64)) {
				t.Errorf("line %v", r)
			}
		}
		if logs.records(t, "checkpoint done") != nil {
			t.Error("a second end line")
		}
	}
}

// TestAlgoProjectionProgressLog: an algorithm call that builds its
// projection logs the projection's phases and its end with the vertex
// count.
func TestAlgoProjectionProgressLog(t *testing.T) {
	db, logs := openLogged(t, "", time.Nanosecond)
	mustQuery(t, db, "UNWIND range(1, 5000) AS i CREATE (:N {i: i})-[:R]->(:N {i: -i})", nil)
	q := "CALL algo.wcc.stream({}) YIELD componentId RETURN count(DISTINCT componentId)"
	if got := mustQuery(t, db, q, nil); got[0] != "5000" {
		t.Fatalf("components %v", got)
	}
	for _, r := range logs.records(t, "algorithm projection in progress") {
		if p := r["phase"].(string); p != "starting" && !strings.HasSuffix(p, "counting degrees") && !strings.HasSuffix(p, "filling neighbour lists") {
			t.Errorf("line %v", r)
		}
	}
	end := logs.records(t, "algorithm projection done")
	if len(end) != 1 || end[0]["vertices"] != float64(10000) || end[0]["procedure"] != "algo.wcc.stream" {
		t.Fatalf("end lines %v", end)
	}
}
