package http

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// chunkRecorder records each write, as fasthttp frames each as a chunk.
type chunkRecorder struct {
	chunks [][]byte
	failAt int // the write that fails (1-based), 0 for none
}

func (c *chunkRecorder) Write(p []byte) (int, error) {
	if c.failAt > 0 && len(c.chunks)+1 == c.failAt {
		return 0, errors.New("connection reset")
	}
	c.chunks = append(c.chunks, append([]byte(nil), p...))
	return len(p), nil
}

// streamOf writes n pieces of size bytes, flushing after each as the
// answers' writers do, and records the error its last flush saw.
func streamOf(n, size int, ended *error) func(*bufio.Writer) {
	return func(bw *bufio.Writer) {
		for i := 0; i < n; i++ {
			if _, err := bw.Write(bytes.Repeat([]byte{byte('a' + i)}, size)); err != nil {
				*ended = err
				return
			}
			if err := bw.Flush(); err != nil {
				*ended = err
				return
			}
		}
		*ended = nil
	}
}

// TestDirectBodyWritesEachFlushAsOneChunk: a 64 KiB flush reaches the
// connection as one write (one HTTP chunk), not as 4 KiB pieces.
func TestDirectBodyWritesEachFlushAsOneChunk(t *testing.T) {
	ended := errors.New("not run")
	d := &directBody{sw: streamOf(3, 64<<10, &ended)}
	var rec chunkRecorder
	n, err := d.WriteTo(&rec)
	if err != nil || ended != nil {
		t.Fatalf("WriteTo: %v, the writer ended with %v", err, ended)
	}
	if n != 3*64<<10 || len(rec.chunks) != 3 {
		t.Fatalf("wrote %d bytes in %d chunks, want %d in 3", n, len(rec.chunks), 3*64<<10)
	}
	for i, c := range rec.chunks {
		if len(c) != 64<<10 || c[0] != byte('a'+i) || c[len(c)-1] != byte('a'+i) {
			t.Fatalf("chunk %d: %d bytes starting %q", i, len(c), c[:1])
		}
	}
	if _, err := d.WriteTo(&rec); err == nil {
		t.Fatal("a second WriteTo wrote the body again")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDirectBodyFailedWriteEndsTheWriter: the connection's failure is
// the writer's failed flush, and WriteTo reports it.
func TestDirectBodyFailedWriteEndsTheWriter(t *testing.T) {
	var ended error
	d := &directBody{sw: streamOf(5, 8<<10, &ended)}
	rec := chunkRecorder{failAt: 2}
	if _, err := d.WriteTo(&rec); err == nil {
		t.Fatal("WriteTo hid the connection's failure")
	}
	if ended == nil || len(rec.chunks) != 1 {
		t.Fatalf("the writer ended with %v after %d chunks, want a failure after 1", ended, len(rec.chunks))
	}
}

// TestDirectBodyClosedUnsentRunsTheWriter: a body never sent still runs
// its writer, which fails at once and so ends its query.
func TestDirectBodyClosedUnsentRunsTheWriter(t *testing.T) {
	ended := errors.New("not run")
	d := &directBody{sw: streamOf(2, 100, &ended)}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(ended, errBodyDropped) {
		t.Fatalf("the writer ended with %v, want %v", ended, errBodyDropped)
	}
}

// TestDirectBodyRead: a reader gets the same bytes through the pipe.
func TestDirectBodyRead(t *testing.T) {
	var ended error
	d := &directBody{sw: streamOf(3, 10_000, &ended)}
	b, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if len(b) != 30_000 || b[0] != 'a' || b[10_000] != 'b' || b[29_999] != 'c' || ended != nil {
		t.Fatalf("read %d bytes, the writer ended with %v", len(b), ended)
	}
}
