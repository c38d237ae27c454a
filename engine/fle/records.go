package fle

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
)

// The records of a graph's system records (storage.SealRecordPrefix):
//
//	fle/key/<name>                  KeyRecord, the data key wrapped
//	fle/field/<label>\x00<property> FieldRecord
//
// A data key is wrapped with AES-256-GCM under a key-encryption key
// derived (HKDF-SHA256) from a generation key of the data directory's
// keyring (encryption at rest), which the master key wraps in turn:
// rotating the master key re-wraps the keyring and leaves these records
// as they are, and a copy of the records without the keyring and the
// master key opens nothing.

// Record prefixes.
const (
	KeyPrefix   = storage.SealRecordPrefix + "key/"
	FieldPrefix = storage.SealRecordPrefix + "field/"
)

// Field policies: what a principal without the key reads.
const (
	DeniedNull  = "null"
	DeniedError = "error"
)

// KeyRecord is a data key as stored.
type KeyRecord struct {
	Name          string   `json:"name"`
	Deterministic bool     `json:"deterministic"`
	Gen           uint32   `json:"gen"`     // the keyring generation the wrapping key derives from
	Wrapped       string   `json:"wrapped"` // base64 of nonce ‖ sealed key
	Roles         []string `json:"roles"`   // the roles granted the key, sorted
	Created       string   `json:"created"`
}

// FieldRecord is an encrypted field as stored.
type FieldRecord struct {
	Label    string `json:"label"`
	Property string `json:"property"`
	Key      string `json:"key"`
	OnDenied string `json:"on_denied"`
}

// KeyRecordKey is the system-record key of data key name.
func KeyRecordKey(name string) string { return KeyPrefix + name }

// FieldRecordKey is the system-record key of field label.property.
func FieldRecordKey(label, prop string) string { return FieldPrefix + label + "\x00" + prop }

// ValidKeyName checks a data key's name: a letter, then letters, digits
// or underscores, at most 63 (a name appears in every sealed value).
func ValidKeyName(name string) error {
	ok := name != "" && len(name) <= 63
	for i, r := range name {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		digit := r >= '0' && r <= '9'
		if !letter && (i == 0 || !digit && r != '_') {
			ok = false
		}
	}
	if !ok {
		return errs.DataCode(errs.CodeInvalidParam,
			"invalid key name %q: a letter, then letters, digits or underscores, at most 63", truncate(name))
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// DeriveKEK derives the key-encryption key from a keyring generation key.
func DeriveKEK(genKey []byte) ([]byte, error) {
	return hkdf.Key(sha256.New, genKey, nil, "quiver fle key-encryption key", 32)
}

// NewKeyMaterial draws KeyBytes of key material.
func NewKeyMaterial() ([]byte, error) {
	raw := make([]byte, KeyBytes)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("cannot draw a data key: %w", err)
	}
	return raw, nil
}

func kekAEAD(kek []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(kek)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Wrap seals data key raw, named name, under kek.
func Wrap(kek, raw []byte, name string) (string, error) {
	aead, err := kekAEAD(kek)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(raw)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("cannot draw a nonce: %w", err)
	}
	return base64.StdEncoding.EncodeToString(aead.Seal(nonce, nonce, raw, []byte("quiver fle key\x00"+name))), nil
}

// Unwrap opens what Wrap sealed.
func Unwrap(kek []byte, wrapped, name string) ([]byte, error) {
	aead, err := kekAEAD(kek)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(wrapped)
	if err != nil || len(b) < aead.NonceSize() {
		return nil, fmt.Errorf("data key %s: wrapped key is not readable", name)
	}
	n := aead.NonceSize()
	raw, err := aead.Open(nil, b[:n], b[n:], []byte("quiver fle key\x00"+name))
	if err != nil || len(raw) != KeyBytes {
		return nil, fmt.Errorf("data key %s does not unwrap under the data directory's keyring", name)
	}
	return raw, nil
}

// DecodeKey reads a key record.
func DecodeKey(b []byte) (*KeyRecord, error) {
	var k KeyRecord
	if err := json.Unmarshal(b, &k); err != nil || ValidKeyName(k.Name) != nil {
		return nil, fmt.Errorf("unreadable data key record")
	}
	return &k, nil
}

// DecodeField reads a field record.
func DecodeField(b []byte) (*FieldRecord, error) {
	var f FieldRecord
	if err := json.Unmarshal(b, &f); err != nil || f.Label == "" || f.Property == "" || ValidKeyName(f.Key) != nil ||
		(f.OnDenied != DeniedNull && f.OnDenied != DeniedError) {
		return nil, fmt.Errorf("unreadable encrypted field record")
	}
	return &f, nil
}

// Encode writes a record.
func Encode(rec any) []byte {
	b, err := json.Marshal(rec)
	if err != nil {
		panic("BUG: fle: record does not encode: " + err.Error())
	}
	return b
}

// HasRole reports whether the key is granted to role.
func (k *KeyRecord) HasRole(role string) bool {
	for _, r := range k.Roles {
		if strings.EqualFold(r, role) {
			return true
		}
	}
	return false
}
