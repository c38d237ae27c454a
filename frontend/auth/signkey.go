package auth

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

const signKeyLen = 32

// loadSigningKey returns the HMAC key of the access tokens: the 32 bytes
// of <dir>/auth/token.key, created at the first start, so tokens survive a
// restart. An in-memory database ("" dir) gets a random key per process.
func loadSigningKey(dir string) ([]byte, error) {
	key := make([]byte, signKeyLen)
	if dir == "" {
		_, _ = rand.Read(key)
		return key, nil
	}
	kdir := filepath.Join(dir, "auth")
	path := filepath.Join(kdir, "token.key")
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if len(data) != signKeyLen {
			return nil, fmt.Errorf("auth: token signing key %s has %d bytes, want %d (delete it to make a new one; every token is then invalid)", path, len(data), signKeyLen)
		}
		return data, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("auth: cannot read the token signing key: %w", err)
	}
	// MkdirAllSync: auth/'s entry in the data directory is synced too,
	// or a power cut could take the key with it.
	if _, err := vfs.MkdirAllSync(vfs.Default, kdir); err != nil {
		return nil, fmt.Errorf("auth: cannot create %s: %w", kdir, err)
	}
	_, _ = rand.Read(key)
	// Written aside and renamed into place, so a crash leaves no short key.
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("auth: cannot create the token signing key: %w", err)
	}
	_, werr := f.Write(key)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return nil, fmt.Errorf("auth: cannot write the token signing key: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("auth: cannot install the token signing key: %w", err)
	}
	if d, err := os.Open(kdir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return key, nil
}
