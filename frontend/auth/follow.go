package auth

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Following the records. The index is a copy of the auth records, and
// on a member of a replicated cluster other members' commits change
// them: every commit is a raft entry applied on every member. The
// Service watches its keys (engine.DB.WatchSystem), and each published
// commit that changed some hands them to reload on the goroutine that
// applied it, so the index holds a commit once the member applied it,
// whichever member made it. The Service's own commits reload their keys
// as well once stored: the same path, and a key told twice is read twice
// to the same value.
//
//	leader    createUser … SystemPut ─► raft entry ─► applied here ─► reload
//	follower                                        └► applied there ─► reload
//
// reload reads each key's value as of now (SystemGet) under mu, so
// commits told out of order still leave the latest value.

// reload brings the index up to date with the records at keys.
func (s *Service) reload(keys []string) {
	var users []string
	keyChanged := false
	s.mu.Lock()
	ix := s.mu.ix
	for _, k := range keys {
		v, ok := s.cfg.DB.SystemGet(k)
		name, isUser := strings.CutPrefix(k, userPrefix)
		old := ix.users[name]
		if err := ix.apply(k, v, ok); err != nil {
			s.log.Error("auth: a replicated security record does not decode; it is ignored", "key", k, "err", err)
		}
		if nu := ix.users[name]; isUser && old != nil && (nu == nil || nu.Gen != old.Gen || nu.Hash != old.Hash) {
			users = append(users, name)
		}
		keyChanged = keyChanged || k == signKeyRecord
	}
	s.mu.Unlock()
	s.wake()
	for _, u := range users {
		s.cache.drop(u) // its password changed, or it is gone
	}
	if keyChanged {
		s.tokens.clear()
	}
}

// tokenState is the user and session of a token's claims as this
// member has them: nil, nil unless both hold (the user, its password
// generation and the session).
func (s *Service) tokenState(c cachedClaims) (*userRecord, *session) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	u := s.mu.ix.users[c.user]
	ss := s.mu.ix.sessions[c.sid]
	if u == nil || u.Gen != c.gen || ss == nil || ss.user != u.Name {
		return nil, nil
	}
	return u, ss
}

// sessionWait bounds how long a token waits for its session to reach
// this member (a member further behind than that is lagging: status
// says so).
const sessionWait = 5 * time.Second

// awaitSession waits until the token's session is applied here, or this
// member applied the log position the token was issued at (the session
// is then gone: revoked, or its user's password changed), or
// sessionWait or ctx ends. The session's commit holds auth records, so
// applying it runs reload, which wakes the wait: no polling.
func (s *Service) awaitSession(ctx context.Context, c cachedClaims) (*userRecord, *session) {
	timer := time.NewTimer(sessionWait)
	defer timer.Stop()
	for {
		changed := s.changedChan()
		if u, ss := s.tokenState(c); u != nil || s.cfg.DB.AppliedIndex() >= c.bm {
			return u, ss
		}
		select {
		case <-changed:
		case <-timer.C:
			return s.tokenState(c)
		case <-ctx.Done():
			return nil, nil
		}
	}
}

// changedChan is closed at the next reload.
func (s *Service) changedChan() <-chan struct{} {
	s.changed.Lock()
	defer s.changed.Unlock()
	if s.changed.c == nil {
		s.changed.c = make(chan struct{})
	}
	return s.changed.c
}

// wake closes the channel changedChan handed out.
func (s *Service) wake() {
	s.changed.Lock()
	if s.changed.c != nil {
		close(s.changed.c)
		s.changed.c = nil
	}
	s.changed.Unlock()
}

// apply sets the record at key to value (present) or deletes it, and
// keeps the sessions in step with the refresh records.
func (ix *index) apply(key string, value []byte, present bool) error {
	if !present {
		ix.remove(key)
		return nil
	}
	if strings.HasPrefix(key, refreshPrefix) {
		h := strings.TrimPrefix(key, refreshPrefix)
		_, had := ix.refresh[h]
		if err := ix.decode(key, value); err != nil {
			return err
		}
		if !had {
			r := ix.refresh[h]
			delete(ix.refresh, h)
			ix.addRefresh(r)
		}
		return nil
	}
	return ix.decode(key, value)
}

// remove forgets the record at key.
func (ix *index) remove(key string) {
	switch {
	case key == signKeyRecord:
		ix.signKey = nil
	case strings.HasPrefix(key, userPrefix):
		delete(ix.users, strings.TrimPrefix(key, userPrefix))
	case strings.HasPrefix(key, keyPrefix):
		delete(ix.keys, strings.TrimPrefix(key, keyPrefix))
	case strings.HasPrefix(key, refreshPrefix):
		h := strings.TrimPrefix(key, refreshPrefix)
		r := ix.refresh[h]
		if r == nil {
			return
		}
		delete(ix.refresh, h)
		ss := ix.sessions[r.Session]
		if ss == nil {
			return
		}
		// A new slice: a writer may hold the old one, read under mu.
		ss.records = slices.DeleteFunc(slices.Clone(ss.records), func(x string) bool { return x == h })
		if len(ss.records) == 0 {
			delete(ix.sessions, ss.id)
		}
	}
}

// follow starts the watches: reload on every commit that changes an
// auth record, ensure each time this member starts to lead.
func (s *Service) follow() {
	s.stopWatch = s.cfg.DB.WatchSystem(prefix, s.reload)
	s.stopLead = s.cfg.DB.OnLead(func() {
		ctx, cancel := context.WithTimeout(context.Background(), ensureTimeout)
		defer cancel()
		if err := s.ensure(ctx); err != nil {
			s.log.Warn("auth: cannot prepare the security records on the new leader; the next leader will", "err", err)
		}
	})
}

// ensureTimeout bounds ensure on a new leader.
const ensureTimeout = 30 * time.Second

// ensure makes the records that must exist exactly once, and drops the
// expired refresh records: on a single server at Open, on a member of a
// cluster each time it starts to lead (only a leader writes). The
// signing key and the admin user are created by a conditional put, so
// of two members leading in turn only the first creates them.
//
// With authentication off the key is left to the first login
// (issueAccess makes it), so that a server that never authenticates
// writes nothing at start and a new data directory stays empty.
func (s *Service) ensure(ctx context.Context) error {
	if s.cfg.Enabled {
		if err := s.ensureSigningKey(ctx); err != nil {
			return err
		}
	}
	if err := s.pruneExpired(ctx, ""); err != nil {
		return err
	}
	if s.cfg.Enabled {
		return s.bootstrap(ctx)
	}
	return nil
}
