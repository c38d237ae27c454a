package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine/storage"
)

// An import builds its directory D beside it, in a staging directory
// ".D.import-*" that it renames to D at the end. A process killed during
// the import (kill -9, power loss) leaves the staging directory behind:
// it can hold gigabytes and nothing else would ever remove it. So every
// import holds an exclusive lock on a file in its staging directory for
// as long as it runs (the kernel drops the lock when the process dies),
// and Import and engine.Open remove the staging directories of D whose
// lock no process holds.

// stagingLockName is the lock file inside a staging directory.
const stagingLockName = ".lock"

// stagingGrace is how old a staging directory without a lock file must be
// before it counts as abandoned: an import creates the lock file right
// after the directory, so only a crash in between leaves none.
const stagingGrace = time.Minute

// stagingPrefix is the name prefix of dir's staging directories.
func stagingPrefix(dir string) string { return "." + filepath.Base(filepath.Clean(dir)) + ".import-" }

// newStaging creates a staging directory for dir and locks it. Call
// release when the import is over (after the rename, or after removing
// the directory).
func newStaging(dir string) (path string, release func(), err error) {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), stagingPrefix(dir))
	if err != nil {
		return "", nil, err
	}
	unlock, err := storage.LockFile(filepath.Join(tmp, stagingLockName))
	if err != nil {
		os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("cannot lock the import's staging directory: %w", err)
	}
	return tmp, unlock, nil
}

// CleanStaleImports removes the staging directories an interrupted import
// of dir left beside it, and returns their paths. A staging directory
// that a running import still holds is left alone.
func CleanStaleImports(dir string) ([]string, error) {
	parent, prefix := filepath.Dir(filepath.Clean(dir)), stagingPrefix(dir)
	ents, err := os.ReadDir(parent)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("cannot list %s for stale imports: %w", parent, err)
	}
	var removed []string
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		path := filepath.Join(parent, e.Name())
		if !abandoned(path) {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			return removed, fmt.Errorf("cannot remove the stale import directory %s: %w", path, err)
		}
		removed = append(removed, path)
	}
	return removed, nil
}

// ImportRunning reports, as an error, an import into dir that is running
// now: a staging directory of dir whose lock a process holds. Without
// file locks (storage.LocksSupported) nothing can tell, and it reports
// none.
func ImportRunning(dir string) error {
	if !storage.LocksSupported {
		return nil
	}
	parent, prefix := filepath.Dir(filepath.Clean(dir)), stagingPrefix(dir)
	ents, err := os.ReadDir(parent)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("cannot list %s for running imports: %w", parent, err)
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		path := filepath.Join(parent, e.Name())
		if _, err := os.Stat(filepath.Join(path, stagingLockName)); err == nil && !abandoned(path) {
			return fmt.Errorf("an import into %s is running (it builds in %s): one Quiver process serves or imports a data directory at a time", dir, path)
		}
	}
	return nil
}

// abandoned reports whether no running import holds the staging
// directory path.
func abandoned(path string) bool {
	lock := filepath.Join(path, stagingLockName)
	if _, err := os.Stat(lock); os.IsNotExist(err) {
		fi, err := os.Stat(path)
		return err == nil && time.Since(fi.ModTime()) > stagingGrace
	}
	unlock, err := storage.TryLockFile(lock)
	if err != nil {
		return false // held by a running import, or unreadable: leave it
	}
	unlock()
	return true
}
