package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/quiverdb/quiver/engine"
)

// An API key is "qk_" + its id (12 hex digits) + "_" + 32 random bytes in
// base64url. Only the SHA-256 of the whole key is stored: the id finds
// the record, a constant-time comparison of the hashes checks the secret.
// The key acts as its user with the user's current roles.
const (
	keyTag       = "qk_"
	keyIDLen     = 12
	maxKeyName   = 128
	maxKeysTotal = 100_000
	// maxKeysPerUser keeps dropping a user (which deletes its keys in one
	// commit) within SystemPut's per-put bound.
	maxKeysPerUser = 1000
)

func hashHex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// createAPIKey issues a key for user; the key is returned only here.
func (s *Service) createAPIKey(ctx context.Context, user, name string) (*keyRecord, string, error) {
	if len(name) > maxKeyName {
		return nil, "", invalidParam("an API key's name has at most %d bytes", maxKeyName)
	}
	s.write.Lock()
	defer s.write.Unlock()
	if s.user(user) == nil {
		return nil, "", errNoUser(user)
	}
	s.mu.RLock()
	n, mine := len(s.mu.ix.keys), 0
	for _, k := range s.mu.ix.keys {
		if k.User == user {
			mine++
		}
	}
	s.mu.RUnlock()
	if n >= maxKeysTotal || mine >= maxKeysPerUser {
		return nil, "", invalidParam("there are too many API keys (%d, %d of %q; the limits are %d and %d per user); revoke some first",
			n, mine, user, maxKeysTotal, maxKeysPerUser)
	}
	idb := make([]byte, keyIDLen/2)
	secret := make([]byte, 32)
	_, _ = rand.Read(idb)
	_, _ = rand.Read(secret)
	id := hex.EncodeToString(idb)
	key := keyTag + id + "_" + base64.RawURLEncoding.EncodeToString(secret)
	k := &keyRecord{ID: id, User: user, Name: name, Hash: hashHex(key), Created: s.now().UTC()}
	var b batch
	b.putKey(k)
	if err := s.commitLocked(ctx, &b); err != nil {
		return nil, "", internal(err)
	}
	return k, key, nil
}

// revokeAPIKey deletes a key.
func (s *Service) revokeAPIKey(ctx context.Context, id string) (*keyRecord, error) {
	s.write.Lock()
	defer s.write.Unlock()
	s.mu.RLock()
	k := s.mu.ix.keys[id]
	s.mu.RUnlock()
	if k == nil {
		return nil, engine.NewError(codeNoObject, catNoObject, "there is no API key %q", sanitize(id))
	}
	var b batch
	b.del(keyPrefix + id)
	if err := s.commitLocked(ctx, &b); err != nil {
		return nil, internal(err)
	}
	return k, nil
}

// apiKeys lists the keys sorted by user, then name and id.
func (s *Service) apiKeys() []keyRecord {
	s.mu.RLock()
	out := make([]keyRecord, 0, len(s.mu.ix.keys))
	for _, k := range s.mu.ix.keys {
		out = append(out, *k)
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.User != b.User {
			return a.User < b.User
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	return out
}

// parseKeyID returns the id of a well-formed key.
func parseKeyID(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, keyTag)
	if !ok || len(rest) < keyIDLen+2 || rest[keyIDLen] != '_' {
		return "", false
	}
	id := rest[:keyIDLen]
	if _, err := hex.DecodeString(id); err != nil || strings.ToLower(id) != id {
		return "", false
	}
	return id, true
}

// apiKey checks an X-API-Key. Failures count against the client address
// in the login limiter.
func (s *Service) apiKey(c Credentials) (*engine.Principal, error) {
	now := s.now()
	host := clientHost(c.Address)
	if le := s.limiter.check(now, "", host); le != nil {
		s.audit("authentication", "rate_limited", engine.OutcomeDenied, "", c.Address, limitDetail(methodAPIKey, le))
		return nil, le
	}
	fail := func(why string, err error) error {
		locks := s.limiter.fail(now, "", host)
		err = s.authFailure(c, methodAPIKey, why, err)
		s.auditLocks(c.Address, locks)
		return err
	}
	id, ok := parseKeyID(c.APIKey)
	if !ok {
		return nil, fail("malformed API key", errAuth("the API key is malformed: it should look like qk_<id>_<secret>"))
	}
	want := hashHex(c.APIKey)
	s.mu.Lock() // a write lock: it may note the key's audit time
	k := s.mu.ix.keys[id]
	var u *userRecord
	if k != nil {
		u = s.mu.ix.users[k.User]
	}
	valid := k != nil && u != nil && subtle.ConstantTimeCompare([]byte(k.Hash), []byte(want)) == 1
	// A key's successes are audited at most once per cacheTTL: like a
	// bearer token it comes with every request.
	auditOK := valid && (now.Sub(k.lastAudited) >= cacheTTL || now.Before(k.lastAudited))
	if auditOK {
		k.lastAudited = now
	}
	s.mu.Unlock()
	if !valid {
		return nil, fail("invalid or revoked API key", errAuth("the API key is invalid or has been revoked"))
	}
	if auditOK {
		s.audit("authentication", "authenticate", engine.OutcomeSuccess, u.Name, c.Address, methodAPIKey+" "+k.ID)
	}
	return principal(u, methodAPIKey, c.Address, "", "key:"+k.ID), nil
}
