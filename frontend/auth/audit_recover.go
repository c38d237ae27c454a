package auth

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Reading the trail back at open. The files are read from their ends
// backwards, newest file first, until the ring is full: memory stays at
// one ring of records plus a chunk and a line, whatever the files' sizes,
// and a long history costs no more than a short one.
//
// What a crash can leave: the last line of audit.log without its newline
// (a write the crash cut, or a tail of zeroes the file system had
// allocated) — it is cut off the file, since its Audit call never
// returned. A line that does not parse elsewhere (an edit, a bad disk
// block) is skipped with a warning; its event_id still counts when it
// can be read (lineID), so ids are never reused.

// readChunk is how much of a file recovery reads at a time.
const auditReadChunk = 64 << 10

// recovered is what recoverTrail found.
type auditRecovered struct {
	file    vfs.File      // audit.log, open for appending, torn tail cut
	size    int64         // its size
	firstID int64         // its first readable event_id; 0 when none
	lastID  int64         // the highest event_id of any file; 0 when none
	records []AuditRecord // the newest events, oldest first, at most the ring's size
}

// recoverTrail opens dir/audit.log and reads the trail back.
func recoverAuditTrail(fsys vfs.FS, dir string, ringSize int, log *slog.Logger) (rec auditRecovered, err error) {
	rotated, err := auditRotatedFiles(fsys, dir)
	if err != nil {
		return rec, err
	}
	f, err := openAuditFile(fsys, dir)
	if err != nil {
		return rec, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	size, err := cutAuditTornTail(f, log)
	if err != nil {
		return rec, err
	}
	rec.file, rec.size = f, size
	if rec.firstID, err = auditFirstLineID(f, size); err != nil {
		return rec, err
	}

	// Newest first: audit.log, then the rotated files by descending first
	// id. A rotated file's first id was used, whatever its lines say.
	newest := make([]AuditRecord, 0, min(ringSize, 1024))
	files := append([]auditRotatedFile{{path: f.Name()}}, rotated...)
	for _, rf := range files {
		rec.lastID = max(rec.lastID, rf.first)
		if len(newest) >= ringSize {
			continue
		}
		r := f
		if rf.first != 0 {
			if r, err = fsys.OpenFile(rf.path, os.O_RDONLY); err != nil {
				return rec, fmt.Errorf("cannot read the audit trail: %w", err)
			}
		}
		end := size
		if r != f {
			var st fs.FileInfo
			if st, err = r.Stat(); err == nil {
				end = st.Size()
			}
		}
		if err == nil {
			err = eachAuditLineBackward(r, end, func(line []byte) bool {
				rec.lastID = max(rec.lastID, auditLineID(line))
				got, perr := parseAuditRecord(line)
				if perr != nil {
					log.Warn("skipping a corrupt line of the audit trail", "file", rf.path, "err", perr)
					return true
				}
				rec.lastID = max(rec.lastID, got.ID)
				newest = append(newest, got)
				return len(newest) < ringSize
			})
		}
		if r != f {
			r.Close()
		}
		if err != nil {
			return rec, fmt.Errorf("cannot read the audit trail from %s: %w", rf.path, err)
		}
	}
	slices.Reverse(newest)
	rec.records = newest
	return rec, nil
}

// cutTornTail cuts everything after the last newline off f and returns the
// size left.
func cutAuditTornTail(f vfs.File, log *slog.Logger) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("cannot read the audit log: %w", err)
	}
	size := st.Size()
	keep := int64(0)
	found := false
	buf := make([]byte, min(size, auditReadChunk))
	for pos := size; pos > 0 && !found; {
		n := min(int64(len(buf)), pos)
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			return 0, fmt.Errorf("cannot read the audit log: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep, found = pos+int64(i)+1, true
		}
	}
	if keep == size {
		return size, nil
	}
	log.Warn("cutting a torn last line off the audit log (an event whose write a crash interrupted)",
		"file", f.Name(), "bytes", size-keep)
	if err := f.Truncate(keep); err != nil {
		return 0, fmt.Errorf("cannot cut the torn end off the audit log: %w", err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("cannot sync the audit log: %w", err)
	}
	return keep, nil
}

// firstLineID is the event_id of the first readable line among f's first
// readChunk bytes: the name the file gets when it is rotated.
func auditFirstLineID(f vfs.File, size int64) (int64, error) {
	buf := make([]byte, min(size, auditReadChunk))
	if _, err := f.ReadAt(buf, 0); err != nil && err != io.EOF {
		return 0, fmt.Errorf("cannot read the audit log: %w", err)
	}
	for len(buf) > 0 {
		line, rest, ok := bytes.Cut(buf, []byte{'\n'})
		if !ok {
			break
		}
		if r, err := parseAuditRecord(line); err == nil {
			return r.ID, nil
		}
		buf = rest
	}
	return 0, nil
}

// eachLineBackward calls fn with each newline-terminated line of f's
// first end bytes (the first line may lack its newline only if end cuts
// it), last line first, without the newline, until fn returns false.
// Blank lines are skipped; a line longer than maxLineBytes is passed
// cut to its first maxLineBytes+1 bytes, never held whole. fn must not
// keep line.
func eachAuditLineBackward(f io.ReaderAt, end int64, fn func(line []byte) bool) error {
	chunk := make([]byte, min(end, auditReadChunk))
	var line []byte // the end of the line being assembled, read so far
	emit := func() bool {
		defer func() { line = line[:0] }()
		return len(line) == 0 || fn(line)
	}
	prepend := func(b []byte) {
		n := len(line)
		line = append(line, b...)
		copy(line[len(b):], line[:n])
		copy(line, b)
		// Keep a long line's start, where event_id is, and drop the rest.
		line = line[:min(len(line), auditMaxLineBytes+1)]
	}
	for pos := end; pos > 0; {
		n := min(int64(len(chunk)), pos)
		pos -= n
		data := chunk[:n]
		if _, err := f.ReadAt(data, pos); err != nil {
			return err
		}
		for {
			i := bytes.LastIndexByte(data, '\n')
			if i < 0 {
				prepend(data)
				break
			}
			prepend(data[i+1:])
			if !emit() {
				return nil
			}
			data = data[:i]
		}
	}
	emit()
	return nil
}

// rotatedFile is an audit-<first>[-k].log file.
type auditRotatedFile struct {
	path  string
	first int64 // 0 for audit.log itself
	k     int
}

// rotatedFiles lists dir's rotated files, newest (highest first id)
// first. Other names are left alone.
func auditRotatedFiles(fsys vfs.FS, dir string) ([]auditRotatedFile, error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot list the audit directory: %w", err)
	}
	var out []auditRotatedFile
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), "audit-")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if name, ok = strings.CutSuffix(name, ".log"); !ok {
			continue
		}
		num, suffix, _ := strings.Cut(name, "-")
		first, err := strconv.ParseInt(num, 10, 64)
		if err != nil || first <= 0 {
			continue
		}
		k := 1
		if suffix != "" {
			if k, err = strconv.Atoi(suffix); err != nil {
				continue
			}
		}
		out = append(out, auditRotatedFile{path: filepath.Join(dir, e.Name()), first: first, k: k})
	}
	slices.SortFunc(out, func(a, b auditRotatedFile) int {
		return cmp.Or(cmp.Compare(b.first, a.first), cmp.Compare(b.k, a.k))
	})
	return out, nil
}
