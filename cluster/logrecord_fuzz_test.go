package cluster

import (
	"bytes"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// FuzzRaftLogRecord: the record decoder takes any bytes (a segment read
// back from disk) without panicking or allocating by a length it read,
// and what it accepts encodes back to the same bytes.
func FuzzRaftLogRecord(f *testing.F) {
	for _, l := range []*raft.Log{
		testLog(1),
		{Index: 7, Term: 3, Type: raft.LogConfiguration, Data: []byte("cfg"), Extensions: []byte("x")},
		{Index: 1 << 40, Type: raft.LogNoop},
	} {
		rec := appendRecord(nil, l)
		f.Add(rec, uint64(0))
		f.Add(rec, l.Index)
		f.Add(rec[:len(rec)-1], l.Index)
	}
	f.Fuzz(func(t *testing.T, b []byte, want uint64) {
		var l raft.Log
		n, err := decodeRecord(b, want, &l)
		if err != nil {
			if n != 0 {
				t.Fatalf("a failed decode consumed %d bytes", n)
			}
			return
		}
		if n > len(b) || (want != 0 && l.Index != want) {
			t.Fatalf("decoded %d of %d bytes, index %d for %d", n, len(b), l.Index, want)
		}
		if l.AppendedAt.IsZero() != (l.AppendedAt == time.Time{}) {
			t.Fatal("a zero time decoded as another")
		}
		if again := appendRecord(nil, &l); !bytes.Equal(again, b[:n]) {
			t.Fatalf("re-encoded %x, read %x", again, b[:n])
		}
	})
}
