package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/durable"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/engine/storage/vfs/cryptfs"
)

// Encryption at rest (docs/encryption.md): with Options.Encryption every
// file the database and the audit trail write into the data directory
// goes through cryptfs (AES-256-GCM, a key per file), under generation
// keys kept in D/keyring wrapped by the master key.

// Encryption turns on encryption at rest.
type Encryption struct {
	// Key returns the master key (32 bytes). Open calls it, and so does
	// tde.rotateMasterKey: the operator puts the new key where the old
	// one was read from (a file, a command) first.
	Key func() ([]byte, error)
}

// plainNames are the files of the data directory stored unencrypted: the
// lock (a process id, written before the key is known) and the keyring
// (its keys are wrapped).
var plainNames = []string{storage.DataDirLockName, cryptfs.KeyringFile, cryptfs.KeyringFile + ".tmp"}

// tde is the encryption state of an open data directory.
type tde struct {
	dir  string
	fs   *cryptfs.FS
	ring *cryptfs.Keyring
	key  func() ([]byte, error)
	log  *slog.Logger

	mu        sync.Mutex
	running   bool
	rewritten atomic.Int64
	stop      atomic.Bool
	wg        sync.WaitGroup
}

// setupEncryption reads (or, for a new directory, creates) the keyring of
// the locked directory d and puts an encrypting filesystem over d's. It
// refuses a directory encrypted under another key or without one, and a
// key for a directory that already holds an unencrypted database.
func setupEncryption(d *durable.Dir, enc *Encryption, log *slog.Logger) (*tde, error) {
	base, dir := d.FS(), d.Path()
	if _, ok := base.(*cryptfs.FS); ok {
		return nil, nil // a graph's directory inside an encrypted one (graphs.go)
	}
	has := cryptfs.HasKeyring(base, dir)
	if enc == nil || enc.Key == nil {
		if has {
			return nil, fmt.Errorf("the data directory %s is encrypted: start the server with its key (--encryption-key-file, QUIVER_ENCRYPTION_KEY or --encryption-key-command)", dir)
		}
		return nil, nil
	}
	key, err := enc.Key()
	if err != nil {
		return nil, fmt.Errorf("cannot read the encryption key: %w", err)
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("an encryption key is 32 bytes, not %d", len(key))
	}
	var ring *cryptfs.Keyring
	if has {
		if ring, err = cryptfs.LoadKeyring(base, dir, key); err != nil {
			return nil, err
		}
	} else {
		if !d.Created() && !dirEmpty(base, dir) {
			return nil, fmt.Errorf("the data directory %s holds an unencrypted database: encrypt it first, with the server stopped: quiver encrypt --data-dir %s --encryption-key-file FILE", dir, dir)
		}
		if ring, err = cryptfs.CreateKeyring(base, dir, key); err != nil {
			return nil, err
		}
		if log != nil {
			log.Info("encryption at rest is on: created the keyring", "dir", dir, "key_id", ring.KeyID())
		}
	}
	t := &tde{dir: dir, fs: cryptfs.New(base, ring, plainNames...), ring: ring, key: enc.Key, log: log}
	d.SetFS(t.fs)
	return t, nil
}

// dirEmpty reports whether dir holds nothing but the lock and a keyring.
func dirEmpty(fsys vfs.FS, dir string) bool {
	es, err := fsys.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range es {
		plain := false
		for _, p := range plainNames {
			plain = plain || e.Name() == p
		}
		if !plain {
			return false
		}
	}
	return true
}

// files counts the files under the current generation and those pending
// (an older generation, or plain).
func (t *tde) files() (encrypted, pending int, err error) {
	fs, err := t.fs.Scan(t.dir)
	if err != nil {
		return 0, 0, err
	}
	cur, _ := t.ring.Current()
	for _, f := range fs {
		if !f.Plain && (f.Gen == cur || f.Gen == 0) {
			encrypted++
		} else {
			pending++
		}
	}
	return encrypted, pending, nil
}

// rotate re-reads the master key and re-wraps the keyring with it.
func (t *tde) rotate() (old, cur string, err error) {
	key, err := t.key()
	if err != nil {
		return "", "", fmt.Errorf("cannot read the new encryption key: %w", err)
	}
	old = t.ring.KeyID()
	if err := t.ring.RotateMaster(key); err != nil {
		return "", "", err
	}
	return old, t.ring.KeyID(), nil
}

// reencrypt starts a new generation and rewrites, in the background,
// every file under an older one. Files open for writing are left for a
// later run (they move to the new generation as they roll).
func (t *tde) reencrypt() (uint32, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running {
		return 0, errs.DataCode(errs.CodeInvalidParam, "tde.reencrypt: a re-encryption is already running")
	}
	gen, err := t.ring.NewGeneration()
	if err != nil {
		return 0, err
	}
	t.running = true
	t.stop.Store(false) // a database closed on a kept directory set it
	t.rewritten.Store(0)
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		err := t.rewriteAll(gen)
		t.mu.Lock()
		t.running = false
		t.mu.Unlock()
		if err != nil && t.log != nil {
			t.log.Error("re-encryption stopped", "error", err)
		} else if t.log != nil {
			t.log.Info("re-encryption done", "generation", gen, "files", t.rewritten.Load())
		}
	}()
	return gen, nil
}

func (t *tde) rewriteAll(gen uint32) error {
	fs, err := t.fs.Scan(t.dir)
	if err != nil {
		return err
	}
	for _, f := range fs {
		if t.stop.Load() {
			return nil
		}
		if !f.Plain && (f.Gen == gen || f.Gen == 0) {
			continue
		}
		ok, err := t.fs.Rewrite(f.Path, f.Plain)
		if err != nil {
			return err
		}
		if ok {
			t.rewritten.Add(1)
		}
	}
	return nil
}

// close stops a running re-encryption and waits for it.
func (t *tde) close() {
	if t == nil {
		return
	}
	t.stop.Store(true)
	t.wg.Wait()
}

// EncryptDataDir encrypts the data directory dir, offline, with the master
// key: it creates the keyring (or reads it, to finish an interrupted run)
// and rewrites every plain file encrypted. It takes the directory's lock,
// so it refuses the directory of a running server. It returns the number
// of files it encrypted.
func EncryptDataDir(dir string, key []byte, log *slog.Logger) (int, error) {
	d, err := durable.Lock(dir, nil, log)
	if err != nil {
		return 0, err
	}
	defer d.Release()
	base := d.FS()
	var ring *cryptfs.Keyring
	if cryptfs.HasKeyring(base, dir) {
		ring, err = cryptfs.LoadKeyring(base, dir, key)
	} else {
		ring, err = cryptfs.CreateKeyring(base, dir, key)
	}
	if err != nil {
		return 0, err
	}
	return encryptFiles(cryptfs.New(base, ring, plainNames...), dir)
}

// EncryptGraphImport encrypts graph, a directory `quiver import --graph`
// built plain inside the data directory dir (its staging directory),
// under dir's keyring: a graph of an encrypted directory is read through
// the directory's own. Offline: it takes dir's lock. It returns the
// number of files it encrypted.
func EncryptGraphImport(dir, graph string, key []byte, log *slog.Logger) (int, error) {
	d, err := durable.Lock(dir, nil, log)
	if err != nil {
		return 0, err
	}
	defer d.Release()
	base := d.FS()
	if !cryptfs.HasKeyring(base, dir) {
		return 0, fmt.Errorf("%s is not encrypted at rest: import without the key, or encrypt it first (quiver encrypt)", dir)
	}
	ring, err := cryptfs.LoadKeyring(base, dir, key)
	if err != nil {
		return 0, err
	}
	return encryptFiles(cryptfs.New(base, ring, plainNames...), graph)
}

// encryptFiles rewrites every plain file under root encrypted.
func encryptFiles(cfs *cryptfs.FS, root string) (int, error) {
	files, err := cfs.Scan(root)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range files {
		if !f.Plain {
			continue
		}
		ok, err := cfs.Rewrite(f.Path, true)
		if err != nil {
			return n, fmt.Errorf("cannot encrypt %s: %w", f.Path, err)
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// errEncryptionOff is the error of a tde procedure on a database without
// encryption at rest.
var errEncryptionOff = errors.New("encryption at rest is off: start the server with --encryption-key-file")

// ParseEncryptionKey reads a master key: 32 raw bytes, or their base64 or
// hex text.
func ParseEncryptionKey(b []byte) ([]byte, error) { return cryptfs.ParseMasterKey(b) }

// FS is the filesystem the data directory is read and written through:
// an encrypting one when encryption at rest is on (nil without a data
// directory). Files a server keeps beside the database's (raft's log,
// the QUIC key) go through it too.
func (db *DB) FS() vfs.FS { return db.fs }
