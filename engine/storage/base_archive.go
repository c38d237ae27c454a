package storage

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// A base archive is a checkpoint's files as one stream: what a member of
// a replicated cluster sends another that is too far behind for the log
// (package cluster, raft snapshots). It is the checkpoint as written,
// streamed, never rebuilt:
//
//	tar entry  manifest.json        the manifest, as on disk
//	tar entry  <base>/<file>        each file the manifest lists, in its
//	…                               order, as on disk (compressed)
//
// The receiver checks every name against the manifest, writes the files
// into a new base directory, syncs them and switches its manifest to it
// (the same atomic rename a checkpoint makes); Open then checks each
// file's size and CRC as for any base.

// WriteBaseArchive streams the checkpoint dir's manifest names to w and
// returns its stamp. The caller keeps checkpoints from replacing the base
// meanwhile (durable.Checkpoints.Archive holds their lock).
func WriteBaseArchive(fsys vfs.FS, dir string, w io.Writer) (ManifestStamp, error) {
	mb, err := vfs.ReadFile(fsys, filepath.Join(dir, ManifestName))
	if err != nil {
		return ManifestStamp{}, fmt.Errorf("storage: cannot read the manifest: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return ManifestStamp{}, fmt.Errorf("%w: %s: %v", ErrCorruptBase, ManifestName, err)
	}
	writer, err := parseWriter(m.Writer)
	if err != nil {
		return ManifestStamp{}, fmt.Errorf("%w: %s: %v", ErrCorruptBase, ManifestName, err)
	}
	tw := tar.NewWriter(w)
	if err := tw.WriteHeader(&tar.Header{Name: ManifestName, Mode: 0o600, Size: int64(len(mb)), Typeflag: tar.TypeReg}); err != nil {
		return ManifestStamp{}, err
	}
	if _, err := tw.Write(mb); err != nil {
		return ManifestStamp{}, err
	}
	for _, f := range m.Files {
		if err := archiveFile(fsys, tw, dir, m.Base, f); err != nil {
			return ManifestStamp{}, err
		}
	}
	if err := tw.Close(); err != nil {
		return ManifestStamp{}, err
	}
	return ManifestStamp{Base: m.Base, Writer: writer, LSN: m.WALLSN}, nil
}

func archiveFile(fsys vfs.FS, tw *tar.Writer, dir, base string, f baseFile) error {
	name := base + "/" + f.Name
	file, err := fsys.OpenFile(filepath.Join(dir, base, f.Name), os.O_RDONLY)
	if err != nil {
		return fmt.Errorf("storage: cannot read the base file %s: %w", name, err)
	}
	defer file.Close()
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: f.Size, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if n, err := io.Copy(tw, io.LimitReader(file, f.Size)); err != nil || n != f.Size {
		return fmt.Errorf("storage: cannot archive the base file %s (%d of %d bytes): %v", name, n, f.Size, err)
	}
	return nil
}

// maxArchivedManifest bounds the manifest an archive may carry: it is
// read whole. A real one lists a few hundred files in a few tens of KB.
const maxArchivedManifest = 16 << 20

// plainFileName reports whether name names a file directly inside a
// base directory: no separator, not "", "." or "..", no NUL.
func plainFileName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00")
}

// BaseArchive is a base archive being read (OpenBaseArchive).
type BaseArchive struct {
	r     io.Reader
	tr    *tar.Reader
	m     manifest
	stamp ManifestStamp
}

// OpenBaseArchive reads a base archive's manifest from r; Install or
// Discard reads the rest.
func OpenBaseArchive(r io.Reader) (*BaseArchive, error) {
	tr := tar.NewReader(r)
	hdr, err := tr.Next()
	if err != nil || hdr.Name != ManifestName || hdr.Typeflag != tar.TypeReg || hdr.Size > maxArchivedManifest {
		return nil, fmt.Errorf("%w: a base archive starts with %s", ErrCorruptBase, ManifestName)
	}
	mb, err := io.ReadAll(tr)
	if err != nil {
		return nil, err
	}
	a := &BaseArchive{r: r, tr: tr}
	if err := json.Unmarshal(mb, &a.m); err != nil {
		return nil, fmt.Errorf("%w: the archive's %s: %v", ErrCorruptBase, ManifestName, err)
	}
	writer, err := parseWriter(a.m.Writer)
	if err != nil {
		return nil, fmt.Errorf("%w: the archive's %s: %v", ErrCorruptBase, ManifestName, err)
	}
	a.stamp = ManifestStamp{Base: a.m.Base, Writer: writer, LSN: a.m.WALLSN}
	return a, nil
}

// Stamp is the archive's manifest's stamp.
func (a *BaseArchive) Stamp() ManifestStamp { return a.stamp }

// Discard reads the rest of the archive and drops it.
func (a *BaseArchive) Discard() error {
	_, err := io.Copy(io.Discard, a.r)
	return err
}

// Install writes the archive's files into a new base directory in dir
// and switches dir's manifest to it, atomically; the previous bases are
// removed. The database on dir must be closed. A damaged archive
// installs nothing.
func (a *BaseArchive) Install(fsys vfs.FS, dir string) (ManifestStamp, error) {
	m, tr := a.m, a.tr
	sub := fmt.Sprintf("base-%d", m.TS)
	for i := 1; vfs.Exists(fsys, filepath.Join(dir, sub)); i++ {
		sub = fmt.Sprintf("base-%d-%d", m.TS, i)
	}
	if err := fsys.Mkdir(filepath.Join(dir, sub)); err != nil {
		return ManifestStamp{}, fmt.Errorf("storage: cannot create base directory: %w", err)
	}
	fail := func(err error) (ManifestStamp, error) {
		fsys.RemoveAll(filepath.Join(dir, sub))
		return ManifestStamp{}, err
	}
	for _, f := range m.Files {
		hdr, err := tr.Next()
		if err != nil {
			return fail(fmt.Errorf("%w: the archive ends before %s: %v", ErrCorruptBase, f.Name, err))
		}
		// Names come from the other end: each must be one plain file of
		// the manifest, in order, and is written as such (a link entry
		// is refused, not followed or made).
		if hdr.Name != m.Base+"/"+f.Name || hdr.Typeflag != tar.TypeReg || hdr.Size != f.Size || !plainFileName(f.Name) {
			return fail(fmt.Errorf("%w: the archive holds %s (%d bytes) where its manifest lists %s (%d bytes)", ErrCorruptBase, hdr.Name, hdr.Size, f.Name, f.Size))
		}
		if err := installFile(fsys, filepath.Join(dir, sub, f.Name), tr, f.Size); err != nil {
			return fail(err)
		}
	}
	if _, err := tr.Next(); err != io.EOF {
		return fail(fmt.Errorf("%w: the archive holds more than its manifest lists", ErrCorruptBase))
	}
	if err := vfs.SyncDir(fsys, filepath.Join(dir, sub)); err != nil {
		return fail(fmt.Errorf("storage: cannot sync the base directory: %w", err))
	}
	m.Base = sub
	mb, err := json.MarshalIndent(&m, "", "  ")
	if err != nil {
		return fail(err)
	}
	tmp := filepath.Join(dir, ManifestName+".tmp")
	if err := vfs.WriteFileSync(fsys, tmp, mb); err != nil {
		return fail(fmt.Errorf("storage: cannot write manifest: %w", err))
	}
	if err := fsys.Rename(tmp, filepath.Join(dir, ManifestName)); err != nil {
		fsys.Remove(tmp)
		return fail(fmt.Errorf("storage: cannot install manifest: %w", err))
	}
	stamp := a.stamp
	stamp.Base = sub
	if err := vfs.SyncDir(fsys, dir); err != nil {
		return stamp, fmt.Errorf("storage: cannot sync %s after installing the manifest: %w", dir, err)
	}
	if ents, err := fsys.ReadDir(dir); err == nil {
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), "base-") && e.Name() != sub {
				fsys.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
	return stamp, nil
}

func installFile(fsys vfs.FS, path string, r io.Reader, size int64) error {
	f, err := fsys.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return fmt.Errorf("storage: cannot create %s: %w", path, err)
	}
	n, err := io.Copy(f, io.LimitReader(r, size))
	if err == nil && n != size {
		err = errors.New("short")
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("storage: cannot write %s (%d of %d bytes): %w", path, n, size, err)
	}
	return nil
}
