package auth

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// One goroutine, the writer, owns the audit file: it takes every event
// queued since its last round, writes each line with one write call,
// rotates the file when a line would take it past MaxFileBytes, and syncs
// once for the whole round. Audit calls that arrive while a sync runs
// queue behind it and share the next one: a group commit, so a burst of
// failed logins costs a few fsyncs, not one each. Owning the file in one
// goroutine keeps rotation (which closes the file) away from a sync in
// flight, and lets callers stop waiting on a hung disk (auditWaitLimit)
// without leaving the file to two owners.

// maxQueueBytes bounds the lines waiting for the writer. The queue only
// grows while the disk is slower than the events, or hung; past the bound
// events are kept in memory only, and counted.
const auditMaxQueueBytes = 8 << 20

// batch is the events of one writer round, encoded: line i is
// lines[ends[i-1]:ends[i]]. done is closed when the round has been
// written and synced (or has failed).
type auditBatch struct {
	lines []byte
	ends  []int
	ids   []int64
	done  chan struct{}
}

func (b *auditBatch) add(r *AuditRecord) {
	b.lines = appendAuditRecord(b.lines, r)
	b.ends = append(b.ends, len(b.lines))
	b.ids = append(b.ids, r.ID)
}

func (b *auditBatch) line(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.lines[start:b.ends[i]]
}

// reset empties b for reuse as the next queue. A round that grew it
// unusually (a burst) gives the memory back.
func (b *auditBatch) reset() {
	if cap(b.lines) > 1<<20 {
		*b = auditBatch{}
	}
	b.lines, b.ends, b.ids = b.lines[:0], b.ends[:0], b.ids[:0]
	b.done = make(chan struct{})
}

// writer is the state the writer goroutine alone touches.
type auditWriter struct {
	l        *AuditLog
	f        vfs.File // audit.log, opened for appending; nil after a failed rotation
	size     int64    // bytes in f
	firstID  int64    // event_id of f's first line; 0 when unknown
	closeErr error
}

const auditCurrentFile = "audit.log"

// run serves rounds until the log is closed and its queue drained.
func (w *auditWriter) run() {
	l := w.l
	defer close(l.finished)
	spare := &auditBatch{}
	for range l.kick {
		for {
			l.mu.Lock()
			b, closed := l.mu.queue, l.mu.closed
			if len(b.ids) == 0 {
				l.mu.Unlock()
				if closed {
					w.close()
					return
				}
				break
			}
			spare.reset()
			l.mu.queue = spare
			l.mu.Unlock()
			w.write(b)
			close(b.done)
			spare = b
		}
	}
}

// write appends b's lines and syncs them.
func (w *auditWriter) write(b *auditBatch) {
	written := 0
	for i, id := range b.ids {
		line := b.line(i)
		if w.f != nil && w.size > 0 && w.size+int64(len(line)) > w.l.opts.MaxFileBytes {
			if err := w.rotate(id); err != nil {
				w.l.warn(err, id)
			}
		}
		if err := w.append(line, id); err != nil {
			w.l.fail(err, id, 1)
			continue
		}
		written++
	}
	if written == 0 || w.f == nil {
		return // nothing to sync, or what was written went to a rotated file, synced then
	}
	if err := w.l.opts.syncFile(w.f); err != nil {
		w.l.fail(fmt.Errorf("cannot sync %s: %w", w.f.Name(), err), b.ids[len(b.ids)-1], written)
	}
}

// append writes one line whole. A failed write is cut back off the file,
// so that a disk that fills up leaves no half line for the next one to
// follow.
func (w *auditWriter) append(line []byte, id int64) error {
	if w.f == nil {
		f, err := openAuditFile(w.l.opts.FS, w.l.dir)
		if err != nil {
			return err
		}
		w.f, w.size, w.firstID = f, 0, 0
	}
	if _, err := w.f.Write(line); err != nil {
		if terr := w.f.Truncate(w.size); terr != nil {
			err = errors.Join(err, fmt.Errorf("cannot cut the failed write off: %w", terr))
		}
		return fmt.Errorf("cannot write event %d to %s: %w", id, w.f.Name(), err)
	}
	if w.size == 0 {
		w.firstID = id
	}
	w.size += int64(len(line))
	return nil
}

// rotate renames audit.log to audit-<its first event_id>.log and starts a
// new audit.log, whose first event will be next. The old file is synced
// before it is closed and the directory after the rename, so that a crash
// leaves each event in exactly one file.
func (w *auditWriter) rotate(next int64) error {
	first := w.firstID
	if first == 0 { // a recovered file without a readable line
		first = next
	}
	name, err := auditRotatedName(w.l.opts.FS, w.l.dir, first)
	if err != nil {
		return err
	}
	if err := w.l.opts.syncFile(w.f); err != nil {
		return fmt.Errorf("cannot sync %s before rotating it: %w", w.f.Name(), err)
	}
	if err := w.l.opts.FS.Rename(filepath.Join(w.l.dir, auditCurrentFile), name); err != nil {
		return fmt.Errorf("cannot rotate the audit log: %w", err)
	}
	if err := w.f.Close(); err != nil {
		w.l.warn(fmt.Errorf("cannot close the rotated audit log: %w", err), next)
	}
	w.f = nil
	f, err := openAuditFile(w.l.opts.FS, w.l.dir)
	if err != nil {
		return err // append retries the open
	}
	w.f, w.size, w.firstID = f, 0, 0
	return syncAuditDir(w.l.opts.FS, w.l.dir)
}

// rotatedName is audit-<first>.log, or audit-<first>-<k>.log when that
// exists already (a rotation of a file whose first line was unreadable).
func auditRotatedName(fsys vfs.FS, dir string, first int64) (string, error) {
	base := "audit-" + strconv.FormatInt(first, 10)
	for k := 1; k < 1000; k++ {
		name := base + ".log"
		if k > 1 {
			name = base + "-" + strconv.Itoa(k) + ".log"
		}
		p := filepath.Join(dir, name)
		if _, err := fsys.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return p, nil
		} else if err != nil {
			return "", fmt.Errorf("cannot rotate the audit log: %w", err)
		}
	}
	return "", fmt.Errorf("cannot rotate the audit log: every name for %s-….log is taken", base)
}

// close syncs and closes the file at the end.
func (w *auditWriter) close() {
	if w.f == nil {
		return
	}
	if err := w.l.opts.syncFile(w.f); err != nil {
		w.closeErr = fmt.Errorf("cannot sync the audit log: %w", err)
	}
	if err := w.f.Close(); err != nil && w.closeErr == nil {
		w.closeErr = fmt.Errorf("cannot close the audit log: %w", err)
	}
	w.f = nil
}

// openCurrent opens (creating, 0600) dir/audit.log for appending.
func openAuditFile(fsys vfs.FS, dir string) (vfs.File, error) {
	f, err := fsys.OpenFile(filepath.Join(dir, auditCurrentFile), os.O_RDWR|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("cannot open the audit log: %w", err)
	}
	return f, nil
}

// syncDir makes a rename or a creation in dir durable.
func syncAuditDir(fsys vfs.FS, dir string) error {
	if err := vfs.SyncDir(fsys, dir); err != nil {
		return fmt.Errorf("cannot sync the audit directory: %w", err)
	}
	return nil
}
