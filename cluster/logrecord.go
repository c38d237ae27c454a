package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/hashicorp/raft"
)

// One raft log entry on disk (LogStore's segments, logstore.go). All
// integers are little endian.
//
//	 0        4          8
//	 +--------+----------+------------------------------------------+
//	 | length | crc32c   | payload: length bytes                    |
//	 | u32    | u32      |                                          |
//	 +--------+----------+------------------------------------------+
//
//	payload  index u64 | term u64 | type u8 | appendedAt i64 (unix ns,
//	         0 for the zero time) | len(data) u32 | data | extensions
//	         (the rest)
//	crc32c   CRC-32C (Castagnoli) of the length's 4 bytes and the payload.
//
// The index in the payload is checked against the position the record
// is read for (a segment's records are consecutive from the index its
// name carries), so a record copied or left over elsewhere does not pass
// for another. The length is bounded twice before it is trusted: by
// maxRecordPayload and by the bytes the file holds after the header, so
// a corrupt length never allocates.

const (
	recordHeader     = 8
	recordFixed      = 8 + 8 + 1 + 8 + 4 // payload bytes before data
	maxRecordPayload = 1 << 30           // a commit record of more is refused
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errBadRecord is a record that does not decode: a torn write, or damage.
var errBadRecord = errors.New("bad record")

// recordSize is the bytes l takes on disk.
func recordSize(l *raft.Log) int {
	return recordHeader + recordFixed + len(l.Data) + len(l.Extensions)
}

// appendRecord appends l's record to dst.
func appendRecord(dst []byte, l *raft.Log) []byte {
	start := len(dst)
	n := recordFixed + len(l.Data) + len(l.Extensions)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	dst = append(dst, 0, 0, 0, 0) // the CRC, below
	dst = binary.LittleEndian.AppendUint64(dst, l.Index)
	dst = binary.LittleEndian.AppendUint64(dst, l.Term)
	dst = append(dst, byte(l.Type))
	var at int64
	if !l.AppendedAt.IsZero() {
		at = l.AppendedAt.UnixNano()
	}
	dst = binary.LittleEndian.AppendUint64(dst, uint64(at))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(l.Data)))
	dst = append(dst, l.Data...)
	dst = append(dst, l.Extensions...)
	rec := dst[start:]
	crc := crc32.Update(crc32.Update(0, castagnoli, rec[:4]), castagnoli, rec[recordHeader:])
	binary.LittleEndian.PutUint32(rec[4:], crc)
	return dst
}

// recordLen checks the record header at the start of b and returns the
// whole record's size, without reading the payload: errBadRecord when
// the header is short, the length out of bounds, or the record longer
// than b.
func recordLen(b []byte) (int, error) {
	if len(b) < recordHeader {
		return 0, fmt.Errorf("%w: %d bytes left, a header is %d", errBadRecord, len(b), recordHeader)
	}
	n := binary.LittleEndian.Uint32(b)
	if n < recordFixed || n > maxRecordPayload {
		return 0, fmt.Errorf("%w: length %d out of bounds", errBadRecord, n)
	}
	if int64(n) > int64(len(b)-recordHeader) {
		return 0, fmt.Errorf("%w: length %d, %d bytes left", errBadRecord, n, len(b)-recordHeader)
	}
	return recordHeader + int(n), nil
}

// decodeRecord decodes the record at the start of b into l and returns
// its size. l's Data and Extensions alias b. A record whose CRC fails,
// whose lengths disagree, or whose index is not want (want 0: any) is
// errBadRecord.
func decodeRecord(b []byte, want uint64, l *raft.Log) (int, error) {
	size, err := recordLen(b)
	if err != nil {
		return 0, err
	}
	rec := b[:size]
	crc := crc32.Update(crc32.Update(0, castagnoli, rec[:4]), castagnoli, rec[recordHeader:])
	if crc != binary.LittleEndian.Uint32(rec[4:]) {
		return 0, fmt.Errorf("%w: checksum mismatch", errBadRecord)
	}
	p := rec[recordHeader:]
	idx := binary.LittleEndian.Uint64(p)
	if want != 0 && idx != want {
		return 0, fmt.Errorf("%w: holds index %d, expected %d", errBadRecord, idx, want)
	}
	dataLen := binary.LittleEndian.Uint32(p[25:])
	if int64(dataLen) > int64(len(p)-recordFixed) {
		return 0, fmt.Errorf("%w: data length %d beyond the record", errBadRecord, dataLen)
	}
	l.Index = idx
	l.Term = binary.LittleEndian.Uint64(p[8:])
	l.Type = raft.LogType(p[16])
	l.AppendedAt = time.Time{}
	if at := int64(binary.LittleEndian.Uint64(p[17:])); at != 0 {
		l.AppendedAt = time.Unix(0, at)
	}
	rest := p[recordFixed:]
	l.Data, l.Extensions = nil, nil
	if dataLen > 0 {
		l.Data = rest[:dataLen:dataLen]
	}
	if ext := rest[dataLen:]; len(ext) > 0 {
		l.Extensions = ext
	}
	return size, nil
}
