package storage

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// TestBaseArchiveRoundTrip: a checkpoint streamed as an archive and
// installed in another directory opens as the same graph, replacing the
// base that directory held; a declined archive changes nothing, and a
// damaged one installs nothing.
func TestBaseArchiveRoundTrip(t *testing.T) {
	s, m := buildModel(t, 11, false)
	src := t.TempDir()
	if _, err := s.SaveBase(src); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	stamp, err := WriteBaseArchive(vfs.Default, src, &buf)
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	other, _ := buildModel(t, 12, false)
	if _, err := other.SaveBase(dst); err != nil {
		t.Fatal(err)
	}
	archive := buf.Bytes()
	a, err := OpenBaseArchive(bytes.NewReader(archive))
	if err != nil || a.Stamp() != stamp {
		t.Fatalf("archive stamp %v (%v), want %v", a.Stamp(), err, stamp)
	}
	if err := a.Discard(); err != nil {
		t.Fatal(err)
	}
	if got, err := OpenBase(dst); err != nil || got.Snapshot().NodeCount() != other.Snapshot().NodeCount() {
		t.Fatalf("a discarded archive changed the directory: %v", err)
	}
	// Damage: cut short.
	a, err = OpenBaseArchive(bytes.NewReader(archive[:len(archive)/2]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Install(vfs.Default, dst); !errors.Is(err, ErrCorruptBase) {
		t.Fatalf("a truncated archive: %v", err)
	}
	a, err = OpenBaseArchive(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Install(vfs.Default, dst)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	if got.LSN != stamp.LSN || got.Writer != stamp.Writer {
		t.Fatalf("installed %v, archived %v", got, stamp)
	}
	opened, err := OpenBase(dst)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "installed base", opened.Snapshot(), m, opened.Catalog())
	equalSnapshots(t, s.Snapshot(), opened.Snapshot())
	ents, _ := os.ReadDir(dst)
	if len(ents) != 2 {
		t.Fatalf("directory holds %d entries after the install, want the manifest and one base", len(ents))
	}
	if _, err := os.Stat(filepath.Join(dst, got.Base)); err != nil {
		t.Fatal(err)
	}
}
