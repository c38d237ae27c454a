package cluster

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// copyChunkRows is the relationships each COPY of the scale test loads:
// one commit, one raft entry, each.
const copyChunkRows = 1_000_000

// TestSnapshotInstallAtScale measures a snapshot install of a bench
// graph (bench/RESULTS-cluster.md): a one-member cluster loads the data
// set quiverbench gen wrote into QUIVER_CLUSTER_BENCH_DATA (persons.csv,
// knows.csv; `quiverbench gen -scale M -out DIR`) with COPY … FROM, takes
// a raft snapshot (a checkpoint), and a fresh member joins as a learner:
// the leader's log no longer holds the load, so it installs the snapshot.
// It logs the archive's size, the transfer, install and reopen times, and
// the time until the member serves the leader's content hash. Opt-in
// (QUIVER_CLUSTER_BENCH=1): minutes at M, not part of make test.
func TestSnapshotInstallAtScale(t *testing.T) {
	if os.Getenv("QUIVER_CLUSTER_BENCH") != "1" {
		t.Skip("a measurement: set QUIVER_CLUSTER_BENCH=1 and QUIVER_CLUSTER_BENCH_DATA")
	}
	data := os.Getenv("QUIVER_CLUSTER_BENCH_DATA")
	if data == "" {
		t.Skip("QUIVER_CLUSTER_BENCH_DATA must name a directory written by quiverbench gen (-scale M)")
	}
	imp := t.TempDir()
	if err := os.Symlink(filepath.Join(data, "persons.csv"), filepath.Join(imp, "persons.csv")); err != nil {
		t.Fatal(err)
	}
	chunks := splitCSV(t, filepath.Join(data, "knows.csv"), imp, copyChunkRows)
	c := newTunedCluster(t, 1, 0, func(cfg *Config) {
		cfg.Engine.ImportDir = imp
		// Snapshots only when the test takes one, and a short log behind.
		cfg.SnapshotThreshold = 1 << 40
		cfg.SnapshotInterval = time.Hour
		cfg.TrailingLogs = 4
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	defer cancel()
	ld := c.leader()
	start := time.Now()
	run := func(n *Node, q string) {
		t.Helper()
		res, err := n.DB().Query(ctx, q, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		res.Close()
	}
	run(ld, "COPY Person FROM 'persons.csv'")
	for _, f := range chunks {
		run(ld, fmt.Sprintf("COPY KNOWS FROM '%s'", f))
	}
	load := time.Since(start)
	start = time.Now()
	want := contentHash(t, ld)
	hashTime := time.Since(start)
	st := ld.DB().Durability()
	t.Logf("loaded %d commits in %s; the leader's content hash took %s", 1+len(chunks), load.Round(time.Millisecond), hashTime.Round(time.Millisecond))

	start = time.Now()
	if err := ld.Raft().Snapshot().Error(); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	snapshot := time.Since(start)
	t.Logf("raft snapshot (a checkpoint, streamed into raft's snapshot store) took %s; log position %d", snapshot.Round(time.Millisecond), st.WALLSN)

	late := c.start("n2", nil)
	joined := time.Now()
	for err := ld.AddLearner(ctx, "n2", "n2"); err != nil; err = ld.AddLearner(ctx, "n2", "n2") {
		if ctx.Err() != nil {
			t.Fatal(err)
		}
		ld = c.leader()
	}
	target := ld.store.Load().AppliedIndex()
	for late.installs.Load() == 0 || late.store.Load().AppliedIndex() < target {
		if err := late.Err(); err != nil {
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			t.Fatal("the learner did not catch up")
		}
		<-time.After(20 * time.Millisecond)
	}
	caughtUp := time.Since(joined)
	in := late.LastInstall()
	hashStart := time.Now()
	got := contentHash(t, late)
	total := time.Since(joined)
	if got != want {
		t.Fatalf("the learner's content hash %s, the leader's %s", got, want)
	}
	t.Logf("snapshot install: archive %.1f MiB; transfer (leader to the learner's snapshot store) %s; install (files written and synced) %s; reopen %s; caught up %s after joining; its content hash %s later; total %s",
		float64(in.Bytes)/(1<<20), in.Start.Sub(joined).Round(time.Millisecond), in.Install.Round(time.Millisecond),
		in.Reopen.Round(time.Millisecond), caughtUp.Round(time.Millisecond), time.Since(hashStart).Round(time.Millisecond), total.Round(time.Millisecond))
}

// splitCSV copies src into files of at most rows rows each (with src's
// header) in dir and returns their names.
func splitCSV(t *testing.T, src, dir string, rows int) []string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	if !sc.Scan() {
		t.Fatalf("%s: no header: %v", src, sc.Err())
	}
	header := sc.Text()
	var names []string
	var out *os.File
	var w *bufio.Writer
	closeOut := func() {
		if out == nil {
			return
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		out = nil
	}
	for n := 0; sc.Scan(); n++ {
		if n%rows == 0 {
			closeOut()
			name := fmt.Sprintf("knows-%03d.csv", len(names))
			names = append(names, name)
			if out, err = os.Create(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			w = bufio.NewWriterSize(out, 1<<20)
			w.WriteString(header + "\n")
		}
		w.WriteString(sc.Text())
		w.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	closeOut()
	return names
}
