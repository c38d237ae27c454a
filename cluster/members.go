package cluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// Member describes one member of the configuration (for
// dbms.cluster.overview()).
type Member struct {
	ID, Address string
	// Role: "leader", "follower" or "learner" as this member sees it.
	Role string
	// Voter is false for a learner.
	Voter bool
	// Applied is the member's applied index and Lag the entries it is
	// behind this member's commit index. Members knows them (Known) for
	// this member only; Overview asks the others.
	Applied, Lag uint64
	Known        bool
}

// memberAskTimeout bounds Overview's questions to the other members: a
// member that does not answer in time (down, partitioned) is unknown.
const memberAskTimeout = 500 * time.Millisecond

// Overview lists the configuration's members with each one's applied
// index and lag behind this member's commit index: this member's own,
// the others' as they answer Config.MemberApplied (asked at once, each
// within memberAskTimeout); unknown (Known false) when they do not.
func (n *Node) Overview(ctx context.Context) ([]Member, error) {
	ms, err := n.Members()
	if err != nil || n.cfg.MemberApplied == nil {
		return ms, err
	}
	commit := n.raft.CommitIndex()
	ctx, cancel := context.WithTimeout(ctx, memberAskTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for i := range ms {
		if ms[i].Known {
			continue
		}
		m := &ms[i]
		wg.Go(func() {
			applied, err := n.cfg.MemberApplied(ctx, m.ID)
			if err != nil {
				return
			}
			m.Known, m.Applied = true, applied
			if commit > applied {
				m.Lag = commit - applied
			}
		})
	}
	wg.Wait()
	return ms, nil
}

// Members lists the configuration's members.
func (n *Node) Members() ([]Member, error) {
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, fmt.Errorf("cluster: cannot read the configuration: %w", err)
	}
	leaderAddr, leaderID := n.raft.LeaderWithID()
	_ = leaderAddr
	var out []Member
	for _, s := range f.Configuration().Servers {
		m := Member{ID: string(s.ID), Address: string(s.Address), Voter: s.Suffrage == raft.Voter}
		switch {
		case s.ID == leaderID:
			m.Role = "leader"
		case s.Suffrage == raft.Voter:
			m.Role = "follower"
		default:
			m.Role = "learner"
		}
		if s.ID == raft.ServerID(n.cfg.ID) {
			m.Known, m.Applied = true, n.AppliedIndex()
			if ci := n.raft.CommitIndex(); ci > m.Applied {
				m.Lag = ci - m.Applied
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// membershipTimeout bounds how long a configuration change waits to be
// queued by raft.
const membershipTimeout = 10 * time.Second

// AddVoter adds a voting member (or makes a learner vote). Leader only.
func (n *Node) AddVoter(ctx context.Context, id, address string) error {
	return n.change(ctx, "add the voter "+id, n.raft.AddVoter(raft.ServerID(id), raft.ServerAddress(address), 0, membershipTimeout))
}

// AddLearner adds a non-voting member: a read replica that receives
// every entry and never votes. Leader only.
func (n *Node) AddLearner(ctx context.Context, id, address string) error {
	return n.change(ctx, "add the learner "+id, n.raft.AddNonvoter(raft.ServerID(id), raft.ServerAddress(address), 0, membershipTimeout))
}

// RemoveServer removes a member. Leader only.
func (n *Node) RemoveServer(ctx context.Context, id string) error {
	return n.change(ctx, "remove "+id, n.raft.RemoveServer(raft.ServerID(id), 0, membershipTimeout))
}

func (n *Node) change(ctx context.Context, what string, f raft.Future) error {
	if err := wait(ctx, f); err != nil {
		if err == raft.ErrNotLeader {
			return n.rlog.notLeader()
		}
		return fmt.Errorf("cluster: cannot %s: %w", what, err)
	}
	return nil
}

// TransferLeadership hands the lead to another voter (to id when not
// empty, else to the most up-to-date one). The member first stops
// taking commits and waits for its proposals to be decided, so that a
// transfer refuses no commit it had accepted.
func (n *Node) TransferLeadership(ctx context.Context, id string) error {
	if n.raft.State() != raft.Leader {
		return n.rlog.notLeader()
	}
	n.transferring.Store(true)
	defer n.transferring.Store(false)
	n.rlog.pause()
	for !n.rlog.idle() {
		select {
		case <-ctx.Done():
			n.wakeLead()
			return ctxErr(ctx, "waiting for the proposals before a transfer")
		case <-n.fsm.wait():
		case <-time.After(5 * time.Millisecond):
		}
	}
	var f raft.Future
	if id == "" {
		f = n.raft.LeadershipTransfer()
	} else {
		addr := ""
		if c := n.raft.GetConfiguration(); c.Error() == nil {
			for _, s := range c.Configuration().Servers {
				if s.ID == raft.ServerID(id) {
					addr = string(s.Address)
				}
			}
		}
		if addr == "" {
			n.wakeLead()
			return fmt.Errorf("cluster: no member %q to transfer the lead to", id)
		}
		f = n.raft.LeadershipTransferToServer(raft.ServerID(id), raft.ServerAddress(addr))
	}
	err := wait(ctx, f)
	n.wakeLead() // still leading after a failed transfer: take commits again
	if err != nil {
		return fmt.Errorf("cluster: cannot transfer the lead: %w", err)
	}
	return nil
}

// wait waits for f or ctx.
func wait(ctx context.Context, f raft.Future) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctxErr(ctx, "waiting for raft")
	}
}
