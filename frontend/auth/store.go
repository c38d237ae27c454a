package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// The system-record keys the Service owns; values are JSON.
const (
	prefix        = "auth/"
	userPrefix    = "auth/user/"    // + user name
	keyPrefix     = "auth/key/"     // + API key id
	refreshPrefix = "auth/refresh/" // + SHA-256 hex of the refresh token
)

// userRecord is a user: its roles and password hash. Gen counts its
// password changes; tokens and cached password checks carry the Gen they
// were issued under and die with it.
type userRecord struct {
	Name    string    `json:"name"`
	Roles   []string  `json:"roles"`
	Hash    string    `json:"hash"`
	Gen     uint64    `json:"gen"`
	Created time.Time `json:"created"`
}

// keyRecord is an API key: only the SHA-256 of the whole key is kept.
type keyRecord struct {
	ID      string    `json:"id"`
	User    string    `json:"user"`
	Name    string    `json:"name"`
	Hash    string    `json:"hash"` // hex SHA-256 of the key
	Created time.Time `json:"created"`

	lastAudited time.Time // in memory only: throttles its success events
}

// refreshRecord is one refresh token of a session (a rotation family).
// A used one is kept until it expires so that its replay is recognised.
type refreshRecord struct {
	hash    string    // the record's key suffix
	User    string    `json:"user"`
	Session string    `json:"session"`
	Gen     uint64    `json:"gen"`
	Created time.Time `json:"created"`
	Started time.Time `json:"started"` // the session's start (its login)
	Expires time.Time `json:"expires"`
	Used    bool      `json:"used"`
}

// session is the in-memory view of a token session: its refresh records,
// oldest first. A session is active while it has any.
type session struct {
	id, user string
	created  time.Time
	seq      uint64   // creation order in this process: breaks ties of created
	records  []string // refresh hashes
}

// index is the in-memory copy of the Service's system records, read by
// every request and changed only after the records are durable.
type index struct {
	users    map[string]*userRecord
	keys     map[string]*keyRecord
	refresh  map[string]*refreshRecord
	sessions map[string]*session
	seq      uint64 // the last session.seq
}

func newIndex() *index {
	return &index{users: map[string]*userRecord{}, keys: map[string]*keyRecord{},
		refresh: map[string]*refreshRecord{}, sessions: map[string]*session{}}
}

// load reads every auth record of db.
func load(db *engine.DB) (*index, error) {
	ix := newIndex()
	for _, r := range db.SystemScan(prefix) {
		var err error
		switch k := r.Key; {
		case strings.HasPrefix(k, userPrefix):
			u := new(userRecord)
			if err = json.Unmarshal(r.Value, u); err == nil {
				ix.users[u.Name] = u
			}
		case strings.HasPrefix(k, keyPrefix):
			kr := new(keyRecord)
			if err = json.Unmarshal(r.Value, kr); err == nil {
				ix.keys[kr.ID] = kr
			}
		case strings.HasPrefix(k, refreshPrefix):
			rr := &refreshRecord{hash: strings.TrimPrefix(k, refreshPrefix)}
			if err = json.Unmarshal(r.Value, rr); err == nil {
				ix.refresh[rr.hash] = rr
			}
		}
		if err != nil {
			return nil, fmt.Errorf("auth: cannot read system record %q: %w", r.Key, err)
		}
	}
	ix.rebuildSessions()
	return ix, nil
}

// rebuildSessions derives the sessions from the refresh records.
func (ix *index) rebuildSessions() {
	ix.sessions = map[string]*session{}
	hashes := make([]string, 0, len(ix.refresh))
	for h := range ix.refresh {
		hashes = append(hashes, h)
	}
	sort.Slice(hashes, func(i, j int) bool {
		a, b := ix.refresh[hashes[i]], ix.refresh[hashes[j]]
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return hashes[i] < hashes[j]
	})
	for _, h := range hashes {
		ix.addRefresh(ix.refresh[h])
	}
}

func (ix *index) addRefresh(r *refreshRecord) {
	ix.refresh[r.hash] = r
	s := ix.sessions[r.Session]
	if s == nil {
		ix.seq++
		s = &session{id: r.Session, user: r.User, created: r.Started, seq: ix.seq}
		ix.sessions[r.Session] = s
	}
	s.records = append(s.records, r.hash)
}

func (ix *index) userSessions(user string) []*session {
	var out []*session
	for _, s := range ix.sessions {
		if s.user == user {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].created.Equal(out[j].created) {
			return out[i].created.Before(out[j].created)
		}
		return out[i].seq < out[j].seq
	})
	return out
}

// batch is a set of record changes applied together: first made durable
// with SystemPut, then applied to the index.
type batch struct {
	recs  []engine.SystemRecord
	apply []func(ix *index)
}

func (b *batch) put(key string, v any, apply func(ix *index)) {
	data, err := json.Marshal(v)
	if err != nil {
		panic("BUG: auth record does not marshal: " + err.Error())
	}
	b.recs = append(b.recs, engine.SystemRecord{Key: key, Value: data})
	b.apply = append(b.apply, apply)
}

func (b *batch) del(key string, apply func(ix *index)) {
	b.recs = append(b.recs, engine.SystemRecord{Key: key})
	b.apply = append(b.apply, apply)
}

func (b *batch) putUser(u *userRecord) {
	b.put(userPrefix+u.Name, u, func(ix *index) { ix.users[u.Name] = u })
}

func (b *batch) putKey(k *keyRecord) {
	b.put(keyPrefix+k.ID, k, func(ix *index) { ix.keys[k.ID] = k })
}

func (b *batch) putRefresh(r *refreshRecord, isNew bool) {
	b.put(refreshPrefix+r.hash, r, func(ix *index) {
		if isNew {
			ix.addRefresh(r)
		} else {
			ix.refresh[r.hash] = r
		}
	})
}

// delSession deletes every refresh record of the session.
func (b *batch) delSession(s *session) {
	for _, h := range s.records {
		b.del(refreshPrefix+h, func(ix *index) { delete(ix.refresh, h) })
	}
	b.apply = append(b.apply, func(ix *index) { delete(ix.sessions, s.id) })
}

// delRefresh deletes one refresh record of a session, and the session
// when it was the last.
func (b *batch) delRefresh(s *session, h string) {
	b.del(refreshPrefix+h, func(ix *index) {
		delete(ix.refresh, h)
		if cur := ix.sessions[s.id]; cur != nil {
			for i, x := range cur.records {
				if x == h {
					cur.records = append(cur.records[:i:i], cur.records[i+1:]...)
					break
				}
			}
			if len(cur.records) == 0 {
				delete(ix.sessions, s.id)
			}
		}
	})
}

// commit makes b durable and applies it to the index. The caller holds
// s.write, which serialises read-modify-write of the records.
func (s *Service) commitLocked(ctx context.Context, b *batch) error {
	if len(b.recs) > 0 {
		if err := s.cfg.DB.SystemPut(ctx, b.recs); err != nil {
			return fmt.Errorf("auth: cannot store the security records: %w", err)
		}
	}
	s.mu.Lock()
	for _, f := range b.apply {
		f(s.mu.ix)
	}
	s.mu.Unlock()
	return nil
}
