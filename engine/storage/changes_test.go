package storage

import (
	"errors"
	"sync"
	"testing"
)

// The sink sees durable commits only, in commit order, each once;
// nothing before WatchCommits, nothing after WatchCommits(nil), nothing
// of a rollback, an aborted commit or one whose log sync failed.
func TestWatchCommits(t *testing.T) {
	s := New()
	l := &memLog{}
	s.SetLog(l)
	var mu sync.Mutex
	var got []*CommitRecord
	sink := func(r *CommitRecord) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
	}
	commit := func() {
		tx := s.Begin()
		mustNode(t, tx, nil, nil)
		mustCommit(t, tx)
	}
	commit() // unwatched
	s.WatchCommits(sink)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				tx := s.BeginOptimistic(false)
				if _, err := tx.CreateNode(nil, nil, nil); err != nil {
					t.Error(err)
					return
				}
				if i%5 == 0 {
					tx.Rollback()
					continue
				}
				if _, err := tx.Commit(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(got) != 4*40 {
		t.Fatalf("sink saw %d commits, want %d", len(got), 4*40)
	}
	for i, r := range got {
		if len(r.Ops) != 1 || r.Ops[0].Kind != OpCreateNode || r.Version.TS() != r.TS || r.Base.TS()+1 != r.TS {
			t.Fatalf("record %d: %d ops, ts %d, base ts %d, version ts %d", i, len(r.Ops), r.TS, r.Base.TS(), r.Version.TS())
		}
		if i > 0 && (r.LSN <= got[i-1].LSN || r.TS != got[i-1].TS+1 || r.At.Before(got[i-1].At)) {
			t.Fatalf("record %d (lsn %d ts %d) after lsn %d ts %d", i, r.LSN, r.TS, got[i-1].LSN, got[i-1].TS)
		}
		if !r.Version.nodeLive(r.Ops[0].ID) || r.Base.nodeLive(r.Ops[0].ID) {
			t.Fatalf("record %d: versions do not show the created node", i)
		}
	}
	n := len(got)

	l.failing = errors.New("disk on fire")
	tx := s.Begin()
	mustNode(t, tx, nil, nil)
	if _, err := tx.Commit(); err == nil {
		t.Fatal("commit succeeded on a failed log")
	}
	if len(got) != n {
		t.Fatal("the sink saw a commit whose log failed")
	}

	s2 := New()
	s2.WatchCommits(sink)
	tx = s2.Begin()
	mustNode(t, tx, nil, nil)
	mustCommit(t, tx) // no log: LSN 0, still delivered
	s2.WatchCommits(nil)
	tx = s2.Begin()
	mustNode(t, tx, nil, nil)
	mustCommit(t, tx)
	if len(got) != n+1 || got[n].LSN != 0 || got[n].TS != 1 {
		t.Fatalf("without a log: %d records", len(got)-n)
	}
}
