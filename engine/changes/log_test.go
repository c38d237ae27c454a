package changes

import (
	"reflect"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/vector"
)

func TestPositionTokens(t *testing.T) {
	for _, p := range []Position{{}, {TS: 1}, {TS: 17, Ordinal: 3}, EndOf(1 << 40)} {
		q, err := ParsePosition(p.String())
		if err != nil || q != p {
			t.Fatalf("%v: %v %v", p, q, err)
		}
	}
	if !(Position{TS: 1, Ordinal: 9}).Less(Position{TS: 2}) || (EndOf(2).String() >= Position{TS: 3}.String()) {
		t.Fatal("positions and their tokens are not in commit order")
	}
	for _, bad := range []string{"", "x", "0000000000000001000", "000000000000000100000", "+000000000000001ffff", "0000000000000001+fff", "zz00000000000001ffff"} {
		_, err := ParsePosition(bad)
		if e, ok := errs.As(err); !ok || e.Code != errs.CodeInvalidParam {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}

func TestParseRetention(t *testing.T) {
	for in, want := range map[string]Retention{
		"": {}, "off": {}, "24h": {MaxAge: 24 * time.Hour}, "7d": {MaxAge: 7 * 24 * time.Hour},
		"512MB": {MaxBytes: 512 << 20}, "1gb": {MaxBytes: 1 << 30}, "7d, 10GB": {MaxAge: 7 * 24 * time.Hour, MaxBytes: 10 << 30},
	} {
		got, err := ParseRetention(in)
		if err != nil || got != want {
			t.Fatalf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"soon", "-1h", "1h,2h", "1GB,2GB", "0MB", "1GiB"} {
		if _, err := ParseRetention(bad); err == nil {
			t.Fatalf("%q: no error", bad)
		}
	}
}

func sampleBatch(ts uint64) Batch {
	return Batch{TS: ts, LSN: ts * 100, CommittedAt: time.Now().Add(time.Duration(ts)).UTC().Round(0), Changes: []Change{
		{Op: Created, Entity: Node, ID: ts, Labels: []string{"A", "B"}, Before: nil, After: []Property{{"name", "Ann"}, {"xs", []vector.Value{int64(1), 2.5}}}},
		{Op: Updated, Entity: Node, ID: 7, Ordinal: 1, Labels: []string{"A"}, LabelsAdded: []string{"A"}, Before: []Property{}, After: []Property{{"m", map[string]vector.Value{"k": true}}}},
		{Op: Deleted, Entity: Relationship, ID: 3, Ordinal: 2, Type: "R", Start: 1, End: 2, StartLabels: []string{"A"}, Before: []Property{{"w", int64(1)}}},
	}}
}

func TestBatchCodec(t *testing.T) {
	for _, b := range []Batch{sampleBatch(5), {TS: 6, CommittedAt: time.Unix(1, 0).UTC(), Bulk: &Bulk{NodesCreated: 20000, Labels: []string{"P"}}}, {TS: 7, CommittedAt: time.Unix(2, 0).UTC()}} {
		enc := appendBatch(nil, &b)
		got, err := decodeBatch(enc)
		if err != nil {
			t.Fatal(err)
		}
		if b.Changes == nil && b.Bulk == nil {
			b.Changes = []Change{}
		}
		if !reflect.DeepEqual(got, b) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, b)
		}
		for i := range enc { // every truncation fails, none panics
			if _, err := decodeBatch(enc[:i]); err == nil {
				t.Fatalf("%d of %d bytes decoded", i, len(enc))
			}
		}
	}
}

// A torn last record is cut at open; the records before it stay, and
// reading from a position inside a commit gives the rest of it.
func TestLogTornTailAndReads(t *testing.T) {
	fsys := vfs.NewMem()
	if err := fsys.Mkdir("d"); err != nil {
		t.Fatal(err)
	}
	l, err := OpenLog(fsys, "d", Retention{MaxAge: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	l.Reconcile(0, false)
	for ts := uint64(1); ts <= 100; ts++ {
		b := sampleBatch(ts)
		l.append(&b)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.OpenFile("d/cdc/0000000000000001.cdc", 2)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	f.Truncate(st.Size() - 3)
	f.Close()
	if l, err = OpenLog(fsys, "d", Retention{MaxAge: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if from, ok := l.CatchUp(); !ok || from != 99 {
		t.Fatalf("catch up from %d %v, want 99", from, ok)
	}
	b := sampleBatch(100)
	l.append(&b) // recovery's catch-up
	l.Reconcile(100, false)
	var got []Position
	err = l.Each(Position{TS: 40, Ordinal: 1}, 1<<62, func(b *Batch) (bool, error) {
		for _, c := range b.Changes {
			got = append(got, Position{b.TS, c.Ordinal})
		}
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1+60*3 || got[0] != (Position{40, 2}) || got[len(got)-1] != (Position{100, 2}) {
		t.Fatalf("%d changes from %v to %v", len(got), got[0], got[len(got)-1])
	}
	for _, from := range []Position{{TS: 32, Ordinal: 1}, {TS: 33}, EndOf(32), EndOf(31), {TS: 1}, EndOf(0)} {
		var first *Position
		err := l.Each(from, 1<<62, func(b *Batch) (bool, error) {
			first = &Position{b.TS, b.Changes[0].Ordinal}
			return false, nil
		})
		want := Position{from.TS, from.Ordinal + 1}
		if from.Ordinal == lastOrdinal {
			want = Position{TS: from.TS + 1}
		}
		if err != nil || first == nil || *first != want {
			t.Fatalf("after %v: first %v (%v), want %v", from, first, err, want)
		}
	}
	if e, _ := l.Bounds(); e != EndOf(0) {
		t.Fatalf("earliest %v", e)
	}
	if err := l.Check(Position{TS: 101}); err == nil {
		t.Fatal("a future position was accepted")
	}
	l.Gap(120, "a test")
	if err := l.Check(EndOf(100)); err == nil {
		t.Fatal("a position before a gap was accepted")
	} else if e, _ := errs.As(err); e.Code != errs.CodeOverflow {
		t.Fatal(err)
	}
	l.Close()
}

// A resuming feed reads its history in pages bounded by its buffer, and
// the pages together are the whole history once.
func TestHistoryPagesBounded(t *testing.T) {
	l, err := OpenLog(vfs.NewMem(), "", Retention{MaxAge: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Reconcile(0, false)
	for ts := uint64(1); ts <= 100; ts++ {
		b := sampleBatch(ts) // 3 changes each
		l.append(&b)
	}
	f := &Feed{limit: 10, hist: &history{log: l, at: EndOf(0), upTo: 100}}
	var next uint64 = 1
	for {
		b, ok, err := f.nextHistory()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if held := len(f.hist.page) + 1; held > 4 {
			t.Fatalf("a page of %d commits of 3 changes for a buffer of 10", held)
		}
		if b.TS != next {
			t.Fatalf("commit %d, want %d", b.TS, next)
		}
		next++
	}
	if next != 101 {
		t.Fatalf("history ended before commit %d", next)
	}
}
