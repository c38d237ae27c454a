package http

import (
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// Explicit transactions over HTTP (docs/transactions.md):
//
//	POST /api/v1/transaction/begin                {isolation_level?, timeout?}
//	POST /api/v1/transaction/{id}/query           {query, parameters, …}
//	POST /api/v1/transaction/{id}/commit          (no body)
//	POST /api/v1/transaction/{id}/rollback        {to_savepoint?} or no body
//
// The engine owns the transactions (their ids, states, expiry and
// limits); these handlers only decode, call it and encode. A statement
// in a transaction answers exactly as /api/v1/query does, through the
// same encoder.

// transactionPrefix starts the paths of an open transaction.
const transactionPrefix = "/api/v1/transaction/"

// timeLayout writes the timestamps of the transaction endpoints: ISO
// 8601 in UTC with milliseconds, e.g. 2026-03-01T12:00:00.000Z.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// transactionRoute matches /api/v1/transaction/{id}/query, …/commit and
// …/rollback. An id is any non-empty path segment: the engine answers
// 404 for one that is not open.
func transactionRoute(path string) (route, bool) {
	rest, ok := strings.CutPrefix(path, transactionPrefix)
	if !ok {
		return route{}, false
	}
	id, action, ok := strings.Cut(rest, "/")
	if !ok || id == "" {
		return route{}, false
	}
	var h func(*Server, *fasthttp.RequestCtx, string)
	optional := true
	switch action {
	case "query":
		h, optional = (*Server).handleTransactionQuery, false
	case "commit":
		h = (*Server).handleCommit
	case "rollback":
		h = (*Server).handleRollback
	default:
		return route{}, false
	}
	return route{method: fasthttp.MethodPost, optionalBody: optional,
		handler: func(s *Server, ctx *fasthttp.RequestCtx) { h(s, ctx, id) }}, true
}

// clientOf names the client a transaction is counted against for the
// per-client limit: its user when it authenticated, else its address.
func clientOf(ctx *fasthttp.RequestCtx) string {
	if p := requestPrincipal(ctx); p != nil {
		return "user:" + p.Name
	}
	return ctx.RemoteIP().String()
}

// ownerOf is the user a transaction the request begins belongs to: ""
// without authentication.
func ownerOf(ctx *fasthttp.RequestCtx) string {
	if p := requestPrincipal(ctx); p != nil {
		return p.Name
	}
	return ""
}

// handleBegin serves POST /api/v1/transaction/begin: the body, which may
// be left out, has optional isolation_level (READ_COMMITTED by default)
// and timeout (milliseconds; 5 minutes by default, at most 1 hour).
func (s *Server) handleBegin(ctx *fasthttp.RequestCtx) {
	obj, e := decodeOptionalObject(ctx.PostBody())
	if e != nil {
		s.writeError(ctx, e)
		return
	}
	o := engine.TransactionOptions{Client: clientOf(ctx), Owner: ownerOf(ctx)}
	if o.Isolation, e = isolationField(obj); e != nil {
		s.writeError(ctx, e)
		return
	}
	if o.Timeout, e = millisField(obj, "timeout"); e != nil {
		s.writeError(ctx, e)
		return
	}
	if o.Graph, e = stringField(obj, "graph"); e != nil {
		s.writeError(ctx, e)
		return
	}
	o.Principal = requestPrincipal(ctx)
	tx, err := s.db.BeginTransaction(o)
	if err != nil {
		s.queryError(ctx, err, "")
		return
	}
	lifetime := o.Timeout
	if lifetime == 0 {
		lifetime = engine.DefaultTransactionTimeout
	}
	b := append([]byte(nil), `{"transaction_id":`...)
	b = jsonio.AppendString(b, tx.ID())
	b = append(b, `,"isolation_level":`...)
	b = jsonio.AppendString(b, tx.Isolation().String())
	b = append(b, `,"expires_at":`...)
	b = jsonio.AppendString(b, tx.ExpiresAt().UTC().Format(timeLayout))
	b = append(b, `,"timeout":`...)
	b = jsonio.AppendInt(b, lifetime.Milliseconds())
	ctx.SetContentType("application/json")
	ctx.SetBody(append(b, '}'))
}

// isolationField reads the optional isolation_level; zero (the engine's
// default, READ_COMMITTED) when absent.
func isolationField(obj map[string]any) (engine.IsolationLevel, *apiError) {
	name, e := stringField(obj, "isolation_level")
	if e != nil || name == "" {
		return 0, e
	}
	level, err := engine.ParseIsolationLevel(name)
	if err != nil {
		e, _ := fromEngine(err, "")
		return 0, e
	}
	return level, nil
}

// handleTransactionQuery serves POST /api/v1/transaction/{id}/query: one
// statement in the transaction, answered as /api/v1/query answers
// (explain and profile flags included). A statement that fails leaves
// the transaction failed (docs/transactions.md).
func (s *Server) handleTransactionQuery(ctx *fasthttp.RequestCtx, id string) {
	tx, err := s.ownedTransaction(ctx, id)
	if err != nil {
		s.queryError(ctx, err, "")
		return
	}
	s.runQueryMode(ctx, "parameters", false, engine.ModeAsWritten, tx.Run)
}

// handleCommit serves POST /api/v1/transaction/{id}/commit.
func (s *Server) handleCommit(ctx *fasthttp.RequestCtx, id string) {
	if _, e := decodeOptionalObject(ctx.PostBody()); e != nil {
		s.writeError(ctx, e)
		return
	}
	tx, err := s.ownedTransaction(ctx, id)
	if err != nil {
		s.queryError(ctx, err, "")
		return
	}
	at, err := tx.Commit()
	if err != nil {
		s.queryError(ctx, err, "")
		return
	}
	s.writeEnded(ctx, "committed", id, "committed_at", at, "")
}

// handleRollback serves POST /api/v1/transaction/{id}/rollback. With
// to_savepoint it undoes the writes made after that savepoint and the
// transaction stays open (a failed one becomes usable again); the
// response still says rolled_back, as the contract has it, and names
// the savepoint.
func (s *Server) handleRollback(ctx *fasthttp.RequestCtx, id string) {
	obj, e := decodeOptionalObject(ctx.PostBody())
	if e != nil {
		s.writeError(ctx, e)
		return
	}
	sp, e := stringField(obj, "to_savepoint")
	if e != nil {
		s.writeError(ctx, e)
		return
	}
	if _, present := obj["to_savepoint"]; present && sp == "" {
		s.writeError(ctx, badRequest("\"to_savepoint\" is empty: name a savepoint, or leave the field out to roll back the whole transaction"))
		return
	}
	tx, err := s.ownedTransaction(ctx, id)
	if err != nil {
		s.queryError(ctx, err, "")
		return
	}
	var at time.Time
	if sp != "" {
		err = tx.RollbackTo(sp)
		at = time.Now()
	} else {
		at, err = tx.Rollback()
	}
	if err != nil {
		s.queryError(ctx, err, "")
		return
	}
	s.writeEnded(ctx, "rolled_back", id, "rolled_back_at", at, sp)
}

// writeEnded answers a commit or rollback:
// {"status":…,"transaction_id":…,"<atKey>":…[,"to_savepoint":…]}.
func (s *Server) writeEnded(ctx *fasthttp.RequestCtx, status, id, atKey string, at time.Time, savepoint string) {
	b := append([]byte(nil), `{"status":`...)
	b = jsonio.AppendString(b, status)
	b = append(b, `,"transaction_id":`...)
	b = jsonio.AppendString(b, id)
	b = append(b, ",\""+atKey+"\":"...)
	b = jsonio.AppendString(b, at.UTC().Format(timeLayout))
	if savepoint != "" {
		b = append(b, `,"to_savepoint":`...)
		b = jsonio.AppendString(b, savepoint)
	}
	ctx.SetContentType("application/json")
	ctx.SetBody(append(b, '}'))
}
