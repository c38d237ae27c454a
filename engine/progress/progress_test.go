package progress

import (
	"sync"
	"testing"
	"time"
)

// TestTrackerPhases: the hook sees each phase begin and end in order,
// with the counts added from several goroutines; End ends the last once.
func TestTrackerPhases(t *testing.T) {
	var got []Snapshot
	tr := New(func(s Snapshot) { got = append(got, s) })
	tr.Begin(Phase{Name: "a", Unit: "rows", TotalBytes: 4000})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				tr.Add(10, 1)
			}
		}()
	}
	wg.Wait()
	if s := tr.Snapshot(); s.Bytes != 4000 || s.Items != 400 || s.Index != 1 || s.Ended {
		t.Fatalf("snapshot %+v", s)
	}
	if f, ok := tr.Snapshot().Fraction(); !ok || f != 1 {
		t.Fatalf("fraction %v %v", f, ok)
	}
	tr.Begin(Phase{Name: "b", Unit: "files", TotalItems: 2})
	tr.Add(5, 1)
	tr.End()
	tr.End()
	want := []struct {
		name         string
		ended        bool
		bytes, items int64
	}{{"a", false, 0, 0}, {"a", true, 4000, 400}, {"b", false, 0, 0}, {"b", true, 5, 1}}
	if len(got) != len(want) {
		t.Fatalf("hook calls %+v", got)
	}
	for i, w := range want {
		if g := got[i]; g.Name != w.name || g.Ended != w.ended || g.Bytes != w.bytes || g.Items != w.items || g.Index != i/2+1 {
			t.Errorf("call %d: %+v, want %+v", i, g, w)
		}
	}
	if f, ok := got[3].Fraction(); !ok || f != 0.5 {
		t.Errorf("fraction of b: %v %v", f, ok)
	}
	if _, ok := got[0].ETA(); ok {
		t.Errorf("an ETA with nothing done")
	}
}

// TestNilTracker: a nil tracker takes every call and reports nothing.
func TestNilTracker(t *testing.T) {
	var tr *Tracker
	tr.Begin(Phase{Name: "x"})
	tr.Add(1, 1)
	tr.SetTotalItems(3)
	tr.End()
	if s := tr.Snapshot(); s != (Snapshot{}) {
		t.Fatalf("snapshot %+v", s)
	}
}

// TestWatch: the watcher reads the tracker on its clock until stopped,
// and nothing after stop returns.
func TestWatch(t *testing.T) {
	tr := New(nil)
	tr.Begin(Phase{Name: "p", TotalItems: 10})
	seen := make(chan Snapshot, 100)
	var mu sync.Mutex
	stopped := false
	stop := Watch(tr, 0, time.Millisecond, func(s Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			t.Error("called after stop")
		}
		select {
		case seen <- s:
		default:
		}
	})
	tr.Add(0, 3)
	for s := range seen {
		if s.Items == 3 {
			break
		}
	}
	stop()
	mu.Lock()
	stopped = true
	mu.Unlock()
	stop() // twice is fine
}
