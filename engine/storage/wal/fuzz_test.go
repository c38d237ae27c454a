package wal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// fuzzOptions use a 64-byte frame limit, so short inputs hold multi-frame
// records and lengths beyond the limit. Syncs are no-ops: the fuzzer
// exercises decoding, and an fdatasync per input would only slow it.
func fuzzOptions() Options {
	o := testOptions(1<<20, 64)
	o.syncHook = func(vfs.File, bool) error { return nil }
	return o
}

// FuzzOpen takes arbitrary bytes as the only segment of a log. Open and
// Replay must not panic or allocate beyond the frame limit, and either
// fail with *CorruptError leaving the file as it was, or keep a prefix of
// it whose records, appended again, replay to the same payloads.
func FuzzOpen(f *testing.F) {
	seedDir := f.TempDir()
	l, err := Open(seedDir, fuzzOptions())
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range [][]byte{{}, []byte("tiny"), bytes.Repeat([]byte("compressible "), 10), bytes.Repeat([]byte{1, 2, 3, 5, 8, 13, 21, 34, 55}, 20)} {
		if _, err := l.Append(p); err != nil {
			f.Fatal(err)
		}
	}
	l.Close()
	valid, err := os.ReadFile(filepath.Join(seedDir, segmentName(0)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)-7])
	flipped := bytes.Clone(valid)
	flipped[20] ^= 0x40
	f.Add(flipped)
	f.Add([]byte{})
	f.Add(append(magic[:], 0xff, 0xff, 0xff, 0x7f, flagFirst|flagLast, 0, 0, 0, 0))

	// One directory for all inputs, emptied before each: a directory per
	// input made mkdir and rmdir most of the fuzzer's time.
	dir := f.TempDir()
	path := filepath.Join(dir, segmentName(0))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Open(dir, fuzzOptions())
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.File != path {
				t.Fatalf("Open: %v, want *CorruptError naming %s", err, path)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
				t.Fatal("Open failed and changed the file")
			}
			return
		}
		defer l.Close()
		end := l.End()
		if l.Start() != 0 || end > LSN(len(data)) {
			t.Fatalf("Start() = %d, End() = %d for %d bytes", l.Start(), end, len(data))
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, data[:end]) {
			t.Fatalf("Open kept %d bytes that are not the first %d of the input", len(after), end)
		}
		var payloads [][]byte
		next := LSN(0)
		err = l.Replay(0, func(start, e LSN, p []byte) error {
			if start != next || e <= start || e > end {
				t.Fatalf("record [%d,%d) after one ending at %d, log end %d", start, e, next, end)
			}
			next = e
			payloads = append(payloads, bytes.Clone(p))
			return nil
		})
		var ce *CorruptError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("Replay: %v", err)
		}
		if err == nil && next != end {
			t.Fatalf("records end at %d, the log at %d", next, end)
		}

		if err != nil {
			return
		}
		// The records go again at the end of the log (which Open made
		// valid) and come back the same.
		for _, p := range payloads {
			if _, err := l.Append(p); err != nil {
				t.Fatal(err)
			}
		}
		i := 0
		if err := l.Replay(end, func(_, _ LSN, p []byte) error {
			if !bytes.Equal(p, payloads[i]) {
				t.Fatalf("record %d re-appended as %x, was %x", i, p, payloads[i])
			}
			i++
			return nil
		}); err != nil || i != len(payloads) {
			t.Fatalf("replaying the re-appended records: %v after %d of %d", err, i, len(payloads))
		}
	})
}
