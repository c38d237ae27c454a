package cluster

import (
	"sync"

	"github.com/hashicorp/raft"
)

// closingTransport is a member's TCP transport that keeps the
// replication pipelines it opened, so that Node.Close can close them
// before it waits for raft's shutdown.
//
// hashicorp/raft v1.8's netPipeline can deadlock: with MaxRPCsInFlight
// at its default both of its channels are unbuffered, and after a
// follower answers Success=false (a partition healing, a new term) the
// replication loop may send once more into the pipeline while its
// decoder waits to hand back the previous answer (the analysis of
// grafana/pyroscope#5518). That replication goroutine then never
// returns, nor closes its pipeline, and raft's Shutdown joins it for
// ever: a member stopped with SIGTERM after a partition hung there
// (TestClusterProcessFailover, about one run in three on two busy cores,
// on both sides of it). Closing the pipeline ends the blocked send
// (ErrPipelineShutdown), and the goroutine with it.
//
// Turning the pipeline off instead (raft falls back when
// AppendEntriesPipeline refuses) avoids the deadlock altogether but
// halved the leader's commit throughput at 32 clients on loopback
// (about 900 against 1,750 commits/s), so it stays on.
type closingTransport struct {
	*raft.NetworkTransport
	// mu guards pipes, the pipelines open now.
	mu    sync.Mutex
	pipes map[*closingPipeline]struct{}
}

func newClosingTransport(t *raft.NetworkTransport) *closingTransport {
	return &closingTransport{NetworkTransport: t, pipes: map[*closingPipeline]struct{}{}}
}

// AppendEntriesPipeline opens a pipeline and keeps it until it closes.
func (t *closingTransport) AppendEntriesPipeline(id raft.ServerID, target raft.ServerAddress) (raft.AppendPipeline, error) {
	p, err := t.NetworkTransport.AppendEntriesPipeline(id, target)
	if err != nil {
		return nil, err
	}
	cp := newClosingPipeline(p, t)
	t.mu.Lock()
	t.pipes[cp] = struct{}{}
	t.mu.Unlock()
	return cp, nil
}

// closePipelines closes every pipeline open now (netPipeline.Close may
// be called twice).
func (t *closingTransport) closePipelines() {
	t.mu.Lock()
	pipes := make([]*closingPipeline, 0, len(t.pipes))
	for p := range t.pipes {
		pipes = append(pipes, p)
	}
	t.mu.Unlock()
	for _, p := range pipes {
		p.Close()
	}
}

// closingPipeline forgets itself in its transport when it closes, and
// relays the pipeline's answered futures to raft through a queue of its
// own, so that the pipeline's decoder never waits for raft to take one.
//
// That wait is the other half of the deadlock above, and it bites while
// the cluster runs, not only at shutdown: once raft's pipelineDecode
// has returned (a follower answered Success=false), nothing reads the
// pipeline's unbuffered doneCh, the decoder parks on it, the next send
// parks on inprogressCh, and replication to that follower stops for
// good while heartbeats keep it from calling an election. With the
// relay the decoder always hands its future on, the send returns, and
// raft's replication loop sees that its decoder finished and reopens
// the pipeline. The queue holds answers raft has not taken yet; it is
// short while raft reads it, and a pipeline whose reader has gone for
// longer than maxQueuedAnswers answers is closed, which raft treats as a
// broken pipeline.
type closingPipeline struct {
	raft.AppendPipeline
	t       *closingTransport
	answers chan raft.AppendFuture
	closed  chan struct{}
	once    sync.Once
}

// maxQueuedAnswers bounds the answers a pipeline keeps for a reader
// that stopped reading.
const maxQueuedAnswers = 1024

func newClosingPipeline(p raft.AppendPipeline, t *closingTransport) *closingPipeline {
	cp := &closingPipeline{AppendPipeline: p, t: t, answers: make(chan raft.AppendFuture), closed: make(chan struct{})}
	go cp.relay(p.Consumer())
	return cp
}

// Consumer is the channel raft reads answered sends from, in send order.
func (p *closingPipeline) Consumer() <-chan raft.AppendFuture { return p.answers }

func (p *closingPipeline) relay(in <-chan raft.AppendFuture) {
	var queue []raft.AppendFuture
	for {
		var out chan raft.AppendFuture
		var next raft.AppendFuture
		if len(queue) > 0 {
			out, next = p.answers, queue[0]
		}
		select {
		case f := <-in:
			queue = append(queue, f)
			if len(queue) > maxQueuedAnswers {
				p.Close()
				return
			}
		case out <- next:
			queue[0] = nil
			queue = queue[1:]
		case <-p.closed:
			return
		}
	}
}

func (p *closingPipeline) Close() error {
	p.t.mu.Lock()
	delete(p.t.pipes, p)
	p.t.mu.Unlock()
	p.once.Do(func() { close(p.closed) })
	return p.AppendPipeline.Close()
}
