package engine

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// diskQuota is a graph's on-disk quota (CREATE GRAPH … OPTIONS {max_disk}):
// once what its directory holds reaches the limit, writes are refused with
// 53100 until a DROP, deletions and a checkpoint, or a new quota, bring it
// under. The directory is measured at most once per diskQuotaEvery, so a
// burst of writes may pass the limit by what it writes in that time.
type diskQuota struct {
	limit atomic.Int64 // bytes; zero: none
	mu    sync.Mutex
	used  int64
	at    time.Time
}

// diskQuotaEvery is how stale the measured usage may be.
const diskQuotaEvery = time.Second

// checkDiskQuota refuses a write when the graph is over its quota.
func (db *DB) checkDiskQuota() error {
	q := &db.quota
	limit := q.limit.Load()
	if limit == 0 || db.dir == "" {
		return nil
	}
	q.mu.Lock()
	if time.Since(q.at) > diskQuotaEvery {
		q.used, q.at = dirBytes(db.fs, db.dir), time.Now()
	}
	used := q.used
	q.mu.Unlock()
	if used >= limit {
		return errs.New(errs.CodeDiskFull, errs.CatResource,
			"graph %q is over its disk quota (max_disk %d bytes, %d used): writes are refused", db.graph, limit, used).
			Suggest("delete data and run CHECKPOINT, or ask an administrator for a larger max_disk")
	}
	return nil
}

// diskUsage is what the graph's directory holds on disk now, in bytes;
// zero for a graph in memory. The default graph's excludes the other
// graphs' directories.
func (db *DB) diskUsage() int64 {
	if db.dir == "" {
		return 0
	}
	if db.root == db {
		return dirBytes(db.fs, db.dir) - dirBytes(db.fs, filepath.Join(db.dir, GraphsDirName))
	}
	return dirBytes(db.fs, db.dir)
}

// dirBytes sums the sizes of the files under dir (errors count as zero:
// a file removed while it is listed).
func dirBytes(fsys vfs.FS, dir string) int64 {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			n += dirBytes(fsys, p)
			continue
		}
		if st, err := fsys.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}
