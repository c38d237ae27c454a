package wal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// locate returns the segment holding r and r's offset in it.
func locate(segs []segment, r record) (int, int64) {
	i := len(segs) - 1
	for segs[i].base > r.start {
		i--
	}
	return i, int64(r.start - segs[i].base)
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	var seed [32]byte
	for i := range seed {
		seed[i] = byte(rng.Uint32())
	}
	rand.NewChaCha8(seed).Read(b)
	return b
}

// TestTornTail cuts the log inside each of its last three records at
// every byte, as a crash during their writes would, and reopens it: the
// records before the cut one are kept, the rest is truncated, and the log
// goes on from there. The last record is in a segment of its own, so a
// torn record at offset 0 of a new segment is covered too.
func TestTornTail(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	o := testOptions(1<<20, 64)
	rng := rand.New(rand.NewPCG(5, 6))
	payloads := variedPayloads(rng, 6, o.frameLimit)
	payloads = append(payloads,
		[]byte{},                               // an empty record: a bare header
		randomBytes(rng, 3*64+9),               // four frames, stored raw
		bytes.Repeat([]byte("torn tail "), 20)) // compressed frames
	l := mustOpen(t, src, o)
	recs := appendAll(t, l, payloads[:len(payloads)-1])
	mustClose(t, l)
	oneRecordSegments := o
	oneRecordSegments.SegmentSize = 1 // the next append rolls
	l = mustOpen(t, src, oneRecordSegments)
	recs = append(recs, appendAll(t, l, payloads[len(payloads)-1:])...)
	mustClose(t, l)

	files := snapshotDir(t, src)
	segs, _ := listSegments(vfs.Default, src)
	if len(segs) != 2 {
		t.Fatalf("%d segments, want 2", len(segs))
	}
	extra := []byte("appended after recovery")
	cuts := 0
	for r := len(recs) - 3; r < len(recs); r++ {
		si, off := locate(segs, recs[r])
		for cut := int64(0); cut < int64(recs[r].end-recs[r].start); cut++ {
			torn := map[string][]byte{}
			for i, s := range segs[:si+1] {
				name := filepath.Base(s.path)
				torn[name] = files[name]
				if i == si {
					torn[name] = files[name][:off+cut]
				}
			}
			dir := writeDir(t, root, torn)
			var logged bytes.Buffer
			oo := o
			oo.Logger = slog.New(slog.NewTextHandler(&logged, nil))
			l, err := Open(dir, oo)
			if err != nil {
				t.Fatalf("record %d cut at +%d: Open: %v", r, cut, err)
			}
			what := fmt.Sprintf("record %d cut at +%d", r, cut)
			if l.End() != recs[r].start {
				t.Fatalf("%s: End() = %d, want %d", what, l.End(), recs[r].start)
			}
			sameRecords(t, what, replayAll(t, l, 0), recs[:r])
			st, err := os.Stat(filepath.Join(dir, filepath.Base(segs[si].path)))
			if err != nil || st.Size() != off {
				t.Fatalf("%s: segment not truncated to %d: %v, %v", what, off, st.Size(), err)
			}
			if torn := strings.Contains(logged.String(), "truncated a torn record at the end of the WAL"); torn != (cut > 0) {
				t.Fatalf("%s: logged %q", what, logged.String())
			}
			more := appendAll(t, l, [][]byte{extra})
			mustClose(t, l)
			l = mustOpen(t, dir, o)
			sameRecords(t, what+", appended and reopened", replayAll(t, l, 0), append(recs[:r:r], more...))
			mustClose(t, l)
			os.RemoveAll(dir)
			cuts++
		}
	}
	t.Logf("%d torn tails recovered", cuts)
}

// corruptionLog writes a log of one segment whose records are: text, a
// one-frame record, a three-frame record, text, a three-frame record.
func corruptionLog(t *testing.T, dir string, o Options) []record {
	rng := rand.New(rand.NewPCG(7, 8))
	l := mustOpen(t, dir, o)
	defer mustClose(t, l)
	return appendAll(t, l, [][]byte{
		bytes.Repeat([]byte("first "), 20),
		randomBytes(rng, 150),
		randomBytes(rng, 600),
		bytes.Repeat([]byte("fourth "), 12),
		randomBytes(rng, 600),
	})
}

// TestCorruptRecord flips, one at a time, every byte of records that have
// valid records after them: Open must return *CorruptError naming the
// segment and an offset inside the record, and change no file. The same
// flips in the last record are a torn tail.
func TestCorruptRecord(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	o := testOptions(1<<20, 256)
	recs := corruptionLog(t, src, o)
	files := snapshotDir(t, src)
	name := segmentName(0)

	flip := func(files map[string][]byte, at LSN) map[string][]byte {
		out := maps.Clone(files)
		out[name] = bytes.Clone(files[name])
		out[name][at] ^= 0xff
		return out
	}
	for _, r := range []int{1, 2} { // one frame; three frames, the bad one anywhere
		for at := recs[r].start; at < recs[r].end; at++ {
			damaged := flip(files, at)
			dir := writeDir(t, root, damaged)
			_, err := Open(dir, o)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("record %d byte %d flipped: Open: %v, want *CorruptError", r, at, err)
			}
			path := filepath.Join(dir, name)
			if ce.File != path || ce.Offset < int64(recs[r].start) || ce.Offset >= int64(recs[r].end) ||
				(r == 1 && ce.Offset != int64(recs[r].start)) {
				t.Fatalf("record %d [%d,%d) byte %d flipped: %v", r, recs[r].start, recs[r].end, at, ce)
			}
			if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, fmt.Sprint(ce.Offset)) {
				t.Fatalf("error %q does not name the file and the offset", msg)
			}
			if after := snapshotDir(t, dir); !maps.EqualFunc(after, damaged, bytes.Equal) {
				t.Fatalf("record %d byte %d flipped: Open changed the files", r, at)
			}
			os.RemoveAll(dir)
		}
	}

	// The last record, of three frames, then of one (the five-record log
	// cut after its fourth record).
	oneFrameLast := map[string][]byte{name: files[name][:recs[4].start]}
	for _, c := range []struct {
		files map[string][]byte
		last  int
	}{{files, 4}, {oneFrameLast, 3}} {
		for at := recs[c.last].start; at < recs[c.last].end; at++ {
			dir := writeDir(t, root, flip(c.files, at))
			l, err := Open(dir, o)
			if err != nil {
				t.Fatalf("last record %d byte %d flipped: Open: %v, want a torn tail", c.last, at, err)
			}
			sameRecords(t, fmt.Sprintf("last record %d byte %d flipped", c.last, at), replayAll(t, l, 0), recs[:c.last])
			mustClose(t, l)
			os.RemoveAll(dir)
		}
	}
}

// TestCorruptAcrossSegments: a bad record at the end of a segment with
// valid records in the next one is corruption; so is a missing segment.
// A bad record followed only by a segment of garbage is a torn tail, and
// the garbage segment goes.
func TestCorruptAcrossSegments(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	o := testOptions(300, 256)
	l := mustOpen(t, src, o)
	recs := appendAll(t, l, variedPayloads(rand.New(rand.NewPCG(9, 10)), 40, 256))
	mustClose(t, l)
	files := snapshotDir(t, src)
	segs, _ := listSegments(vfs.Default, src)
	if len(segs) < 4 {
		t.Fatalf("%d segments, want at least 4", len(segs))
	}

	// The last record of the first segment, one byte flipped.
	first := filepath.Base(segs[0].path)
	last := recs[0]
	for _, r := range recs {
		if r.end <= segs[1].base {
			last = r
		}
	}
	damaged := maps.Clone(files)
	damaged[first] = bytes.Clone(files[first])
	damaged[first][last.start+5] ^= 1
	dir := writeDir(t, root, damaged)
	var ce *CorruptError
	if _, err := Open(dir, o); !errors.As(err, &ce) || ce.File != filepath.Join(dir, first) || ce.Offset != int64(last.start) {
		t.Fatalf("bad last record of the first segment: %v", err)
	}

	// A segment missing in the middle.
	gap := maps.Clone(files)
	delete(gap, filepath.Base(segs[1].path))
	dir = writeDir(t, root, gap)
	if _, err := Open(dir, o); !errors.As(err, &ce) || ce.File != filepath.Join(dir, filepath.Base(segs[2].path)) {
		t.Fatalf("missing segment: %v", err)
	}

	// Only the first segment, its last record cut, then a segment of
	// garbage (with a magic in it) where the second one was.
	tornFirst := map[string][]byte{
		first:                       files[first][:last.start+3],
		filepath.Base(segs[1].path): append(bytes.Repeat([]byte{0xAA}, 50), append(magic[:], bytes.Repeat([]byte{0}, 40)...)...),
	}
	dir = writeDir(t, root, tornFirst)
	l, err := Open(dir, o)
	if err != nil {
		t.Fatalf("torn record followed by a garbage segment: %v", err)
	}
	defer mustClose(t, l)
	if l.End() != last.start {
		t.Fatalf("End() = %d, want %d", l.End(), last.start)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the garbage segment is still there: %v", entries)
	}
}

// craftFrame appends a frame with the given flags and stored bytes, its
// CRC right for lsn: frames this package never writes, but which pass
// the checksum.
func craftFrame(dst []byte, lsn LSN, flags byte, stored []byte) []byte {
	h := len(dst)
	dst = append(dst, magic[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(stored)))
	dst = append(dst, flags)
	dst = binary.LittleEndian.AppendUint32(dst, 0)
	dst = append(dst, stored...)
	binary.LittleEndian.PutUint32(dst[h+9:], frameCRC(lsn, dst[h+4:h+9], stored))
	return dst
}

// TestCraftedFrames covers checks a CRC cannot: the first/continuation/
// last order of frames, and compressed bytes that do not decompress.
func TestCraftedFrames(t *testing.T) {
	o := testOptions(1<<20, 64)
	open := func(seg []byte) (*Log, string, error) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, segmentName(0)), seg, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Open(dir, o)
		return l, dir, err
	}
	one := craftFrame(nil, 0, flagFirst|flagLast, []byte("ok"))

	// A record that never ends, then a whole one: corruption.
	seg := craftFrame(bytes.Clone(one), LSN(len(one)), flagFirst, []byte("open"))
	seg = craftFrame(seg, LSN(len(seg)), flagFirst|flagLast, []byte("next"))
	var ce *CorruptError
	if _, _, err := open(seg); !errors.As(err, &ce) || ce.Offset != int64(len(seg)-headerSize-4) ||
		!strings.Contains(ce.Reason, "inside an unfinished record") {
		t.Fatalf("record starting inside another: %v", err)
	}

	// A continuation frame with no record before it, at the end: torn.
	seg = craftFrame(bytes.Clone(one), LSN(len(one)), 0, []byte("orphan"))
	l, _, err := open(seg)
	if err != nil {
		t.Fatalf("orphan continuation at the end: %v", err)
	}
	if l.End() != LSN(len(one)) {
		t.Fatalf("End() = %d, want %d", l.End(), len(one))
	}
	mustClose(t, l)

	// A first frame, then the end of the segment: torn, as a whole.
	seg = craftFrame(bytes.Clone(one), LSN(len(one)), flagFirst, []byte("half"))
	if l, _, err = open(seg); err != nil || l.End() != LSN(len(one)) {
		t.Fatalf("record cut off at the end of the segment: %v", err)
	}
	mustClose(t, l)

	// Compressed bytes that are no zstd frame pass Open (their CRC is
	// right) and fail Replay with the frame's offset.
	seg = craftFrame(bytes.Clone(one), LSN(len(one)), flagFirst|flagLast|flagCompressed, []byte("not zstd at all"))
	l, dir, err := open(seg)
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, l)
	err = l.Replay(0, func(LSN, LSN, []byte) error { return nil })
	if !errors.As(err, &ce) || ce.Offset != int64(len(one)) || ce.File != filepath.Join(dir, segmentName(0)) {
		t.Fatalf("Replay of a compressed frame that does not decompress: %v", err)
	}
}
