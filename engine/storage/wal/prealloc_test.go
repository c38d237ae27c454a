//go:build linux

package wal

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// preallocOptions are testOptions with preallocated segments. The
// preallocation extends the file with zeros (a sparse tail), as
// fallocate does on a disk filesystem, whatever the test directory is
// on; TestAllocate checks the real one.
func preallocOptions(segSize int64, frameLimit int) Options {
	o := testOptions(segSize, frameLimit)
	o.Preallocate = true
	o.allocHook = func(f vfs.File, size int64) error { return f.Truncate(size) }
	return o
}

// segmentSizes returns the file size of each segment in dir, oldest
// first.
func segmentSizes(t *testing.T, dir string) ([]segment, []int64) {
	t.Helper()
	segs, err := listSegments(vfs.Default, dir)
	if err != nil {
		t.Fatal(err)
	}
	sizes := make([]int64, len(segs))
	for i, s := range segs {
		st, err := os.Stat(s.path)
		if err != nil {
			t.Fatal(err)
		}
		sizes[i] = st.Size()
	}
	return segs, sizes
}

// With Preallocate the active segment has its full size from the start,
// rolled segments are cut back to their records, a crash image (the
// files as they are, zeros after the last record) reopens to the same
// records without a warning, and Close cuts the active segment back.
func TestPreallocatedSegments(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "log")
	o := preallocOptions(4096, 256)
	l := mustOpen(t, dir, o)
	if _, sizes := segmentSizes(t, dir); sizes[0] != 4096 {
		t.Fatalf("new segment holds %d bytes, want the segment size 4096", sizes[0])
	}
	recs := appendAll(t, l, variedPayloads(rand.New(rand.NewPCG(3, 4)), 60, o.frameLimit))
	if err := l.Sync(l.End()); err != nil {
		t.Fatal(err)
	}
	segs, sizes := segmentSizes(t, dir)
	if len(segs) < 3 {
		t.Fatalf("%d segments; the test wants rolls", len(segs))
	}
	for i := range len(segs) - 1 {
		if want := int64(segs[i+1].base - segs[i].base); sizes[i] != want {
			t.Fatalf("rolled segment %d holds %d bytes, want its records' %d", i, sizes[i], want)
		}
	}
	last := segs[len(segs)-1]
	if used := int64(l.End() - last.base); sizes[len(sizes)-1] <= used {
		t.Fatalf("active segment holds %d bytes for %d of records: not preallocated", sizes[len(sizes)-1], used)
	}

	var logged bytes.Buffer
	oo := o
	oo.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	crashed := mustOpen(t, writeDir(t, root, snapshotDir(t, dir)), oo)
	if crashed.End() != l.End() {
		t.Fatalf("after a crash End() = %d, want %d", crashed.End(), l.End())
	}
	sameRecords(t, "after a crash", replayAll(t, crashed, 0), recs)
	if logged.Len() != 0 {
		t.Fatalf("reopening a preallocated segment logged %q", logged.String())
	}
	mustClose(t, crashed)

	mustClose(t, l)
	if _, sizes := segmentSizes(t, dir); sizes[len(sizes)-1] != int64(l.End()-last.base) {
		t.Fatalf("closed: active segment holds %d bytes, want %d", sizes[len(sizes)-1], l.End()-last.base)
	}
}

// A record torn inside preallocated space (its first bytes written, the
// rest still zeros) is a torn tail: cut, with a warning, at every byte.
// Zeros exactly at a record boundary are the log's end, silently. A bad
// record with a whole one after it, zeros behind, is corruption.
func TestPreallocatedTornTail(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	o := preallocOptions(1<<20, 64)
	l := mustOpen(t, src, o)
	rng := rand.New(rand.NewPCG(7, 8))
	recs := appendAll(t, l, append(variedPayloads(rng, 6, o.frameLimit), randomBytes(rng, 3*64+9)))
	if err := l.Sync(l.End()); err != nil {
		t.Fatal(err)
	}
	files := snapshotDir(t, src)
	segs, _ := listSegments(vfs.Default, src)
	name := filepath.Base(segs[0].path)
	image := files[name]
	if len(image) != 1<<20 {
		t.Fatalf("segment image of %d bytes, want the preallocated 1 MiB", len(image))
	}
	for r := len(recs) - 2; r < len(recs); r++ {
		off := int64(recs[r].start)
		for cut := int64(0); cut < int64(recs[r].end-recs[r].start); cut++ {
			torn := slices.Clone(image)
			clear(torn[off+cut : recs[len(recs)-1].end])
			var logged bytes.Buffer
			oo := o
			oo.Logger = slog.New(slog.NewTextHandler(&logged, nil))
			what := fmt.Sprintf("record %d cut at +%d", r, cut)
			l, err := Open(writeDir(t, root, map[string][]byte{name: torn}), oo)
			if err != nil {
				t.Fatalf("%s: Open: %v", what, err)
			}
			if l.End() != recs[r].start {
				t.Fatalf("%s: End() = %d, want %d", what, l.End(), recs[r].start)
			}
			sameRecords(t, what, replayAll(t, l, 0), recs[:r])
			if warned := strings.Contains(logged.String(), "truncated a torn record"); warned != (cut > 0) {
				t.Fatalf("%s: logged %q", what, logged.String())
			}
			mustClose(t, l)
		}
	}

	bad := slices.Clone(image)
	bad[recs[len(recs)-2].start+headerSize] ^= 0xff // a payload byte of the next to last record
	_, err := Open(writeDir(t, root, map[string][]byte{name: bad}), o)
	if ce := (*CorruptError)(nil); !errors.As(err, &ce) {
		t.Fatalf("a bad record before a whole one: Open = %v, want a CorruptError", err)
	}
}
