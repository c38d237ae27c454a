package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/crypto/argon2"
)

// DefaultHash is argon2id's cost when Config.Hash is zero: 19 MiB, two
// passes, one lane, the OWASP minimum for argon2id.
var DefaultHash = HashParams{MemoryKiB: 19456, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32

	minPassword = 8
	maxPassword = 1024 // bytes; checked before hashing so a huge input costs nothing
)

// Bounds on the cost a stored hash may ask for: the records are ours, but
// a damaged one must not make Verify allocate without limit.
const (
	maxHashMemoryKiB = 1 << 20 // 1 GiB
	maxHashTime      = 64
	maxHashKey       = 128
)

var b64 = base64.RawStdEncoding

// hasher computes argon2id hashes, at most GOMAXPROCS at a time: each
// holds MemoryKiB of memory while it runs, so a burst of logins must not
// multiply that without bound.
type hasher struct {
	params HashParams
	sem    chan struct{}
	// hashes counts the argon2 computations, dummies those done for an
	// unknown user; tests read them to see the cost was paid (or not).
	hashes, dummies atomic.Int64
	dummy           string // a hash of a random password, verified for unknown users
}

func newHasher(p HashParams) (*hasher, error) {
	if p == (HashParams{}) {
		p = DefaultHash
	}
	if p.MemoryKiB < 8*uint32(max(p.Threads, 1)) || p.MemoryKiB > maxHashMemoryKiB || p.Time < 1 || p.Time > maxHashTime || p.Threads < 1 {
		return nil, fmt.Errorf("auth: invalid argon2id parameters m=%d,t=%d,p=%d", p.MemoryKiB, p.Time, p.Threads)
	}
	h := &hasher{params: p, sem: make(chan struct{}, runtime.GOMAXPROCS(0))}
	pw := make([]byte, 24)
	_, _ = rand.Read(pw)
	d, err := h.hash(context.Background(), string(pw))
	if err != nil {
		return nil, err
	}
	h.dummy = d
	return h, nil
}

// checkPassword refuses passwords outside 8..1024 bytes.
func checkPassword(pw string) error {
	if len(pw) < minPassword || len(pw) > maxPassword {
		return invalidParam("a password has %d to %d bytes (this one has %d)", minPassword, maxPassword, len(pw))
	}
	return nil
}

// hash returns the PHC string of pw under h's parameters with a fresh
// salt.
func (h *hasher) hash(ctx context.Context, pw string) (string, error) {
	salt := make([]byte, saltLen)
	_, _ = rand.Read(salt)
	key, err := h.derive(ctx, pw, salt, h.params, keyLen)
	if err != nil {
		return "", err
	}
	p := h.params
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// verify reports whether pw matches the PHC string phc, reading the cost
// from phc so that it can change between releases.
func (h *hasher) verify(ctx context.Context, pw, phc string) (bool, error) {
	p, salt, want, err := parsePHC(phc)
	if err != nil {
		return false, err
	}
	got, err := h.derive(ctx, pw, salt, p, uint32(len(want)))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// verifyDummy spends one verification on the dummy hash, so that an
// unknown user name costs what a known one does.
func (h *hasher) verifyDummy(ctx context.Context, pw string) {
	h.dummies.Add(1)
	_, _ = h.verify(ctx, pw, h.dummy)
}

func (h *hasher) derive(ctx context.Context, pw string, salt []byte, p HashParams, n uint32) ([]byte, error) {
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("auth: waiting to hash a password: %w", ctx.Err())
	}
	defer func() { <-h.sem }()
	h.hashes.Add(1)
	return argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, n), nil
}

// parsePHC reads `$argon2id$v=19$m=…,t=…,p=…$<salt>$<hash>`.
func parsePHC(s string) (HashParams, []byte, []byte, error) {
	var p HashParams
	bad := func(why string) (HashParams, []byte, []byte, error) {
		return p, nil, nil, fmt.Errorf("auth: stored password hash is malformed: %s", why)
	}
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return bad("not an argon2id PHC string")
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return bad("unsupported version " + parts[2])
	}
	var m, t, th uint64
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 32)
		if !ok || err != nil {
			return bad("parameter " + kv)
		}
		switch k {
		case "m":
			m = n
		case "t":
			t = n
		case "p":
			th = n
		default:
			return bad("parameter " + k)
		}
	}
	if m == 0 || m > maxHashMemoryKiB || t == 0 || t > maxHashTime || th == 0 || th > 255 || m < 8*th {
		return bad("parameters out of range")
	}
	salt, err1 := b64.DecodeString(parts[4])
	key, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 || len(key) > maxHashKey {
		return bad("salt or key")
	}
	return HashParams{MemoryKiB: uint32(m), Time: uint32(t), Threads: uint8(th)}, salt, key, nil
}
