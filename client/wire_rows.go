package client

import (
	"context"
	"errors"
	"fmt"
)

// WireColumn is one column of a result, as SCHEMA describes it.
type WireColumn struct {
	Name string
	// Type is the column's type: BOOLEAN, INTEGER, FLOAT, STRING, LIST,
	// MAP, NODE, RELATIONSHIP, PATH, DATE, TIME, DATETIME, DURATION,
	// NULL or ANY.
	Type string
}

// WireRows streams one result. Call Next until it returns false, then
// Err; Close releases the result early (the server discards the rest).
// Row values are nil, bool, int64, float64, string, []any and
// map[string]any (a node is {"id","labels","properties"}, a
// relationship {"id","type","start","end","properties"}, a path
// {"nodes","relationships"}; temporal values are ISO 8601 strings).
type WireRows struct {
	s    *WireSession
	ctx  context.Context
	cols []WireColumn
	// vals holds the rows of the last BINDINGS, each row's values in
	// column order one after another; cur is the current row's.
	vals    []any
	nrows   int
	i       int // row i-1 is the current one
	cur     []any
	row     map[string]any // Row's map of cur, made when asked for
	paused  bool           // the server waits for PULL or DISCARD
	done    bool
	err     error
	summary map[string]any
	txID    string
	plan    map[string]any
	profile map[string]any
}

// Columns describes the result's columns.
func (r *WireRows) Columns() []WireColumn { return r.cols }

// Next moves to the next row, reading and pulling more from the server
// as needed; false at the end or on an error (see Err).
func (r *WireRows) Next() bool {
	for {
		if r.i < r.nrows {
			nc := len(r.cols)
			r.cur, r.row = r.vals[r.i*nc:(r.i+1)*nc:(r.i+1)*nc], nil
			r.i++
			return true
		}
		r.cur, r.row = nil, nil
		if r.done {
			return false
		}
		if err := r.read(); err != nil {
			r.finish(err)
			return false
		}
	}
}

// read reads the next message of the result, pulling first when the
// server waits.
func (r *WireRows) read() error {
	s := r.s
	stop := s.watch(r.ctx)
	defer stop()
	if r.paused {
		if err := s.send(map[string]any{"type": "PULL", "n": s.opts.FetchSize}); err != nil {
			return err
		}
		r.paused = false
	}
	if s.broken != nil {
		return s.broken
	}
	line, err := s.readLine()
	if err != nil {
		s.fail(err)
		return s.broken
	}
	// BINDINGS, the common message, is read into vals without a map
	// where fastjson takes the line (fastTakes; nesting within its
	// limit); any other line is decoded the standard way.
	if fastTakes(line) {
		if v, err := s.parser.ParseBytes(line); err == nil && string(v.GetStringBytes("type")) == "BINDINGS" {
			r.vals, r.nrows, r.paused = s.decodeRows(v, r.cols, r.vals)
			r.i = 0
			return nil
		}
	}
	m, err := s.decodeLine(line)
	if err != nil {
		return err
	}
	switch m["type"] {
	case "BINDINGS":
		r.vals, r.nrows, r.paused = mapRows(m, r.cols, r.vals)
		r.i = 0
	case "PROFILE":
		r.profile = m
	case "EXPLAIN":
		r.plan = m
	case "SUCCESS":
		s.noteBookmark(m)
		r.summary, _ = m["summary"].(map[string]any)
		r.txID, _ = m["transaction_id"].(string)
		r.finish(nil)
	case "ERROR":
		r.finish(wireError(m))
	default:
		err := fmt.Errorf("client: the server sent %v in the middle of a result", m["type"])
		s.fail(err)
		return err
	}
	return nil
}

func (r *WireRows) finish(err error) {
	if r.done {
		return
	}
	r.done, r.err, r.vals, r.nrows = true, err, nil, 0
	if r.s.rows == r {
		r.s.rows = nil
	}
}

// Row is the current row, keyed by column name: a new map for each row
// (Values reads one without it).
func (r *WireRows) Row() map[string]any {
	if r.row == nil && r.cur != nil {
		r.row = make(map[string]any, len(r.cols))
		for i, c := range r.cols {
			r.row[c.Name] = r.cur[i]
		}
	}
	return r.row
}

// Values is the current row's values in column order. The slice is the
// client's until the next call of Next: copy what you keep.
func (r *WireRows) Values() []any { return r.cur }

// Err is the error that ended the rows (an *Error when the server
// answered with one), nil at a normal end.
func (r *WireRows) Err() error { return r.err }

// Summary is the SUCCESS summary (rows, time_ms, nodes_created, …),
// complete once Next returned false.
func (r *WireRows) Summary() map[string]any { return r.summary }

// Plan is the EXPLAIN message of an EXPLAIN statement (plan,
// estimated_total_cost, estimated_rows, rules); nil otherwise.
func (r *WireRows) Plan() map[string]any { return r.plan }

// Profile is the PROFILE message of a PROFILE statement (total_time_ms,
// operators), complete once Next returned false; nil otherwise.
func (r *WireRows) Profile() map[string]any { return r.profile }

// Close ends the result: the rows the client has not read are
// discarded on the server, without being sent. Its error is the
// session's failure, if one happened (the result's own error is Err's).
func (r *WireRows) Close() error {
	for !r.done {
		r.nrows, r.i = 0, 0
		if r.paused {
			s := r.s
			stop := s.watch(r.ctx)
			err := s.send(map[string]any{"type": "DISCARD"})
			stop()
			if err != nil {
				r.finish(err)
				break
			}
			r.paused = false
		}
		if err := r.read(); err != nil {
			r.finish(err)
		}
	}
	r.vals, r.cur = nil, nil
	var se *Error
	if errors.As(r.err, &se) {
		return nil // the result's own error: Err reports it
	}
	return r.err
}

// WireTx is a session's open transaction: statements run in it until
// Commit or Rollback. Closing the session rolls it back.
type WireTx struct {
	s  *WireSession
	id string
}

// Begin opens a transaction. isolation is READ_COMMITTED (""),
// REPEATABLE_READ or SERIALIZABLE; a session holds one at a time.
func (s *WireSession) Begin(ctx context.Context, isolation string) (*WireTx, error) {
	m := map[string]any{"type": "BEGIN"}
	if isolation != "" {
		m["isolation_level"] = isolation
	}
	ans, err := s.request(ctx, s.withBookmark(m))
	var e *Error
	if errors.As(err, &e) && e.Code == CodeNotLeader && e.LeaderAddress != "" && !s.inTx {
		// BEGIN on a member that does not lead: once to the leader.
		if rerr := s.reconnect(ctx, e.LeaderAddress); rerr != nil {
			e.Message += " (" + rerr.Error() + ")"
			return nil, e
		}
		ans, err = s.request(ctx, s.withBookmark(m))
	}
	if err != nil {
		return nil, err
	}
	id, _ := ans["transaction_id"].(string)
	if id == "" {
		return nil, errors.New("client: BEGIN was answered without a transaction_id")
	}
	s.inTx = true
	return &WireTx{s: s, id: id}, nil
}

// ID is the transaction's id.
func (t *WireTx) ID() string { return t.id }

// Run runs a statement in the transaction (see WireSession.Run).
func (t *WireTx) Run(ctx context.Context, query string, params map[string]any) (*WireRows, error) {
	return t.s.run(ctx, query, params, t.id)
}

// Commit commits the transaction. A conflict with a concurrent commit
// is an *Error with code 40001 (retry the transaction); the transaction
// is over either way.
func (t *WireTx) Commit(ctx context.Context) error {
	_, err := t.s.request(ctx, map[string]any{"type": "COMMIT", "transaction_id": t.id})
	t.s.inTx = false
	return err
}

// Rollback discards the transaction's writes.
func (t *WireTx) Rollback(ctx context.Context) error {
	_, err := t.s.request(ctx, map[string]any{"type": "ROLLBACK", "transaction_id": t.id})
	t.s.inTx = false
	return err
}
