package cluster

import (
	"io"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// A member's transport closes the replication pipelines it opened on
// request: a send blocked in one ends (ErrPipelineShutdown), a later one
// fails, and raft's shutdown can join the goroutine that made it.
func TestClosingTransportClosesPipelines(t *testing.T) {
	t.Parallel()
	from, to := newClosingTransport(openTestTransport(t)), openTestTransport(t)
	p, err := from.AppendEntriesPipeline("n2", to.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	if len(from.pipes) != 1 {
		t.Fatalf("%d pipelines kept, want 1", len(from.pipes))
	}
	from.closePipelines()
	if _, err := p.AppendEntries(&raft.AppendEntriesRequest{}, &raft.AppendEntriesResponse{}); err == nil {
		t.Fatal("a send on a closed pipeline succeeded")
	}
	if len(from.pipes) != 0 {
		t.Fatalf("%d pipelines kept after closing them", len(from.pipes))
	}
	if err := p.Close(); err != nil { // raft closes it again
		t.Fatal(err)
	}
}

// The deadlock of raft's pipeline while the cluster runs: once raft
// stops reading a pipeline's answers (its decoder returned after a
// follower's Success=false), a send must still return, so that raft's
// replication loop can notice and reopen the pipeline. Over
// hashicorp/raft's own pipeline the second unread send blocks for good.
func TestPipelineSendsWhileAnswersUnread(t *testing.T) {
	t.Parallel()
	from, to := newClosingTransport(openTestTransport(t)), openTestTransport(t)
	go func() {
		for rpc := range to.Consumer() {
			req := rpc.Command.(*raft.AppendEntriesRequest)
			rpc.Respond(&raft.AppendEntriesResponse{Term: req.Term, Success: false}, nil)
		}
	}()
	p, err := from.AppendEntriesPipeline("n2", to.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const sends = 5
	sent := make(chan error, 1)
	go func() {
		for i := range sends {
			if _, err := p.AppendEntries(&raft.AppendEntriesRequest{Term: uint64(i + 1)}, &raft.AppendEntriesResponse{}); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	select {
	case err := <-sent:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a send blocked while the pipeline's answers were not read")
	}
	for i := range sends {
		f := <-p.Consumer()
		if err := f.Error(); err != nil {
			t.Fatal(err)
		}
		if got := f.Response().Term; got != uint64(i+1) {
			t.Fatalf("answer %d has term %d: answers out of order", i, got)
		}
	}
}

// openTestTransport is a member transport on a loopback port with a
// shared secret, closed when the test ends.
func openTestTransport(t *testing.T) *raft.NetworkTransport {
	t.Helper()
	tr, err := NewMemberTransport("127.0.0.1:0", MemberAuth{Secret: []byte("a secret of sixteen bytes or more")}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}
