package storage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// writerRecord is a one-op commit record at ts by writer w; first makes it w's
// first record, taking over from prev.
func writerRecord(ts, w, prev uint64, first bool) []byte {
	s := writerSession{id: w, prev: prev, logged: !first}
	return encodeRecordBy(nil, s, ts, catalogTail{}, []Op{{Kind: OpSetSystem, Name: "k", Value: []byte{byte(ts)}}})
}

// Recovery follows the chain of writers: a writer takes over only with a
// first record naming the writer before it, and a writer that was taken
// over from never writes again. Version 1 records (no writer) are
// accepted anywhere.
func TestRecoveryWriterChain(t *testing.T) {
	const a, b, c = 0xa, 0xb, 0xc
	type r struct {
		w, prev uint64
		first   bool
	}
	for _, tc := range []struct {
		name string
		recs []r
		bad  int // index of the record refused; -1: none
	}{
		{"one writer", []r{{a, 0, true}, {a, 0, false}, {a, 0, false}}, -1},
		{"writers in turn", []r{{a, 0, true}, {a, 0, false}, {b, a, true}, {b, 0, false}, {c, b, true}}, -1},
		{"the old writer goes on", []r{{a, 0, true}, {b, a, true}, {b, 0, false}, {a, 0, false}}, 3},
		{"a takeover from a state the log does not hold", []r{{a, 0, true}, {b, c, true}}, 1},
		{"a second writer without its first record", []r{{a, 0, true}, {b, 0, false}}, 1},
		{"a first record by the current writer", []r{{a, 0, true}, {a, a, true}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New()
			rc := s.Recover()
			for i, x := range tc.recs {
				err := rc.Apply(writerRecord(uint64(i+1), x.w, x.prev, x.first), uint64(i+1)*100)
				var other *OtherWriterError
				switch {
				case i == tc.bad && !errors.As(err, &other):
					t.Fatalf("record %d: %v, want an OtherWriterError", i, err)
				case i == tc.bad:
					if !strings.Contains(err.Error(), "another server") {
						t.Errorf("message %q", err)
					}
					return
				case err != nil:
					t.Fatalf("record %d: %v", i, err)
				}
			}
			rc.Finish()
			if got, want := s.Writer(), tc.recs[len(tc.recs)-1].w; got != want {
				t.Fatalf("Writer() = %x, want %x", got, want)
			}
		})
	}
	// A version 1 record after any writer: an older binary's, replayed.
	s := New()
	rc := s.Recover()
	if err := rc.Apply(writerRecord(1, a, 0, true), 100); err != nil {
		t.Fatal(err)
	}
	v1 := writerRecord(2, 0, 0, false)
	v1 = append([]byte{1}, v1[1+1+8:]...) // version 1: no flags, no writer
	if err := rc.Apply(v1, 200); err != nil {
		t.Fatalf("a version 1 record: %v", err)
	}
}

// The first record a store logs after StartWriter names the writer of the
// version it continues from; the next ones do not.
func TestStartWriterFirstRecord(t *testing.T) {
	s := New()
	var logged [][]byte
	s.SetLog(logFunc(func(rec []byte) { logged = append(logged, append([]byte(nil), rec...)) }))
	s.StartWriter(0xa)
	for range 2 {
		tx := s.Begin()
		if err := tx.SetSystem("k", []byte("v")); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	s.StartWriter(0xb)
	tx := s.Begin()
	tx.SetSystem("k", []byte("w"))
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		w, prev uint64
		first   bool
	}{{0xa, 0, true}, {0xa, 0, false}, {0xb, 0xa, true}}
	for i, b := range logged {
		d, err := decodeRecord(b)
		if err != nil {
			t.Fatal(err)
		}
		if d.writer != want[i].w || d.prev != want[i].prev || d.first != want[i].first {
			t.Errorf("record %d: writer %x prev %x first %v, want %+v", i, d.writer, d.prev, d.first, want[i])
		}
	}
	if len(logged) != 3 {
		t.Fatalf("%d records", len(logged))
	}
	// The manifest of a checkpoint carries the writer; a checkpoint over
	// a manifest another process replaced is refused and switches nothing.
	m := vfs.NewMem()
	_, _, stamp, err := s.Checkpoint(m, "/d", ManifestStamp{}, nil)
	if err != nil || stamp.Writer != 0xb {
		t.Fatalf("checkpoint: %+v %v", stamp, err)
	}
	if got, _ := ReadManifestStamp(m, "/d"); got != stamp {
		t.Fatalf("manifest stamp %+v, want %+v", got, stamp)
	}
	var other *OtherWriterError
	if _, _, _, err := s.Checkpoint(m, "/d", ManifestStamp{Base: "base-1", Writer: 0xc}, nil); !errors.As(err, &other) {
		t.Fatalf("a checkpoint over another writer's manifest: %v", err)
	}
	if got, _ := ReadManifestStamp(m, "/d"); got != stamp {
		t.Fatalf("the refused checkpoint switched the manifest: %+v", got)
	}
	ents, _ := m.ReadDir("/d")
	if len(ents) != 2 { // manifest.json and the one base
		t.Fatalf("the refused checkpoint left files behind: %v", ents)
	}
}

// LOCK names its holder's writer; CheckDataDirOwner and OwnerCheck tell
// when another process rewrote it, and a LOCK removed is no claim.
func TestDataDirOwner(t *testing.T) {
	dir := t.TempDir()
	release, err := LockDataDir(vfs.Default, dir, 0xa)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	check := OwnerCheck(vfs.Default, dir, 0xa)
	if err := check(); err != nil {
		t.Fatal(err)
	}
	if err := CheckDataDirOwner(vfs.Default, dir, 0xb); err == nil {
		t.Fatal("LOCK names 0xa, but writer 0xb passed")
	}
	path := filepath.Join(dir, DataDirLockName)
	os.Remove(path)
	if err := check(); err != nil {
		t.Fatalf("LOCK removed: %v", err)
	}
	// An older version's server writes its pid alone.
	if err := os.WriteFile(path, []byte("4242\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var other *OtherWriterError
	if err := check(); !errors.As(err, &other) || !strings.Contains(err.Error(), "pid 4242") {
		t.Fatalf("LOCK rewritten by another process: %v", err)
	}
}

// logFunc is a Log that hands each record to its function.
type logFunc func([]byte)

func (f logFunc) Append(rec []byte) (uint64, error) { f(rec); return 0, nil }
func (f logFunc) Sync(uint64) error                 { return nil }
