package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// StableStore is raft's StableStore: a handful of keys (CurrentTerm,
// LastVoteTerm, LastVoteCand) that change only on elections, in one
// small file rewritten whole and atomically on every Set (write
// <name>.tmp, fsync it, rename it over <name>, fsync the directory).
//
//	magic "QRS1" | count u32 | count × (len(key) u32 | key | len(value) u32 | value) | crc32c u32
//
// Integers little endian; the CRC-32C covers every byte before it. A file
// that does not check is an error naming it: the rename makes a torn
// one impossible short of damage.
type StableStore struct {
	fs   vfs.FS
	path string
	// mu guards kv and the file.
	mu sync.Mutex
	kv map[string][]byte
}

var stableMagic = []byte("QRS1")

// maxStableFile bounds the file read at open: raft keeps three short keys.
const maxStableFile = 1 << 20

// OpenStableStore opens (creating it on the first Set) the store in path.
func OpenStableStore(fsys vfs.FS, path string) (*StableStore, error) {
	s := &StableStore{fs: fsys, path: path, kv: map[string][]byte{}}
	if err := fsys.Remove(path + ".tmp"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cluster: cannot remove %s.tmp: %w", path, err)
	}
	st, err := fsys.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: cannot read raft's stable state %s: %w", path, err)
	}
	if st.Size() > maxStableFile {
		return nil, fmt.Errorf("cluster: raft's stable state %s: %d bytes, more than it can hold: %w", path, st.Size(), ErrLogCorrupt)
	}
	b, err := vfs.ReadFile(fsys, path)
	if err != nil {
		return nil, fmt.Errorf("cluster: cannot read raft's stable state %s: %w", path, err)
	}
	if s.kv, err = decodeStable(b); err != nil {
		return nil, fmt.Errorf("cluster: raft's stable state %s: %w: %w", path, err, ErrLogCorrupt)
	}
	return s, nil
}

func encodeStable(kv map[string][]byte) []byte {
	out := append([]byte(nil), stableMagic...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(kv)))
	for k, v := range kv {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(k)))
		out = append(out, k...)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(v)))
		out = append(out, v...)
	}
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

func decodeStable(b []byte) (map[string][]byte, error) {
	if len(b) < len(stableMagic)+8 || string(b[:4]) != string(stableMagic) {
		return nil, errors.New("not a stable-state file")
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, errors.New("checksum mismatch")
	}
	p := body[4:]
	next := func() ([]byte, bool) {
		if len(p) < 4 {
			return nil, false
		}
		n := binary.LittleEndian.Uint32(p)
		if int64(n) > int64(len(p)-4) {
			return nil, false
		}
		v := p[4 : 4+n]
		p = p[4+n:]
		return v, true
	}
	count := binary.LittleEndian.Uint32(p)
	p = p[4:]
	kv := map[string][]byte{}
	for range count {
		k, ok1 := next()
		v, ok2 := next()
		if !ok1 || !ok2 {
			return nil, errors.New("truncated entry")
		}
		kv[string(k)] = append([]byte(nil), v...)
	}
	if len(p) != 0 {
		return nil, errors.New("trailing bytes")
	}
	return kv, nil
}

// Set stores key's value durably.
func (s *StableStore) Set(key, val []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := make(map[string][]byte, len(s.kv)+1)
	for k, v := range s.kv {
		next[k] = v
	}
	next[string(key)] = append([]byte(nil), val...)
	tmp := s.path + ".tmp"
	if err := vfs.WriteFileSync(s.fs, tmp, encodeStable(next)); err != nil {
		return fmt.Errorf("cluster: cannot write %s: %w", tmp, err)
	}
	if err := s.fs.Rename(tmp, s.path); err != nil {
		return fmt.Errorf("cluster: cannot rename %s: %w", tmp, err)
	}
	if err := vfs.SyncDir(s.fs, filepath.Dir(s.path)); err != nil {
		return fmt.Errorf("cluster: cannot sync the directory of %s: %w", s.path, err)
	}
	s.kv = next
	return nil
}

// Get returns key's value, empty when missing.
func (s *StableStore) Get(key []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.kv[string(key)]...), nil
}

// SetUint64 stores a number under key (8 bytes, big endian, as
// raft-boltdb and the store before this one kept it).
func (s *StableStore) SetUint64(key []byte, val uint64) error {
	return s.Set(key, binary.BigEndian.AppendUint64(nil, val))
}

// GetUint64 returns key's number, 0 when missing.
func (s *StableStore) GetUint64(key []byte) (uint64, error) {
	v, _ := s.Get(key)
	if len(v) == 0 {
		return 0, nil
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("cluster: raft stable key %q holds %d bytes, not a number", key, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

var _ raft.StableStore = (*StableStore)(nil)
