package wal

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// segment is one segment file of the log.
type segment struct {
	base LSN    // LSN of the file's first byte, from its name
	path string // dir/wal-<base>.log
}

const (
	segPrefix = "wal-"
	segSuffix = ".log"
)

// segmentName is the file name of the segment starting at base: fixed
// width hex, so the directory's name order is LSN order.
func segmentName(base LSN) string {
	return fmt.Sprintf("%s%016x%s", segPrefix, uint64(base), segSuffix)
}

// parseSegmentName returns the base LSN named by a segment file name. Only
// names segmentName produces are accepted, so a stray "wal-1.log" or an
// editor's backup is never taken for a segment.
func parseSegmentName(name string) (LSN, bool) {
	hex, ok := strings.CutPrefix(name, segPrefix)
	if !ok {
		return 0, false
	}
	if hex, ok = strings.CutSuffix(hex, segSuffix); !ok || len(hex) != 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(hex, 16, 64)
	if err != nil || segmentName(LSN(v)) != name {
		return 0, false
	}
	return LSN(v), true
}

// listSegments returns the segments in dir, oldest first.
func listSegments(fsys vfs.FS, dir string) ([]segment, error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot list the WAL directory %s: %w", dir, err)
	}
	var segs []segment
	for _, e := range entries { // ReadDir sorts by name, which is LSN order
		if base, ok := parseSegmentName(e.Name()); ok && e.Type().IsRegular() {
			segs = append(segs, segment{base: base, path: filepath.Join(dir, e.Name())})
		}
	}
	return segs, nil
}

// createSegment creates the empty segment starting at base. O_EXCL: an
// existing file of that name is a bug in the caller, never overwritten.
// The caller fsyncs the directory.
func createSegment(fsys vfs.FS, dir string, base LSN) (segment, vfs.File, error) {
	s := segment{base: base, path: filepath.Join(dir, segmentName(base))}
	f, err := fsys.OpenFile(s.path, os.O_RDWR|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return segment{}, nil, fmt.Errorf("cannot create WAL segment %s: %w", s.path, err)
	}
	return s, f, nil
}

// realSync makes f durable: its data (fdatasync: the size too, not the
// times) for a segment, its entries (fsync) for a directory.
func realSync(f vfs.File, dir bool) error {
	if dir {
		return f.Sync()
	}
	return f.SyncData()
}

// syncDir fsyncs the directory dir, so the creation, removal or
// truncation of files in it survives a crash.
func (l *Log) syncDir(dir string) error {
	d, err := l.fs.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("cannot open the WAL directory %s to sync it: %w", dir, err)
	}
	defer d.Close()
	if err := l.syncHook(d, true); err != nil {
		return fmt.Errorf("cannot fsync the WAL directory %s: %w", dir, err)
	}
	return nil
}

// syncFile fdatasyncs a segment file.
func (l *Log) syncFile(f vfs.File) error {
	l.syncs.Add(1)
	if err := l.syncHook(f, false); err != nil {
		return fmt.Errorf("cannot fdatasync WAL segment %s: %w", f.Name(), err)
	}
	return nil
}
