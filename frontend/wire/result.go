package wire

import (
	"context"
	"fmt"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
	"github.com/quiverdb/quiver/vector"
)

// Results stream under flow control (docs/wire-protocol.md, PULL). The
// server sends SCHEMA, then rows in BINDINGS messages until the client's
// credit is spent: Config.Window rows at first, then n more for each
// PULL (all for n = -1). When the credit is spent and at least one row
// is left, the last BINDINGS carries "has_more":true and the server
// waits for PULL or DISCARD, holding one batch of rows and nothing else:
// a client that does not pull costs no memory however large its result.
// The query's deadline, the idle timeout and the shutdown still end the
// wait. Any other message ends the paused result with an ERROR and is
// then answered as usual.

// bindingsBytes closes a BINDINGS message once it holds this much: a
// message stays small whatever the window (one row can be larger).
const bindingsBytes = 32 << 10

// runGQL answers RUN_GQL, and logs the query's line (reportQuery).
func (s *session) runGQL(m *message) {
	txn, werr := s.txnFor(m.txID)
	if werr != nil {
		s.sendError(werr)
		return
	}
	start := time.Now()
	werr = s.runQuery(m, txn, start)
	if werr != nil {
		s.sendError(werr)
	}
	s.reportQuery(start, werr)
}

// runQuery runs the statement and writes its result; it returns the
// ERROR that ends it instead, if any.
func (s *session) runQuery(m *message, txn *engine.Transaction, start time.Time) *wireError {
	qctx, cancel := s.queryContext(m.timeout)
	defer cancel()
	if werr := s.clusterGate(qctx, m); werr != nil {
		return werr
	}
	var res *engine.Result
	var err error
	if m.graph != "" {
		qctx = engine.WithGraph(qctx, m.graph)
	}
	if txn != nil {
		res, err = txn.Run(qctx, engine.ModeAsWritten, m.query, m.params)
	} else {
		res, err = s.es.Run(qctx, engine.ModeAsWritten, m.query, m.params)
	}
	if err != nil {
		return s.queryFailure(err)
	}
	defer res.Close()
	sum := resultSummary{stats: m.includeStats}
	if txn != nil {
		sum.txID = txn.ID()
	}
	if ex := res.Plan(); ex != nil {
		s.out = appendExplain(s.out, ex)
		sum.elapsed, sum.bookmark = time.Since(start), s.bookmark()
		s.out = appendResultSuccess(s.out, sum)
		return nil
	}
	st := &rowStream{s: s, res: res, enc: jsonio.Encoder{Ents: res.Entities()}, credit: int64(s.srv.cfg.Window), msg: -1}
	s.out, st.keys = appendSchema(s.out, res.Columns())
	werr, err := st.run(qctx)
	switch {
	case werr != nil:
		return werr
	case err != nil:
		return s.queryFailure(err)
	}
	res.Close()
	if p := res.Profile(); p != nil && !st.discarded {
		s.out = appendProfile(s.out, p)
	}
	sum.rows, sum.elapsed, sum.sum, sum.discarded, sum.bookmark = st.rows, time.Since(start), res.Summary(), st.discarded, s.bookmark()
	s.out = appendResultSuccess(s.out, sum)
	return nil
}

// queryContext is the context a query runs under: it ends with the
// connection, and at the session's query_timeout or the message's
// options.timeout_ms, whichever is sooner. The engine enforces the
// session's limit itself; the server needs the deadline too, to end a
// result that waits for PULL.
func (s *session) queryContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	d, what := s.es.QueryTimeout(), "query_timeout"
	if timeout > 0 && (d <= 0 || timeout < d) {
		d, what = timeout, "options.timeout_ms"
	}
	ctx := s.withPrincipal(s.ctx)
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, &engine.Error{Code: engine.CodeTimeout, Category: engine.CatTimeout,
		Message: fmt.Sprintf("query exceeded its time limit (%s %d ms)", what, d.Milliseconds())})
}

// queryError sends a query's error (queryFailure).
func (s *session) queryError(err error) { s.sendError(s.queryFailure(err)) }

// queryFailure is the ERROR of a query's error; one that is not the
// engine's is logged (an internal failure).
func (s *session) queryFailure(err error) *wireError {
	e, known := fromEngine(err)
	if !known {
		s.srv.log.Error("wire query failed", "error", err, "session_id", s.id)
	}
	if e.code == engine.CodeNotLeader && s.srv.cfg.Cluster != nil {
		return s.notLeader(e)
	}
	return e
}

// rowStream writes one result's rows under flow control.
type rowStream struct {
	s      *session
	res    *engine.Result
	enc    jsonio.Encoder
	keys   [][]byte
	batch  *vector.Batch
	off    int   // the batch's next row to send
	credit int64 // rows the client may still receive; -1: all
	rows   int64 // rows sent
	msg    int   // offset in s.out of the open BINDINGS; -1: none open
	// msgRows counts the open message's rows.
	msgRows   int
	discarded bool
}

// run sends the rows. It ends with the result's end (both errors nil),
// the engine's error, or a protocol error (a fatal one ends the session).
func (st *rowStream) run(qctx context.Context) (*wireError, error) {
	s := st.s
	for {
		if st.batch == nil || st.off >= st.batch.Rows() {
			if len(s.out) >= flushBytes {
				st.closeMessage(false)
				s.flush()
				if s.werr != nil {
					return protocolError(true, "the connection failed"), nil
				}
			}
			b, err := st.res.Next()
			if err != nil || b == nil {
				st.closeMessage(false)
				return nil, err
			}
			st.batch, st.off = b, 0
			continue
		}
		if st.credit == 0 {
			// A row is left and the credit is spent: pause.
			st.closeMessage(true)
			if werr := st.pause(qctx); werr != nil || st.discarded {
				return werr, nil
			}
			continue
		}
		st.writeRows()
		if st.msg < 0 && len(s.out) >= flushBytes {
			s.flush()
			if s.werr != nil {
				return protocolError(true, "the connection failed"), nil
			}
		}
	}
}

// writeRows writes rows of the batch into the open BINDINGS (opening
// one), while credit lasts and the message is small.
func (st *rowStream) writeRows() {
	s := st.s
	if st.msg < 0 {
		st.msg, st.msgRows = len(s.out), 0
		s.out = append(s.out, `{"type":"BINDINGS","data":[`...)
	}
	b := s.out
	n := st.batch.Rows() - st.off
	if st.credit >= 0 && int64(n) > st.credit {
		n = int(st.credit)
	}
	i := 0
	for i < n {
		if st.msgRows > 0 {
			b = append(b, ',')
		}
		r := st.batch.Row(st.off + i)
		b = append(b, '{')
		for c, v := range st.batch.Cols {
			if c > 0 {
				b = append(b, ',')
			}
			b = append(b, st.keys[c]...)
			b = st.enc.AppendCell(b, v, r)
		}
		b = append(b, '}')
		i++
		st.msgRows++
		if len(b)-st.msg >= bindingsBytes {
			break
		}
	}
	s.out = b
	st.off += i
	st.rows += int64(i)
	if st.credit > 0 {
		st.credit -= int64(i)
	}
	if len(b)-st.msg >= bindingsBytes {
		st.closeMessage(false)
	}
}

// closeMessage ends the open BINDINGS, if any; hasMore tells the client
// that the server now waits for PULL or DISCARD.
func (st *rowStream) closeMessage(hasMore bool) {
	if st.msg < 0 {
		return
	}
	if hasMore {
		st.s.out = append(st.s.out, `],"has_more":true}`+"\n"...)
	} else {
		st.s.out = append(st.s.out, "]}\n"...)
	}
	st.msg = -1
}

// pause waits for PULL (more credit) or DISCARD. Any other message ends
// the result with an ERROR and is answered next.
func (st *rowStream) pause(qctx context.Context) *wireError {
	s := st.s
	s.flush()
	if s.werr != nil {
		return protocolError(true, "the connection failed")
	}
	in, why := s.wait(qctx)
	switch why {
	case gotMessage:
	case queryEnded:
		e, _ := fromEngine(stoppedError(qctx))
		return e
	default:
		if e := s.waitError(why); e != nil {
			return e
		}
		return protocolError(true, "the connection closed")
	}
	if in.err == nil {
		switch in.msg.typ {
		case mPull:
			st.credit = in.msg.n
			return nil
		case mDiscard:
			st.discarded = true
			return nil
		}
	}
	s.pending = &in
	name := "a message that is not valid"
	if in.msg != nil {
		name = in.msg.name
	}
	return protocolError(false, "the result waiting for PULL or DISCARD was discarded: %s arrived first", name)
}

// stoppedError is the engine error a query's ended context stands for:
// its cause when that is one (a timeout), otherwise a cancellation.
func stoppedError(ctx context.Context) error {
	cause := context.Cause(ctx)
	if _, ok := engine.AsError(cause); ok {
		return cause
	}
	return &engine.Error{Code: engine.CodeTransaction, Category: engine.CatTransaction, Message: "query cancelled: " + cause.Error()}
}
