package client

import (
	"context"
	"fmt"
)

// A cluster's members on the wire protocol (docs/replication.md): a
// member that does not lead answers a write (or BEGIN, or a
// linearizable read) with an ERROR of code 25006 whose details.leader
// names the leader's address. A session then reconnects to that address
// once, with the same options, and sends the message again; what the
// old session held (SET settings) does not move with it. Inside a
// transaction it does not: the transaction lives on the old member.
//
// SUCCESS messages carry the member's bookmark; the session keeps the
// highest and sends it with every RUN_GQL and BEGIN, so that a read on
// any member sees the session's earlier writes.

// dialer reopens a session's transport at another address.
type dialer func(ctx context.Context, addr string) (wireStream, error)

// Bookmark is the highest bookmark the session was given (0: none).
func (s *WireSession) Bookmark() uint64 { return s.bookmark }

// SetBookmark makes the session's later statements wait, on the member
// they reach, until it applied bookmark (another client's Bookmark, for
// its writes).
func (s *WireSession) SetBookmark(bookmark uint64) { s.bookmark = max(s.bookmark, bookmark) }

// noteBookmark keeps a SUCCESS's bookmark.
func (s *WireSession) noteBookmark(m map[string]any) {
	if m["type"] != "SUCCESS" {
		return
	}
	if b, ok := m["bookmark"].(int64); ok && b > 0 {
		s.bookmark = max(s.bookmark, uint64(b))
	}
}

// withBookmark adds the session's bookmark, and the graph SetGraph chose,
// to a RUN_GQL or BEGIN.
func (s *WireSession) withBookmark(m map[string]any) map[string]any {
	if s.bookmark > 0 {
		m["bookmark"] = s.bookmark
	}
	if s.graph != "" {
		m["graph"] = s.graph
	}
	return m
}

// SetGraph makes the session's later statements and transactions run on
// graph ("" for the session's own, which USE sets): RUN_GQL and BEGIN
// carry it as "graph". A session is used by one goroutine at a time.
func (s *WireSession) SetGraph(graph string) { s.graph = graph }

// Graph is the graph SetGraph chose, "" for none.
func (s *WireSession) Graph() string { return s.graph }

// leaderOf is the address a 25006 ERROR names, "" for another message or
// when no leader is known.
func leaderOf(m map[string]any) string {
	if m["type"] != "ERROR" || m["code"] != CodeNotLeader {
		return ""
	}
	d, _ := m["details"].(map[string]any)
	l, _ := d["leader"].(map[string]any)
	addr, _ := l["address"].(string)
	return addr
}

// reconnect replaces the session's transport with a new session at addr.
func (s *WireSession) reconnect(ctx context.Context, addr string) error {
	if s.dial == nil {
		return fmt.Errorf("client: cannot reconnect to the leader at %s: the session was not dialed by this package", addr)
	}
	c, err := s.dial(ctx, addr)
	if err != nil {
		return fmt.Errorf("client: cannot reconnect to the leader at %s: %w", addr, err)
	}
	ns, err := startWireSession(ctx, c, &s.opts)
	if err != nil {
		c.Close()
		return fmt.Errorf("client: cannot start a session with the leader at %s: %w", addr, err)
	}
	old := s.conn
	ns.dial, ns.bookmark, ns.addr = s.dial, max(s.bookmark, ns.bookmark), addr
	*s = *ns //nolint:govet // the new session's state replaces the old one's whole
	old.Close()
	return nil
}

// Addr is the address the session is connected to: the one it was
// dialed at, or the leader's it reconnected to.
func (s *WireSession) Addr() string { return s.addr }
