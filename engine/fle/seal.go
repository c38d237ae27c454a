package fle

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// A sealed value is a string: Prefix, the key's name, '$', then the
// unpadded base64url of nonce ‖ AES-256-GCM ciphertext of the value's
// storage encoding (storage.AppendValue). The additional data binds the
// ciphertext to its key and property, so a sealed value copied into
// another property does not open there.
//
// A deterministic key derives the nonce from the plaintext (the first
// 12 bytes of HMAC-SHA256 under a second key over property ‖ plaintext),
// the synthetic-nonce construction of SIV: equal values of a property
// seal to equal strings, which is what lets equality and a HASH index
// work on them, and all it tells is which values are equal. A
// randomized key draws the nonce.

// Prefix starts every sealed value.
const Prefix = "$fle1$"

// KeyBytes is the size of a data key: 32 bytes of AES-256 key, then 32
// of nonce-derivation key.
const KeyBytes = 64

const nonceBytes = 12

var strictBase64 = base64.RawURLEncoding.Strict()

// ErrCorrupt is the error of a sealed value that does not open: changed
// on disk, or copied from another property or key.
var ErrCorrupt = errors.New("sealed value does not authenticate")

// DataKey is an unwrapped data key.
type DataKey struct {
	Name          string
	Deterministic bool
	aead          cipher.AEAD
	mac           []byte
	aad           sync.Map // property → additional data
}

// NewDataKey makes a data key from KeyBytes of key material.
func NewDataKey(name string, raw []byte, deterministic bool) (*DataKey, error) {
	if len(raw) != KeyBytes {
		return nil, fmt.Errorf("a data key is %d bytes, not %d", KeyBytes, len(raw))
	}
	block, err := aes.NewCipher(raw[:32])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &DataKey{Name: name, Deterministic: deterministic, aead: aead, mac: append([]byte(nil), raw[32:]...)}, nil
}

// Seal seals v, a stored value (not null), as a value of property prop.
func (k *DataKey) Seal(prop string, v vector.Value) (string, error) {
	if v == nil {
		return "", errors.New("a null value is not sealed")
	}
	pt := storage.AppendValue(nil, v)
	nonce := make([]byte, nonceBytes, nonceBytes+len(pt)+k.aead.Overhead())
	if k.Deterministic {
		m := hmac.New(sha256.New, k.mac)
		m.Write([]byte(prop))
		m.Write([]byte{0})
		m.Write(pt)
		copy(nonce, m.Sum(nil))
	} else if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("cannot draw a nonce: %w", err)
	}
	blob := k.aead.Seal(nonce, nonce, pt, k.additionalData(prop))
	return Prefix + k.Name + "$" + base64.RawURLEncoding.EncodeToString(blob), nil
}

// Open returns the value sealed in s as a value of property prop.
func (k *DataKey) Open(prop, s string) (vector.Value, error) {
	name, text, ok := split(s)
	if !ok || name != k.Name {
		return nil, ErrCorrupt
	}
	// Strict: one text for one sealed value (a deterministic field's
	// equality compares the texts). The decoder skips CR and LF even when
	// strict, so a text holding them is refused here.
	if strings.ContainsAny(text, "\r\n") {
		return nil, ErrCorrupt
	}
	blob := make([]byte, base64.RawURLEncoding.DecodedLen(len(text)))
	n, err := strictBase64.Decode(blob, []byte(text))
	if err != nil || n < nonceBytes {
		return nil, ErrCorrupt
	}
	blob = blob[:n]
	// Decrypted in place, over the ciphertext.
	pt, err := k.aead.Open(blob[nonceBytes:nonceBytes], blob[:nonceBytes], blob[nonceBytes:], k.additionalData(prop))
	if err != nil {
		return nil, ErrCorrupt
	}
	v, used, err := storage.DecodeValue(pt)
	if err != nil || used != len(pt) {
		return nil, ErrCorrupt
	}
	return v, nil
}

// additionalData is the additional authenticated data of property prop's
// values, made once per property.
func (k *DataKey) additionalData(prop string) []byte {
	if b, ok := k.aad.Load(prop); ok {
		return b.([]byte)
	}
	b := []byte("quiver fle\x00" + k.Name + "\x00" + prop)
	k.aad.Store(prop, b)
	return b
}

// SealedBy returns the name of the key a sealed value names; false when
// v is not a sealed value. It does not decode the value.
func SealedBy(v vector.Value) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	name, _, ok := split(s)
	return name, ok
}

// split splits a sealed value into its key's name and its base64 text.
func split(s string) (string, string, bool) {
	if !strings.HasPrefix(s, Prefix) {
		return "", "", false
	}
	rest := s[len(Prefix):]
	i := strings.IndexByte(rest, '$')
	if i <= 0 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}
