package auth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/quiverdb/quiver/engine"
)

// The access tokens' HMAC key is one secret of the whole database, kept
// in the system record auth/token-key: on a cluster every member has
// it once it applied the entry that made it, so a token issued by any
// member verifies on every member. It is made once, by a conditional
// put (engine.DB.SystemPutIfAbsent) on a single server at its first
// start or on the first leader of a cluster; it travels in the WAL,
// checkpoints and raft snapshots like any record, and queries never see
// system records.
//
// A data directory from before kept the key in <dir>/auth/token.key: its
// bytes become the record, so the tokens issued before the upgrade stay
// valid; the file is no longer read after that.
const (
	signKeyRecord = "auth/token-key"
	signKeyLen    = 32
)

// signKeyValue is the record's JSON.
type signKeyValue struct {
	Key []byte `json:"key"` // base64 in JSON
}

// signingKey is the key as this member has it now; nil before the
// record reached it.
func (s *Service) signingKey() []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.mu.ix.signKey
}

// ensureSigningKey makes the key record unless it exists. Only a member
// that takes writes can: a follower answers 25006.
func (s *Service) ensureSigningKey(ctx context.Context) error {
	if s.signingKey() != nil {
		return nil
	}
	key, err := legacySigningKey(s.cfg.DB.Dir())
	if err != nil {
		return err
	}
	if key == nil {
		key = make([]byte, signKeyLen)
		_, _ = rand.Read(key)
	}
	v, err := json.Marshal(signKeyValue{Key: key})
	if err != nil {
		panic("BUG: auth: the key record does not marshal: " + err.Error())
	}
	if _, err := s.cfg.DB.SystemPutIfAbsent(ctx, signKeyRecord, []engine.SystemRecord{{Key: signKeyRecord, Value: v}}); err != nil {
		return fmt.Errorf("auth: cannot store the token signing key: %w", err)
	}
	s.reload([]string{signKeyRecord})
	return nil
}

// legacySigningKey reads <dir>/auth/token.key, the key of a data
// directory from before the key was a record; nil when there is none.
func legacySigningKey(dir string) ([]byte, error) {
	if dir == "" {
		return nil, nil
	}
	path := filepath.Join(dir, "auth", "token.key")
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("auth: cannot read the token signing key %s: %w", path, err)
	case len(data) != signKeyLen:
		return nil, fmt.Errorf("auth: token signing key %s has %d bytes, want %d (delete it to make a new one; every token is then invalid)", path, len(data), signKeyLen)
	}
	return data, nil
}
