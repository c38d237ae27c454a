package wal

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// commitAll runs goroutines×perG commits (Append then Sync) concurrently
// and checks that each acknowledged end is durable. It returns the ends.
func commitAll(t *testing.T, l *Log, goroutines, perG int, appended *sync.WaitGroup) [][]LSN {
	t.Helper()
	ends := make([][]LSN, goroutines)
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perG {
				end, err := l.Append(fmt.Appendf(nil, "goroutine %d commit %d", g, i))
				if appended != nil {
					appended.Done()
				}
				if err != nil {
					errs <- err
					return
				}
				if err := l.Sync(end); err != nil {
					errs <- err
					return
				}
				if d := l.Durable(); end > d {
					errs <- fmt.Errorf("Sync(%d) returned with Durable() = %d", end, d)
					return
				}
				ends[g] = append(ends[g], end)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return ends
}

// TestGroupCommit holds the first round inside its fdatasync until every
// goroutine has appended its record and is on its way to Sync: the
// followers must then share at most one more fdatasync between them.
func TestGroupCommit(t *testing.T) {
	const goroutines = 32
	var appended sync.WaitGroup
	appended.Add(goroutines)
	var held atomic.Bool
	o := testOptions(0, 0)
	o.syncHook = func(f vfs.File, dir bool) error {
		if !dir && held.CompareAndSwap(false, true) {
			appended.Wait() // appends must go on while a round syncs
		}
		return realSync(f, dir)
	}
	l := mustOpen(t, t.TempDir(), o)
	defer mustClose(t, l)
	held.Store(false) // Open's own fdatasync is not the one to hold
	before := l.syncs.Load()
	commitAll(t, l, goroutines, 1, &appended)
	if n := l.syncs.Load() - before; n > 2 {
		t.Fatalf("%d commits took %d fdatasyncs, want at most 2", goroutines, n)
	}
	if l.Durable() != l.End() {
		t.Fatalf("Durable() = %d, End() = %d", l.Durable(), l.End())
	}
}

// TestGroupCommitStress commits from many goroutines with segments small
// enough to roll under them, replaying meanwhile, then checks every
// record came back once.
func TestGroupCommitStress(t *testing.T) {
	const goroutines, perG = 16, 40
	dir := t.TempDir()
	l := mustOpen(t, dir, testOptions(2048, 0))
	before := l.syncs.Load()
	// Replays run alongside: each sees a contiguous prefix of the log.
	stop := make(chan struct{})
	replayed := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				replayed <- nil
				return
			default:
			}
			next := l.Start()
			if err := l.Replay(next, func(start, end LSN, _ []byte) error {
				if start != next {
					return fmt.Errorf("replay: record at %d after one ending at %d", start, next)
				}
				next = end
				return nil
			}); err != nil {
				replayed <- err
				return
			}
		}
	}()
	ends := commitAll(t, l, goroutines, perG, nil)
	close(stop)
	if err := <-replayed; err != nil {
		t.Fatal(err)
	}
	syncs := l.syncs.Load() - before
	t.Logf("%d commits, %d fdatasyncs (rolls included)", goroutines*perG, syncs)
	if syncs > goroutines*perG+int64(l.End())/2048+1 {
		t.Fatalf("%d fdatasyncs for %d commits", syncs, goroutines*perG)
	}
	mustClose(t, l)

	l = mustOpen(t, dir, testOptions(2048, 0))
	defer mustClose(t, l)
	seen := map[LSN]bool{}
	for _, r := range replayAll(t, l, 0) {
		seen[r.end] = true
	}
	for g := range ends {
		for _, end := range ends[g] {
			if !seen[end] {
				t.Fatalf("the commit ending at %d is missing after reopening", end)
			}
		}
	}
	if len(seen) != goroutines*perG {
		t.Fatalf("%d records, want %d", len(seen), goroutines*perG)
	}
}

// TestFailedSync: once an fdatasync fails, that Sync and every later
// Append and Sync fail, even for LSNs that were durable before.
func TestFailedSync(t *testing.T) {
	var failing atomic.Bool
	o := testOptions(0, 0)
	o.syncHook = func(f vfs.File, dir bool) error {
		if failing.Load() {
			return syscall.EIO
		}
		return realSync(f, dir)
	}
	l := mustOpen(t, t.TempDir(), o)
	durable, err := l.Append([]byte("durable"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Sync(durable); err != nil {
		t.Fatal(err)
	}
	end, err := l.Append([]byte("lost"))
	if err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	if err := l.Sync(end); !errors.Is(err, ErrFailed) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("Sync with a failing fdatasync: %v", err)
	}
	failing.Store(false) // the disk "recovers": the log must not
	if _, err := l.Append([]byte("after")); !errors.Is(err, ErrFailed) {
		t.Fatalf("Append after a failed sync: %v", err)
	}
	if err := l.Sync(end); !errors.Is(err, ErrFailed) {
		t.Fatalf("second Sync after a failed sync: %v", err)
	}
	if err := l.Sync(durable); !errors.Is(err, ErrFailed) {
		t.Fatalf("Sync of an already durable LSN after a failed sync: %v", err)
	}
	if l.Durable() != durable {
		t.Fatalf("Durable() = %d after the failed sync, want %d", l.Durable(), durable)
	}
	if err := l.Close(); !errors.Is(err, ErrFailed) {
		t.Fatalf("Close of a failed log: %v", err)
	}
}

// TestFailedSyncOnRoll: the fdatasync of the old segment when the log
// rolls fails the log too, and no new segment is created.
func TestFailedSyncOnRoll(t *testing.T) {
	var failing atomic.Bool
	o := testOptions(100, 0)
	o.syncHook = func(f vfs.File, dir bool) error {
		if failing.Load() {
			return syscall.EIO
		}
		return realSync(f, dir)
	}
	dir := t.TempDir()
	l := mustOpen(t, dir, o)
	defer l.Close()
	if _, err := l.Append(randomBytes(rand.New(rand.NewPCG(1, 1)), 200)); err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	if _, err := l.Append([]byte("rolls")); !errors.Is(err, ErrFailed) {
		t.Fatalf("Append that rolls with a failing fdatasync: %v", err)
	}
	if segs, _ := listSegments(vfs.Default, dir); len(segs) != 1 {
		t.Fatalf("%d segments after the failed roll, want 1", len(segs))
	}
	failing.Store(false)
	if _, err := l.Append([]byte("x")); !errors.Is(err, ErrFailed) {
		t.Fatalf("Append after the failed roll: %v", err)
	}
}

// TestCloseWithSyncsWaiting closes the log while one committer is in its
// fdatasync and another waits for the round after it: Close waits for
// the sync in flight, and both commits are acknowledged and durable.
func TestCloseWithSyncsWaiting(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	o := testOptions(0, 0)
	o.syncHook = func(f vfs.File, dir bool) error {
		if !dir && held.CompareAndSwap(false, true) {
			close(entered)
			<-release
		}
		return realSync(f, dir)
	}
	held.Store(true) // Open's own fdatasync is not the one to hold
	dir := t.TempDir()
	l := mustOpen(t, dir, o)
	held.Store(false)
	commit := func(payload string, done chan<- error) {
		end, err := l.Append([]byte(payload))
		if err == nil {
			err = l.Sync(end)
		}
		done <- err
	}
	first, second := make(chan error, 1), make(chan error, 1)
	go commit("first", first)
	<-entered // the first committer's round is held in its fdatasync
	go commit("second", second)
	for { // until the second commit waits for the next round
		l.syncer.Lock()
		waiting := l.syncer.next != nil
		l.syncer.Unlock()
		if waiting {
			break
		}
		runtime.Gosched()
	}
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	close(release)
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	for name, ch := range map[string]chan error{"first": first, "second": second} {
		if err := <-ch; err != nil {
			t.Fatalf("the %s commit: %v", name, err)
		}
	}
	l = mustOpen(t, dir, testOptions(0, 0))
	defer mustClose(t, l)
	if got := len(replayAll(t, l, 0)); got != 2 {
		t.Fatalf("%d records after reopening, want 2", got)
	}
}

// TestSyncAfterClose: a closed log answers Sync for what Close made
// durable, and ErrClosed for anything past it.
func TestSyncAfterClose(t *testing.T) {
	l := mustOpen(t, t.TempDir(), testOptions(0, 0))
	end, err := l.Append([]byte("synced by Close"))
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, l)
	if err := l.Sync(end); err != nil {
		t.Fatalf("Sync of a record Close synced: %v", err)
	}
	if err := l.Sync(end + 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Sync past the end of a closed log: %v", err)
	}
	if err := l.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}
