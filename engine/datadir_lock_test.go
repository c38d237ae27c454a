package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/storage"
)

// One process per data directory, from every side: an open database
// keeps an import out, a running import keeps Open out, and a directory a
// stopped server left empty (its lock file only) takes an import.
func TestDataDirLock(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{"persons.csv": importPersons})
	opts := func(dir string) engine.ImportOptions {
		return engine.ImportOptions{Dir: dir, Nodes: []engine.ImportInput{{Name: "Person", Path: filepath.Join(in, "persons.csv")}}}
	}

	// An open, empty database: an import into it is refused by name.
	dir := filepath.Join(t.TempDir(), "data")
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var inUse *engine.DirInUseError
	if _, err := engine.Import(opts(dir)); !errors.As(err, &inUse) || inUse.PID != os.Getpid() {
		t.Fatalf("import into an open directory: %v", err)
	}
	// Closed, it holds only its lock file, which no process holds: the
	// import builds the database there.
	db.Close()
	if sum, err := engine.Import(opts(dir)); err != nil || sum.Nodes != 4 {
		t.Fatalf("import after Close: %+v %v", sum, err)
	}
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(mustQuery(t, db, "MATCH (p:Person) RETURN count(*)", nil), ","); got != "4" {
		t.Errorf("after the import: %s", got)
	}
	db.Close()

	// An import running into a directory: its staging directory's lock is
	// held (as load's newStaging holds it). Open waits for it to finish.
	if !storage.LocksSupported {
		return
	}
	other := filepath.Join(t.TempDir(), "other")
	staging := filepath.Join(filepath.Dir(other), ".other.import-123")
	if err := os.Mkdir(staging, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := storage.LockFile(filepath.Join(staging, ".lock"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Open(other, engine.Options{}); err == nil || !strings.Contains(err.Error(), "an import into") {
		t.Fatalf("Open during an import: %v", err)
	}
	if _, err := engine.Import(opts(other)); err == nil || !strings.Contains(err.Error(), "an import into") {
		t.Fatalf("a second import during an import: %v", err)
	}
	// The import's process died: its lock is gone, and Open removes the
	// directory it left.
	unlock()
	db, err = engine.Open(other, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(staging); !os.IsNotExist(err) {
		t.Errorf("the abandoned staging directory is still there: %v", err)
	}
}
