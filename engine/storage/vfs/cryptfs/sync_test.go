package cryptfs

import (
	"bytes"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// syncHookFS calls onSync at the start of every file's SyncData, before
// the sync reaches the filesystem underneath.
type syncHookFS struct {
	vfs.FS
	onSync func()
}

func (h *syncHookFS) OpenFile(name string, flag int) (vfs.File, error) {
	f, err := h.FS.OpenFile(name, flag)
	if err != nil {
		return nil, err
	}
	return &syncHookFile{File: f, fs: h}, nil
}

type syncHookFile struct {
	vfs.File
	fs *syncHookFS
}

func (f *syncHookFile) SyncData() error {
	if hook := f.fs.onSync; hook != nil {
		f.fs.onSync = nil
		hook()
	}
	return f.File.SyncData()
}

// TestWriteDuringSync: a write to a block while a sync of it is in flight
// (the WAL writes a large record's frames while its flusher syncs the
// tail block) must not cost what the sync acknowledged. The write waits
// for the sync; if it went ahead, it would rewrite the slot being synced,
// and a crash while that block is written again would leave only the
// slot of the sync before.
func TestWriteDuringSync(t *testing.T) {
	keys := newTestKeys(3)
	m := vfs.NewMem()
	h := &syncHookFS{FS: m}
	c := New(h, keys)
	f := mustOpen(t, c, "/w", os.O_RDWR|os.O_CREATE)
	vfs.SyncDir(m, "/")
	part := func(b byte) []byte { return bytes.Repeat([]byte{b}, 100) }
	write := func(p []byte, off int64) {
		if _, err := f.WriteAt(p, off); err != nil {
			t.Error(err)
		}
	}
	write(part('a'), 0)
	if err := f.SyncData(); err != nil {
		t.Fatal(err)
	}
	write(part('b'), 100)

	// The sync of "ab" starts a write of "c" into the same block and lets
	// it run until it waits for the sync, or ends.
	waiting := make(chan struct{}, 1)
	testHookAwaitSync = func() { waiting <- struct{}{} }
	defer func() { testHookAwaitSync = nil }()
	var wg sync.WaitGroup
	wrote := make(chan struct{})
	h.onSync = func() {
		wg.Go(func() {
			write(part('c'), 200)
			close(wrote)
		})
		select {
		case <-waiting:
		case <-wrote:
		}
	}
	if err := f.SyncData(); err != nil {
		t.Fatal(err)
	}
	acked := 200 // "ab"
	wg.Wait()
	select {
	case <-wrote:
	default:
		t.Fatal("the write during the sync did not end")
	}

	// The block is written again; a power cut at any byte of that write
	// (taken as the next sync starts) keeps the acknowledged "ab".
	write(part('d'), 300)
	rng := rand.New(rand.NewPCG(1, 2))
	var images []*vfs.MemFS
	m.SetHook(func(op vfs.Op, crash func(*rand.Rand) *vfs.MemFS) {
		if op.Kind == vfs.OpSync && op.Path == "/w" {
			for range 200 {
				images = append(images, crash(rng))
			}
		}
	})
	if err := f.SyncData(); err != nil {
		t.Fatal(err)
	}
	m.SetHook(nil)
	if len(images) == 0 {
		t.Fatal("no crash image was taken")
	}
	all := append(append(append(part('a'), part('b')...), part('c')...), part('d')...)
	for i, img := range images {
		got, err := vfs.ReadFile(New(img, keys), "/w")
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		if len(got) < acked || !bytes.Equal(got, all[:len(got)]) {
			t.Fatalf("image %d: read %q, want a prefix of the writes holding the %d bytes the sync acknowledged", i, got, acked)
		}
	}
}
