package storage

import (
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
)

// fakeReplLog is a replicated log the test drives: Append records the
// record, Sync waits until the test decides the proposal.
type fakeReplLog struct {
	mu      sync.Mutex
	recs    [][]byte
	decided map[uint64]chan error
}

func newFakeReplLog() *fakeReplLog { return &fakeReplLog{decided: map[uint64]chan error{}} }

func (l *fakeReplLog) Append(rec []byte) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, append([]byte(nil), rec...))
	id := uint64(1)<<63 | uint64(len(l.recs))
	l.decided[id] = make(chan error, 1)
	return id, nil
}

func (l *fakeReplLog) Sync(lsn uint64) error {
	if lsn&(1<<63) == 0 {
		return nil
	}
	l.mu.Lock()
	ch := l.decided[lsn]
	l.mu.Unlock()
	return <-ch
}

// decide ends the n-th proposal (1-based) with err.
func (l *fakeReplLog) decide(n int, err error) {
	l.mu.Lock()
	ch := l.decided[uint64(1)<<63|uint64(n)]
	l.mu.Unlock()
	ch <- err
}

func (l *fakeReplLog) rec(n int) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.recs[n-1]
}

// proposeNode commits a node with label on s in the background; the
// result comes on the channel once the log decides.
func proposeNode(t *testing.T, s *Store, label string) <-chan error {
	t.Helper()
	tx := s.Begin()
	if _, err := tx.CreateNode([]catalog.LabelID{s.Catalog().EnsureLabel(label)}, nil, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := tx.Commit()
		done <- err
	}()
	return done
}

// waitAppended waits until l holds n records (the committer's
// goroutine appends right away).
func waitAppended(l *fakeReplLog, n int) {
	for {
		runtime.Gosched()
		l.mu.Lock()
		got := len(l.recs)
		l.mu.Unlock()
		if got >= n {
			return
		}
	}
}

// TestApplyReplicated drives two stores through a replicated log by
// hand: a leader's commit is published only once the log confirms it,
// a follower applies it through recovery, entries at or below the
// applied index and entries that do not continue the applied versions
// are skipped, and a leader that lost the lead drops its unconfirmed
// commits (and the catalog names only they registered) when the new
// leader's entries come.
func TestApplyReplicated(t *testing.T) {
	a, b := New(), New()
	la, lb := newFakeReplLog(), newFakeReplLog()
	a.SetReplicatedLog(la)
	b.SetReplicatedLog(lb)
	a.Lead(NewWriterID())
	var fed []uint64 // the change feed's view of A: log indexes
	var fedMu sync.Mutex
	a.WatchCommits(func(r *CommitRecord) {
		fedMu.Lock()
		fed = append(fed, r.LSN)
		fedMu.Unlock()
	})

	// A leads: its commit waits for the log, then is published.
	done := proposeNode(t, a, "X")
	waitAppended(la, 1)
	if a.Snapshot().NodeCount() != 0 {
		t.Fatal("a commit was published before the log confirmed it")
	}
	if err := a.ApplyReplicated(la.rec(1), 1); err != nil {
		t.Fatal(err)
	}
	if a.Snapshot().NodeCount() != 1 || a.AppliedIndex() != 1 {
		t.Fatalf("confirmed commit: %d nodes at index %d", a.Snapshot().NodeCount(), a.AppliedIndex())
	}
	la.decide(1, nil)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// B follows.
	if err := b.ApplyReplicated(la.rec(1), 1); err != nil {
		t.Fatal(err)
	}
	if err := b.ApplyReplicated(la.rec(1), 1); err != nil { // raft hands it again after a restart
		t.Fatal(err)
	}
	if b.Snapshot().NodeCount() != 1 || b.AppliedIndex() != 1 {
		t.Fatalf("follower: %d nodes at index %d", b.Snapshot().NodeCount(), b.AppliedIndex())
	}
	// A write on the follower is refused by its log's owner (here: the
	// fake takes it; the cluster refuses), so B is made the leader.
	// A proposes a commit with a new label, then loses the lead to B.
	done = proposeNode(t, a, "OnlyA")
	waitAppended(la, 2)
	b.Lead(NewWriterID())
	doneB := proposeNode(t, b, "FromB")
	waitAppended(lb, 1)
	if err := b.ApplyReplicated(lb.rec(1), 2); err != nil {
		t.Fatal(err)
	}
	lb.decide(1, nil)
	if err := <-doneB; err != nil {
		t.Fatal(err)
	}
	// A applies B's entry: its pending commit is dropped, and so is the
	// label only it registered (B's log gives that id to FromB).
	if err := a.ApplyReplicated(lb.rec(1), 2); err != nil {
		t.Fatal(err)
	}
	la.decide(2, ErrCommitUndecided)
	err := <-done
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.CodeResolutionUnknown {
		t.Fatalf("the dropped commit: %v", err)
	}
	for _, s := range []*Store{a, b} {
		if s.Snapshot().NodeCount() != 2 || s.AppliedIndex() != 2 {
			t.Fatalf("%d nodes at index %d", s.Snapshot().NodeCount(), s.AppliedIndex())
		}
		if _, ok := s.Catalog().LookupLabel("OnlyA"); ok {
			t.Fatal("a dropped commit's label is still in the catalog")
		}
		id, ok := s.Catalog().LookupLabel("FromB")
		if !ok || s.Snapshot().LabelNodes(id).GetCardinality() != 1 {
			t.Fatalf("FromB: %v", ok)
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	}
	// A's change feed saw its confirmed commit and B's, by log index, and
	// never the dropped one.
	fedMu.Lock()
	if len(fed) != 2 || fed[0] != 1 || fed[1] != 2 {
		t.Fatalf("A's change feed saw %v, want [1 2]", fed)
	}
	fedMu.Unlock()
	// A's dropped record, landing late in the log, continues nothing:
	// every member skips it alike.
	for _, s := range []*Store{a, b} {
		if err := s.ApplyReplicated(la.rec(2), 3); !errors.Is(err, ErrEntrySkipped) {
			t.Fatalf("a stale entry: %v", err)
		}
		if s.Snapshot().NodeCount() != 2 {
			t.Fatal("a skipped entry changed the store")
		}
	}
}
