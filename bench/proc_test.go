package bench

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func TestPeakRSSReset(t *testing.T) {
	big := make([]byte, 64<<20)
	for i := range big {
		big[i] = 1
	}
	high, err := PeakRSS(0)
	if err != nil {
		t.Fatal(err)
	}
	if high < 64<<20 {
		t.Fatalf("peak RSS %d after touching 64 MiB", high)
	}
	big = nil
	debug.FreeOSMemory()
	if err := ResetPeakRSS(0); err != nil {
		t.Fatal(err)
	}
	low, _ := PeakRSS(0)
	if low > high-32<<20 {
		t.Fatalf("peak RSS %d after reset, was %d", low, high)
	}
}

func TestDiskSizeAndMachine(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), make([]byte, 1000), 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "b"), make([]byte, 24), 0o644)
	if n := DiskSize(dir); n != 1024 {
		t.Fatalf("DiskSize %d, want 1024", n)
	}
	if n := DiskSize(filepath.Join(dir, "a")); n != 1000 {
		t.Fatalf("DiskSize of a file %d, want 1000", n)
	}
	m := ThisMachine()
	if m.CPUs < 1 || m.MemBytes <= 0 {
		t.Fatalf("machine %+v", m)
	}
}
