package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/serving"
)

// A member of a replicated cluster (Config.Cluster; docs/replication.md):
//
//   - A write on a member that does not lead fails in the engine with
//     25006. writeError turns it into 307 to the leader's address (the
//     same path and query; the client re-sends the body) when
//     Config.RedirectWrites, else into the error with details.leader
//     {id, url}. Inside an explicit transaction (its paths) it is never
//     redirected: the transaction lives on this member. With no leader
//     known, or the leader's address unknown, it is the error: 503, as
//     for every 25006 (a client retries with backoff).
//   - BEGIN on a member that does not lead is answered the same way,
//     unless its body says "read_only": true; so is a batch holding a
//     write (engine.Writes), transaction or not, before any of its
//     statements runs (batch.go). A read-only batch runs there.
//   - A query, batch, BEGIN, transaction statement or commit may carry a
//     bookmark (header Quiver-Bookmark, or the body's "bookmark"; other
//     endpoints ignore it): it runs once this member applied it, or fails
//     with 408 when the request's time ("timeout", else
//     DefaultBookmarkWait) runs out first.
//   - "consistency": "linearizable" in the body takes the leader's read
//     index before the query runs; on a member that does not lead it is
//     routed like a write. "local" (the default) reads this member's
//     applied state.
//   - Every successful answer of a query, batch or commit carries the
//     header Quiver-Bookmark: this member's applied index once the
//     answer was made, at or after any commit it acknowledged.

// BookmarkHeader is the header that carries bookmarks both ways.
const BookmarkHeader = "Quiver-Bookmark"

// DefaultBookmarkWait bounds a bookmark's wait when the request sets no
// timeout.
const DefaultBookmarkWait = 30 * time.Second

// Consistency levels of a read ("consistency").
const (
	ConsistencyLocal        = "local"
	ConsistencyLinearizable = "linearizable"
)

// clusterFields are the cluster's fields of a request body.
type clusterFields struct {
	bookmark    uint64
	consistency string
	readOnly    bool
	timeout     time.Duration
}

// readsBody are the paths whose body may carry the cluster's fields.
func readsBody(path string) bool {
	switch path {
	case "/api/v1/query", "/api/v1/query/explain", "/api/v1/query/profile", "/query", "/api/v1/batch", "/api/v1/transaction/begin":
		return true
	}
	return strings.HasPrefix(path, transactionPrefix) && strings.HasSuffix(path, "/query")
}

// answersBookmark are the paths whose success carries Quiver-Bookmark.
func answersBookmark(path string) bool {
	return readsBody(path) || (strings.HasPrefix(path, transactionPrefix) && strings.HasSuffix(path, "/commit"))
}

// clusterFieldsOf reads the cluster's fields: the header, then the body
// (only decoded when it may hold one of them, so that a plain query's
// body is parsed once).
func clusterFieldsOf(ctx *fasthttp.RequestCtx, path string) (clusterFields, *apiError) {
	var f clusterFields
	if h := ctx.Request.Header.Peek(BookmarkHeader); len(h) > 0 {
		n, err := strconv.ParseUint(string(bytes.TrimSpace(h)), 10, 64)
		if err != nil {
			return f, badRequest("the " + BookmarkHeader + " header must be a bookmark: a whole number from an earlier answer's " + BookmarkHeader)
		}
		f.bookmark = n
	}
	body := ctx.PostBody()
	mentions := func(key string) bool { return bytes.Contains(body, []byte(`"`+key+`"`)) }
	if !readsBody(path) || !(f.bookmark > 0 || mentions("bookmark") || mentions("consistency") || mentions("read_only")) {
		return f, nil
	}
	obj, e := decodeOptionalObject(body)
	if e != nil {
		return f, nil // the handler answers the malformed body
	}
	if v, ok := obj["bookmark"]; ok && v != nil {
		var text string
		switch b := v.(type) {
		case json.Number:
			text = string(b)
		case string:
			text = b
		}
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return f, badRequest(`"bookmark" must be a bookmark: a whole number (or its string) from an earlier answer's ` + BookmarkHeader)
		}
		f.bookmark = max(f.bookmark, n)
	}
	if f.consistency, e = stringField(obj, "consistency"); e != nil {
		return f, e
	}
	switch f.consistency {
	case "", ConsistencyLocal, ConsistencyLinearizable:
	default:
		return f, badRequest(`"consistency" must be "local" (the default) or "linearizable", not "` + f.consistency + `"`)
	}
	if f.readOnly, e = boolField(obj, "read_only"); e != nil {
		return f, e
	}
	if f.timeout, e = millisField(obj, "timeout"); e != nil {
		return f, e
	}
	return f, nil
}

// clusterGate runs before a route's handler on a member: it waits for
// the request's bookmark, takes the read index of a linearizable read,
// and routes a BEGIN on a member that does not lead. false: it answered.
func (s *Server) clusterGate(ctx *fasthttp.RequestCtx, path string) bool {
	if !answersBookmark(path) {
		return true // status, health, auth…: never wait for a bookmark
	}
	c := s.cfg.Cluster
	f, e := clusterFieldsOf(ctx, path)
	if e != nil {
		s.writeError(ctx, e)
		return false
	}
	if path == "/api/v1/transaction/begin" && !f.readOnly && c.Role() != "leader" {
		s.writeNotLeader(ctx, nil)
		return false
	}
	if f.bookmark == 0 && f.consistency != ConsistencyLinearizable {
		return true
	}
	wait := f.timeout
	if wait <= 0 {
		wait = DefaultBookmarkWait
	}
	wctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := serving.WaitBookmark(wctx, c, f.bookmark); err != nil {
		s.writeError(ctx, bookmarkError(err))
		return false
	}
	if f.consistency == ConsistencyLinearizable {
		if err := c.Linearizable(wctx); err != nil {
			if wctx.Err() != nil {
				s.writeError(ctx, &apiError{status: 408, code: engine.CodeTimeout, category: engine.CatTimeout,
					message: "the linearizable read could not confirm the leader's read index in time"})
				return false
			}
			s.queryError(ctx, err, "")
			return false
		}
	}
	return true
}

func bookmarkError(err error) *apiError {
	if errors.Is(err, serving.ErrBookmarkTimeout) {
		return &apiError{status: 408, code: engine.CodeTimeout, category: engine.CatTimeout,
			message: err.Error() + ": retry later, or on a member that is further along (the leader holds every bookmark)"}
	}
	if e, ok := engine.AsError(err); ok {
		return &apiError{status: statusOf(e.Code), code: e.Code, category: e.Category, message: e.Message}
	}
	return &apiError{status: 503, code: engine.CodeUnavailable, category: engine.CatUnavailable, message: "cannot wait for the bookmark: " + err.Error()}
}

// setBookmark adds Quiver-Bookmark to a successful answer of path.
func (s *Server) setBookmark(ctx *fasthttp.RequestCtx, path string) {
	if ctx.Response.StatusCode() < 300 && answersBookmark(path) {
		ctx.Response.Header.Set(BookmarkHeader, strconv.FormatUint(s.cfg.Cluster.Bookmark(), 10))
	}
}

// writeNotLeader answers a write (or a linearizable read, or a BEGIN)
// that reached a member that does not lead: 307 to the leader, or the
// 25006 error naming it. e is the engine's error, nil to make one.
func (s *Server) writeNotLeader(ctx *fasthttp.RequestCtx, e *apiError) {
	c := s.cfg.Cluster
	id, url := c.Leader()
	inTransaction := strings.HasPrefix(string(ctx.Path()), transactionPrefix) && string(ctx.Path()) != "/api/v1/transaction/begin"
	if s.cfg.RedirectWrites && url != "" && id != c.MemberID() && !inTransaction {
		ctx.Response.ResetBody()
		ctx.Response.Header.Set("Location", url+string(ctx.RequestURI()))
		ctx.SetStatusCode(fasthttp.StatusTemporaryRedirect)
		return
	}
	if e == nil {
		e = &apiError{code: engine.CodeNotLeader, category: engine.CatTransaction}
	}
	e.status, e.leaderID, e.leaderURL = statusOf(engine.CodeNotLeader), id, url
	switch {
	case id == "":
		e.message = "this member is not the leader, and no leader is known (an election may be running): retry shortly"
	case id == c.MemberID():
		e.message = "this member was just elected leader and is catching up with the log: retry shortly"
	case url == "":
		e.message = "this member is not the leader: writes go to the leader " + id + " (its client address is not configured: --peer-http)"
	default:
		e.message = "this member is not the leader: writes go to the leader " + id + " at " + url
	}
	s.writeErrorBody(ctx, e)
}
