package cryptfs

import (
	"bytes"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// FuzzDecode reads files the fuzzer derives from encrypted ones: the
// header and block decoder must never panic, and whatever it reads
// without an error is a prefix of what was written (nobody without the
// key makes a block that authenticates; a torn or cut tail reads short).
func FuzzDecode(f *testing.F) {
	keys := StaticKey(bytes.Repeat([]byte{0x42}, 32))
	plain := make([]byte, 2*BlockSize+300)
	for i := range plain {
		plain[i] = byte(i * 7)
	}
	for _, n := range []int{0, 10, BlockSize, len(plain)} {
		m := vfs.NewMem()
		if err := vfs.WriteFileSync(New(m, keys), "/f", plain[:n]); err != nil {
			f.Fatal(err)
		}
		raw, _ := vfs.ReadFile(m, "/f")
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := vfs.NewMem()
		if err := vfs.WriteFileSync(m, "/f", raw); err != nil {
			t.Fatal(err)
		}
		got, err := vfs.ReadFile(New(m, keys), "/f")
		if err == nil && !bytes.Equal(got, plain[:min(len(got), len(plain))]) {
			t.Fatalf("read %d bytes that were never written", len(got))
		}
	})
}
