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
	// Attrs are the user's attributes (attributes.go).
	Attrs map[string]attrValue `json:"attrs,omitempty"`
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
	// signKey signs and checks access tokens: the cluster's one key
	// (signkey.go), nil until this member has it.
	signKey []byte
}

func newIndex() *index {
	return &index{users: map[string]*userRecord{}, keys: map[string]*keyRecord{},
		refresh: map[string]*refreshRecord{}, sessions: map[string]*session{}}
}

// load reads every auth record of db.
func load(db *engine.DB) (*index, error) {
	ix := newIndex()
	for _, r := range db.SystemScan(prefix) {
		if err := ix.decode(r.Key, r.Value); err != nil {
			return nil, err
		}
	}
	ix.rebuildSessions()
	return ix, nil
}

// decode sets the record at key from its stored value, leaving the
// sessions to the caller (rebuildSessions, or apply).
func (ix *index) decode(key string, value []byte) error {
	var err error
	switch {
	case key == signKeyRecord:
		var r signKeyValue
		if err = json.Unmarshal(value, &r); err == nil {
			if len(r.Key) != signKeyLen {
				err = fmt.Errorf("the key has %d bytes, want %d", len(r.Key), signKeyLen)
			} else {
				ix.signKey = r.Key
			}
		}
	case strings.HasPrefix(key, userPrefix):
		u := new(userRecord)
		if err = json.Unmarshal(value, u); err == nil {
			ix.users[u.Name] = u
		}
	case strings.HasPrefix(key, keyPrefix):
		kr := new(keyRecord)
		if err = json.Unmarshal(value, kr); err == nil {
			if old := ix.keys[kr.ID]; old != nil {
				kr.lastAudited = old.lastAudited
			}
			ix.keys[kr.ID] = kr
		}
	case strings.HasPrefix(key, refreshPrefix):
		rr := &refreshRecord{hash: strings.TrimPrefix(key, refreshPrefix)}
		if err = json.Unmarshal(value, rr); err == nil {
			ix.refresh[rr.hash] = rr
		}
	}
	if err != nil {
		return fmt.Errorf("auth: cannot read system record %q: %w", key, err)
	}
	return nil
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

// batch is a set of record changes made durable together with
// SystemPut; the index then re-reads their keys (reload), as it does
// when another member's commit changes them.
type batch struct {
	recs []engine.SystemRecord
}

func (b *batch) put(key string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic("BUG: auth record does not marshal: " + err.Error())
	}
	b.recs = append(b.recs, engine.SystemRecord{Key: key, Value: data})
}

func (b *batch) del(key string) { b.recs = append(b.recs, engine.SystemRecord{Key: key}) }

func (b *batch) putUser(u *userRecord)       { b.put(userPrefix+u.Name, u) }
func (b *batch) putKey(k *keyRecord)         { b.put(keyPrefix+k.ID, k) }
func (b *batch) putRefresh(r *refreshRecord) { b.put(refreshPrefix+r.hash, r) }
func (b *batch) delRefresh(h string)         { b.del(refreshPrefix + h) }
func (b *batch) delSession(s *session)       { b.delRecords(s.records) }
func (b *batch) delRecords(hashes []string) {
	for _, h := range hashes {
		b.delRefresh(h)
	}
}

func (b *batch) keys() []string {
	ks := make([]string, len(b.recs))
	for i, r := range b.recs {
		ks[i] = r.Key
	}
	return ks
}

// commitLocked makes b durable and brings the index up to date. The
// caller holds s.write, which serialises read-modify-write of the
// records on this member.
func (s *Service) commitLocked(ctx context.Context, b *batch) error {
	if len(b.recs) == 0 {
		return nil
	}
	if err := s.cfg.DB.SystemPut(ctx, b.recs); err != nil {
		return fmt.Errorf("auth: cannot store the security records: %w", err)
	}
	s.reload(b.keys())
	return nil
}
