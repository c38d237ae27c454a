package cluster

import (
	"io"
	"testing"

	"github.com/hashicorp/raft"
)

// A member's transport closes the replication pipelines it opened on
// request: a send blocked in one ends (ErrPipelineShutdown), a later one
// fails, and raft's shutdown can join the goroutine that made it.
func TestClosingTransportClosesPipelines(t *testing.T) {
	t.Parallel()
	auth := MemberAuth{Secret: []byte("a secret of sixteen bytes or more")}
	open := func() *raft.NetworkTransport {
		tr, err := NewMemberTransport("127.0.0.1:0", auth, nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		return tr
	}
	from, to := newClosingTransport(open()), open()
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
