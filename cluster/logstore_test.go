package cluster

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// raftStores are a member's two stores, as the contract test uses them.
type raftStores struct {
	*LogStore
	stable *StableStore
}

func (s raftStores) Close() error                       { return s.LogStore.Close() }
func (s raftStores) Set(k, v []byte) error              { return s.stable.Set(k, v) }
func (s raftStores) Get(k []byte) ([]byte, error)       { return s.stable.Get(k) }
func (s raftStores) SetUint64(k []byte, v uint64) error { return s.stable.SetUint64(k, v) }
func (s raftStores) GetUint64(k []byte) (uint64, error) { return s.stable.GetUint64(k) }

func openTestStore(t *testing.T, dir string) raftStores {
	t.Helper()
	logs, stable, err := openRaftStores(vfs.Default, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	return raftStores{logs, stable}
}

func testLog(i uint64) *raft.Log {
	return &raft.Log{Index: i, Term: i/3 + 1, Type: raft.LogCommand, Data: []byte{byte(i), 1, 2},
		AppendedAt: time.Unix(1700000000, int64(i))}
}

// TestLogStoreContract checks the LogStore and StableStore contract
// raft relies on: entries stored and read back, first and last index,
// ranges deleted inclusively, missing entries reported as
// raft.ErrLogNotFound, and everything kept across a reopen.
func TestLogStoreContract(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "raft")
	s := openTestStore(t, path)
	if f, _ := s.FirstIndex(); f != 0 {
		t.Fatalf("empty store: first index %d", f)
	}
	if l, _ := s.LastIndex(); l != 0 {
		t.Fatalf("empty store: last index %d", l)
	}
	var got raft.Log
	if err := s.GetLog(1, &got); !errors.Is(err, raft.ErrLogNotFound) {
		t.Fatalf("missing entry: %v", err)
	}
	if err := s.StoreLog(testLog(1)); err != nil {
		t.Fatal(err)
	}
	var batch []*raft.Log
	for i := uint64(2); i <= 10; i++ {
		batch = append(batch, testLog(i))
	}
	batch[3].Extensions = []byte("ext")
	batch[4].Data = nil
	if err := s.StoreLogs(batch); err != nil {
		t.Fatal(err)
	}
	check := func(s raftStores, first, last uint64) {
		t.Helper()
		if f, err := s.FirstIndex(); err != nil || f != first {
			t.Fatalf("first index %d (%v), want %d", f, err, first)
		}
		if l, err := s.LastIndex(); err != nil || l != last {
			t.Fatalf("last index %d (%v), want %d", l, err, last)
		}
		for i := first; i <= last; i++ {
			var g raft.Log
			if err := s.GetLog(i, &g); err != nil {
				t.Fatalf("entry %d: %v", i, err)
			}
			w := testLog(i)
			if i == 5 {
				w.Extensions = []byte("ext")
			}
			if i == 6 {
				w.Data = nil
			}
			if g.Index != i || g.Term != w.Term || g.Type != w.Type || !bytes.Equal(g.Data, w.Data) ||
				!bytes.Equal(g.Extensions, w.Extensions) || !g.AppendedAt.Equal(w.AppendedAt) {
				t.Fatalf("entry %d: got %+v, want %+v", i, g, *w)
			}
		}
	}
	check(s, 1, 10)
	// Raft truncates a follower's conflicting suffix and compacts a prefix.
	if err := s.DeleteRange(8, 10); err != nil {
		t.Fatal(err)
	}
	check(s, 1, 7)
	if err := s.DeleteRange(1, 3); err != nil {
		t.Fatal(err)
	}
	check(s, 4, 7)
	if err := s.GetLog(3, &got); !errors.Is(err, raft.ErrLogNotFound) {
		t.Fatalf("deleted entry: %v", err)
	}
	if err := s.SetUint64([]byte("CurrentTerm"), 42); err != nil {
		t.Fatal(err)
	}
	if err := s.Set([]byte("LastVoteCand"), []byte("n2")); err != nil {
		t.Fatal(err)
	}
	if v, err := s.GetUint64([]byte("missing")); err != nil || v != 0 {
		t.Fatalf("missing number: %d %v", v, err)
	}
	if v, err := s.Get([]byte("missing")); err != nil || len(v) != 0 {
		t.Fatalf("missing key: %q %v", v, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A restart keeps everything.
	s = openTestStore(t, path)
	defer s.Close()
	check(s, 4, 7)
	if v, err := s.GetUint64([]byte("CurrentTerm")); err != nil || v != 42 {
		t.Fatalf("term after reopen: %d %v", v, err)
	}
	if v, err := s.Get([]byte("LastVoteCand")); err != nil || string(v) != "n2" {
		t.Fatalf("vote after reopen: %q %v", v, err)
	}
	// Entries overwritten at the same index (a new leader's) replace the old.
	w := testLog(7)
	w.Term, w.Data = 99, []byte("new")
	if err := s.StoreLogs([]*raft.Log{w}); err != nil {
		t.Fatal(err)
	}
	if err := s.GetLog(7, &got); err != nil || got.Term != 99 || string(got.Data) != "new" {
		t.Fatalf("overwritten entry: %+v %v", got, err)
	}
}
