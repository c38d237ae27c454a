package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// A token session starts at a login and lives through its refresh-token
// rotations: every refresh marks the presented refresh token used and
// issues a new pair in the same session. Presenting a used one again is a
// replay (the token was stolen, or the client is confused), so the whole
// session is revoked: its access tokens stop working at once, since a
// bearer token is valid only while its session has records.
const (
	refreshTag = "qr_"
	// maxSessions bounds a user's active sessions: a new login past it
	// revokes the oldest.
	maxSessions = 100
	// maxSessionRecords bounds the used refresh records a session keeps
	// for replay detection; an older used token is simply unknown.
	maxSessionRecords = 10
)

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newRefresh makes a refresh token and its record.
// started is the session's start: now for a login.
func (s *Service) newRefresh(user, sid string, gen uint64, started time.Time) (string, *refreshRecord) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	tok := refreshTag + base64.RawURLEncoding.EncodeToString(b)
	now := s.now().UTC()
	if started.IsZero() {
		started = now
	}
	return tok, &refreshRecord{hash: hashHex(tok), User: user, Session: sid, Gen: gen, Created: now, Started: started,
		Expires: now.Add(s.cfg.RefreshTTL)}
}

// Login checks a user name and password and starts a token session. The
// principal it returns is the user's, with Method "password" and the new
// session.
func (s *Service) Login(ctx context.Context, username, password, addr string) (Tokens, *engine.Principal, error) {
	who := "user " + sanitize(username)
	// A login stores its session: on a cluster member that does not
	// lead it is refused before the password is checked (25006 naming
	// the leader; HTTP answers 307 to it). Checking a password without
	// a session (HTTP Basic, HELLO.auth) works on every member.
	if err := s.cfg.DB.Writable(); err != nil {
		return Tokens{}, nil, err
	}
	u, _, locks, err := s.verifyPassword(ctx, username, password, addr)
	if err != nil {
		if limited(err) {
			s.audit("authentication", "rate_limited", engine.OutcomeDenied, "", addr, limitDetail(who+" (login)", err))
		} else {
			s.audit("authentication", "login", engine.OutcomeFailure, "", addr, who+" (password)")
			s.auditLocks(addr, locks)
		}
		return Tokens{}, nil, err
	}
	if err := s.pruneExpired(ctx, u.Name); err != nil {
		return Tokens{}, nil, internal(err)
	}
	sid := randomHex(16)
	refresh, rec := s.newRefresh(u.Name, sid, u.Gen, time.Time{})
	s.write.Lock()
	cur := s.user(u.Name)
	if cur == nil || cur.Gen != u.Gen { // the password changed meanwhile
		s.write.Unlock()
		s.audit("authentication", "login", engine.OutcomeFailure, "", addr, who+" (password)")
		return Tokens{}, nil, errWrongPassword()
	}
	var b batch
	s.mu.RLock()
	ss := s.mu.ix.userSessions(u.Name)
	for i := 0; i+maxSessions <= len(ss); i++ {
		b.delSession(ss[i])
	}
	s.mu.RUnlock()
	b.putRefresh(rec)
	err = s.commitLocked(ctx, &b)
	s.write.Unlock()
	if err != nil {
		return Tokens{}, nil, internal(err)
	}
	access, err := s.issueAccess(ctx, u.Name, sid, u.Gen)
	if err != nil {
		return Tokens{}, nil, err
	}
	s.audit("authentication", "login", engine.OutcomeSuccess, u.Name, addr, who+" (password)")
	s.audit("authentication", "token_issue", engine.OutcomeSuccess, u.Name, addr, "session "+sid)
	return Tokens{AccessToken: access, TokenType: "Bearer", ExpiresIn: s.expiresIn(), RefreshToken: refresh},
		principal(cur, methodPassword, addr, sid, genCredential(cur.Gen)), nil
}

// Refresh exchanges a refresh token for a new access and refresh token
// pair in the same session (rotation); see the replay rule above.
func (s *Service) Refresh(ctx context.Context, refreshToken, addr string) (Tokens, error) {
	fail := func(why string, err error) (Tokens, error) {
		s.audit("authentication", "token_refresh", engine.OutcomeFailure, "", addr, why)
		return Tokens{}, err
	}
	if len(refreshToken) > maxCredential || !strings.HasPrefix(refreshToken, refreshTag) {
		return fail("malformed refresh token", errAuth("the refresh token is malformed"))
	}
	if err := s.cfg.DB.Writable(); err != nil {
		return Tokens{}, err // the rotation is stored: the leader's job
	}
	h := hashHex(refreshToken)
	s.write.Lock()
	defer s.write.Unlock()
	s.mu.RLock()
	rec := s.mu.ix.refresh[h]
	var ss *session
	var u *userRecord
	var records []string // ss's, oldest first
	if rec != nil {
		ss = s.mu.ix.sessions[rec.Session]
		u = s.mu.ix.users[rec.User]
	}
	if ss != nil {
		records = ss.records // never changed in place (index.remove)
	}
	s.mu.RUnlock()
	now := s.now()
	switch {
	case rec == nil || ss == nil:
		return fail("unknown refresh token", errAuth("the refresh token is invalid or has been revoked"))
	case !now.Before(rec.Expires):
		return fail("expired refresh token", errAuth("the refresh token has expired; log in again"))
	case rec.Used:
		var b batch
		b.delRecords(records)
		if err := s.commitLocked(ctx, &b); err != nil {
			return Tokens{}, internal(err)
		}
		s.audit("authentication", "refresh_token_reuse", engine.OutcomeFailure, rec.User, addr,
			"a used refresh token was presented again; session "+ss.id+" revoked")
		return Tokens{}, errAuth("the refresh token was already used; its session has been revoked, log in again")
	case u == nil || u.Gen != rec.Gen:
		return fail("refresh token of a changed password", errAuth("the refresh token is invalid or has been revoked"))
	}
	used := *rec
	used.Used = true
	tok, next := s.newRefresh(u.Name, ss.id, u.Gen, ss.created)
	var b batch
	b.putRefresh(&used)
	b.putRefresh(next)
	// Keep the session's replay memory bounded: drop its oldest used
	// records (the session's records are oldest first; the last is the
	// one just marked used).
	if extra := len(records) + 1 - maxSessionRecords; extra > 0 {
		for _, old := range records[:min(extra, len(records)-1)] {
			b.delRefresh(old)
		}
	}
	if err := s.commitLocked(ctx, &b); err != nil {
		return Tokens{}, internal(err)
	}
	access, err := s.issueAccess(ctx, u.Name, ss.id, u.Gen)
	if err != nil {
		return Tokens{}, err
	}
	s.audit("authentication", "token_refresh", engine.OutcomeSuccess, u.Name, addr, "session "+ss.id)
	return Tokens{AccessToken: access, TokenType: "Bearer", ExpiresIn: s.expiresIn(), RefreshToken: tok}, nil
}

// Logout ends p's token session: its access and refresh tokens stop
// working. Only a bearer-token request has a session to end.
func (s *Service) Logout(ctx context.Context, p *engine.Principal) error {
	if p == nil {
		return invalidParam("logout ends a bearer-token session; this request is not authenticated")
	}
	if p.Method != methodBearer || p.Session == "" {
		return invalidParam("logout ends a bearer-token session; this request used %s", p.Method)
	}
	if err := s.cfg.DB.Writable(); err != nil {
		return err
	}
	s.write.Lock()
	defer s.write.Unlock()
	var b batch
	s.mu.RLock()
	if ss := s.mu.ix.sessions[p.Session]; ss != nil && ss.user == p.Name {
		b.delSession(ss)
	}
	s.mu.RUnlock()
	if len(b.recs) > 0 {
		if err := s.commitLocked(ctx, &b); err != nil {
			return internal(err)
		}
	}
	s.audit("authentication", "logout", engine.OutcomeSuccess, p.Name, p.Address, "session "+p.Session)
	return nil
}

// pruneExpired deletes the expired refresh records of user (of every user
// when user is ""); a session whose records are all gone ends. The
// deletions commit in chunks, within SystemPut's per-put bound.
func (s *Service) pruneExpired(ctx context.Context, user string) error {
	s.write.Lock()
	defer s.write.Unlock()
	now := s.now()
	var b batch
	s.mu.RLock()
	for _, ss := range s.mu.ix.sessions {
		if user != "" && ss.user != user {
			continue
		}
		for _, h := range ss.records {
			if r := s.mu.ix.refresh[h]; r != nil && !now.Before(r.Expires) {
				b.delRefresh(h)
			}
		}
	}
	s.mu.RUnlock()
	const chunk = 1000
	for len(b.recs) > 0 {
		n := min(chunk, len(b.recs))
		part := batch{recs: b.recs[:n]}
		if err := s.commitLocked(ctx, &part); err != nil {
			return err
		}
		b.recs = b.recs[n:]
	}
	return nil
}
