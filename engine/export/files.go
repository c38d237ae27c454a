package export

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// A written file never appears half-done: an export builds its folder
// under a temporary name beside the target (stage) and renames it into
// place once every file is written and synced; a single file (File) is
// written under a temporary name in its folder and renamed. A failure,
// a full disk or a cancellation removes what was written. The temporary
// names start with a dot and end in ".tmp-" and a random suffix.

// stage is an export folder being built.
type stage struct {
	fs       vfs.FS
	dir, tmp string
	bytes    int64
	files    int
	open     []*output // closed on abort, so that no descriptor outlives it
}

// newStage starts building the folder dir, which must not exist or be
// empty; its parent must exist.
func newStage(fsys vfs.FS, dir string) (*stage, error) {
	dir = filepath.Clean(dir)
	if fi, err := fsys.Stat(dir); err == nil {
		if !fi.IsDir() {
			return nil, errs.Data("%s exists and is not a folder", dir)
		}
		ents, err := fsys.ReadDir(dir)
		if err != nil {
			return nil, ioErr(err, dir)
		}
		if len(ents) > 0 {
			return nil, errs.Data("%s exists and is not empty: an export writes a new folder (remove it or pick another)", dir)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, ioErr(err, dir)
	}
	parent := filepath.Dir(dir)
	if fi, err := fsys.Stat(parent); err != nil || !fi.IsDir() {
		return nil, errs.Data("the folder %s that would hold %s does not exist", parent, filepath.Base(dir))
	}
	tmp := filepath.Join(parent, "."+filepath.Base(dir)+".tmp-"+randomSuffix())
	if err := fsys.Mkdir(tmp); err != nil {
		return nil, ioErr(err, dir)
	}
	return &stage{fs: fsys, dir: dir, tmp: tmp}, nil
}

// create opens the new file name of the folder for writing.
func (s *stage) create(name string) (*output, error) {
	f, err := s.fs.OpenFile(filepath.Join(s.tmp, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return nil, ioErr(err, s.dir)
	}
	s.files++
	o := &output{f: f, dir: s.dir, stage: s}
	o.w = bufio.NewWriterSize(countWriter{o}, 1<<20)
	s.open = append(s.open, o)
	return o, nil
}

// commit renames the built folder into place, durably.
func (s *stage) commit() error {
	if err := vfs.SyncDir(s.fs, s.tmp); err != nil {
		return ioErr(err, s.dir)
	}
	if err := s.fs.Remove(s.dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ioErr(err, s.dir) // not empty any more: someone wrote into it meanwhile
	}
	if err := s.fs.Rename(s.tmp, s.dir); err != nil {
		return ioErr(err, s.dir)
	}
	if err := vfs.SyncDir(s.fs, filepath.Dir(s.dir)); err != nil {
		return ioErr(err, s.dir)
	}
	return nil
}

// abort removes what was written.
func (s *stage) abort() {
	for _, o := range s.open {
		if !o.closed {
			o.f.Close()
		}
	}
	s.fs.RemoveAll(s.tmp)
}

// output is one file being written, buffered, its bytes counted.
type output struct {
	f      vfs.File
	w      *bufio.Writer
	dir    string
	stage  *stage
	err    error // the first write error: later writes do nothing
	n      int64 // bytes written to the file
	closed bool
}

type countWriter struct{ o *output }

func (c countWriter) Write(p []byte) (int, error) {
	n, err := c.o.f.Write(p)
	c.o.n += int64(n)
	if c.o.stage != nil {
		c.o.stage.bytes += int64(n)
	}
	return n, err
}

func (o *output) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = ioErr(err, o.dir)
	}
	return n, o.err
}

// close flushes, syncs and closes the file.
func (o *output) close() error {
	err := o.err
	if err == nil {
		err = o.w.Flush()
	}
	if err == nil {
		err = o.f.Sync()
	}
	o.closed = true
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ioErr(err, o.dir)
	}
	return nil
}

// File is a single file written under a temporary name in its folder and
// renamed to its name by Commit; Abort (or a failed Commit) removes it.
// For statements that write one file (COPY … TO); path comes from
// Resolve.
type File struct {
	*output
	fs        vfs.FS
	path, tmp string
}

// CreateFile starts writing path. An existing file of that name is
// replaced when Commit succeeds.
func CreateFile(fsys vfs.FS, path string) (*File, error) {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+randomSuffix())
	f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return nil, ioErr(err, filepath.Dir(path))
	}
	o := &output{f: f, dir: filepath.Dir(path)}
	o.w = bufio.NewWriterSize(countWriter{o}, 1<<20)
	return &File{output: o, fs: fsys, path: path, tmp: tmp}, nil
}

// Commit completes the file and renames it into place, durably.
func (f *File) Commit() error {
	var err error
	if !f.closed { // a sink's close closes its output
		err = f.close()
	}
	if err == nil {
		err = f.fs.Rename(f.tmp, f.path)
	}
	if err == nil {
		err = vfs.SyncDir(f.fs, filepath.Dir(f.path))
	}
	if err != nil {
		f.fs.Remove(f.tmp)
		return ioErr(err, f.dir)
	}
	return nil
}

// Abort removes the unfinished file.
func (f *File) Abort() {
	if !f.closed {
		f.f.Close()
	}
	f.fs.Remove(f.tmp)
}

// ioErr names a full disk as such (53100) and keeps other I/O errors as
// they are, with the folder written to.
func ioErr(err error, dir string) error {
	if _, ok := errs.As(err); ok {
		return err
	}
	if vfs.IsDiskFull(err) {
		return errs.DiskFull(err, "the disk holding %s is full (no space left on device); nothing was written", dir)
	}
	return fmt.Errorf("writing %s: %w", dir, err)
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// written is the bytes the file holds once committed.
func (f *File) written() int64 { return f.n }
