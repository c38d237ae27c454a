package http

import (
	"bufio"
	"context"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// POST /api/v1/batch runs a list of statements in request order
// (docs/transactions.md, Batches):
//
//	{"queries":[{"query":…,"parameters":{…}}, …], "transaction":true|false,
//	 "isolation_level":…}
//	→ {"results":[{"index":0,"schema":{…},"data":[…],"metadata":{…},"status":"success"}, …],
//	   "total_time_ms":…}
//
// transaction true: one engine transaction, all or nothing. The first
// statement that fails rolls it back and the answer is that error, with
// its HTTP status and details.index naming the statement; a failed
// commit (a conflict) is answered the same way, without an index. The
// results are built in memory, at most Config.MaxBatchResultBytes.
//
// transaction false: every statement is its own auto-commit statement.
// One that fails has the entry {"index":…,"status":"error","error":{…}}
// and the others still run; the status is 200. The response streams,
// entry after entry, so it has no size bound.

// MaxBatchQueries bounds the statements of one batch.
const MaxBatchQueries = 1000

// catResource is errs.CatResource, the category of 53xxx errors (the
// engine does not re-export it).
const catResource = "RESOURCE_EXHAUSTED"

// batchRequest is a decoded batch.
type batchRequest struct {
	queries     []batchQuery
	transaction bool
	isolation   engine.IsolationLevel
	graph       string // the graph every statement runs on ("": the default)
}

type batchQuery struct {
	query  string
	params engine.Params
}

// decodeBatchRequest decodes a batch body; a malformed statement's 400
// names its index in details.index.
func decodeBatchRequest(body []byte) (*batchRequest, *apiError) {
	const what = `with a "queries" field`
	obj, e := decodeObject(body, what)
	if e != nil {
		return nil, e
	}
	req := &batchRequest{}
	if req.transaction, e = boolField(obj, "transaction"); e != nil {
		return nil, e
	}
	if req.isolation, e = isolationField(obj); e != nil {
		return nil, e
	}
	if req.graph, e = stringField(obj, "graph"); e != nil {
		return nil, e
	}
	if req.isolation != 0 && !req.transaction {
		return nil, badRequest("\"isolation_level\" applies to a batch with \"transaction\": true only")
	}
	raw, present := obj["queries"]
	if !present {
		return nil, badRequest("the request has no \"queries\" field")
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, badRequest("\"queries\" must be an array of {\"query\", \"parameters\"} objects")
	}
	switch {
	case len(list) == 0:
		return nil, badRequest("\"queries\" is empty: a batch runs at least one statement")
	case len(list) > MaxBatchQueries:
		return nil, badRequest(fmt.Sprintf("the batch has %d statements, more than the limit of %d: split it", len(list), MaxBatchQueries))
	}
	req.queries = make([]batchQuery, len(list))
	for i, item := range list {
		q, e := decodeBatchQuery(item)
		if e != nil {
			e.message = fmt.Sprintf("queries[%d]: %s", i, e.message)
			e.index, e.batchIndex = i, true
			return nil, e
		}
		req.queries[i] = q
	}
	return req, nil
}

func decodeBatchQuery(item any) (batchQuery, *apiError) {
	obj, ok := item.(map[string]any)
	if !ok {
		return batchQuery{}, badRequest("a statement must be a JSON object with a \"query\" field")
	}
	var q batchQuery
	var e *apiError
	if q.query, e = queryField(obj); e != nil {
		return q, e
	}
	q.params, e = paramsField(obj, "parameters")
	return q, e
}

// handleBatch serves POST /api/v1/batch.
func (s *Server) handleBatch(ctx *fasthttp.RequestCtx) {
	req, e := decodeBatchRequest(ctx.PostBody())
	if e != nil {
		s.writeError(ctx, e)
		return
	}
	if s.followerRoutes(req) {
		s.writeNotLeader(ctx, nil)
		return
	}
	if req.transaction {
		s.runBatchTransaction(ctx, req)
	} else {
		s.runBatchAutoCommit(ctx, req)
	}
}

// followerRoutes reports whether the batch holds a write and this
// server is a member of a cluster that does not lead: the batch is then
// routed as a whole (307 to the leader, or 25006 naming it) before any
// of its statements runs, transaction or not. A read-only batch runs
// here.
func (s *Server) followerRoutes(req *batchRequest) bool {
	c := s.cfg.Cluster
	if c == nil || c.Role() == "leader" {
		return false
	}
	for _, q := range req.queries {
		if engine.Writes(q.query) {
			return true
		}
	}
	return false
}

// runBatchTransaction runs the batch in one transaction and answers once
// it committed, or with the error that rolled it back.
func (s *Server) runBatchTransaction(ctx *fasthttp.RequestCtx, req *batchRequest) {
	tx, err := s.db.BeginTransaction(engine.TransactionOptions{Isolation: req.isolation, Client: clientOf(ctx), Owner: ownerOf(ctx),
		Graph: req.graph, Principal: requestPrincipal(ctx)})
	if err != nil {
		s.queryError(ctx, err, "")
		return
	}
	q := s.startQuery(ctx, 0)
	bp := s.bufs.Get().(*[]byte)
	b := append((*bp)[:0], `{"results":[`...)
	fail := func(e *apiError) {
		if _, err := tx.Rollback(); err != nil {
			// It ended meanwhile (expired): rolled back all the same.
			q.log.Info("a batch's transaction ended before its rollback", "error", err)
		}
		q.release()
		s.releaseBuf(bp, b)
		s.writeError(ctx, e)
	}
	for i, bq := range req.queries {
		start := time.Now()
		if i > 0 {
			b = append(b, ',')
		}
		var w *resultWriter
		w, b, err = s.startEntry(q.ctx, tx.Run, b, i, bq, start)
		full := false
		if w != nil {
			w.log = q.log
			var done bool
			done, err = w.fill(s.cfg.MaxBatchResultBytes)
			full = err == nil && !done
			w.close()
			b = w.b
		}
		q.report(start, err, q.clientGone())
		switch {
		case err != nil:
			e := q.engineError(err, bq.query)
			e.message = fmt.Sprintf("statement %d of the batch failed, nothing was applied: %s", i, e.message)
			e.index, e.batchIndex = i, true
			fail(e)
			return
		case full:
			fail(&apiError{status: statusOf(engine.CodeOutOfMemory), code: engine.CodeOutOfMemory, category: catResource,
				index: i, batchIndex: true,
				message: fmt.Sprintf("the results of the batch exceed %d bytes at statement %d, nothing was applied: return fewer rows (LIMIT) or send smaller batches", s.cfg.MaxBatchResultBytes, i)})
			return
		}
	}
	if _, err := tx.Commit(); err != nil {
		e := q.engineError(err, "")
		e.message = "the batch's transaction did not commit, nothing was applied: " + e.message
		q.release()
		s.releaseBuf(bp, b)
		s.writeError(ctx, e)
		return
	}
	q.release()
	b = appendBatchTail(b, q.start)
	ctx.SetContentType("application/json")
	ctx.SetBody(b) // SetBody copies, so the buffer can go back to the pool
	s.releaseBuf(bp, b)
}

// runBatchAutoCommit runs each statement on its own and streams the
// entries: the status is 200 whatever they do. Entries gather in one
// buffer that is sent every streamChunk bytes; a result larger than that
// streams its rows as a single query's do (stream.go).
func (s *Server) runBatchAutoCommit(ctx *fasthttp.RequestCtx, req *batchRequest) {
	q := s.startQuery(ctx, 0)
	if req.graph != "" {
		q.ctx = engine.WithGraph(q.ctx, req.graph)
	}
	ctx.SetContentType("application/json")
	setStreamBody(ctx, func(bw *bufio.Writer) {
		defer q.release()
		bp := s.bufs.Get().(*[]byte)
		b := append((*bp)[:0], `{"results":[`...)
		defer func() { s.releaseBuf(bp, b) }()
		for i, bq := range req.queries {
			// A sending error is sticky in bw, and Flush reports it (the
			// buffer is empty here: every write above flushes or goes
			// straight through).
			if q.ctx.Err() != nil || bw.Flush() != nil {
				return // the client is gone: nobody would learn what the rest did
			}
			start := time.Now()
			if i > 0 {
				b = append(b, ',')
			}
			w, nb, err := s.startEntry(q.ctx, s.db.Run, b, i, bq, start)
			b = nb
			if w != nil {
				w.log = q.log
			}
			if err != nil {
				b = appendEntryError(b, i, q.engineError(err, bq.query))
			}
			if w != nil {
				done, ferr := w.fill(streamChunk)
				switch {
				case ferr != nil:
					w.b = w.appendFailure(w.b, q.engineError(ferr, bq.query))
					err = ferr
				case !done:
					err = s.stream(bw, w) // sends the buffer, then the rest of the rows
					w.b = w.b[:0]
				}
				w.close()
				b = w.b
			}
			q.report(start, err, q.clientGone())
			if len(b) >= streamChunk {
				if _, werr := bw.Write(b); werr != nil {
					return // the client is gone
				}
				b = b[:0]
			}
		}
		b = appendBatchTail(b, q.start)
		if _, err := bw.Write(b); err == nil {
			_ = bw.Flush()
		}
	})
}

// startEntry runs statement i of a batch with run and starts its entry
// in b. When the statement fails at once, err says why and b is
// returned as it was. An entry complete at once (an EXPLAIN's plan) is
// appended to the returned slice and w is nil; otherwise w encodes the
// rows, its buffer continuing b, and must be closed.
func (s *Server) startEntry(ctx context.Context, run runner, b []byte, i int, bq batchQuery, start time.Time) (w *resultWriter, _ []byte, err error) {
	res, err := run(ctx, engine.ModeAsWritten, bq.query, bq.params)
	if err != nil {
		return nil, b, err
	}
	if ex := res.Plan(); ex != nil {
		res.Close()
		b = append(b, `{"index":`...)
		b = jsonio.AppendInt(b, int64(i))
		b = append(b, `,"explain":`...)
		b = appendExplain(b, ex)
		return nil, append(b, `,"status":"success"}`...), nil
	}
	return s.newEntryWriter(res, i, start, b), nil, nil
}

// appendEntryError writes the entry of a statement that failed before
// any of its rows: {"index":…,"status":"error","error":{…}}.
func appendEntryError(b []byte, i int, e *apiError) []byte {
	b = append(b, `{"index":`...)
	b = jsonio.AppendInt(b, int64(i))
	b = append(b, `,"status":"error","error":`...)
	b = appendErrorObject(b, e)
	return append(b, '}')
}

// appendBatchTail closes the results and writes the batch's time.
func appendBatchTail(b []byte, start time.Time) []byte {
	b = append(b, `],"total_time_ms":`...)
	b = jsonio.AppendFloat(b, millis(time.Since(start)))
	return append(b, '}')
}
