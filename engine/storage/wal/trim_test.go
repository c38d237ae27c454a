package wal

import (
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// TestTrimBefore trims at a record in the middle of the log: the segments
// before the one holding it go, Start() moves to that segment, the
// records from there on survive a reopen, and the active segment stays
// whatever the LSN.
func TestTrimBefore(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(1024, 256)
	l := mustOpen(t, dir, o)
	recs := appendAll(t, l, variedPayloads(rand.New(rand.NewPCG(11, 12)), 120, 256))
	segs, _ := listSegments(vfs.Default, dir)
	if len(segs) < 6 {
		t.Fatalf("%d segments, want at least 6", len(segs))
	}
	sizeBefore := l.Size()

	cut := recs[len(recs)/2]
	if err := l.TrimBefore(cut.start); err != nil {
		t.Fatal(err)
	}
	si, _ := locate(segs, cut)
	start := segs[si].base
	if l.Start() != start {
		t.Fatalf("Start() = %d after TrimBefore(%d), want %d", l.Start(), cut.start, start)
	}
	if left, _ := listSegments(vfs.Default, dir); len(left) != len(segs)-si {
		t.Fatalf("%d segments left, want %d", len(left), len(segs)-si)
	}
	// The files hold the log once it is synced (appends are buffered
	// until then).
	if err := l.Sync(l.End()); err != nil {
		t.Fatal(err)
	}
	if l.Size() != sizeBefore-int64(start) || l.Size() != fileBytes(t, dir) {
		t.Fatalf("Size() = %d, files hold %d, want %d", l.Size(), fileBytes(t, dir), sizeBefore-int64(start))
	}
	var kept []record
	for _, r := range recs {
		if r.start >= start {
			kept = append(kept, r)
		}
	}
	sameRecords(t, "replay after trim", replayAll(t, l, start), kept)
	if err := l.Replay(0, nil); err == nil {
		t.Fatal("Replay from a trimmed LSN succeeded")
	}
	mustClose(t, l)

	l = mustOpen(t, dir, o)
	if l.Start() != start {
		t.Fatalf("reopened: Start() = %d, want %d", l.Start(), start)
	}
	sameRecords(t, "replay after trim and reopen", replayAll(t, l, start), kept)

	// Trimming past the end keeps the active segment and its records.
	last, _ := listSegments(vfs.Default, dir)
	if err := l.TrimBefore(l.End() + 1000); err != nil {
		t.Fatal(err)
	}
	if l.Start() != last[len(last)-1].base {
		t.Fatalf("Start() = %d after trimming everything, want the active segment's %d", l.Start(), last[len(last)-1].base)
	}
	more := appendAll(t, l, [][]byte{[]byte("after trimming")})
	mustClose(t, l)
	l = mustOpen(t, dir, o)
	defer mustClose(t, l)
	got := replayAll(t, l, l.Start())
	if len(got) == 0 || got[len(got)-1].end != more[0].end {
		t.Fatalf("the record appended after trimming is missing")
	}
}
