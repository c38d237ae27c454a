package http

import (
	"bufio"
	"errors"
	"io"
	"sync"

	"github.com/valyala/fasthttp"
)

// A streamed answer (a large result, as JSON or Arrow, and an
// auto-commit batch) is written by a fasthttp.StreamWriter, which writes
// a buffer of up to streamChunk bytes and flushes it, over and over.
//
// fasthttp's SetBodyStreamWriter runs that writer in a goroutine behind
// a pipe and reads the pipe 4 KiB at a time, each read sent as its own
// HTTP chunk with a system call: every byte is copied once more and a
// 100 MB answer costs 25,000 writes. directBody gives fasthttp the
// writer itself instead (fasthttp.BodyWriterTo): each flush is one HTTP
// chunk written straight to the connection.

// directBody is a response body written by sw.
type directBody struct {
	sw      fasthttp.StreamWriter
	started bool
	pipe    io.ReadCloser // when fasthttp reads the body instead
}

// setStreamBody makes sw write the response body, chunked.
func setStreamBody(ctx *fasthttp.RequestCtx, sw fasthttp.StreamWriter) {
	ctx.Response.SetBodyStream(&directBody{sw: sw}, -1)
}

var streamBufs = sync.Pool{New: func() any { return bufio.NewWriter(nil) }}

// SupportsBodyWriteTo says WriteTo writes what Read would give.
func (d *directBody) SupportsBodyWriteTo() bool { return true }

// WriteTo runs the stream writer over w, which frames each write as an
// HTTP chunk. The writer sees a failed write as a failed flush and ends
// its stream (and its query), as it did behind the pipe.
func (d *directBody) WriteTo(w io.Writer) (int64, error) {
	if d.started {
		return 0, errors.New("the response body was already written")
	}
	d.started = true
	cw := &countingWriter{w: w}
	bw := streamBufs.Get().(*bufio.Writer)
	bw.Reset(cw)
	d.sw(bw)
	err := bw.Flush()
	bw.Reset(nil)
	streamBufs.Put(bw)
	if cw.err != nil {
		err = cw.err
	}
	return cw.n, err
}

// Read serves a caller that reads the body rather than have it written
// (none of fasthttp's paths for a chunked body does): the stream writer
// then runs behind fasthttp's pipe.
func (d *directBody) Read(p []byte) (int, error) {
	if d.pipe == nil {
		if d.started {
			return 0, io.EOF
		}
		d.started = true
		d.pipe = fasthttp.NewStreamReader(d.sw)
	}
	return d.pipe.Read(p)
}

// Close ends the body. A body never written (a HEAD request, a
// connection lost before the answer) still runs its writer, against a
// writer that fails at once, so that its query ends and its buffers go
// back as on any failed send.
func (d *directBody) Close() error {
	if d.pipe != nil {
		return d.pipe.Close()
	}
	if !d.started {
		d.started = true
		d.sw(bufio.NewWriterSize(failingWriter{}, 16))
	}
	return nil
}

// countingWriter counts what reaches w and keeps its first error.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// errBodyDropped is the failure of a body that was never sent.
var errBodyDropped = errors.New("the response was not sent")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errBodyDropped }
