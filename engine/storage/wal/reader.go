package wal

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"

	"github.com/klauspost/compress/zstd"
)

// readBuffer is the read-ahead of a frameReader. Frames are mostly small
// commits: reading 256 KiB at a time costs one read per 256 KiB instead
// of two per frame.
const readBuffer = 256 << 10

// badFrame is where a segment stops being a valid log: a frame that is
// incomplete, fails a check, or breaks the first/continuation/last order.
type badFrame struct {
	off      int64  // offset of the bad frame in its file (the file size for a record cut off at the end)
	recStart int64  // offset of the record the bad frame belongs to
	reason   string // what is wrong, for CorruptError
}

func (b *badFrame) Error() string { return fmt.Sprintf("bad frame at offset %d: %s", b.off, b.reason) }

// frame is one frame as frameReader.next returns it.
type frame struct {
	off    int64
	flags  byte
	stored []byte // only when next was asked to keep it; valid until the next call
}

// frameReader reads the frames of one segment file in order. It reads at
// most size bytes, the part of the file that belongs to the log.
type frameReader struct {
	r     io.ReaderAt
	base  LSN   // LSN of offset 0
	size  int64 // bytes of the file to read
	limit int   // frame limit: no frame is longer
	off   int64 // offset of the next frame
	br    *bufio.Reader
	buf   []byte // stored bytes of the last frame kept
}

func newFrameReader(r io.ReaderAt, base LSN, size int64, limit int) *frameReader {
	// No bigger a buffer than the file: recovery opens many small ones.
	fr := &frameReader{r: r, base: base, size: size, limit: limit, br: bufio.NewReaderSize(nil, int(min(size, readBuffer)))}
	fr.seek(0)
	return fr
}

// seek makes off the offset of the next frame.
func (fr *frameReader) seek(off int64) {
	fr.off = off
	fr.br.Reset(io.NewSectionReader(fr.r, off, fr.size-off))
}

// next reads and checks the frame at fr.off and moves past it. It returns
// io.EOF exactly at the end, *badFrame for a frame that is incomplete or
// fails a check (the reader is then at an undefined offset), and other
// errors for failed reads. With keep the stored bytes are returned;
// without, they are only checksummed, through the read buffer.
func (fr *frameReader) next(keep bool) (frame, error) {
	off := fr.off
	left := fr.size - off
	if left == 0 {
		return frame{}, io.EOF
	}
	bad := func(format string, args ...any) (frame, error) {
		return frame{}, &badFrame{off: off, recStart: off, reason: fmt.Sprintf(format, args...)}
	}
	if left < headerSize {
		return bad("frame header cut off: %d of %d bytes", left, headerSize)
	}
	var hdr [headerSize]byte
	if _, err := io.ReadFull(fr.br, hdr[:]); err != nil {
		return frame{}, fr.readError(off, err)
	}
	h, reason := parseHeader(&hdr)
	if reason != "" {
		return bad("%s", reason)
	}
	// Both bounds are checked before anything is allocated or read: a
	// damaged length must cost neither memory nor a read past the file.
	if int64(h.length) > int64(fr.limit) {
		return bad("frame length %d exceeds the frame limit %d", h.length, fr.limit)
	}
	if int64(h.length) > left-headerSize {
		return bad("frame length %d runs past the end of the file (%d bytes left)", h.length, left-headerSize)
	}
	crc := frameCRC(fr.base+LSN(off), hdr[4:9], nil)
	f := frame{off: off, flags: h.flags}
	if keep {
		fr.buf = slices.Grow(fr.buf[:0], int(h.length))[:h.length]
		if _, err := io.ReadFull(fr.br, fr.buf); err != nil {
			return frame{}, fr.readError(off, err)
		}
		crc = crc32.Update(crc, castagnoli, fr.buf)
		f.stored = fr.buf
	} else {
		for n := int(h.length); n > 0; {
			b, err := fr.br.Peek(min(n, fr.br.Size()))
			if err != nil {
				return frame{}, fr.readError(off, err)
			}
			crc = crc32.Update(crc, castagnoli, b)
			fr.br.Discard(len(b))
			n -= len(b)
		}
	}
	if crc != h.crc {
		return bad("frame checksum mismatch (stored %#08x, computed %#08x)", h.crc, crc)
	}
	fr.off = off + headerSize + int64(h.length)
	return f, nil
}

// readError reports a failed read. Reads stay within size, so running
// out of bytes means the file shrank while being read.
func (fr *frameReader) readError(off int64, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("cannot read the frame at offset %d: the file is shorter than %d bytes", off, fr.size)
	}
	return fmt.Errorf("cannot read the frame at offset %d: %w", off, err)
}

// recordScanner groups the frames of a segment into records. Without a
// decoder it only checks them (recovery); with one it reassembles and
// decompresses the payloads of records starting at or after decodeFrom.
type recordScanner struct {
	fr         *frameReader
	dec        *zstd.Decoder
	decodeFrom int64

	start, end int64  // offsets of the record the last Next found
	payload    []byte // its payload when decoded; valid until the next call
	scratch    []byte // one decompressed frame
	bad        *badFrame
	err        error // a read error: neither a clean end nor a bad frame
}

// Next moves to the next record. It returns false at the end of the
// segment (bad and err nil), at the first bad frame (bad set) or when a
// read fails (err set).
func (s *recordScanner) Next() bool {
	start := s.fr.off
	decode := s.dec != nil && start >= s.decodeFrom
	s.payload = s.payload[:0]
	for first := true; ; first = false {
		f, err := s.fr.next(decode)
		if err == io.EOF {
			if !first {
				s.bad = &badFrame{off: s.fr.size, recStart: start, reason: "record cut off by the end of the segment"}
			}
			return false
		}
		if bf, ok := err.(*badFrame); ok {
			bf.recStart = start
			s.bad = bf
			return false
		}
		if err != nil {
			s.err = err
			return false
		}
		if isFirst := f.flags&flagFirst != 0; isFirst != first {
			reason := "continuation frame without a record start"
			if isFirst {
				reason = "record starts inside an unfinished record"
			}
			s.bad = &badFrame{off: f.off, recStart: start, reason: reason}
			return false
		}
		if decode {
			if s.payload, err = s.appendPayload(s.payload, f); err != nil {
				s.bad = &badFrame{off: f.off, recStart: start, reason: err.Error()}
				return false
			}
		}
		if f.flags&flagLast != 0 {
			s.start, s.end = start, s.fr.off
			return true
		}
	}
}

// appendPayload appends the payload chunk of f to dst.
func (s *recordScanner) appendPayload(dst []byte, f frame) ([]byte, error) {
	if f.flags&flagCompressed == 0 {
		return append(dst, f.stored...), nil
	}
	// Decoded into an empty scratch buffer: the decoder bounds its output
	// by len(dst) plus the frame, not by the frame alone, so decoding
	// straight onto a long payload would trip its limit.
	var err error
	s.scratch, err = s.dec.DecodeAll(f.stored, s.scratch[:0])
	if err != nil {
		return dst, fmt.Errorf("cannot decompress the frame: %v", err)
	}
	if len(s.scratch) > s.fr.limit {
		return dst, fmt.Errorf("frame decompresses to %d bytes, beyond the frame limit %d", len(s.scratch), s.fr.limit)
	}
	return append(dst, s.scratch...), nil
}
