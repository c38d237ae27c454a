package cryptfs

import (
	"bytes"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// KeyringFile is the keyring's name in the data directory. It is stored
// as it is (its generation keys are wrapped by the master key).
const KeyringFile = "keyring"

// Algorithm is the cipher of every encrypted file.
const Algorithm = "AES-256-GCM"

// ErrKeyMismatch is the error of a master key that is not the data
// directory's.
var ErrKeyMismatch = errors.New("encryption key does not match data directory")

// MismatchError says which key was given and which the directory uses.
type MismatchError struct{ Given, Dir string }

func (e *MismatchError) Error() string {
	return fmt.Sprintf("encryption key does not match data directory (key id %s, directory uses %s)", e.Given, e.Dir)
}

func (e *MismatchError) Unwrap() error { return ErrKeyMismatch }

// ParseMasterKey reads a master key: 32 raw bytes, or their base64 or hex
// text (surrounding white space ignored).
func ParseMasterKey(b []byte) ([]byte, error) {
	if len(b) == 32 {
		return slices.Clone(b), nil
	}
	t := strings.TrimSpace(string(b))
	if k, err := hex.DecodeString(t); err == nil && len(k) == 32 {
		return k, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(t); err == nil && len(k) == 32 {
			return k, nil
		}
	}
	return nil, fmt.Errorf("an encryption key is 32 bytes, raw or as base64 or hex text (got %d bytes that are neither)", len(b))
}

// KeyID names a master key without revealing it: 16 hex digits derived
// from it.
func KeyID(master []byte) string {
	id, _ := hkdf.Key(sha256.New, master, nil, "quiver key id", 8)
	return hex.EncodeToString(id)
}

// keyringDoc is the keyring file.
type keyringDoc struct {
	Version     int       `json:"version"`
	Algorithm   string    `json:"algorithm"`
	KeyID       string    `json:"key_id"`
	Check       string    `json:"check"` // the key check value: a constant sealed by the wrapping key
	Current     uint32    `json:"current"`
	Generations []wrapped `json:"generations"`
	Rotated     time.Time `json:"rotated"`
}

type wrapped struct {
	Gen     uint32    `json:"gen"`
	Key     string    `json:"key"` // nonce ‖ sealed key, base64
	Created time.Time `json:"created"`
}

const checkText = "quiver key check"

// Keyring holds a data directory's generation keys, unwrapped. It
// implements Keys.
type Keyring struct {
	fsys vfs.FS
	dir  string

	mu      sync.Mutex
	master  []byte
	current uint32
	keys    map[uint32][]byte
	created map[uint32]time.Time
	rotated time.Time
}

// CreateKeyring makes the keyring of a new encrypted directory, with one
// generation, and writes it.
func CreateKeyring(fsys vfs.FS, dir string, master []byte) (*Keyring, error) {
	k := &Keyring{fsys: fsys, dir: dir, master: slices.Clone(master), keys: map[uint32][]byte{}, created: map[uint32]time.Time{}}
	k.addGeneration(1)
	k.rotated = time.Now().UTC()
	if err := k.write(); err != nil {
		return nil, err
	}
	return k, nil
}

// HasKeyring reports whether dir holds a keyring.
func HasKeyring(fsys vfs.FS, dir string) bool {
	return vfs.Exists(fsys, filepath.Join(dir, KeyringFile))
}

// LoadKeyring reads dir's keyring with the master key. A wrong key is a
// *MismatchError; a missing keyring wraps fs.ErrNotExist.
func LoadKeyring(fsys vfs.FS, dir string, master []byte) (*Keyring, error) {
	path := filepath.Join(dir, KeyringFile)
	b, err := vfs.ReadFile(fsys, path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the keyring: %w", err)
	}
	var doc keyringDoc
	if err := json.Unmarshal(b, &doc); err != nil || doc.Version != 1 {
		return nil, fmt.Errorf("cannot read the keyring %s: not a keyring of this version", path)
	}
	wrap, err := wrapAEAD(master)
	if err != nil {
		return nil, err
	}
	chk, err := base64.StdEncoding.DecodeString(doc.Check)
	if err != nil || len(chk) < nonceSize {
		return nil, fmt.Errorf("cannot read the keyring %s: bad key check value", path)
	}
	if _, err := wrap.Open(nil, chk[:nonceSize], chk[nonceSize:], []byte(checkText)); err != nil {
		return nil, &MismatchError{Given: KeyID(master), Dir: doc.KeyID}
	}
	k := &Keyring{fsys: fsys, dir: dir, master: slices.Clone(master), current: doc.Current, keys: map[uint32][]byte{}, created: map[uint32]time.Time{}, rotated: doc.Rotated}
	for _, w := range doc.Generations {
		sealed, err := base64.StdEncoding.DecodeString(w.Key)
		if err != nil || len(sealed) < nonceSize {
			return nil, fmt.Errorf("cannot read the keyring %s: bad key of generation %d", path, w.Gen)
		}
		key, err := wrap.Open(nil, sealed[:nonceSize], sealed[nonceSize:], genAAD(w.Gen))
		if err != nil {
			return nil, fmt.Errorf("cannot read the keyring %s: the key of generation %d does not authenticate", path, w.Gen)
		}
		k.keys[w.Gen], k.created[w.Gen] = key, w.Created
	}
	if _, ok := k.keys[k.current]; !ok {
		return nil, fmt.Errorf("cannot read the keyring %s: no key of the current generation %d", path, k.current)
	}
	return k, nil
}

func wrapAEAD(master []byte) (interface {
	Seal(dst, nonce, plaintext, additionalData []byte) []byte
	Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error)
}, error) {
	if len(master) != 32 {
		return nil, fmt.Errorf("an encryption key is 32 bytes, not %d", len(master))
	}
	key, err := hkdf.Key(sha256.New, master, nil, "quiver keyring", 32)
	if err != nil {
		return nil, err
	}
	return newGCM(key)
}

func genAAD(gen uint32) []byte {
	return binary.LittleEndian.AppendUint32([]byte("quiver generation "), gen)
}

func (k *Keyring) addGeneration(gen uint32) {
	key := make([]byte, 32)
	rand.Read(key)
	k.keys[gen], k.created[gen], k.current = key, time.Now().UTC(), gen
}

// write writes the keyring atomically: a temporary file, synced, renamed
// over the keyring, and the directory synced.
func (k *Keyring) write() error {
	wrap, err := wrapAEAD(k.master)
	if err != nil {
		return err
	}
	seal := func(p, aad []byte) string {
		nonce := make([]byte, nonceSize)
		rand.Read(nonce)
		return base64.StdEncoding.EncodeToString(wrap.Seal(nonce, nonce, p, aad))
	}
	doc := keyringDoc{Version: 1, Algorithm: Algorithm, KeyID: KeyID(k.master), Check: seal(nil, []byte(checkText)), Current: k.current, Rotated: k.rotated}
	gens := make([]uint32, 0, len(k.keys))
	for g := range k.keys {
		gens = append(gens, g)
	}
	slices.Sort(gens)
	for _, g := range gens {
		doc.Generations = append(doc.Generations, wrapped{Gen: g, Key: seal(k.keys[g], genAAD(g)), Created: k.created[g]})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(k.dir, KeyringFile)
	tmp := path + ".tmp"
	if err := vfs.WriteFileSync(k.fsys, tmp, b); err != nil {
		return fmt.Errorf("cannot write the keyring: %w", err)
	}
	if err := k.fsys.Rename(tmp, path); err != nil {
		return fmt.Errorf("cannot write the keyring: %w", err)
	}
	if err := vfs.SyncDir(k.fsys, k.dir); err != nil {
		return fmt.Errorf("cannot write the keyring: %w", err)
	}
	return nil
}

// Current is the generation new files are encrypted with, and its key.
func (k *Keyring) Current() (uint32, []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.current, k.keys[k.current]
}

// Key is generation gen's key.
func (k *Keyring) Key(gen uint32) ([]byte, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key, ok := k.keys[gen]
	return key, ok
}

// KeyID is the id of the master key the keyring is wrapped with.
func (k *Keyring) KeyID() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return KeyID(k.master)
}

// RotateMaster re-wraps every generation key with a new master key and
// replaces the keyring atomically. No data file changes.
func (k *Keyring) RotateMaster(master []byte) error {
	if len(master) != 32 {
		return fmt.Errorf("an encryption key is 32 bytes, not %d", len(master))
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	old, oldRot := k.master, k.rotated
	k.master, k.rotated = slices.Clone(master), time.Now().UTC()
	if err := k.write(); err != nil {
		k.master, k.rotated = old, oldRot
		return err
	}
	return nil
}

// NewGeneration adds a generation with a new random key and makes it
// current: files created from now on use it.
func (k *Keyring) NewGeneration() (uint32, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	prev := k.current
	gen := prev + 1
	k.addGeneration(gen)
	if err := k.write(); err != nil {
		delete(k.keys, gen)
		k.current = prev
		return 0, err
	}
	return gen, nil
}

// FileGeneration reads the key generation of the file at path on fsys
// (the underlying filesystem); ErrNotEncrypted for a plain file, and
// generation 0 with no error for an empty one.
func FileGeneration(fsys vfs.FS, path string) (uint32, error) {
	f, err := fsys.OpenFile(path, os.O_RDONLY)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := make([]byte, headerSize)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	if n < headerSize {
		// A header a crash cut short is an empty encrypted file, as
		// OpenFile reads it; anything else that short is plain.
		if bytes.HasPrefix(magic[:], b[:min(n, len(magic))]) {
			return 0, nil
		}
		return 0, ErrNotEncrypted
	}
	h, err := decodeHeader(b[:n])
	if err != nil {
		return 0, err
	}
	return h.gen, nil
}
