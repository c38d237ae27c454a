package storage

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/klauspost/compress/zstd"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Sectioned files: the column, CSR and other large files of a base are a
// sequence of independently stored sections, so that a reader can check
// and decode each one on its own, in parallel with the others, straight
// into the arrays it ends up in:
//
//	section 0 … section n-1     stored bytes, back to back
//	table                       n × (codec u8, stored uvarint, raw uvarint, crc32c u32 LE)
//	trailer (16 bytes)          table length u32 LE, n u32 LE, "QSECT\x00\x00\x02"
//
// codec 0 stores the section raw (stored = raw), codec 1 as one zstd
// frame. crc32c is the CRC-32C of the section's stored bytes; the
// manifest's crc32c of a sectioned file covers its table and trailer, so
// every byte of the file is checksummed exactly once. A section is
// checked against its CRC before any of it is decoded (readSection).
//
// Why not one zstd frame per file: a frame decodes on one core and only
// into a buffer of its own, which the decoder then copies (twice the
// file's memory at once); the neighbour blocks of a CSR do not compress
// further anyway (FOR-packed ids), so they are stored raw and read
// straight into the CSR's data array.

const (
	codecRaw  = 0
	codecZstd = 1

	sectTrailerLen = 16
	sectMagic      = "QSECT\x00\x00\x02"
)

type section struct {
	codec       byte
	off         int64 // position in the file
	stored, raw int64
	crc         uint32
}

// sectionWriter writes a sectioned file through w.
type sectionWriter struct {
	w     *bufio.Writer
	enc   *zstd.Encoder
	zbuf  []byte
	table []section
	off   int64
}

// raw appends a section stored as it is.
func (s *sectionWriter) raw(b []byte) {
	s.w.Write(b)
	s.add(codecRaw, int64(len(b)), int64(len(b)), crc32.Checksum(b, crcTable))
}

// compressed appends a section stored as one zstd frame of b, or raw
// when zstd saves less than an eighth: random relationship ids barely
// compress (5%), and a raw section is read straight into its array where
// a compressed one costs a decode.
func (s *sectionWriter) compressed(b []byte) {
	s.zbuf = s.enc.EncodeAll(b, s.zbuf[:0])
	if len(s.zbuf) > len(b)-len(b)/8 {
		s.raw(b)
		return
	}
	s.w.Write(s.zbuf)
	s.add(codecZstd, int64(len(s.zbuf)), int64(len(b)), crc32.Checksum(s.zbuf, crcTable))
}

func (s *sectionWriter) add(codec byte, stored, raw int64, crc uint32) {
	s.table = append(s.table, section{codec: codec, off: s.off, stored: stored, raw: raw, crc: crc})
	s.off += stored
}

// finish writes the table and the trailer and returns the checksum the
// manifest records and the sum of the sections' raw sizes.
func (s *sectionWriter) finish() (uint32, int64) {
	var t []byte
	var raw int64
	for _, x := range s.table {
		t = append(t, x.codec)
		t = binary.AppendUvarint(t, uint64(x.stored))
		t = binary.AppendUvarint(t, uint64(x.raw))
		t = binary.LittleEndian.AppendUint32(t, x.crc)
		raw += x.raw
	}
	n := len(t)
	t = binary.LittleEndian.AppendUint32(t, uint32(n))
	t = binary.LittleEndian.AppendUint32(t, uint32(len(s.table)))
	t = append(t, sectMagic...)
	s.w.Write(t)
	return crc32.Checksum(t, crcTable), raw
}

// sectionFile is an open sectioned file whose table has been checked.
type sectionFile struct {
	name string
	f    vfs.File
	secs []section
}

// openSections opens a sectioned file and checks its size and table
// against the manifest's entry.
func openSections(fsys vfs.FS, path string, bf baseFile) (*sectionFile, error) {
	f, err := fsys.OpenFile(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	sf, err := readSectionTable(f, bf)
	if err != nil {
		f.Close()
		return nil, err
	}
	sf.name = bf.Name
	return sf, nil
}

func readSectionTable(f vfs.File, bf baseFile) (*sectionFile, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size != bf.Size {
		return nil, fmt.Errorf("%d bytes, manifest says %d (truncated?)", size, bf.Size)
	}
	if size < sectTrailerLen {
		return nil, fmt.Errorf("too short for a sectioned file")
	}
	var tr [sectTrailerLen]byte
	if _, err := f.ReadAt(tr[:], size-sectTrailerLen); err != nil {
		return nil, err
	}
	tlen, n := int64(binary.LittleEndian.Uint32(tr[0:])), int64(binary.LittleEndian.Uint32(tr[4:]))
	if string(tr[8:]) != sectMagic || tlen > size-sectTrailerLen || n > tlen/7 {
		return nil, fmt.Errorf("bad section trailer")
	}
	tb := make([]byte, tlen+sectTrailerLen)
	if _, err := f.ReadAt(tb, size-int64(len(tb))); err != nil {
		return nil, err
	}
	if crc32.Checksum(tb, crcTable) != bf.CRC {
		return nil, fmt.Errorf("checksum mismatch (section table)")
	}
	d := &decoder{b: tb[:tlen]}
	sf := &sectionFile{f: f, secs: make([]section, n)}
	var off int64
	for i := range sf.secs {
		s := &sf.secs[i]
		s.codec = d.u8()
		stored, raw := d.uvarint(), d.uvarint()
		if c := d.bytes(4); c != nil {
			s.crc = binary.LittleEndian.Uint32(c)
		}
		if d.err != nil {
			return nil, fmt.Errorf("section table: %w", d.err)
		}
		if s.codec > codecZstd || stored > uint64(size) || raw > 1<<40 || (s.codec == codecRaw && raw != stored) {
			return nil, fmt.Errorf("section %d: codec %d, %d bytes stored, %d raw", i, s.codec, stored, raw)
		}
		s.off, s.stored, s.raw = off, int64(stored), int64(raw)
		off += s.stored
	}
	if d.left() != 0 || off != size-int64(len(tb)) {
		return nil, fmt.Errorf("sections of %d bytes in a file of %d", off, size)
	}
	return sf, nil
}

func (sf *sectionFile) close() { sf.f.Close() }

// readSection reads section i into dst, which must be exactly its raw
// size, after checking the stored bytes against their CRC: a raw section
// is read straight into dst, a compressed one into scratch and then
// decompressed into dst (never a third buffer). scratch is grown as
// needed and returned.
func (sf *sectionFile) readSection(i int, dst []byte, dec *zstd.Decoder, scratch []byte) ([]byte, error) {
	s := sf.secs[i]
	if int64(len(dst)) != s.raw {
		return scratch, fmt.Errorf("section %d holds %d bytes, the structure %d", i, s.raw, len(dst))
	}
	buf := dst
	if s.codec == codecZstd {
		scratch = grow(scratch, int(s.stored))
		buf = scratch
	}
	if _, err := sf.f.ReadAt(buf, s.off); err != nil && err != io.EOF {
		return scratch, err
	}
	if crc32.Checksum(buf, crcTable) != s.crc {
		return scratch, fmt.Errorf("section %d: checksum mismatch", i)
	}
	if s.codec == codecZstd {
		out, err := dec.DecodeAll(buf, dst[:0])
		if err != nil || len(out) != len(dst) || (len(out) > 0 && &out[0] != &dst[0]) {
			return scratch, fmt.Errorf("section %d: cannot decompress (%v)", i, err)
		}
	}
	return scratch, nil
}

// rawSize is section i's raw size as an int (checked ≤ 2^40 on open).
func (sf *sectionFile) rawSize(i int) int { return int(min(sf.secs[i].raw, math.MaxInt)) }

// readAll reads section i into a new buffer of its raw size.
func (sf *sectionFile) readAll(i int, dec *zstd.Decoder, scratch []byte) ([]byte, []byte, error) {
	out := make([]byte, sf.rawSize(i))
	scratch, err := sf.readSection(i, out, dec, scratch)
	return out, scratch, err
}
