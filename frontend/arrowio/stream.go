package arrowio

import (
	"encoding/binary"
	"io"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// A result travels as one IPC stream: the schema message, a record
// batch message per engine batch, and the end-of-stream marker
// (FF FF FF FF 00 00 00 00).
//
// An error after the first bytes were sent cannot change the response's
// status, and a stream that merely stopped would read as a whole,
// shorter result (the end-of-stream marker is optional to readers). The
// stream then ends with a message that announces more metadata than it
// has:
//
//	FF FF FF FF   continuation marker
//	int32 LE      len(error JSON) + 8: eight bytes more than follow
//	error JSON    {"error":{"code":…,"category":…,"message":…}}
//	(end of the response)
//
// Every Arrow reader fails on it (a short read of a message's metadata:
// arrow-go's "unexpected EOF", pyarrow's "Expected to read N metadata
// bytes", apache-arrow's "Expected to read N metadata bytes, but only
// read M"), and the JSON after the marker says why. The announced length
// is only eight bytes past the end, so a reader that allocates what a
// message announces allocates no more than the error's size.

// Codec is a body compression of the IPC stream.
type Codec string

// The codecs a client may ask for.
const (
	CodecNone Codec = ""
	CodecLZ4  Codec = "lz4"
	CodecZstd Codec = "zstd"
)

// ParseCodec reads the compression parameter of the Accept header:
// "lz4" (LZ4 frame), "zstd", or "none"/"" for none.
func ParseCodec(s string) (Codec, bool) {
	switch s {
	case "", "none":
		return CodecNone, true
	case "lz4", "lz4_frame":
		return CodecLZ4, true
	case "zstd":
		return CodecZstd, true
	}
	return "", false
}

// Writer writes one result as an IPC stream.
type Writer struct {
	enc *Encoder
	ipc *ipc.Writer
}

// NewWriter writes to w the stream of a result with columns cols,
// compressed with codec.
func NewWriter(w io.Writer, cols []engine.Column, ents engine.Entities, codec Codec) *Writer {
	mem := memory.DefaultAllocator
	enc := NewEncoder(mem, cols, ents)
	opts := []ipc.Option{ipc.WithSchema(enc.Schema()), ipc.WithAllocator(mem)}
	switch codec {
	case CodecLZ4:
		opts = append(opts, ipc.WithLZ4())
	case CodecZstd:
		opts = append(opts, ipc.WithZstd())
	}
	return &Writer{enc: enc, ipc: ipc.NewWriter(w, opts...)}
}

// Write writes one batch (the schema first, with the first batch).
func (w *Writer) Write(b *vector.Batch) error {
	rec, err := w.enc.Record(b)
	if err != nil {
		return err
	}
	defer rec.Release()
	return w.ipc.Write(rec)
}

// Close ends a complete stream: the schema, when no batch was written,
// and the end-of-stream marker.
func (w *Writer) Close() error {
	w.enc.Release()
	return w.ipc.Close()
}

// Abandon releases the writer of a stream that failed, writing nothing.
func (w *Writer) Abandon() { w.enc.Release() }

// AppendFailure appends the end of a stream that failed after it began:
// the truncated message that carries errJSON (see above).
func AppendFailure(b, errJSON []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, 0xFFFFFFFF)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(errJSON)+8))
	return append(b, errJSON...)
}
