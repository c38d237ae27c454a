package storage

import (
	"errors"
	"fmt"
	"sync"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
)

// Replicated mode: commits go through a replicated log (package cluster,
// over Raft) instead of the local write-ahead log.
//
//	leader    commit lock ┌ … encode the record, Log.Append: the record is
//	                      │ queued for the replicated log (never blocks)
//	                      └ head = the new version; pending += it
//	          no lock       Log.Sync: waits until a quorum holds it
//	          FSM           ApplyReplicated(entry): it is pending[0] (same ts,
//	                        same writer): published, stamped with its index
//	follower  FSM           ApplyReplicated(entry): applied through the
//	                        recovery path (Recovery.Apply), published
//
// A version's lsn is then the log index of its last commit (cur's is the
// applied index; a checkpoint's manifest records it), so a restarted
// member skips the entries its checkpoint already holds.
//
// head may run ahead of the replicated log on a leader: the pending
// versions, proposed but not yet known to be committed. When the log
// goes another way (this member lost the lead and another's entry comes
// at a ts a pending version took, or it leads again after a failure),
// head goes back to cur, the last version the log confirmed (rewind),
// and the pending versions are dropped: no unreplicated write stays.
// The catalog names the dropped records registered stay in the catalog
// (names are lock-free for readers): if this member leads again, its
// next record logs them again, from the count the confirmed records
// registered; if another leader's record registers other names at their
// ids, they are forgotten first (dropOrphanNamesLocked).

// NotLeaderError is what a replicated Log's Append (or Sync) returns
// when it refused a record: this member does not lead, nothing was
// proposed, and the commit may be retried on the leader. The commit
// fails with code 25006; the store goes on.
type NotLeaderError struct {
	// LeaderID and LeaderAddress name the leader when known.
	LeaderID, LeaderAddress string
}

func (e *NotLeaderError) Error() string {
	if e.LeaderAddress == "" {
		return "this member is not the leader, and no leader is known (an election may be running): retry shortly"
	}
	return fmt.Sprintf("this member is not the leader: writes go to the leader %s at %s", e.LeaderID, e.LeaderAddress)
}

// ErrCommitUndecided is what a replicated Log's Sync returns when a
// proposed record's fate is unknown (the lead was lost before a quorum
// was known to hold it): the commit fails with code 08007 and is not
// published; the replicated log decides whether it happened.
var ErrCommitUndecided = errors.New("storage: the commit was proposed, but the lead was lost before a quorum was known to hold it: whether it committed is decided by the replicated log")

// ErrEntrySkipped is ApplyReplicated's answer for an entry that does
// not continue the applied versions: its ts is not the next one, or its
// writer did not take over from the last one (writer.go). A leader that
// lost and regained the lead can have a proposal of its old term land
// in the log after one that never did; every member skips such an entry
// alike, since the decision depends on the log alone, and its committer
// is told it did not commit.
var ErrEntrySkipped = errors.New("storage: the replicated log entry does not continue the applied commits and is skipped")

// replState is the store's replicated mode, guarded by its mu (taken
// after the commit lock when both are held).
type replState struct {
	mu struct{ sync.Mutex }
	on bool
	// pending are the versions proposed by this member, in log order,
	// not yet confirmed by ApplyReplicated.
	pending []proposal
	// names are the catalog counts the confirmed records registered.
	names nameCounts
}

type nameCounts struct{ labels, types, keys int }

type proposal struct {
	v     *Snapshot
	feed  *pendingCommit // its change feed entry (changes.go), nil when none watches
	names nameCounts     // s.logged after its record
}

// SetReplicatedLog makes commits go through l, a replicated log, and
// ApplyReplicated apply the entries it commits. Call it once the store
// holds the data directory's checkpoint (its lsn is the index applied),
// instead of SetLog. Commits are refused by l until this member leads
// (Lead).
func (s *Store) SetReplicatedLog(l Log) {
	s.SetLog(l)
	s.repl.mu.Lock()
	s.repl.on = true
	s.repl.names = nameCounts{s.cat.NumLabels(), s.cat.NumTypes(), s.cat.NumKeys()}
	s.repl.mu.Unlock()
}

// proposedLocked records v, just appended, as pending (commit lock
// held), with its change feed entry, and reports whether the store is
// replicated: the entry is then settled when the log confirms or drops
// the commit, not by its committer, whose outcome may be undecided when
// the commit did happen.
func (s *Store) proposedLocked(v *Snapshot, feed *pendingCommit) bool {
	if !s.repl.on {
		return false
	}
	s.repl.mu.Lock()
	s.repl.pending = append(s.repl.pending, proposal{v: v, feed: feed,
		names: nameCounts{s.logged.labels, s.logged.types, s.logged.keys}})
	s.repl.mu.Unlock()
	return true
}

// AppliedIndex is the log index of the latest applied entry.
func (s *Store) AppliedIndex() uint64 { return s.cur.Load().lsn }

// ApplyReplicated applies the committed entry at index, a commit record:
// entries at or below the applied index are skipped (raft hands a
// restarted member its log again), this member's own pending commit is
// published, any other record is applied as recovery applies it. It is
// called in log order, from one goroutine (the state machine's), and
// never waits on a committer: the commit lock is only ever held briefly
// (committers wait for the log after releasing it). An error means the
// store cannot follow the log (it holds a state the log does not
// explain); the member must not serve writes or reads of later entries
// until it is reopened. ErrEntrySkipped is not a failure: the entry
// changed nothing, on any member.
func (s *Store) ApplyReplicated(rec []byte, index uint64) error {
	if index <= s.cur.Load().lsn {
		return nil
	}
	d, err := decodeRecord(rec)
	if err != nil {
		return fmt.Errorf("the replicated log entry %d is not a commit record: %w", index, err)
	}
	if s.confirmOwn(d, index) {
		s.systemChanged(d.ops)
		return nil
	}
	s.writer.Lock()
	defer s.writer.Unlock()
	if s.head.ts >= d.ts || s.hasPending() {
		s.rewindLocked()
	}
	if d.ts != s.head.ts+1 {
		return ErrEntrySkipped
	}
	s.dropOrphanNamesLocked(d.names)
	base := s.head
	r := s.Recover()
	if err := r.applyDecoded(d, len(rec), index); err != nil {
		var other *OtherWriterError
		if errors.As(err, &other) {
			return ErrEntrySkipped // checked before anything is registered or applied
		}
		return fmt.Errorf("the replicated log entry %d does not apply: %w", index, err)
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("the replicated log entry %d does not apply: %w", index, err)
	}
	// The change feed sees the commit as the member that made it does
	// (changes.go): applied, published, in log order.
	s.commitDone(s.queueCommitLocked(base, s.head, d.ops), true)
	s.systemChanged(d.ops)
	s.repl.mu.Lock()
	n := &s.repl.names
	n.labels = max(n.labels, d.names.firstLabel+len(d.names.labels))
	n.types = max(n.types, d.names.firstType+len(d.names.types))
	n.keys = max(n.keys, d.names.firstKey+len(d.names.keys))
	s.repl.mu.Unlock()
	s.maybeCompact(s.head)
	return nil
}

// confirmOwn publishes the pending version d is the record of, if it is
// this member's next pending one, stamped with the entry's index.
func (s *Store) confirmOwn(d *decodedRecord, index uint64) bool {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	if len(s.repl.pending) == 0 {
		return false
	}
	p := s.repl.pending[0]
	// The same ts and writer is the same commit (a writer proposes a ts
	// once); it must also continue the applied versions, as on the
	// members that apply it (the same rule as the skip below).
	if p.v.ts != d.ts || p.v.writer != d.writer || d.writer == 0 || d.ts != s.cur.Load().ts+1 {
		return false
	}
	s.repl.pending[0] = proposal{}
	s.repl.pending = s.repl.pending[1:]
	s.repl.names = p.names
	v := *p.v // the committer publishes its own copy too, if it still can: same ts, a no-op then
	v.lsn = index
	s.publish(&v)
	if p.feed != nil {
		s.feed.mu.Lock()
		p.feed.rec.LSN, p.feed.rec.Version = index, &v
		s.feed.mu.Unlock()
		s.commitDone(p.feed, true)
	}
	return true
}

func (s *Store) hasPending() bool {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	return len(s.repl.pending) > 0
}

// dropOrphanNamesLocked forgets the catalog names this member holds at
// ids where the record registers others. The record's leader logged
// every name below its first ids, so a name of this member's at or past
// them that differs was registered by a commit the log does not hold
// (one this member proposed as a leader, dropped since).
func (s *Store) dropOrphanNamesLocked(t catalogTail) {
	cut := func(first int, logged []string, count func() int, name func(int) string) int {
		for i, n := range logged {
			if id := first + i; id < count() && name(id) != n {
				return id
			}
		}
		return count()
	}
	c := s.cat
	l := cut(t.firstLabel, t.labels, c.NumLabels, func(i int) string { return c.LabelName(catalog.LabelID(i)) })
	ty := cut(t.firstType, t.types, c.NumTypes, func(i int) string { return c.TypeName(catalog.TypeID(i)) })
	k := cut(t.firstKey, t.keys, c.NumKeys, func(i int) string { return c.KeyName(catalog.KeyID(i)) })
	if l < c.NumLabels() || ty < c.NumTypes() || k < c.NumKeys() {
		c.Truncate(l, ty, k)
	}
}

// rewindLocked drops what head holds beyond the confirmed versions:
// head goes back to cur, the conflict history restarts there (an open
// transaction older than it fails with a serialization error rather
// than be validated against versions that no longer exist), and the
// next record logs the catalog names from the confirmed count on.
func (s *Store) rewindLocked() {
	c := s.cur.Load()
	if s.head != c {
		// A copy: an open transaction built on c or on a dropped version
		// then rebases at commit (commit.go), where its ops are checked
		// against the catalog again.
		h := *c
		s.head = &h
		s.hist.reset(c.ts)
	}
	s.repl.mu.Lock()
	for _, p := range s.repl.pending {
		s.commitDone(p.feed, false)
	}
	clear(s.repl.pending)
	s.repl.pending = s.repl.pending[:0]
	n := s.repl.names
	s.repl.mu.Unlock()
	s.logged.labels, s.logged.types, s.logged.keys = n.labels, n.types, n.keys
}

// Lead makes this member the writer of the commits to come, under a
// new writer id: head goes back to the confirmed versions (rewind) and
// the first record names the writer of the latest one (writer.go). The
// replicated log calls it when this member won an election and every
// entry before its term is applied, before it takes a commit.
func (s *Store) Lead(writer uint64) {
	s.writer.Lock()
	defer s.writer.Unlock()
	s.rewindLocked()
	s.session.id, s.session.prev, s.session.logged = writer, s.head.writer, false
}

// ReplicationError is the engine error (25006, 08007) of a replicated
// log's refusal or undecided commit, nil for any other error.
func ReplicationError(err error) error {
	var nl *NotLeaderError
	switch {
	case errors.As(err, &nl):
		return errs.Wrap(errs.CodeNotLeader, errs.CatTransaction, err, "cannot commit")
	case errors.Is(err, ErrCommitUndecided):
		return errs.Wrap(errs.CodeResolutionUnknown, errs.CatUnavailable, err, "cannot confirm the commit")
	}
	return nil
}
