package changes

import (
	"bytes"
	"testing"
	"time"
)

// FuzzChangeRecord: a change log record of any bytes decodes or fails
// with an error, never a panic or an allocation its length does not
// bound; one that decodes encodes to bytes that decode to the same
// record again.
func FuzzChangeRecord(f *testing.F) {
	for _, b := range []Batch{sampleBatch(5),
		{TS: 6, CommittedAt: time.Unix(1, 0).UTC(), Bulk: &Bulk{NodesCreated: 20000, Labels: []string{"P"}}},
		{TS: 7, CommittedAt: time.Unix(2, 0).UTC()}} {
		f.Add(appendBatch(nil, &b))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := decodeBatch(data)
		if err != nil {
			return
		}
		enc := appendBatch(nil, &x)
		y, err := decodeBatch(enc)
		if err != nil {
			t.Fatalf("a decoded record's encoding does not decode: %v", err)
		}
		if again := appendBatch(nil, &y); !bytes.Equal(again, enc) {
			t.Fatalf("re-encoded record differs:\n%x\n%x", enc, again)
		}
	})
}
