package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
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

// A second server that gets into a data directory (here the filesystem's
// locks do not work, as on some network filesystems) is detected by the
// writer identity: the first one stops acknowledging commits once the
// second has claimed the directory, and refuses to checkpoint over it;
// the second's commits, and every commit the first acknowledged before,
// survive a power cut.
func TestSecondWriterDetected(t *testing.T) {
	m := vfs.NewMem()
	m.SetLocking(false)
	opts := engine.Options{FS: m, CheckpointInterval: -1}
	a, err := engine.Open("/d", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	mustQuery(t, a, "CREATE (:N {by: 'a', i: 1})", nil)
	b, err := engine.Open("/d", opts)
	if err != nil {
		t.Fatalf("a second open where locks do not work: %v", err)
	}
	defer b.Close()
	_, err = a.Query(context.Background(), "CREATE (:N {by: 'a', i: 2})", nil)
	if e, ok := engine.AsError(err); !ok || e.Code != engine.CodeUnavailable || !strings.Contains(e.Message, "another server") {
		t.Fatalf("a commit of the first server after the second claimed the directory: %v", err)
	}
	mustQuery(t, b, "CREATE (:N {by: 'b', i: 3})", nil)
	if _, err := a.Checkpoint(); err == nil {
		t.Fatal("the first server checkpointed over the second's directory")
	}
	mustQuery(t, b, "CHECKPOINT", nil)
	mustQuery(t, b, "CREATE (:N {by: 'b', i: 4})", nil)
	after, err := engine.Open("/d", engine.Options{FS: m.Crash(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	if got := strings.Join(mustQuery(t, after, "MATCH (n:N) RETURN n.by + n.i ORDER BY n.i", nil), ","); got != "'a1','b3','b4'" {
		t.Fatalf("after a power cut: %s, want a1,b3,b4", got)
	}
}

// CHECKPOINT and commits on a full disk fail with 53100, a message that
// says so, and lose nothing: once space is back (a restart for the
// commits, which stop at the first failed write of the log), every
// acknowledged commit is there.
func TestDiskFull(t *testing.T) {
	m := vfs.NewMem()
	opts := engine.Options{FS: m, CheckpointInterval: -1}
	db, err := engine.Open("/d", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustQuery(t, db, "CREATE (:N {i: 1})", nil)
	full := func(op vfs.Op) error {
		if (op.Kind == vfs.OpWrite || op.Kind == vfs.OpCreate || op.Kind == vfs.OpPreallocate) && !strings.Contains(op.Path, "LOCK") {
			return syscall.ENOSPC
		}
		return nil
	}
	m.SetFault(full)
	_, err = db.Query(context.Background(), "CHECKPOINT", nil)
	if e, ok := engine.AsError(err); !ok || e.Code != engine.CodeDiskFull || !strings.Contains(e.Message, "disk") ||
		strings.Contains(e.Message, "/d/") {
		t.Fatalf("CHECKPOINT on a full disk: %v", err)
	}
	if st := db.Durability(); st.Checkpoints != 0 {
		t.Fatalf("a checkpoint counted: %+v", st)
	}
	if ents, _ := m.ReadDir("/d"); len(ents) != 2 { // LOCK and wal/: the partial base is gone
		t.Fatalf("the failed checkpoint left %v", ents)
	}
	_, err = db.Query(context.Background(), "CREATE (:N {i: 2})", nil)
	if e, ok := engine.AsError(err); !ok || e.Code != engine.CodeDiskFull || !strings.Contains(e.Message, "disk") {
		t.Fatalf("a commit on a full disk: %v", err)
	}
	m.SetFault(nil)
	if got := strings.Join(mustQuery(t, db, "MATCH (n:N) RETURN n.i ORDER BY n.i", nil), ","); got != "1" {
		t.Fatalf("readers after the failed commit: %s", got)
	}
	db.Close()
	db, err = engine.Open("/d", engine.Options{FS: m.Crash(nil)})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "CREATE (:N {i: 3})", nil)
	if got := strings.Join(mustQuery(t, db, "MATCH (n:N) RETURN n.i ORDER BY n.i", nil), ","); got != "1,3" {
		t.Fatalf("after a restart with space: %s", got)
	}
	mustQuery(t, db, "CHECKPOINT", nil)
}
