package http

import (
	"bufio"
	"log/slog"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// A result is written straight from batches into one pooled buffer. Up
// to streamAfter bytes it is sent as a whole body, with its status known;
// past that the response is committed (200, chunked) and the buffer is
// flushed every streamChunk bytes, so that the server's memory does not
// grow with the result.
//
// An error after the response was committed cannot change its status.
// The body then ends, still valid JSON, with the spec's error object in
// place of "metadata" (or "summary"):
//
//	{"schema":{…},"data":[…rows sent so far…],"error":{"code":"40003","category":"TIMEOUT","message":"…"}}
//
// A client reading a 200 must therefore check for "error" at the end of
// the body (docs/http-api.md, Streaming). A client that goes away while
// its rows are written cancels the query (clientgone.go).

// resultWriter encodes one result.
type resultWriter struct {
	s            *Server
	res          *engine.Result
	bp           *[]byte // the pooled buffer b came from; nil when b is the caller's
	b            []byte
	keys         [][]byte
	enc          *jsonio.Encoder
	first        bool
	experimental bool
	// entry is the result's index in a batch (batch.go), -1 for a
	// response of its own: an entry opens with "index" and closes with
	// "status".
	entry int
	start time.Time
	done  bool // the buffer ends the response
	// log is the request's logger (tracing.go); nil: the server's.
	log *slog.Logger
}

func (s *Server) newResultWriter(res *engine.Result, experimental bool, start time.Time) *resultWriter {
	bp := s.bufs.Get().(*[]byte)
	w := &resultWriter{s: s, res: res, bp: bp, b: (*bp)[:0], experimental: experimental, entry: -1, start: start}
	w.open()
	return w
}

// newEntryWriter encodes the result of a batch's statement index,
// appending to b:
//
//	{"index":…,"schema":{…},"data":[…],"metadata":{…},"status":"success"}
//
// or, when the statement fails after its first rows were sent,
// {"index":…,"schema":{…},"data":[…],"status":"error","error":{…}}.
func (s *Server) newEntryWriter(res *engine.Result, index int, start time.Time, b []byte) *resultWriter {
	w := &resultWriter{s: s, res: res, b: b, entry: index, start: start}
	w.open()
	return w
}

// open writes the response's head: the schema and the opening of data.
func (w *resultWriter) open() {
	w.enc, w.first = &jsonio.Encoder{Ents: w.res.Entities()}, true
	switch {
	case w.experimental:
		w.b = append(w.b, `{"schema":[`...)
	case w.entry >= 0:
		w.b = append(w.b, `{"index":`...)
		w.b = jsonio.AppendInt(w.b, int64(w.entry))
		w.b = append(w.b, `,"schema":{"fields":[`...)
	default:
		w.b = append(w.b, `{"schema":{"fields":[`...)
	}
	w.b, w.keys = jsonio.AppendFields(w.b, w.res.Columns())
	if w.experimental {
		w.b = append(w.b, `],"data":[`...)
	} else {
		w.b = append(w.b, `]},"data":[`...)
	}
}

// fill encodes batches until the buffer holds limit bytes or the result
// ends; done reports the end, after which the buffer holds the whole
// response.
func (w *resultWriter) fill(limit int) (done bool, err error) {
	for len(w.b) < limit {
		batch, err := w.res.Next()
		if err != nil {
			return false, err
		}
		if batch == nil {
			w.b = w.appendTail(w.b)
			return true, nil
		}
		w.b, w.first = w.enc.AppendRows(w.b, batch, w.keys, w.first)
	}
	return false, nil
}

// stream writes the committed response: the buffer so far, then chunk
// after chunk. It returns the query's error, or the write's when the
// client went away.
func (s *Server) stream(bw *bufio.Writer, w *resultWriter) error {
	for {
		if _, err := bw.Write(w.b); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if w.done {
			return nil
		}
		w.b = w.b[:0]
		done, err := w.fill(streamChunk)
		if err != nil {
			e, known := fromEngine(err, "")
			log := w.log
			if log == nil {
				log = s.log
			}
			if known {
				log.Info("query failed while its rows were streamed", "code", e.code, "error", err)
			} else {
				log.Error("query failed while its rows were streamed", "error", err)
			}
			w.b = w.appendFailure(w.b, e)
			if _, werr := bw.Write(w.b); werr == nil {
				_ = bw.Flush()
			}
			return err
		}
		w.done = done
	}
}

// appendTail closes the data array and writes the summary.
func (w *resultWriter) appendTail(b []byte) []byte {
	sum := w.res.Summary()
	elapsed := time.Since(w.start)
	if w.experimental {
		b = append(b, `],"summary":{"rows":`...)
		b = jsonio.AppendInt(b, sum.RowsReturned)
		b = append(b, `,"time_ms":`...)
		b = jsonio.AppendFloat(b, float64(elapsed.Microseconds())/1000)
		return w.closeObject(appendProfileField(append(b, '}'), w.res))
	}
	b = append(b, `],"metadata":{"rows_returned":`...)
	b = jsonio.AppendInt(b, sum.RowsReturned)
	b = append(b, `,"execution_time_ms":`...)
	b = jsonio.AppendInt(b, elapsed.Milliseconds())
	b = append(b, `,"rows_scanned":`...)
	b = jsonio.AppendInt(b, sum.RowsScanned)
	b = jsonio.AppendWriteCounts(b, sum)
	return w.closeObject(appendProfileField(append(b, '}'), w.res))
}

// appendProfileField adds ,"profile":{…} when the query was profiled.
func appendProfileField(b []byte, res *engine.Result) []byte {
	if p := res.Profile(); p != nil {
		b = append(b, `,"profile":`...)
		b = appendProfile(b, p)
	}
	return b
}

// closeObject ends the response object (a batch entry with its status).
func (w *resultWriter) closeObject(b []byte) []byte {
	if w.entry >= 0 {
		b = append(b, `,"status":"success"`...)
	}
	return append(b, '}')
}

// appendFailure closes the data array and the object with the error
// that ended the rows.
func (w *resultWriter) appendFailure(b []byte, e *apiError) []byte {
	b = append(b, `],`...)
	if w.entry >= 0 {
		b = append(b, `"status":"error",`...)
	}
	b = append(b, `"error":`...)
	b = appendErrorObject(b, e)
	return append(b, '}')
}

// close ends the result.
func (w *resultWriter) close() { w.res.Close() }

// release returns the buffer to the pool, unless it grew past what is
// worth keeping (one huge row) or it is the caller's.
func (w *resultWriter) release() {
	if w.bp == nil {
		w.b = nil
		return
	}
	w.s.releaseBuf(w.bp, w.b)
	w.b = nil
}

// releaseBuf puts b, taken from the pool as bp, back.
func (s *Server) releaseBuf(bp *[]byte, b []byte) {
	if cap(b) <= 4*streamAfter {
		*bp = b[:0]
		s.bufs.Put(bp)
	}
}
