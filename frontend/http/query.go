package http

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
)

// handleQuery serves POST /api/v1/query.
func (s *Server) handleQuery(ctx *fasthttp.RequestCtx) {
	s.runQueryMode(ctx, "parameters", false, engine.ModeAsWritten, s.db.Run)
}

// handleExperimentalQuery serves the experimental POST /query form.
func (s *Server) handleExperimentalQuery(ctx *fasthttp.RequestCtx) {
	s.runQueryMode(ctx, "params", true, engine.ModeAsWritten, s.db.Run)
}

// runner runs one statement: the database's auto-commit Run, or an open
// transaction's.
type runner func(ctx context.Context, m engine.Mode, text string, params engine.Params) (*engine.Result, error)

// Response sizes: a response is built in memory up to streamAfter bytes,
// so that a query failing early still gets its error status; a larger one
// is streamed in chunks of streamChunk bytes (stream.go).
const (
	streamAfter = 256 << 10
	streamChunk = 64 << 10
)

// runQueryMode decodes, runs and encodes one query.
//
// An EXPLAIN (prefix, flag or endpoint) answers the plan shape
// {"plan","estimated_total_cost","estimated_rows"}; a PROFILE answers the
// usual result with a "profile" object added. The explain flag wins when
// both flags are set, since it promises not to run the query.
//
// An Accept header that prefers application/vnd.apache.arrow.stream
// gets the rows as an Arrow IPC stream (arrow.go); an EXPLAIN's plan is
// JSON either way, and a PROFILE's profile is only in the JSON answer.
//
// The query runs under a context that ends with the request's timeout
// and when the client closes its connection (watchClient); run runs it
// (auto-commit, or in a transaction).
func (s *Server) runQueryMode(ctx *fasthttp.RequestCtx, paramsKey string, experimental bool, m engine.Mode, run runner) {
	format, aerr := negotiate(ctx)
	if aerr != nil {
		s.writeError(ctx, aerr)
		return
	}
	req, aerr := decodeQueryRequest(ctx.PostBody(), paramsKey)
	if aerr != nil {
		s.writeError(ctx, aerr)
		return
	}
	switch {
	case m != engine.ModeAsWritten:
	case req.explain:
		m = engine.ModeExplain
	case req.profile:
		m = engine.ModeProfile
	}
	q := s.startQuery(ctx, req.timeout)
	if req.graph != "" {
		q.ctx = engine.WithGraph(q.ctx, req.graph)
	}
	res, err := run(q.ctx, m, req.query, req.params)
	if err != nil {
		q.end(err)
		s.queryError(ctx, err, req.query)
		return
	}
	if ex := res.Plan(); ex != nil {
		res.Close()
		q.end(nil)
		ctx.SetContentType("application/json")
		ctx.SetBody(appendExplain(nil, ex))
		return
	}
	if format.arrow {
		s.answerArrow(ctx, q, res, req.query, format.codec)
		return
	}
	w := s.newResultWriter(res, experimental, q.start)
	w.log = q.log
	done, err := w.fill(streamAfter)
	if err != nil || done {
		// Small, or failed before anything was sent: one whole body.
		w.close()
		q.end(err)
		if err != nil {
			s.queryError(ctx, err, req.query)
			return
		}
		ctx.SetContentType("application/json")
		ctx.SetBody(w.b) // SetBody copies, so the buffer can go back to the pool
		w.release()
		return
	}
	ctx.SetContentType("application/json")
	setStreamBody(ctx, func(bw *bufio.Writer) {
		err := s.stream(bw, w)
		w.close()
		w.release()
		q.end(err)
	})
}

// runningQuery is a query's context and the bookkeeping of its end.
type runningQuery struct {
	s      *Server
	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   func() bool // ends the client watch; true when the client left
	start  time.Time
	log    *slog.Logger // the request's (tracing.go)
}

// startQuery makes the context a query runs under: the request's
// principal (auth.go), its timeout (the engine adds the session's) and
// the client's presence.
func (s *Server) startQuery(ctx *fasthttp.RequestCtx, timeout time.Duration) *runningQuery {
	q := &runningQuery{s: s, start: time.Now(), log: s.requestLog(ctx)}
	q.ctx, q.cancel = context.WithCancelCause(withPrincipal(context.Background(), ctx))
	if timeout > 0 {
		var stop context.CancelFunc
		q.ctx, stop = context.WithTimeout(q.ctx, timeout)
		cancel := q.cancel
		// The cause first: the timeout's context is the child, and
		// stopping it first would cancel it without the cause, so a
		// query whose client left would say only "context canceled".
		q.cancel = func(cause error) { cancel(cause); stop() }
	}
	q.stop = watchClient(ctx.Conn(), q.cancel)
	s.running.Add(1)
	return q
}

// end releases the query's context and reports it.
func (q *runningQuery) end(err error) {
	gone := q.release()
	q.report(q.start, err, gone)
}

// release ends the client watch and the context; it reports whether the
// client went away.
func (q *runningQuery) release() (gone bool) {
	gone = q.stop()
	q.cancel(nil)
	q.s.running.Add(-1)
	if gone || errors.Is(context.Cause(q.ctx), errClientGone) {
		q.log.Info("query cancelled: the client closed its connection", "elapsed", time.Since(q.start))
		gone = true
	}
	return gone
}

// clientGone reports whether the client closed its connection.
func (q *runningQuery) clientGone() bool { return errors.Is(context.Cause(q.ctx), errClientGone) }

// report tells Config.QueryEnded about a query that started at start
// (one statement of a batch shares its batch's context), and logs it at
// debug level with its outcome (and the trace's ids, tracing.go).
func (q *runningQuery) report(start time.Time, err error, gone bool) {
	elapsed := time.Since(start)
	if f := q.s.cfg.QueryEnded; f != nil {
		f(QueryEnd{Elapsed: elapsed, Err: err, ClientGone: gone})
	}
	if q.log.Enabled(context.Background(), slog.LevelDebug) {
		outcome, code := "ok", ""
		switch {
		case gone:
			outcome = "client_gone"
		case err != nil:
			outcome = "error"
			if e, ok := engine.AsError(err); ok {
				code = e.Code
			}
		}
		q.log.Debug("query", "duration", elapsed, "outcome", outcome, "code", code)
	}
}

func (s *Server) queryError(ctx *fasthttp.RequestCtx, err error, query string) {
	s.writeError(ctx, engineError(s.requestLog(ctx), err, query))
}

// engineError converts an engine error for the client, logging one that
// is not the engine's (an internal failure).
func engineError(log *slog.Logger, err error, query string) *apiError {
	e, known := fromEngine(err, query)
	if !known {
		log.Error("query failed", "error", err)
	}
	return e
}

// engineError is engineError with the query's logger.
func (q *runningQuery) engineError(err error, query string) *apiError {
	return engineError(q.log, err, query)
}
