package wal

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// record is one record as Replay returned it.
type record struct {
	start, end LSN
	payload    []byte
}

// testOptions are Options for tests: no log output, a small frame limit
// so multi-frame records stay small.
func testOptions(segSize int64, frameLimit int) Options {
	return Options{SegmentSize: segSize, frameLimit: frameLimit, Logger: slog.New(slog.DiscardHandler)}
}

func mustOpen(t testing.TB, dir string, o Options) *Log {
	t.Helper()
	l, err := Open(dir, o)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return l
}

func mustClose(t testing.TB, l *Log) {
	t.Helper()
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func replayAll(t testing.TB, l *Log, from LSN) []record {
	t.Helper()
	var recs []record
	err := l.Replay(from, func(start, end LSN, payload []byte) error {
		recs = append(recs, record{start, end, bytes.Clone(payload)})
		return nil
	})
	if err != nil {
		t.Fatalf("Replay(%d): %v", from, err)
	}
	return recs
}

// appendAll appends payloads and returns the records they became.
func appendAll(t testing.TB, l *Log, payloads [][]byte) []record {
	t.Helper()
	var recs []record
	for _, p := range payloads {
		start := l.End()
		end, err := l.Append(p)
		if err != nil {
			t.Fatalf("Append(%d bytes): %v", len(p), err)
		}
		recs = append(recs, record{start, end, bytes.Clone(p)})
	}
	return recs
}

func sameRecords(t testing.TB, what string, got, want []record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.start != w.start || g.end != w.end || !bytes.Equal(g.payload, w.payload) {
			t.Fatalf("%s: record %d is [%d,%d) %d bytes, want [%d,%d) %d bytes",
				what, i, g.start, g.end, len(g.payload), w.start, w.end, len(w.payload))
		}
	}
}

// variedPayloads returns n payloads of the kinds a log must carry: empty,
// tiny (not worth compressing), compressible text, incompressible bytes,
// and payloads of several frames (frameLimit) of both kinds.
func variedPayloads(rng *rand.Rand, n, frameLimit int) [][]byte {
	random := func(k int) []byte { return randomBytes(rng, k) }
	text := func(k int) []byte {
		var b bytes.Buffer
		for b.Len() < k {
			fmt.Fprintf(&b, "CREATE (:Person {id: %d, name: 'p%d'}) ", rng.IntN(1000), rng.IntN(50))
		}
		return b.Bytes()[:k]
	}
	out := make([][]byte, n)
	for i := range out {
		switch i % 8 {
		case 0:
			out[i] = []byte{}
		case 1:
			out[i] = random(1 + rng.IntN(minCompress))
		case 2:
			out[i] = text(minCompress + rng.IntN(2000))
		case 3:
			out[i] = random(minCompress + rng.IntN(2000))
		case 4:
			out[i] = text(frameLimit*2 + rng.IntN(frameLimit)) // multi-frame, compressed
		case 5:
			out[i] = random(frameLimit*3 + rng.IntN(3)) // multi-frame, stored raw
		case 6:
			out[i] = random(frameLimit) // exactly one full frame
		default:
			out[i] = text(1 + rng.IntN(300))
		}
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(4096, 256)
	l := mustOpen(t, dir, o)
	if l.Start() != 0 || l.End() != 0 || l.Durable() != 0 || l.Size() != 0 {
		t.Fatalf("new log: start %d end %d durable %d size %d, want all 0", l.Start(), l.End(), l.Durable(), l.Size())
	}
	want := appendAll(t, l, variedPayloads(rand.New(rand.NewPCG(1, 2)), 300, o.frameLimit))
	for i := 1; i < len(want); i++ {
		if want[i].start != want[i-1].end {
			t.Fatalf("record %d starts at %d, the previous one ends at %d", i, want[i].start, want[i-1].end)
		}
	}
	if err := l.Sync(l.End()); err != nil {
		t.Fatal(err)
	}
	sameRecords(t, "replay", replayAll(t, l, 0), want)
	if got := l.Size(); got != int64(l.End()-l.Start()) || got != fileBytes(t, dir) {
		t.Fatalf("Size() = %d, End-Start = %d, files hold %d", got, l.End()-l.Start(), fileBytes(t, dir))
	}
	if segs, _ := listSegments(vfs.Default, dir); len(segs) < 10 {
		t.Fatalf("%d segments; the test wants many rolls", len(segs))
	}

	// From a middle record boundary, and from inside a record: the record
	// cut by from is skipped.
	mid := len(want) / 2
	sameRecords(t, "replay from a boundary", replayAll(t, l, want[mid].start), want[mid:])
	sameRecords(t, "replay from inside a record", replayAll(t, l, want[mid].start+1), want[mid+1:])
	sameRecords(t, "replay from the end", replayAll(t, l, l.End()), nil)
	if err := l.Replay(l.End()+1, func(LSN, LSN, []byte) error { return nil }); err == nil {
		t.Fatal("Replay beyond the end succeeded")
	}
	stop := errors.New("stop")
	n := 0
	if err := l.Replay(0, func(LSN, LSN, []byte) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("Replay with a failing fn: %v after %d calls, want stop after 1", err, n)
	}
	end := l.End()
	mustClose(t, l)

	l = mustOpen(t, dir, o)
	defer mustClose(t, l)
	if l.End() != end || l.Durable() != end || l.Start() != 0 {
		t.Fatalf("reopened: start %d end %d durable %d, want 0 %d %d", l.Start(), l.End(), l.Durable(), end, end)
	}
	sameRecords(t, "replay after reopen", replayAll(t, l, 0), want)
	more := appendAll(t, l, [][]byte{[]byte("after reopen")})
	sameRecords(t, "replay after reopen and append", replayAll(t, l, 0), append(want, more...))
}

// TestRoundTripRealFrameLimit writes a record of three frames at the real
// frame limit, half random and half compressible.
func TestRoundTripRealFrameLimit(t *testing.T) {
	dir := t.TempDir()
	o := Options{Logger: slog.New(slog.DiscardHandler)}
	l := mustOpen(t, dir, o)
	big := make([]byte, 2*MaxFrame+5)
	copy(big, randomBytes(rand.New(rand.NewPCG(3, 4)), MaxFrame))
	want := appendAll(t, l, [][]byte{[]byte("before"), big, []byte("after")})
	sameRecords(t, "replay", replayAll(t, l, 0), want)
	mustClose(t, l)
	l = mustOpen(t, dir, o)
	defer mustClose(t, l)
	sameRecords(t, "replay after reopen", replayAll(t, l, 0), want)
}

func TestStartAtAndReset(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(1024, 256)
	o.StartAt = 5000
	l := mustOpen(t, dir, o)
	if l.Start() != 5000 || l.End() != 5000 || l.Durable() != 5000 {
		t.Fatalf("StartAt 5000: start %d end %d durable %d", l.Start(), l.End(), l.Durable())
	}
	if err := l.Reset(7000); err != nil {
		t.Fatal(err)
	}
	want := appendAll(t, l, [][]byte{[]byte("a"), []byte("bb")})
	if want[0].start != 7000 {
		t.Fatalf("first record after Reset(7000) starts at %d", want[0].start)
	}
	if err := l.Reset(9000); err == nil {
		t.Fatal("Reset of a log with records succeeded")
	}
	mustClose(t, l)

	o.StartAt = 1 // ignored: the directory has segments
	l = mustOpen(t, dir, o)
	defer mustClose(t, l)
	if l.Start() != 7000 {
		t.Fatalf("reopened: Start() = %d, want 7000", l.Start())
	}
	sameRecords(t, "replay", replayAll(t, l, 7000), want)
	if err := l.Replay(6999, func(LSN, LSN, []byte) error { return nil }); err == nil {
		t.Fatal("Replay from before Start() succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != segmentName(7000) {
		t.Fatalf("directory holds %v, want only %s", entries, segmentName(7000))
	}
}

func TestClosed(t *testing.T) {
	l := mustOpen(t, t.TempDir(), testOptions(0, 0))
	end, err := l.Append([]byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Sync(end + 1); err == nil {
		t.Fatal("Sync beyond the end succeeded")
	}
	mustClose(t, l)
	if l.Durable() != end {
		t.Fatalf("Close left Durable() = %d, want %d", l.Durable(), end)
	}
	if _, err := l.Append(nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	if err := l.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
	if err := l.Replay(0, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Replay after Close: %v", err)
	}
}

func TestSegmentNames(t *testing.T) {
	for _, base := range []LSN{0, 1, 0xabcdef, 1<<64 - 1} {
		if got, ok := parseSegmentName(segmentName(base)); !ok || got != base {
			t.Errorf("parseSegmentName(%s) = %d, %v", segmentName(base), got, ok)
		}
	}
	for _, name := range []string{"wal-1.log", "wal-00000000000000AB.log", "wal-000000000000000g.log", "x-0000000000000000.log", "wal-0000000000000000.log.tmp"} {
		if _, ok := parseSegmentName(name); ok {
			t.Errorf("parseSegmentName(%q) accepted", name)
		}
	}
}

// fileBytes is the total size of the segment files in dir.
func fileBytes(t testing.TB, dir string) int64 {
	t.Helper()
	segs, err := listSegments(vfs.Default, dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, s := range segs {
		st, err := os.Stat(s.path)
		if err != nil {
			t.Fatal(err)
		}
		n += st.Size()
	}
	return n
}

// snapshotDir returns the contents of every file in dir, by name.
func snapshotDir(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// writeDir writes files into a new directory under root.
func writeDir(t testing.TB, root string, files map[string][]byte) string {
	t.Helper()
	dir, err := os.MkdirTemp(root, "wal")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
