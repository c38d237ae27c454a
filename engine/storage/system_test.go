package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
)

// sysState is a version's system records as a plain map.
func sysState(v *Snapshot) map[string]string {
	m := map[string]string{}
	v.SystemScan("", func(k string, val []byte) { m[k] = string(val) })
	return m
}

func mustSetSystem(t *testing.T, tx *Tx, key string, value []byte) {
	t.Helper()
	if err := tx.SetSystem(key, value); err != nil {
		t.Fatalf("SetSystem(%q): %v", key, err)
	}
}

// Set, overwrite, delete, empty values; older versions keep what they
// saw (copy-on-write), and reads return copies.
func TestSystemRecordsVersioned(t *testing.T) {
	s := New()
	tx := s.Begin()
	mustSetSystem(t, tx, "user/ann", []byte("a1"))
	mustSetSystem(t, tx, "user/bob", []byte("b1"))
	mustSetSystem(t, tx, "role/admin", []byte{})
	mustCommit(t, tx)
	v1 := s.Snapshot()

	tx = s.Begin()
	mustSetSystem(t, tx, "user/ann", []byte("a2"))
	mustSetSystem(t, tx, "user/bob", nil)
	mustSetSystem(t, tx, "absent", nil) // deleting an absent key is fine
	mustCommit(t, tx)
	v2 := s.Snapshot()

	if got, want := sysState(v1), map[string]string{"user/ann": "a1", "user/bob": "b1", "role/admin": ""}; !reflect.DeepEqual(got, want) {
		t.Fatalf("v1 = %v, want %v", got, want)
	}
	if got, want := sysState(v2), map[string]string{"user/ann": "a2", "role/admin": ""}; !reflect.DeepEqual(got, want) {
		t.Fatalf("v2 = %v, want %v", got, want)
	}
	if v1.SystemCount() != 3 || v2.SystemCount() != 2 {
		t.Fatalf("counts %d, %d", v1.SystemCount(), v2.SystemCount())
	}
	val, ok := v2.SystemGet("role/admin")
	if !ok || val == nil || len(val) != 0 {
		t.Fatalf("empty value read back as %v, %v", val, ok)
	}
	if _, ok := v2.SystemGet("user/bob"); ok {
		t.Fatal("deleted record still there")
	}
	val, _ = v2.SystemGet("user/ann")
	val[0] = 'X'
	if again, _ := v2.SystemGet("user/ann"); string(again) != "a2" {
		t.Fatalf("a caller changed the stored value: %q", again)
	}
	var keys []string
	v1.SystemScan("user/", func(k string, _ []byte) { keys = append(keys, k) })
	if !reflect.DeepEqual(keys, []string{"user/ann", "user/bob"}) {
		t.Fatalf("scan user/ = %v", keys)
	}
	// System records are not graph data.
	if v2.NodeCount() != 0 || v2.RelCount() != 0 {
		t.Fatal("system records became graph data")
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// A value passed to SetSystem is copied: changing it after the call
// changes nothing stored.
func TestSetSystemCopiesValue(t *testing.T) {
	s := New()
	buf := []byte("secret")
	tx := s.Begin()
	mustSetSystem(t, tx, "k", buf)
	buf[0] = 'X'
	mustCommit(t, tx)
	if v, _ := s.Snapshot().SystemGet("k"); string(v) != "secret" {
		t.Fatalf("stored %q", v)
	}
}

func TestSystemRecordLimits(t *testing.T) {
	s := New()
	tx := s.Begin()
	defer tx.Rollback()
	for _, c := range []struct {
		key string
		val []byte
	}{
		{"", []byte("x")},
		{strings.Repeat("k", MaxSystemKeyBytes+1), []byte("x")},
		{"k", make([]byte, MaxSystemValueBytes+1)},
	} {
		err := tx.SetSystem(c.key, c.val)
		if e, ok := errs.As(err); !ok || e.Code != errs.CodeInvalidParam {
			t.Fatalf("key of %d bytes, value of %d: %v, want 22023", len(c.key), len(c.val), err)
		}
	}
	if tx.Writes() {
		t.Fatal("a refused record was written")
	}
	// The limits themselves are allowed.
	mustSetSystem(t, tx, strings.Repeat("k", MaxSystemKeyBytes), make([]byte, MaxSystemValueBytes))
}

// Savepoints and rebases replay system ops like any other: a rollback to
// a savepoint drops the later ones, an optimistic transaction rebased
// over a commit keeps both commits' records.
func TestSystemRecordsReplayPaths(t *testing.T) {
	s := New()
	tx := s.BeginOptimistic(false)
	mustSetSystem(t, tx, "a", []byte("1"))
	sp := tx.Savepoint()
	mustSetSystem(t, tx, "b", []byte("2"))
	mustSetSystem(t, tx, "a", nil)
	if err := tx.RollbackTo(sp); err != nil {
		t.Fatal(err)
	}
	other := s.Begin()
	mustSetSystem(t, other, "c", []byte("3"))
	mustCommit(t, other)
	mustCommit(t, tx) // rebased onto other's version
	if got, want := sysState(s.Snapshot()), map[string]string{"a": "1", "c": "3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after savepoint and rebase: %v, want %v", got, want)
	}
	// A SERIALIZABLE transaction reading the graph does not conflict with
	// a system commit it did not see.
	k := s.Catalog().EnsureKey("k")
	setup := s.Begin()
	id := mustNode(t, setup, nil, []catalog.KeyID{k}, int64(1))
	mustCommit(t, setup)
	ser := s.BeginOptimistic(true)
	if ser.NodeCount() != 1 || ser.NodeProp(id, k) != int64(1) {
		t.Fatal("setup not visible")
	}
	mustNode(t, ser, nil, []catalog.KeyID{k}, int64(2))
	sys := s.Begin()
	mustSetSystem(t, sys, "d", []byte("4"))
	mustCommit(t, sys)
	mustCommit(t, ser)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// A commit of system records only is logged, replayed in order with the
// data commits around it, and reaches the change feed without its ops.
func TestSystemRecordsLoggedAndReplayed(t *testing.T) {
	for _, run := range []int{1, 1 << 30} {
		t.Run(fmt.Sprint("run=", run), func(t *testing.T) {
			n := recoveryRunRecords
			recoveryRunRecords = run
			defer func() { recoveryRunRecords = n }()
			s := New()
			l := &memLog{}
			s.SetLog(l)
			var fed []*CommitRecord
			s.WatchCommits(func(r *CommitRecord) { fed = append(fed, r) })
			tx := s.Begin()
			mustSetSystem(t, tx, "x", []byte("1"))
			mustSetSystem(t, tx, "y", []byte("2"))
			mustCommit(t, tx)
			tx = s.Begin()
			mustNode(t, tx, nil, nil)
			mustCommit(t, tx)
			tx = s.Begin()
			mustSetSystem(t, tx, "x", nil)
			mustSetSystem(t, tx, "y", []byte("3"))
			mustCommit(t, tx)
			if len(l.recs) != 3 {
				t.Fatalf("%d records logged, want 3", len(l.recs))
			}
			if len(fed) != 3 || len(fed[0].Ops) != 0 || len(fed[1].Ops) != 1 || len(fed[2].Ops) != 0 {
				t.Fatalf("change feed saw %d commits, ops %v", len(fed), fed)
			}
			r := l.replayInto(t)
			if got, want := sysState(r.Snapshot()), map[string]string{"y": "3"}; !reflect.DeepEqual(got, want) {
				t.Fatalf("replayed %v, want %v", got, want)
			}
			if r.Snapshot().NodeCount() != 1 {
				t.Fatal("the data commit between was not replayed")
			}
			if err := r.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A record whose system op breaks the limits does not replay.
func TestReplayRefusesBadSystemOp(t *testing.T) {
	b := encodeRecord(nil, 1, catalogTail{}, []Op{{Kind: OpSetSystem, Name: "", Value: []byte("x")}})
	s := New()
	if err := s.Recover().Apply(b, uint64(len(b))); err == nil {
		t.Fatal("an empty system key replayed")
	}
	b = encodeRecord(nil, 1, catalogTail{}, []Op{{Kind: OpSetSystem, Name: "k"}})
	b[len(b)-1] = 7 // the flag
	if _, err := decodeRecord(b); err == nil {
		t.Fatal("a bad system record flag decoded")
	}
}

// A base holds the system records; a base without system.kv (written
// before they existed) holds none; a damaged system.kv is a corrupt base.
func TestSystemRecordsInBase(t *testing.T) {
	s := New()
	tx := s.Begin()
	mustNode(t, tx, nil, nil)
	for i := range 300 {
		mustSetSystem(t, tx, fmt.Sprintf("k%03d", i), bytes.Repeat([]byte{byte(i)}, i))
	}
	mustSetSystem(t, tx, "empty", []byte{})
	mustCommit(t, tx)
	dir := t.TempDir()
	if _, err := s.SaveBase(dir); err != nil {
		t.Fatal(err)
	}
	r, err := OpenBase(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sysState(r.Snapshot()), sysState(s.Snapshot()); !reflect.DeepEqual(got, want) {
		t.Fatalf("reopened %d records, want %d", len(got), len(want))
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	// Later writes on the opened store copy, never change the base's map.
	opened := r.Snapshot()
	tx = r.Begin()
	mustSetSystem(t, tx, "k000", nil)
	mustCommit(t, tx)
	if _, ok := opened.SystemGet("k000"); !ok || r.Snapshot().SystemCount() != 300 {
		t.Fatal("a write after open changed the opened version")
	}

	m := readManifest(t, dir)
	sysPath := filepath.Join(dir, m.Base, systemFileName)
	good, err := os.ReadFile(sysPath)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 1
	if err := os.WriteFile(sysPath, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBase(dir); !errors.Is(err, ErrCorruptBase) || !strings.Contains(err.Error(), systemFileName) {
		t.Fatalf("damaged system.kv: %v", err)
	}

	// An older base: no system.kv in the manifest or the directory.
	empty := New()
	tx = empty.Begin()
	mustNode(t, tx, nil, nil)
	mustCommit(t, tx)
	old := t.TempDir()
	if _, err := empty.SaveBase(old); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(old, readManifest(t, old).Base, systemFileName)); !os.IsNotExist(err) {
		t.Fatalf("a base without system records wrote %s (%v)", systemFileName, err)
	}
	r, err = OpenBase(old)
	if err != nil {
		t.Fatal(err)
	}
	if r.Snapshot().SystemCount() != 0 {
		t.Fatal("records from nowhere")
	}
}

func readManifest(t *testing.T, dir string) *manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	_, m, err := parseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// decodeSystemFile: every truncation and random damage is an error, never
// a panic; unsorted and duplicate keys are refused.
func TestDecodeSystemFile(t *testing.T) {
	s := New()
	tx := s.Begin()
	mustSetSystem(t, tx, "a", []byte("1"))
	mustSetSystem(t, tx, "b", []byte{})
	mustCommit(t, tx)
	b := s.Snapshot().encodeSystemFile()
	m, err := decodeSystemFile(b)
	if err != nil || m.n != 2 {
		t.Fatalf("round trip: %v", err)
	}
	for n := range len(b) {
		if _, err := decodeSystemFile(b[:n]); err == nil {
			t.Fatalf("cut at %d of %d decoded", n, len(b))
		}
	}
	unsorted := []byte(systemMagic + "\x02\x01b\x00\x01a\x00")
	if _, err := decodeSystemFile(unsorted); err == nil {
		t.Fatal("unsorted keys decoded")
	}
	dup := []byte(systemMagic + "\x02\x01a\x00\x01a\x00")
	if _, err := decodeSystemFile(dup); err == nil {
		t.Fatal("a duplicate key decoded")
	}
	huge := append([]byte(systemMagic), 0xff, 0xff, 0xff, 0xff, 0x0f)
	if _, err := decodeSystemFile(huge); err == nil {
		t.Fatal("a count past the input decoded")
	}
	rng := rand.New(rand.NewSource(1))
	for range 2000 {
		x := bytes.Clone(b)
		x[rng.Intn(len(x))] = byte(rng.Intn(256))
		if m, err := decodeSystemFile(x); err == nil {
			v := &Snapshot{sys: m}
			if err := v.checkSystem(); err != nil {
				t.Fatalf("decoded a map that fails its check: %v", err)
			}
		}
	}
}

// doneProbe is a context that tells when its Done channel is first asked
// for: when a wait on it starts.
type doneProbe struct {
	context.Context
	once  sync.Once
	asked chan struct{}
}

func (c *doneProbe) Done() <-chan struct{} {
	c.once.Do(func() { close(c.asked) })
	return c.Context.Done()
}

// BeginWriteContext waits for the commit lock only as long as ctx allows,
// and a wait given up leaves the lock free once its holder lets go.
func TestBeginWriteContext(t *testing.T) {
	s := New()
	holder := s.Begin()
	mustNode(t, holder, nil, nil) // holds the commit lock
	base, cancel := context.WithCancel(t.Context())
	ctx := &doneProbe{Context: base, asked: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		tx, err := s.BeginWriteContext(ctx)
		if err == nil {
			tx.Rollback()
		}
		errc <- err
	}()
	<-ctx.asked // it found the lock taken and waits on ctx
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting on a held lock with a cancelled context: %v", err)
	}
	mustCommit(t, holder)
	// The helper goroutine of the abandoned wait released the lock, so
	// this takes it (a leak would block here and time the test out).
	tx, err := s.BeginWriteContext(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mustSetSystem(t, tx, "k", []byte("v"))
	mustCommit(t, tx)
	if v, ok := s.Snapshot().SystemGet("k"); !ok || string(v) != "v" {
		t.Fatal("the put after an abandoned wait is missing")
	}
	// Uncontended, a done context is still refused.
	done, stop := context.WithCancel(t.Context())
	stop()
	if _, err := s.BeginWriteContext(done); !errors.Is(err, context.Canceled) {
		t.Fatalf("a done context: %v", err)
	}
}

// FuzzDecodeSystemFile: any bytes as a base's system.kv decode to an
// error or to a map that passes its check and encodes back to the same
// bytes; never a panic.
func FuzzDecodeSystemFile(f *testing.F) {
	s := New()
	tx := s.Begin()
	if err := tx.SetSystem("auth/user/ann", []byte(`{"name":"ann"}`)); err != nil {
		f.Fatal(err)
	}
	if err := tx.SetSystem("b", []byte{}); err != nil {
		f.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		f.Fatal(err)
	}
	f.Add(s.Snapshot().encodeSystemFile())
	f.Add([]byte(systemMagic + "\x02\x01b\x00\x01a\x00"))
	f.Add([]byte(systemMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeSystemFile(b)
		if err != nil {
			return
		}
		v := &Snapshot{sys: m}
		if err := v.checkSystem(); err != nil {
			t.Fatalf("decoded a map that fails its check: %v", err)
		}
		if m.n == 0 {
			return // an empty map writes no system.kv at all
		}
		again, err := decodeSystemFile(v.encodeSystemFile())
		if err != nil {
			t.Fatalf("re-encoded %d records: %v", m.n, err)
		}
		if again.n != m.n {
			t.Fatalf("re-encoded: %d records, had %d", again.n, m.n)
		}
	})
}
