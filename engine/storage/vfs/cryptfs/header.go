package cryptfs

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

const (
	version    = 1
	saltSize   = 16
	headerSize = 32 // magic 8, version 4, generation 4, salt 16
	nonceSize  = 12
	tagSize    = 16
	// slotMeta is a slot's counter (8) and plaintext length (4).
	slotMeta = 12
	// slotSize is a page: a slot written is one page written, and an
	// append's sync flushes one page, as on a plain file.
	slotSize = 4096
	// BlockSize is the plaintext size of a block: what a slot holds.
	BlockSize = slotSize - slotMeta - nonceSize - tagSize
	// blockSpan is a block's two slots.
	blockSpan = 2 * slotSize
	// dataStart is where the blocks start: the header has a page of its
	// own, so that slots are page-aligned.
	dataStart = 4096
)

var magic = [8]byte{'Q', 'V', 'R', 'C', 'R', 'Y', 'P', 'T'}

// ErrNotEncrypted is the error of a file that does not start with a
// cryptfs header (a plain file in an encrypted directory).
var ErrNotEncrypted = errors.New("file is not encrypted")

// header is a file's header.
type header struct {
	gen  uint32
	salt [saltSize]byte
}

func (h header) encode() []byte {
	b := make([]byte, headerSize)
	copy(b, magic[:])
	binary.LittleEndian.PutUint32(b[8:], version)
	binary.LittleEndian.PutUint32(b[12:], h.gen)
	copy(b[16:], h.salt[:])
	return b
}

// decodeHeader reads a header; b must hold headerSize bytes.
func decodeHeader(b []byte) (header, error) {
	var h header
	if len(b) < headerSize || [8]byte(b[:8]) != magic {
		return h, ErrNotEncrypted
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != version {
		return h, fmt.Errorf("unknown encryption format version %d", v)
	}
	h.gen = binary.LittleEndian.Uint32(b[12:])
	copy(h.salt[:], b[16:headerSize])
	return h, nil
}

func newHeader(gen uint32) header {
	h := header{gen: gen}
	rand.Read(h.salt[:])
	return h
}

// fileAEAD is the AES-256-GCM of a file: its key derived from the
// generation key and the file's salt.
func fileAEAD(genKey []byte, salt []byte) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, genKey, salt, "quiver file", 32)
	if err != nil {
		return nil, err
	}
	return newGCM(key)
}

func newGCM(key []byte) (cipher.AEAD, error) {
	blk, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(blk)
}

// slot is a decoded slot: counter 0 is an empty slot (never written).
type slot struct {
	counter uint64
	n       int // plaintext bytes
}

// blockAAD is the additional data of block idx's slot.
func blockAAD(dst []byte, salt []byte, idx int64, counter uint64, n int) []byte {
	dst = append(dst[:0], salt...)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(idx))
	dst = binary.LittleEndian.AppendUint64(dst, counter)
	return binary.LittleEndian.AppendUint32(dst, uint32(n))
}

// sealSlot encodes block idx's plaintext p (at most BlockSize bytes) into
// dst (slotSize bytes).
func sealSlot(dst []byte, aead cipher.AEAD, salt []byte, idx int64, counter uint64, p []byte, aad []byte) {
	binary.LittleEndian.PutUint64(dst, counter)
	binary.LittleEndian.PutUint32(dst[8:], uint32(len(p)))
	nonce := dst[slotMeta : slotMeta+nonceSize]
	rand.Read(nonce)
	var plain [BlockSize]byte
	copy(plain[:], p)
	aad = blockAAD(aad, salt, idx, counter, len(p))
	aead.Seal(dst[slotMeta+nonceSize:slotMeta+nonceSize], nonce, plain[:], aad)
}

// openSlot decodes a slot of block idx into plain (BlockSize bytes). A
// short or zero counter slot is empty; ok is false for a slot that does
// not authenticate.
func openSlot(plain []byte, aead cipher.AEAD, salt []byte, idx int64, raw []byte, aad []byte) (s slot, ok bool) {
	if len(raw) < slotSize {
		if len(raw) >= 8 && binary.LittleEndian.Uint64(raw) != 0 {
			return slot{counter: binary.LittleEndian.Uint64(raw)}, false
		}
		return slot{}, false
	}
	s.counter = binary.LittleEndian.Uint64(raw)
	s.n = int(binary.LittleEndian.Uint32(raw[8:]))
	if s.counter == 0 || s.n > BlockSize {
		return s, false
	}
	aad = blockAAD(aad, salt, idx, s.counter, s.n)
	if _, err := aead.Open(plain[:0], raw[slotMeta:slotMeta+nonceSize], raw[slotMeta+nonceSize:slotSize], aad); err != nil {
		return s, false
	}
	return s, true
}

// blockOffset is where block idx's slots start in the file.
func blockOffset(idx int64) int64 { return dataStart + idx*blockSpan }

// StaticKey is Keys of one generation (1) with a fixed key: for tests,
// and for tools that read files of a known key.
type StaticKey []byte

// Current is generation 1 and the key.
func (k StaticKey) Current() (uint32, []byte) { return 1, k }

// Key is the key of generation 1.
func (k StaticKey) Key(gen uint32) ([]byte, bool) { return k, gen == 1 }
