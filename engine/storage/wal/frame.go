package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/klauspost/compress/zstd"
)

// LSN is a byte position in the logical log. Records start and end at
// LSNs; the end of one record is the start of the next.
type LSN uint64

const (
	// MaxFrame is the frame limit: the most payload bytes one frame
	// carries. Larger payloads are split into continuation frames. It also
	// bounds what recovery allocates for a frame, whatever its length
	// field says.
	MaxFrame = 16 << 20

	// headerSize is the size of a frame header: magic, length, flags, CRC.
	headerSize = 13

	// minCompress is the smallest chunk zstd is tried on. Below it the
	// zstd frame and block headers (about 6 bytes) eat any gain.
	minCompress = 64

	flagCompressed = 1 << 0
	flagFirst      = 1 << 1
	flagLast       = 1 << 2
	knownFlags     = flagCompressed | flagFirst | flagLast
)

// magic starts every frame. 0xF7 is not valid UTF-8 as a first byte, so
// text payloads do not produce candidates when recovery scans for it.
var magic = [4]byte{0xF7, 'Q', 'W', 'L'}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// frameCRC is the checksum of the frame that starts at lsn: the LSN (not
// stored), then length and flags (hdr[4:9]), then the stored bytes.
func frameCRC(lsn LSN, lenFlags, stored []byte) uint32 {
	var pos [8]byte
	binary.LittleEndian.PutUint64(pos[:], uint64(lsn))
	crc := crc32.Update(0, castagnoli, pos[:])
	crc = crc32.Update(crc, castagnoli, lenFlags)
	return crc32.Update(crc, castagnoli, stored)
}

// appendFrame appends to dst the frame for one payload chunk starting at
// lsn, compressing it with enc when that makes it smaller.
func appendFrame(dst []byte, enc *zstd.Encoder, chunk []byte, flags byte, lsn LSN) []byte {
	h := len(dst)
	dst = append(dst, magic[0], magic[1], magic[2], magic[3], 0, 0, 0, 0, 0, 0, 0, 0, 0)
	body := len(dst)
	compressed := false
	if len(chunk) >= minCompress {
		// EncodeAll appends after the header; when zstd does not pay, the
		// raw chunk overwrites what it wrote.
		dst = enc.EncodeAll(chunk, dst)
		compressed = len(dst)-body < len(chunk)
	}
	if compressed {
		flags |= flagCompressed
	} else {
		dst = append(dst[:body], chunk...)
	}
	binary.LittleEndian.PutUint32(dst[h+4:], uint32(len(dst)-body))
	dst[h+8] = flags
	binary.LittleEndian.PutUint32(dst[h+9:], frameCRC(lsn, dst[h+4:h+9], dst[body:]))
	return dst
}

// frameHeader is a decoded frame header.
type frameHeader struct {
	length uint32
	flags  byte
	crc    uint32
}

// parseHeader decodes hdr. It checks what can be checked without the
// stored bytes and the file: the magic and the flags. The reason is empty
// when both are fine.
func parseHeader(hdr *[headerSize]byte) (frameHeader, string) {
	if [4]byte(hdr[:4]) != magic {
		return frameHeader{}, fmt.Sprintf("bad frame magic % x", hdr[:4])
	}
	h := frameHeader{
		length: binary.LittleEndian.Uint32(hdr[4:]),
		flags:  hdr[8],
		crc:    binary.LittleEndian.Uint32(hdr[9:]),
	}
	if h.flags&^knownFlags != 0 {
		return frameHeader{}, fmt.Sprintf("unknown frame flags %#02x", h.flags)
	}
	return h, ""
}

// newEncoder returns the log's one zstd encoder. One goroutine and the
// fastest level: the encoder runs under the append lock, on every commit.
func newEncoder() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderCRC(false))
	if err != nil {
		panic("BUG: wal: zstd encoder options: " + err.Error())
	}
	return enc
}

// newDecoder returns a zstd decoder that refuses to produce more than
// limit bytes (at least 1 MiB: the decoder also caps its window with it,
// and zstd windows are never below 1 KiB) from one frame: stored bytes
// that pass the CRC but were not written by this package must not make
// replay allocate without bound.
func newDecoder(limit int) *zstd.Decoder {
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(uint64(max(limit, 1<<20))))
	if err != nil {
		panic("BUG: wal: zstd decoder options: " + err.Error())
	}
	return dec
}
