package cluster

import (
	"errors"
	"sync"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine/storage"
)

// replLog is the store's Log in a replicated database.
//
//	commit lock   Append: copy the record, queue it, return its proposal
//	              id (never blocks, never touches raft)
//	proposer      raft.Apply of each queued record, in queue order (raft
//	              keeps the order of its Apply calls: log order = commit
//	              order); the future goes to the collector
//	collector     waits for the futures in order: success means a quorum
//	              holds the entry and the state machine applied it (or
//	              until raft is down: outcome)
//	no lock       Sync(id): waits for its proposal's outcome
//
// A proposal id has the top bit set, so Sync tells it from a raft index
// (a version's lsn once applied; Sync of one returns at once).
//
// After any failed proposal the log refuses appends (broken) until the
// member leads again with a fresh writer (Node.leadLoop): the proposals
// queued behind a failed one are refused rather than proposed, and the
// store rewinds what it holds beyond the confirmed versions
// (storage.Store.Lead).
type replLog struct {
	r      func() *raft.Raft
	leader func() (id, addr string)
	// mu guards the fields below; cond signals the proposer.
	mu   sync.Mutex
	cond *sync.Cond
	// ready: this member leads and the store leads with it (Lead).
	ready  bool
	broken bool
	closed bool
	next   uint64
	queue  []*proposal
	// open are the proposals not yet decided, by id.
	open map[uint64]*proposal
	// failed keeps the outcome of failed proposals no Sync collected
	// yet (a pessimistic transaction can Sync another commit's id).
	failed map[uint64]error
	// collect hands futures to the collector in log order.
	collect chan *proposal
	done    chan struct{}
	// down is closed once raft has shut down (raftDown).
	down     chan struct{}
	downOnce sync.Once
}

const proposalBit = 1 << 63

type proposal struct {
	id   uint64
	rec  []byte
	f    raft.ApplyFuture
	err  error
	over chan struct{}
}

func newReplLog(r func() *raft.Raft, leader func() (string, string)) *replLog {
	l := &replLog{r: r, leader: leader, open: map[uint64]*proposal{}, failed: map[uint64]error{},
		collect: make(chan *proposal, 4096), done: make(chan struct{}), down: make(chan struct{})}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *replLog) notLeader() error {
	id, addr := l.leader()
	return &storage.NotLeaderError{LeaderID: id, LeaderAddress: addr}
}

// Writable is nil while this member takes commits.
func (l *replLog) Writable() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ready || l.broken || l.closed {
		return l.notLeader()
	}
	return nil
}

// Append queues rec for the replicated log (called under the commit lock).
func (l *replLog) Append(rec []byte) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ready || l.broken || l.closed {
		return 0, l.notLeader()
	}
	l.next++
	p := &proposal{id: proposalBit | l.next, rec: append([]byte(nil), rec...), over: make(chan struct{})}
	l.queue = append(l.queue, p)
	l.open[p.id] = p
	l.cond.Signal()
	return p.id, nil
}

// Sync waits for the outcome of the proposal lsn names.
func (l *replLog) Sync(lsn uint64) error {
	if lsn&proposalBit == 0 {
		return nil // a raft index: applied already
	}
	l.mu.Lock()
	p := l.open[lsn]
	if p == nil {
		err := l.failed[lsn]
		delete(l.failed, lsn)
		l.mu.Unlock()
		return err
	}
	l.mu.Unlock()
	<-p.over
	l.mu.Lock()
	delete(l.failed, lsn)
	l.mu.Unlock()
	return p.err
}

// propose runs the proposer until close.
func (l *replLog) propose() {
	defer close(l.collect)
	for {
		l.mu.Lock()
		for len(l.queue) == 0 && !l.closed {
			l.cond.Wait()
		}
		if len(l.queue) == 0 {
			l.mu.Unlock()
			return
		}
		p := l.queue[0]
		l.queue[0] = nil
		l.queue = l.queue[1:]
		refuse := l.broken || l.closed
		l.mu.Unlock()
		if refuse {
			l.finish(p, l.notLeader())
			continue
		}
		p.f = l.r().Apply(p.rec, 0)
		l.collect <- p
	}
}

// collectLoop waits for the proposals' futures in log order.
func (l *replLog) collectLoop(kick func()) {
	defer close(l.done)
	for p := range l.collect {
		err := l.outcome(p)
		switch {
		case err == nil:
		case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipTransferInProgress),
			errors.Is(err, storage.ErrEntrySkipped):
			// Not in the log, or in it as an entry every member skips:
			// nothing committed.
			err = l.notLeader()
		default:
			// ErrLeadershipLost, ErrRaftShutdown, a state machine failure:
			// the entry may still commit under another leader.
			err = storage.ErrCommitUndecided
		}
		if err != nil {
			kick()
		}
		l.finish(p, err)
	}
}

// outcome waits for p's future: its error, or the state machine's.
// Raft (v1.8.0) never resolves a future still queued in its buffered
// apply channel (Config.BatchApplyCh) when it shuts down, so the wait
// also ends once the member's raft is down (raftDown): such an entry
// never reached the log, and reporting it undecided is never wrong. The
// goroutine waiting on such a future stays blocked; it holds nothing.
func (l *replLog) outcome(p *proposal) error {
	res := make(chan error, 1)
	go func() {
		err := p.f.Error()
		if err == nil {
			if r, ok := p.f.Response().(error); ok && r != nil {
				err = r
			}
		}
		res <- err
	}()
	select {
	case err := <-res:
		return err
	case <-l.down:
		select {
		case err := <-res:
			return err
		default:
			return raft.ErrRaftShutdown
		}
	}
}

// raftDown says the member's raft has shut down: no future is resolved
// any more.
func (l *replLog) raftDown() { l.downOnce.Do(func() { close(l.down) }) }

// finish records p's outcome; a failure breaks the log until Lead.
func (l *replLog) finish(p *proposal, err error) {
	l.mu.Lock()
	p.err = err
	delete(l.open, p.id)
	if err != nil {
		l.broken = true
		l.failed[p.id] = err
	}
	p.rec = nil
	l.mu.Unlock()
	close(p.over)
}

// pause stops taking appends (a leadership transfer, a lost lead).
func (l *replLog) pause() {
	l.mu.Lock()
	l.ready = false
	l.mu.Unlock()
}

// idle reports whether every proposal is decided.
func (l *replLog) idle() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.open) == 0
}

// needsLead reports whether the member, leading, must (re)start its
// writer before it takes commits.
func (l *replLog) needsLead() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.closed && (!l.ready || l.broken)
}

// resume takes appends again, after the store leads (Lead).
func (l *replLog) resume() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.ready, l.broken = true, false
}

// close refuses appends from now on and stops the proposer once its
// queue is drained (raft's shutdown decides what was proposed).
func (l *replLog) close() {
	l.mu.Lock()
	l.closed, l.ready = true, false
	l.cond.Broadcast()
	l.mu.Unlock()
}

var _ storage.Log = (*replLog)(nil)
