package cluster

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// load is concurrent writers, each creating :K nodes with unique values
// on whichever member takes writes, and what became of each value.
type load struct {
	c    *testCluster
	next atomic.Int64
	stop chan struct{}
	wg   sync.WaitGroup
	// mu guards the outcomes.
	mu sync.Mutex
	// acked committed; maybe failed with an undecided outcome (08007, a
	// member closing under it); refused failed with 25006 on the last
	// try, so never committed.
	acked, maybe, refused []int
}

func (c *testCluster) startLoad(writers int) *load {
	l := &load{c: c, stop: make(chan struct{})}
	for range writers {
		l.wg.Add(1)
		go l.run()
	}
	return l
}

// writable is a live member taking writes, nil when none does now.
func (c *testCluster) writable() *Node {
	for _, n := range c.live() {
		if n.Writable() == nil {
			return n
		}
	}
	return nil
}

func (l *load) run() {
	defer l.wg.Done()
	ctx := context.Background()
	for {
		v := int(l.next.Add(1))
		for {
			select {
			case <-l.stop:
				l.record(&l.refused, v)
				return
			default:
			}
			n := l.c.writable()
			if n == nil {
				<-time.After(2 * time.Millisecond) // waiting for an election
				continue
			}
			err := write(ctx, n, v)
			switch {
			case err == nil:
				l.record(&l.acked, v)
			case code(err) == "25006":
				continue // nothing committed: retry on the leader
			default:
				l.record(&l.maybe, v)
			}
			break
		}
	}
}

func (l *load) record(to *[]int, v int) {
	l.mu.Lock()
	*to = append(*to, v)
	l.mu.Unlock()
}

func (l *load) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

// waitAcked waits until n more commits are acknowledged.
func (l *load) waitAcked(t *testing.T, n int) {
	t.Helper()
	want := l.ackedCount() + n
	deadline := time.Now().Add(testDeadline)
	for l.ackedCount() < want {
		if time.Now().After(deadline) {
			t.Fatalf("only %d commits acknowledged, waiting for %d", l.ackedCount(), want)
		}
		<-time.After(2 * time.Millisecond)
	}
}

// finish stops the writers and checks the members: all equal, every
// acknowledged value present, nothing refused present, nothing present
// that was not acknowledged or undecided.
func (l *load) finish(t *testing.T) {
	t.Helper()
	close(l.stop)
	l.wg.Wait()
	c := l.c
	// A commit of the leader's term makes every earlier entry committed
	// and applied on it: its bookmark then covers them all.
	got := c.checkSame(c.commit(-1), l.acked)
	for _, v := range l.refused {
		if _, ok := slices.BinarySearch(got, v); ok {
			t.Fatalf("value %d was refused but is committed", v)
		}
	}
	known := append(append([]int{-1}, l.acked...), l.maybe...)
	slices.Sort(known)
	for _, v := range got {
		if _, ok := slices.BinarySearch(known, v); !ok {
			t.Fatalf("value %d is committed but was neither acknowledged nor undecided", v)
		}
	}
	t.Logf("%d acknowledged, %d undecided (%d of them committed), %d refused", len(l.acked), len(l.maybe),
		len(got)-1-len(l.acked), len(l.refused))
}

// waitWritable waits for a member that takes writes (from any goroutine:
// no t.Fatal).
func waitWritable(c *testCluster) *Node {
	deadline := time.Now().Add(testDeadline)
	for time.Now().Before(deadline) {
		if n := c.writable(); n != nil {
			return n
		}
		<-time.After(2 * time.Millisecond)
	}
	return nil
}
