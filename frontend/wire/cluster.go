package wire

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
	"github.com/quiverdb/quiver/frontend/serving"
)

// A member of a replicated cluster (Config.Cluster; docs/replication.md,
// docs/wire-protocol.md "Clusters"):
//
//   - A write on a member that does not lead fails with an ERROR of code
//     25006 whose details.leader names the leader: {id, address (host:port,
//     where it speaks this protocol), url (its HTTP base URL)}, nulls when
//     no leader is known. The Go client reconnects there once.
//   - BEGIN on such a member fails the same way unless it says
//     "read_only": true.
//   - RUN_GQL and BEGIN may carry "bookmark" (a number or its string):
//     the member waits until it applied it, within the query's time.
//     RUN_GQL may carry "consistency": "linearizable" (the leader's read
//     index; refused with 25006 elsewhere) or "local" (the default).
//   - The SUCCESS ending a result, and COMMIT's, carry "bookmark": the
//     member's applied index once the answer was made.

// leaderRef is a 25006 ERROR's details.leader.
type leaderRef struct{ id, address, url string }

// decodeCluster reads the cluster's fields of RUN_GQL or BEGIN.
func (m *message) decodeCluster(obj map[string]any) *wireError {
	switch v := obj["bookmark"].(type) {
	case nil:
	case json.Number, string:
		var text string
		if n, ok := v.(json.Number); ok {
			text = string(n)
		} else {
			text = v.(string)
		}
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return dataError("bookmark must be a bookmark: a whole number (or its string) from an earlier SUCCESS")
		}
		m.bookmark = n
	default:
		return dataError("bookmark must be a bookmark: a whole number (or its string) from an earlier SUCCESS")
	}
	c, werr := stringField(obj, "consistency", false)
	if werr != nil {
		return werr
	}
	switch c {
	case "", consistencyLocal, consistencyLinearizable:
		m.consistency = c
	default:
		return dataError("consistency must be \"local\" (the default) or \"linearizable\", not %q", cut(c))
	}
	switch v := obj["read_only"].(type) {
	case nil:
	case bool:
		m.readOnly = v
	default:
		return dataError("read_only must be a boolean")
	}
	return nil
}

const (
	consistencyLocal        = "local"
	consistencyLinearizable = "linearizable"
)

// clusterGate runs before a statement or a BEGIN on a member: the
// bookmark's wait and a linearizable read's read index, within ctx.
func (s *session) clusterGate(ctx context.Context, m *message) *wireError {
	c := s.srv.cfg.Cluster
	if c == nil {
		return nil
	}
	if m.typ == mBegin && !m.readOnly && c.Role() != "leader" {
		return s.notLeader(nil)
	}
	if err := serving.WaitBookmark(ctx, c, m.bookmark); err != nil {
		if errors.Is(err, serving.ErrBookmarkTimeout) {
			return &wireError{code: engine.CodeTimeout, category: engine.CatTimeout,
				message: err.Error() + ": retry later, or on a member that is further along (the leader holds every bookmark)"}
		}
		return s.queryFailure(err)
	}
	if m.consistency == consistencyLinearizable {
		if err := c.Linearizable(ctx); err != nil {
			if ctx.Err() != nil {
				return &wireError{code: engine.CodeTimeout, category: engine.CatTimeout,
					message: "the linearizable read could not confirm the leader's read index in time"}
			}
			return s.queryFailure(err)
		}
	}
	return nil
}

// notLeader fills a 25006 ERROR (e, or a new one) with the leader.
func (s *session) notLeader(e *wireError) *wireError {
	c := s.srv.cfg.Cluster
	if e == nil {
		e = &wireError{code: engine.CodeNotLeader, category: engine.CatTransaction}
	}
	id, u := c.Leader()
	l := &leaderRef{id: id, url: u}
	if pu, err := url.Parse(u); err == nil && u != "" {
		l.address = pu.Host // the wire protocol shares the HTTP port
	}
	e.leader = l
	switch {
	case id == "":
		e.message = "this member is not the leader, and no leader is known (an election may be running): retry shortly"
	case id == c.MemberID():
		e.message = "this member was just elected leader and is catching up with the log: retry shortly"
	case l.address == "":
		e.message = "this member is not the leader: writes go to the leader " + id + " (its client address is not configured: --peer-http)"
	default:
		e.message = "this member is not the leader: writes go to the leader " + id + " at " + l.address
	}
	return e
}

// bookmark is the member's bookmark for a SUCCESS; 0 on a single server
// (not written).
func (s *session) bookmark() uint64 {
	if c := s.srv.cfg.Cluster; c != nil {
		return c.Bookmark()
	}
	return 0
}

// appendLeader writes details.leader.
func appendLeader(b []byte, l *leaderRef) []byte {
	b = append(b, `,"details":{"leader":{"id":`...)
	b = appendNullable(b, l.id)
	b = append(b, `,"address":`...)
	b = appendNullable(b, l.address)
	b = append(b, `,"url":`...)
	b = appendNullable(b, l.url)
	return append(b, "}}"...)
}

func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return jsonio.AppendString(b, s)
}

// appendBookmark writes a SUCCESS's bookmark field (none for 0).
func appendBookmark(b []byte, bm uint64) []byte {
	if bm == 0 {
		return b
	}
	b = append(b, `,"bookmark":`...)
	return strconv.AppendUint(b, bm, 10)
}
