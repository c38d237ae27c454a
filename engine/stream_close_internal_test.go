package engine

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// countStream yields rows 0..n-1 and counts its Close calls.
type countStream struct {
	next, n int
	closed  *int
}

func (s *countStream) Fill(cols []*vector.Vector, at, n int) (int, error) {
	k := 0
	for ; k < n && s.next < s.n; k++ {
		if cols[0] != nil {
			cols[0].I64[at+k] = int64(s.next)
		}
		s.next++
	}
	return k, nil
}

func (s *countStream) Close() { *s.closed++ }

// A streamed procedure's stream is closed exactly once however the
// statement ends: drained, cut short by LIMIT (the operator is never
// asked for the rest), or closed by the client before reading a row.
// The algo.* streams give their memory back in Close.
func TestStreamClosedAtStatementEnd(t *testing.T) {
	db, err := Open("", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	started, closed := 0, 0
	err = db.procs.Register(&procs.Procedure{
		Signature: procs.Signature{Name: "test.count", Outputs: []procs.Field{{Name: "i", Type: "INTEGER"}}},
		Stream: func(*procs.Context, []vector.Value) (procs.Stream, error) {
			started++
			return &countStream{n: 10000, closed: &closed}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    string
		read bool
	}{
		{"CALL test.count() YIELD i RETURN count(*)", true},
		{"CALL test.count() YIELD i RETURN i LIMIT 1", true},
		{"UNWIND [1, 2, 3] AS x CALL test.count() YIELD i RETURN x, i LIMIT 15000", true},
		{"CALL test.count() YIELD i RETURN i", false},
	} {
		started, closed = 0, 0
		res, err := db.Query(context.Background(), c.q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.read {
			for {
				b, err := res.Next()
				if err != nil {
					t.Fatal(err)
				}
				if b == nil {
					break
				}
			}
		}
		res.Close()
		if started == 0 || closed != started {
			t.Errorf("%s: %d streams started, %d closed, want each closed once", c.q, started, closed)
		}
	}
}
