package cluster

import (
	"bytes"
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/engine/storage/vfs/cryptfs"
)

func openLogs(t *testing.T, fsys vfs.FS, dir string, segSize int64) *LogStore {
	t.Helper()
	s, err := OpenLogStore(fsys, dir, segSize)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// storeRange stores entries lo … hi in batches of n.
func storeRange(t *testing.T, s *LogStore, lo, hi uint64, n int) {
	t.Helper()
	var batch []*raft.Log
	for i := lo; i <= hi; i++ {
		batch = append(batch, testLog(i))
		if len(batch) == n || i == hi {
			if err := s.StoreLogs(batch); err != nil {
				t.Fatal(err)
			}
			batch = nil
		}
	}
}

// checkRange asserts the store holds exactly entries first … last, each
// as testLog made it.
func checkRange(t *testing.T, s *LogStore, first, last uint64) {
	t.Helper()
	if f, _ := s.FirstIndex(); f != first {
		t.Fatalf("first index %d, want %d", f, first)
	}
	if l, _ := s.LastIndex(); l != last {
		t.Fatalf("last index %d, want %d", l, last)
	}
	for _, i := range []uint64{first - 1, last + 1} {
		var g raft.Log
		if err := s.GetLog(i, &g); !errors.Is(err, raft.ErrLogNotFound) {
			t.Fatalf("entry %d outside %d … %d: %v", i, first, last, err)
		}
	}
	for i := first; i <= last && first != 0; i++ {
		var g raft.Log
		if err := s.GetLog(i, &g); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if w := testLog(i); g.Index != i || g.Term != w.Term || !bytes.Equal(g.Data, w.Data) || !g.AppendedAt.Equal(w.AppendedAt) {
			t.Fatalf("entry %d: got %+v, want %+v", i, g, *w)
		}
	}
}

func segmentFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), segSuffix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestLogStoreTornTail: a segment cut in the middle of its last batch (a
// crash during the write) reopens with every entry before it, and takes
// appends after them.
func TestLogStoreTornTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openLogs(t, vfs.Default, dir, 0)
	storeRange(t, s, 1, 20, 5)
	s.Close()
	path := filepath.Join(dir, segmentName(1))
	st, _ := os.Stat(path)
	for _, cut := range []int64{st.Size() - 1, st.Size() - int64(recordSize(testLog(20))) + 3} {
		if err := os.Truncate(path, cut); err != nil {
			t.Fatal(err)
		}
		s = openLogs(t, vfs.Default, dir, 0)
		checkRange(t, s, 1, 19)
		storeRange(t, s, 20, 20, 1)
		checkRange(t, s, 1, 20)
		s.Close() // entry 20 again: the file is as long as before
	}
	// Zeros after the last record (a size that reached the disk before
	// the data) are a torn tail too.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(make([]byte, 300))
	f.Close()
	s = openLogs(t, vfs.Default, dir, 0)
	defer s.Close()
	checkRange(t, s, 1, 20)
}

// TestLogStoreCorruptRecord: a flipped byte in a record that valid
// records follow is damage: open fails naming the file, and changes
// nothing.
func TestLogStoreCorruptRecord(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		segSize int64
		at      func(size int64) int64
	}{
		{"middle of the last segment", 0, func(size int64) int64 { return size / 2 }},
		{"a length field", 0, func(size int64) int64 { return 3 * int64(recordSize(testLog(1))) }},
		{"the end of an earlier segment", 200, func(size int64) int64 { return size - 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openLogs(t, vfs.Default, dir, tc.segSize)
			storeRange(t, s, 1, 30, 4)
			s.Close()
			path := filepath.Join(dir, segmentName(1))
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b[tc.at(int64(len(b)))] ^= 0x40
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = OpenLogStore(vfs.Default, dir, tc.segSize)
			if !errors.Is(err, ErrLogCorrupt) || !strings.Contains(err.Error(), path) {
				t.Fatalf("open of a damaged log: %v", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
				t.Fatal("the failed open changed the segment")
			}
		})
	}
}

// TestLogStoreSegments: a small segment size rolls the log over into
// files named by their first index; a prefix deletion removes the
// segments wholly below it and keeps the first index across a reopen; a
// suffix deletion truncates one segment and removes those after it.
func TestLogStoreSegments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seg := int64(4 * recordSize(testLog(1))) // four entries a segment
	s := openLogs(t, vfs.Default, dir, seg)
	storeRange(t, s, 1, 40, 2)
	want := []string{}
	for i := uint64(1); i <= 40; i += 4 {
		want = append(want, segmentName(i))
	}
	if got := segmentFiles(t, dir); !slices.Equal(got, want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
	checkRange(t, s, 1, 40)
	// Compaction up to 10: segments 1 and 5 go, 9 stays with 9 hidden.
	if err := s.DeleteRange(1, 10); err != nil {
		t.Fatal(err)
	}
	checkRange(t, s, 11, 40)
	if got := segmentFiles(t, dir); got[0] != segmentName(9) || len(got) != 8 {
		t.Fatalf("segments after compaction: %v", got)
	}
	// A conflict from 22: segment 21 is cut after 21, 25 … 37 go.
	if err := s.DeleteRange(22, 40); err != nil {
		t.Fatal(err)
	}
	checkRange(t, s, 11, 21)
	if got := segmentFiles(t, dir); got[len(got)-1] != segmentName(21) || len(got) != 4 {
		t.Fatalf("segments after the suffix deletion: %v", got)
	}
	storeRange(t, s, 22, 30, 3)
	s.Close()
	s = openLogs(t, vfs.Default, dir, seg)
	checkRange(t, s, 11, 30)
	// Raft empties a monotonic store after installing a snapshot and
	// appends from the snapshot's index on.
	if err := s.DeleteRange(11, 30); err != nil {
		t.Fatal(err)
	}
	checkRange(t, s, 0, 0)
	if got := segmentFiles(t, dir); len(got) != 0 {
		t.Fatalf("segments of an empty log: %v", got)
	}
	storeRange(t, s, 100, 103, 4)
	s.Close()
	s = openLogs(t, vfs.Default, dir, seg)
	defer s.Close()
	checkRange(t, s, 100, 103)
	// A gap, or an index below the first, is refused.
	if err := s.StoreLog(testLog(105)); err == nil {
		t.Fatal("a gap was stored")
	}
	if err := s.StoreLog(testLog(99)); err == nil {
		t.Fatal("an entry below the first was stored")
	}
	checkRange(t, s, 100, 103)
}

// TestLogStorePowerLoss cuts the power (vfs.MemFS) at every operation of
// a run of appends, compactions and truncations, keeping a random part
// of what was not synced: every image reopens holding a consecutive
// range with every entry acknowledged before the cut (an append, or a
// deletion, is acknowledged when its call returns).
func TestLogStorePowerLoss(t *testing.T) {
	t.Parallel()
	logStorePowerLoss(t, func(m *vfs.MemFS) vfs.FS { return m })
}

// TestLogStorePowerLossEncrypted runs it on encrypted files: cryptfs over
// the MemFS, a new one for every image (a restart).
func TestLogStorePowerLossEncrypted(t *testing.T) {
	t.Parallel()
	key := cryptfs.StaticKey(bytes.Repeat([]byte{0x19}, 32))
	logStorePowerLoss(t, func(m *vfs.MemFS) vfs.FS { return cryptfs.New(m, key) })
}

func logStorePowerLoss(t *testing.T, wrap func(*vfs.MemFS) vfs.FS) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	m := vfs.NewMem()
	// The log must hold must … mustTo whatever happens next: what was
	// acknowledged, less what a deletion in flight may remove.
	// Each append's entries carry the round as their term, so an entry
	// cut by a suffix deletion cannot pass for the one stored after it.
	type image struct {
		fs               *vfs.MemFS
		mustFrom, mustTo uint64
		terms            map[uint64]uint64
	}
	var images []image
	var mustFrom, mustTo uint64
	terms := map[uint64]uint64{} // of the acknowledged entries
	m.SetHook(func(op vfs.Op, crash func(*rand.Rand) *vfs.MemFS) {
		if op.Kind.IsSync() || rng.IntN(3) == 0 {
			images = append(images, image{crash(rng), mustFrom, mustTo, maps.Clone(terms)})
		}
	})
	s := openLogs(t, wrap(m), "raft/log", int64(3*recordSize(testLog(1))))
	var from, to uint64 // what the log holds
	next := uint64(1)
	for round := 0; round < 60; round++ {
		switch r := rng.IntN(10); {
		case r < 7 || to == 0:
			n := 1 + rng.IntN(4)
			var batch []*raft.Log
			for i := next; i < next+uint64(n); i++ {
				l := testLog(i)
				l.Term = uint64(round + 1)
				batch = append(batch, l)
			}
			if err := s.StoreLogs(batch); err != nil {
				t.Fatal(err)
			}
			for _, l := range batch {
				terms[l.Index] = l.Term
			}
			if from == 0 {
				from = next
			}
			next += uint64(n)
			to = next - 1
			mustFrom, mustTo = from, to
		case r < 9 && to > from:
			hi := from + uint64(rng.IntN(int(to-from)))
			mustFrom = hi + 1
			if err := s.DeleteRange(from, hi); err != nil {
				t.Fatal(err)
			}
			from = hi + 1
		default:
			lo := from + uint64(rng.IntN(int(to-from+1)))
			mustTo = lo - 1
			if lo == from {
				mustFrom, mustTo = 0, 0
			}
			if err := s.DeleteRange(lo, to); err != nil {
				t.Fatal(err)
			}
			next, to = lo, lo-1
			if lo == from {
				from, to = 0, 0
			}
		}
	}
	m.SetHook(nil)
	s.Close()
	for k, im := range images {
		r, err := OpenLogStore(wrap(im.fs), "raft/log", 0)
		if err != nil {
			t.Fatalf("image %d: %v", k, err)
		}
		first, _ := r.FirstIndex()
		last, _ := r.LastIndex()
		if im.mustTo != 0 && (first == 0 || first > im.mustFrom || last < im.mustTo) {
			t.Fatalf("image %d holds %d … %d, must hold %d … %d", k, first, last, im.mustFrom, im.mustTo)
		}
		for i := first; i <= last && first != 0; i++ {
			var g raft.Log
			if err := r.GetLog(i, &g); err != nil || !bytes.Equal(g.Data, testLog(i).Data) {
				t.Fatalf("image %d, entry %d: %+v %v", k, i, g, err)
			}
			if i >= im.mustFrom && i <= im.mustTo && g.Term != im.terms[i] {
				t.Fatalf("image %d, entry %d: term %d, acknowledged with %d", k, i, g.Term, im.terms[i])
			}
		}
		r.Close()
	}
	t.Logf("%d images", len(images))
}
