package auth

import (
	"context"
	"errors"
	"strings"

	"github.com/quiverdb/quiver/engine"
)

// verifyPassword checks a user name and password under the login limiter
// and returns the user. fresh says the argon2id hash ran (a cache miss),
// so the success is worth an audit event. Every failure is the same
// "invalid user name or password", and an unknown user costs one hash
// like a known one, so neither message nor timing tells whether the user
// exists. locks are the limiter's locks a failure started or lengthened:
// the caller audits them (auditLocks) after the failure itself.
func (s *Service) verifyPassword(ctx context.Context, name, pw, addr string) (u *userRecord, fresh bool, locks []lock, err error) {
	now := s.now()
	user, host := "", clientHost(addr)
	if checkUserName(name) == nil {
		user = name
	}
	if le := s.limiter.check(now, user, host); le != nil {
		return nil, false, nil, le
	}
	u = s.user(name)
	if u != nil && s.cache.hit(now, name, pw, u.Gen) {
		s.limiter.succeed(now, user, host)
		return u, false, nil, nil
	}
	ok := false
	switch {
	case len(pw) > maxPassword:
		// Refused before hashing: no stored password is this long.
	case u == nil:
		s.hash.verifyDummy(ctx, pw)
	default:
		ok, err = s.hash.verify(ctx, pw, u.Hash)
		if err != nil && ctx.Err() != nil {
			return nil, false, nil, internal(err)
		}
		if err != nil {
			s.log.Error("auth: cannot verify a password", "user", u.Name, "err", err)
			ok = false
		}
	}
	if !ok {
		return nil, true, s.limiter.fail(s.now(), user, host), errWrongPassword()
	}
	s.limiter.succeed(s.now(), user, host)
	s.cache.add(s.now(), name, pw, u.Gen)
	return u, true, nil, nil
}

// limited reports whether err is the limiter's refusal.
func limited(err error) bool {
	var le *LimitError
	return errors.As(err, &le)
}

// limitDetail is the audit detail of a refusal by the limiter: what was
// tried, and which lock refused it.
func limitDetail(what string, err error) string {
	var le *LimitError
	if errors.As(err, &le) && le.scope != "" {
		return what + ": locked " + le.scope
	}
	return what
}

// auditLocks records the locks a failure from addr started or
// lengthened, so that the trail shows an attack as it builds up (which
// user, from where, how many failures), not only the refusals after.
func (s *Service) auditLocks(addr string, locks []lock) {
	for _, lk := range locks {
		s.audit("authentication", "lockout", engine.OutcomeDenied, "", addr, lk.describe())
	}
}

// Current re-reads p's user: its roles and privileges as they are now,
// or 08001 when the user, its password generation, its API key or its
// token session is gone. A nil p (authentication off) stays nil.
func (s *Service) Current(p *engine.Principal) (*engine.Principal, error) {
	if p == nil {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix := s.mu.ix
	u := ix.users[p.Name]
	if u == nil {
		return nil, errAuth("the user %q no longer exists", p.Name)
	}
	switch {
	case p.Method == methodBearer:
		if ss := ix.sessions[p.Session]; ss == nil || ss.user != p.Name || p.Credential != genCredential(u.Gen) {
			return nil, errAuth("the token session has ended; log in again")
		}
	case p.Method == methodAPIKey:
		id, _ := strings.CutPrefix(p.Credential, "key:")
		if k := ix.keys[id]; k == nil || k.User != p.Name {
			return nil, errAuth("the API key has been revoked")
		}
	default:
		if p.Credential != genCredential(u.Gen) {
			return nil, errAuth("the user's password has changed; authenticate again")
		}
	}
	np := principal(u, p.Method, p.Address, p.Session, p.Credential)
	return np, nil
}
