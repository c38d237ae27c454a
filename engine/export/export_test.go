package export

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/vector"
)

// store returns a store with n :P nodes {i, s} and n-1 :NEXT
// relationships between consecutive ones, and, when bad is set, one node
// holding a MAP (which no file of the export can hold).
func store(t *testing.T, n int, bad bool) *storage.Store {
	t.Helper()
	s := storage.New()
	cat := s.Catalog()
	p, ki, ks := cat.EnsureLabel("P"), cat.EnsureKey("i"), cat.EnsureKey("s")
	next := cat.EnsureType("NEXT")
	tx := s.Begin()
	var prev uint64
	for i := 0; i < n; i++ {
		id, err := tx.CreateNode([]catalog.LabelID{p}, []catalog.KeyID{ki, ks}, []vector.Value{int64(i), strings.Repeat("x", i%50)})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if _, err := tx.CreateRel(next, prev, id, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		prev = id
	}
	if bad {
		if _, err := tx.CreateNode([]catalog.LabelID{p}, []catalog.KeyID{ki}, []vector.Value{map[string]vector.Value{"a": int64(1)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return s
}

// leftovers lists what dir holds.
func leftovers(t *testing.T, fsys vfs.FS, dir string) []string {
	t.Helper()
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// A full disk fails the export with 53100 and leaves nothing behind, in
// whichever file it strikes.
func TestExportDiskFull(t *testing.T) {
	s := store(t, 5000, false)
	for _, after := range []int{0, 1, 2} { // the nodes, the relationships, the manifest
		fsys := vfs.NewMem()
		if err := fsys.Mkdir("/x"); err != nil {
			t.Fatal(err)
		}
		writes := 0
		fsys.SetFault(func(op vfs.Op) error {
			if op.Kind == vfs.OpWrite {
				if writes++; writes > after {
					return syscall.ENOSPC
				}
			}
			return nil
		})
		_, err := Graph(s.Snapshot(), s.Catalog(), Options{Dir: "/x/out", FS: fsys, BatchRows: 100})
		e, ok := errs.As(err)
		if !ok || e.Code != errs.CodeDiskFull || !strings.Contains(e.Message, "full") {
			t.Fatalf("after %d writes: %v", after, err)
		}
		if names := leftovers(t, fsys, "/x"); len(names) != 0 {
			t.Fatalf("after %d writes the failed export left %v", after, names)
		}
	}
}

// An export that fails on a value the files cannot hold, or is stopped,
// leaves nothing behind, and names what stopped it.
func TestExportFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	s := store(t, 100, true)
	_, err := Graph(s.Snapshot(), s.Catalog(), Options{Dir: filepath.Join(dir, "out")})
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeNotSupported || !strings.Contains(e.Message, "property i holds a MAP") {
		t.Fatalf("got %v", err)
	}
	good := store(t, 20000, false)
	stopped := errors.New("stopped")
	polls := 0
	_, err = Graph(good.Snapshot(), good.Catalog(), Options{Dir: filepath.Join(dir, "out"), BatchRows: 1000, Stop: func() error {
		if polls++; polls > 8 {
			return stopped
		}
		return nil
	}})
	if !errors.Is(err, stopped) {
		t.Fatalf("got %v", err)
	}
	if names := leftovers(t, vfs.Default, dir); len(names) != 0 {
		t.Fatalf("the failed exports left %v", names)
	}
	// A folder that is not empty is refused before anything is written.
	if err := os.WriteFile(filepath.Join(dir, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Graph(good.Snapshot(), good.Catalog(), Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("got %v", err)
	}
}

// CreateFile's file appears under its name only on Commit; Abort and a
// failed write leave nothing.
func TestCreateFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.csv")
	f, err := CreateFile(vfs.Default, path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x,y\n"))
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the file is visible before Commit: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "x,y\n" {
		t.Fatalf("%q %v", b, err)
	}
	g, err := CreateFile(vfs.Default, filepath.Join(dir, "b.csv"))
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("half"))
	g.Abort()
	if names := leftovers(t, vfs.Default, dir); len(names) != 1 || names[0] != "a.csv" {
		t.Fatalf("left %v", names)
	}
}
