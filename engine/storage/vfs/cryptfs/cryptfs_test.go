package cryptfs

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// testKeys is a one-generation keyring without a file.
type testKeys struct{ keys map[uint32][]byte }

func newTestKeys(seed byte) *testKeys {
	return &testKeys{keys: map[uint32][]byte{1: bytes.Repeat([]byte{seed}, 32)}}
}

func (k *testKeys) Current() (uint32, []byte)   { return 1, k.keys[1] }
func (k *testKeys) Key(g uint32) ([]byte, bool) { b, ok := k.keys[g]; return b, ok }

func mustOpen(t *testing.T, fsys vfs.FS, name string, flag int) vfs.File {
	t.Helper()
	f, err := fsys.OpenFile(name, flag)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestModel writes, truncates and reads at random offsets and sizes, on a
// cryptfs and on a plain MemFS, and compares every read and size; then
// reopens the file on a new cryptfs (a restart) and compares again.
func TestModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		base := vfs.NewMem()
		keys := newTestKeys(7)
		c := New(base, keys)
		plain := vfs.NewMem()
		cf := mustOpen(t, c, "/f", os.O_RDWR|os.O_CREATE)
		pf := mustOpen(t, plain, "/f", os.O_RDWR|os.O_CREATE)
		size := func(f vfs.File) int64 {
			st, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			return st.Size()
		}
		for step := range 300 {
			switch op := rng.IntN(10); {
			case op < 5:
				off := rng.Int64N(5 * BlockSize)
				p := make([]byte, rng.IntN(3*BlockSize))
				for i := range p {
					p[i] = byte(rng.Uint32())
				}
				if _, err := cf.WriteAt(p, off); err != nil {
					t.Fatalf("seed %d step %d: write: %v", seed, step, err)
				}
				pf.WriteAt(p, off)
			case op == 5:
				n := rng.Int64N(size(pf) + BlockSize)
				if err := cf.Truncate(n); err != nil {
					t.Fatalf("seed %d step %d: truncate: %v", seed, step, err)
				}
				pf.Truncate(n)
			case op == 6:
				if err := cf.Sync(); err != nil {
					t.Fatal(err)
				}
			default:
				off := rng.Int64N(size(pf) + 10)
				a := make([]byte, rng.IntN(2*BlockSize))
				b := make([]byte, len(a))
				na, ea := cf.ReadAt(a, off)
				nb, eb := pf.ReadAt(b, off)
				if na != nb || !bytes.Equal(a[:na], b[:nb]) || (ea == nil) != (eb == nil) {
					t.Fatalf("seed %d step %d: read at %d: got %d %v, want %d %v", seed, step, off, na, ea, nb, eb)
				}
			}
			if size(cf) != size(pf) {
				t.Fatalf("seed %d step %d: size %d, want %d", seed, step, size(cf), size(pf))
			}
		}
		cf.Close()
		want, _ := vfs.ReadFile(plain, "/f")
		got, err := vfs.ReadFile(New(base, keys), "/f")
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("seed %d: reopened: %d bytes, err %v; want %d bytes", seed, len(got), err, len(want))
		}
		st, err := New(base, keys).Stat("/f")
		if err != nil || st.Size() != int64(len(want)) {
			t.Fatalf("seed %d: Stat: %v %v, want size %d", seed, st, err, len(want))
		}
	}
}

func writeFile(t *testing.T, fsys vfs.FS, name string, b []byte) {
	t.Helper()
	if err := vfs.WriteFileSync(fsys, name, b); err != nil {
		t.Fatal(err)
	}
}

func TestAppendAndSequential(t *testing.T) {
	base := vfs.NewMem()
	c := New(base, newTestKeys(1))
	f := mustOpen(t, c, "/a", os.O_RDWR|os.O_CREATE|os.O_APPEND)
	var want []byte
	for i := range 500 {
		line := []byte(strings.Repeat("x", i%97) + "\n")
		if _, err := f.Write(line); err != nil {
			t.Fatal(err)
		}
		want = append(want, line...)
	}
	f.Close()
	r := mustOpen(t, c, "/a", os.O_RDONLY)
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes (%v), want %d", len(got), err, len(want))
	}
	// Preallocated zeros take disk space but are not part of the file,
	// before and after a reopen, and appends go into them.
	w := mustOpen(t, c, "/a", os.O_RDWR)
	if err := w.Preallocate(1 << 20); err != nil {
		t.Fatal(err)
	}
	if st, _ := base.Stat("/a"); st.Size() < 1<<20 {
		t.Fatalf("preallocated %d bytes on disk, want 1 MiB", st.Size())
	}
	for _, c := range []*FS{c, New(base, newTestKeys(1))} {
		if st, _ := c.Stat("/a"); st.Size() != int64(len(want)) {
			t.Fatalf("size %d after Preallocate, want %d", st.Size(), len(want))
		}
	}
	w.WriteAt([]byte("tail"), int64(len(want)))
	w.Sync()
	w.Close()
	want = append(want, "tail"...)
	if got, err := vfs.ReadFile(New(base, newTestKeys(1)), "/a"); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after an append into preallocated space: %d bytes, %v", len(got), err)
	}
}

// TestNoPlaintext: the bytes on disk hold nothing of what was written.
func TestNoPlaintext(t *testing.T) {
	base := vfs.NewMem()
	c := New(base, newTestKeys(1))
	secret := []byte("the-secret-value-0123456789")
	writeFile(t, c, "/s", bytes.Repeat(secret, 1000))
	raw, _ := vfs.ReadFile(base, "/s")
	if bytes.Contains(raw, secret[:12]) {
		t.Fatal("the plaintext is on disk")
	}
}

// TestTamper: a byte changed anywhere in a block, or two blocks swapped,
// is an error that names the file and the block.
func TestTamper(t *testing.T) {
	keys := newTestKeys(3)
	data := make([]byte, 5*BlockSize+100)
	for i := range data {
		data[i] = byte(i)
	}
	for _, tc := range []struct {
		name  string
		spoil func(raw []byte)
		block int64
	}{
		{"flip a ciphertext byte", func(raw []byte) { raw[blockOffset(2)+slotMeta+nonceSize+100] ^= 1 }, 2},
		{"flip a tag byte", func(raw []byte) { raw[blockOffset(1)+slotSize-1] ^= 0x80 }, 1},
		{"flip a byte of the last block", func(raw []byte) { raw[blockOffset(5)+slotMeta+nonceSize+3] ^= 1 }, 5},
		{"change a length", func(raw []byte) { raw[blockOffset(3)+8] ^= 1 }, 3},
		{"swap two blocks", func(raw []byte) {
			a, b := slicesClone(raw[blockOffset(1):blockOffset(2)]), slicesClone(raw[blockOffset(2):blockOffset(3)])
			copy(raw[blockOffset(1):], b)
			copy(raw[blockOffset(2):], a)
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := vfs.NewMem()
			vfs.MkdirAllSync(base, "/d")
			writeFile(t, New(base, keys), "/d/base.dat", data)
			raw, _ := vfs.ReadFile(base, "/d/base.dat")
			tc.spoil(raw)
			writeFile(t, base, "/d/base.dat", raw)
			_, err := vfs.ReadFile(New(base, keys), "/d/base.dat")
			var ae *AuthError
			if !errors.As(err, &ae) || ae.Block != tc.block || !strings.Contains(err.Error(), "cannot read /d/base.dat: authentication failed at block") {
				t.Fatalf("got %v, want an authentication failure at block %d naming the file", err, tc.block)
			}
		})
	}
	t.Run("move a block to another file", func(t *testing.T) {
		base := vfs.NewMem()
		c := New(base, keys)
		writeFile(t, c, "/x", data)
		writeFile(t, c, "/y", data)
		x, _ := vfs.ReadFile(base, "/x")
		y, _ := vfs.ReadFile(base, "/y")
		copy(y[blockOffset(0):blockOffset(1)], x[blockOffset(0):blockOffset(1)])
		writeFile(t, base, "/y", y)
		if _, err := vfs.ReadFile(New(base, keys), "/y"); err == nil || !strings.Contains(err.Error(), "/y") {
			t.Fatalf("got %v, want an authentication failure of /y", err)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		base := vfs.NewMem()
		writeFile(t, New(base, keys), "/x", data)
		if _, err := vfs.ReadFile(New(base, newTestKeys(4)), "/x"); err == nil {
			t.Fatal("read with another key")
		}
	})
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }

// TestTornTail: a power cut while a new last block is written leaves a
// file that reads shorter, never an error; a cut while a synced partial
// block is rewritten keeps its synced bytes.
func TestTornTail(t *testing.T) {
	keys := newTestKeys(9)
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 2))
		m := vfs.NewMem()
		c := New(m, keys)
		f := mustOpen(t, c, "/w", os.O_RDWR|os.O_CREATE)
		vfs.SyncDir(m, "/")
		var synced, all []byte
		var images []*vfs.MemFS
		var syncedAt []int
		m.SetHook(func(op vfs.Op, crash func(*rand.Rand) *vfs.MemFS) {
			if op.Kind == vfs.OpWrite && op.Path == "/w" {
				images = append(images, crash(rng))
				syncedAt = append(syncedAt, len(synced))
			}
		})
		for range 20 {
			p := make([]byte, 1+rng.IntN(BlockSize))
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			if _, err := f.WriteAt(p, int64(len(all))); err != nil {
				t.Fatal(err)
			}
			all = append(all, p...)
			if rng.IntN(2) == 0 {
				if err := f.SyncData(); err != nil {
					t.Fatal(err)
				}
				synced = slicesClone(all)
			}
		}
		m.SetHook(nil)
		for i, img := range images {
			got, err := vfs.ReadFile(New(img, keys), "/w")
			if err != nil {
				t.Fatalf("seed %d image %d: %v", seed, i, err)
			}
			if len(got) < syncedAt[i] || !bytes.Equal(got, all[:len(got)]) {
				t.Fatalf("seed %d image %d: read %d bytes, want a prefix of the writes of at least the %d synced", seed, i, len(got), syncedAt[i])
			}
		}
	}
}

func TestRenameAndReadDir(t *testing.T) {
	base := vfs.NewMem()
	c := New(base, newTestKeys(1), KeyringFile)
	vfs.MkdirAllSync(c, "/d")
	writeFile(t, c, "/d/a.tmp", []byte("hello"))
	if err := c.Rename("/d/a.tmp", "/d/a"); err != nil {
		t.Fatal(err)
	}
	es, err := c.ReadDir("/d")
	if err != nil || len(es) != 1 {
		t.Fatal(es, err)
	}
	if fi, err := es[0].Info(); err != nil || fi.Size() != 5 {
		t.Fatalf("Info: %v %v, want size 5", fi, err)
	}
	writeFile(t, c, filepath.Join("/d", KeyringFile), []byte("plain"))
	if b, _ := vfs.ReadFile(base, "/d/keyring"); string(b) != "plain" {
		t.Fatalf("the keyring is %q on disk, want it as written", b)
	}
}
