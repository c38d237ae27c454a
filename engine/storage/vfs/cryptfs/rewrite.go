package cryptfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Rewriting files under the current generation (tde.reencrypt, and
// `quiver encrypt` for plain files). A file is copied to a temporary
// file, synced, and renamed over the original while no Remove, Rename or
// open for writing runs (FS.rw), so a file removed or replaced meanwhile
// is never brought back. A file open for writing is left alone: it is
// rewritten once it is closed (a WAL segment or audit file after its
// roll).

// rewriteSuffix names the temporary copy of a rewrite.
const rewriteSuffix = ".cryptfs-rewrite"

// FileState is a file's encryption as Scan sees it.
type FileState struct {
	Path string
	Gen  uint32 // 0: a plain (unencrypted) file, or an empty one
	// Plain is a non-empty file without a header.
	Plain bool
}

// Scan lists the regular files under dir (recursively) with their key
// generation, skipping the names stored plain.
func (c *FS) Scan(dir string) ([]FileState, error) {
	var out []FileState
	var walk func(d string) error
	walk = func(d string) error {
		es, err := c.base.ReadDir(d)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		for _, e := range es {
			p := filepath.Join(d, e.Name())
			switch {
			case e.IsDir():
				if err := walk(p); err != nil {
					return err
				}
			case !e.Type().IsRegular() || c.isPlain(p) || filepath.Ext(p) == rewriteSuffix:
			default:
				gen, err := FileGeneration(c.base, p)
				switch {
				case errors.Is(err, ErrNotEncrypted):
					out = append(out, FileState{Path: p, Plain: true})
				case errors.Is(err, fs.ErrNotExist):
				case err != nil:
					return err
				default:
					out = append(out, FileState{Path: p, Gen: gen})
				}
			}
		}
		return nil
	}
	return out, walk(dir)
}

// Rewrite rewrites the file at path under the current generation: a
// plain file (plain true) is read as it is, an encrypted one decrypted.
// It reports false, doing nothing, for a file open for writing or gone.
func (c *FS) Rewrite(path string, plain bool) (bool, error) {
	c.rw.Lock()
	defer c.rw.Unlock()
	c.mu.Lock()
	st := c.files[filepath.Clean(path)]
	busy := st != nil && st.writers > 0
	c.mu.Unlock()
	if busy {
		return false, nil
	}
	var src vfs.File
	var err error
	if plain {
		src, err = c.base.OpenFile(path, os.O_RDONLY)
	} else {
		src, err = c.openLocked(path, os.O_RDONLY)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer src.Close()
	tmp := path + rewriteSuffix
	dst, err := c.openLocked(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return false, err
	}
	if _, err := io.Copy(onlyWriter{dst}, onlyReader{src}); err != nil {
		dst.Close()
		c.base.Remove(tmp)
		return false, fmt.Errorf("cannot rewrite %s: %w", path, err)
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		return false, err
	}
	if err := dst.Close(); err != nil {
		return false, err
	}
	if err := c.renameLocked(tmp, path); err != nil {
		return false, err
	}
	return true, vfs.SyncDir(c.base, filepath.Dir(path))
}

type onlyWriter struct{ io.Writer }
type onlyReader struct{ io.Reader }
