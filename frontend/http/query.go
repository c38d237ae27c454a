package http

import (
	"context"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/valyala/fasthttp"
)

// handleQuery serves POST /api/v1/query.
func (s *Server) handleQuery(ctx *fasthttp.RequestCtx) {
	s.runQueryMode(ctx, "parameters", false, modeRun)
}

// handleExperimentalQuery serves the experimental POST /query form.
func (s *Server) handleExperimentalQuery(ctx *fasthttp.RequestCtx) {
	s.runQueryMode(ctx, "params", true, modeRun)
}

// mode is how an endpoint runs a query: as its text says (and its flags),
// or always explained or profiled.
type mode uint8

const (
	modeRun mode = iota
	modeExplain
	modeProfile
)

// runQuery decodes, runs and encodes one query. The whole response is built
// in a pooled buffer before anything is sent, so an error raised while rows
// are produced still becomes a clean error response (streaming very large
// results is future work).
//
// An EXPLAIN (prefix, flag or endpoint) answers the plan shape
// {"plan","estimated_total_cost","estimated_rows"}; a PROFILE answers the
// usual result with a "profile" object added. The explain flag wins when
// both flags are set, since it promises not to run the query.
func (s *Server) runQueryMode(ctx *fasthttp.RequestCtx, paramsKey string, experimental bool, m mode) {
	req, aerr := decodeQueryRequest(ctx.PostBody(), paramsKey)
	if aerr != nil {
		s.writeError(ctx, aerr)
		return
	}
	switch {
	case m != modeRun:
	case req.explain:
		m = modeExplain
	case req.profile:
		m = modeProfile
	}
	qctx := context.Background()
	if req.timeout > 0 {
		var cancel context.CancelFunc
		qctx, cancel = context.WithTimeout(qctx, req.timeout)
		defer cancel()
	}
	start := time.Now()
	var res *engine.Result
	var err error
	switch m {
	case modeExplain:
		res, err = s.db.Explain(qctx, req.query, req.params)
	case modeProfile:
		res, err = s.db.Profile(qctx, req.query, req.params)
	default:
		res, err = s.db.Query(qctx, req.query, req.params)
	}
	if err != nil {
		s.queryError(ctx, err, req.query)
		return
	}
	defer res.Close()
	bp := s.bufs.Get().(*[]byte)
	defer s.bufs.Put(bp)
	var b []byte
	if ex := res.Plan(); ex != nil {
		b = appendExplain((*bp)[:0], ex)
	} else {
		b, err = encodeResult((*bp)[:0], res, experimental, start)
	}
	*bp = b[:0]
	if err != nil {
		s.queryError(ctx, err, req.query)
		return
	}
	ctx.SetContentType("application/json")
	ctx.SetBody(b) // SetBody copies, so the buffer can go back to the pool
	s.log.Debug("query", "rows", res.Summary().RowsReturned, "bytes", len(b), "elapsed", time.Since(start))
}

func (s *Server) queryError(ctx *fasthttp.RequestCtx, err error, query string) {
	e, known := fromEngine(err, query)
	if !known {
		s.log.Error("query failed", "error", err)
	}
	s.writeError(ctx, e)
}

// encodeResult writes the whole result. The API form is
// {"schema":{"fields":[…]},"data":[…],"metadata":{…}}; the experimental
// form is {"schema":[…],"data":[…],"summary":{"rows","time_ms"}}.
func encodeResult(b []byte, res *engine.Result, experimental bool, start time.Time) ([]byte, error) {
	cols := res.Columns()
	keys := make([][]byte, len(cols))
	if experimental {
		b = append(b, `{"schema":[`...)
	} else {
		b = append(b, `{"schema":{"fields":[`...)
	}
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, c.Name)
		b = append(b, `,"type":`...)
		b = appendString(b, c.Type)
		b = append(b, '}')
		keys[i] = append(appendString(nil, c.Name), ':')
	}
	if experimental {
		b = append(b, `],"data":[`...)
	} else {
		b = append(b, `]},"data":[`...)
	}
	enc := &encoder{ents: res.Entities()}
	first := true
	for {
		batch, err := res.Next()
		if err != nil {
			return b, err
		}
		if batch == nil {
			break
		}
		b, first = enc.appendRows(b, batch, keys, first)
	}
	sum := res.Summary()
	elapsed := time.Since(start)
	if experimental {
		b = append(b, `],"summary":{"rows":`...)
		b = appendInt(b, sum.RowsReturned)
		b = append(b, `,"time_ms":`...)
		b = appendFloat(b, float64(elapsed.Microseconds())/1000)
		return appendProfileField(append(b, '}'), res), nil
	}
	b = append(b, `],"metadata":{"rows_returned":`...)
	b = appendInt(b, sum.RowsReturned)
	b = append(b, `,"execution_time_ms":`...)
	b = appendInt(b, elapsed.Milliseconds())
	b = append(b, `,"rows_scanned":`...)
	b = appendInt(b, sum.RowsScanned)
	if sum.Write {
		b = append(b, `,"rows_affected":`...)
		b = appendInt(b, sum.RowsAffected)
		b = append(b, `,"nodes_created":`...)
		b = appendInt(b, sum.NodesCreated)
		b = append(b, `,"relationships_created":`...)
		b = appendInt(b, sum.RelationshipsCreated)
		b = append(b, `,"properties_set":`...)
		b = appendInt(b, sum.PropertiesSet)
		b = append(b, `,"labels_added":`...)
		b = appendInt(b, sum.LabelsAdded)
		b = append(b, `,"nodes_deleted":`...)
		b = appendInt(b, sum.NodesDeleted)
		b = append(b, `,"relationships_deleted":`...)
		b = appendInt(b, sum.RelationshipsDeleted)
		b = append(b, `,"properties_removed":`...)
		b = appendInt(b, sum.PropertiesRemoved)
		b = append(b, `,"labels_removed":`...)
		b = appendInt(b, sum.LabelsRemoved)
	}
	return appendProfileField(append(b, '}'), res), nil
}

// appendProfileField adds ,"profile":{…} when the query was profiled, and
// closes the response object.
func appendProfileField(b []byte, res *engine.Result) []byte {
	if p := res.Profile(); p != nil {
		b = append(b, `,"profile":`...)
		b = appendProfile(b, p)
	}
	return append(b, '}')
}
