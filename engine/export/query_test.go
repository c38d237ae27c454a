package export

import (
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/vector"
)

// batches is a result of fixed batches: an INTEGER column and an ANY
// column whose values anyOf gives.
type batches struct {
	n, next int
	anyOf   func(i int) vector.Value
}

func (b *batches) Next() (*vector.Batch, error) {
	if b.next >= b.n {
		return nil, nil
	}
	out := &vector.Batch{Cols: []*vector.Vector{vector.New(vector.Int64, 64), vector.New(vector.Any, 64)}}
	for out.Len < 64 && b.next < b.n {
		out.Cols[0].I64[out.Len] = int64(b.next)
		out.Cols[1].Set(out.Len, b.anyOf(b.next))
		out.Len++
		b.next++
	}
	return out, nil
}

var queryCols = []QueryColumn{{Name: "i", Type: "INTEGER"}, {Name: "x", Type: "ANY"}}

func memFS(t *testing.T) *vfs.MemFS {
	t.Helper()
	fsys := vfs.NewMem()
	if err := fsys.Mkdir("/x"); err != nil {
		t.Fatal(err)
	}
	return fsys
}

// A full disk fails COPY … TO with 53100, whenever it strikes, and
// leaves no file, temporary or not.
func TestQueryDiskFull(t *testing.T) {
	for _, format := range []string{FormatParquet, FormatCSV} {
		for _, after := range []int{0, 1} {
			fsys := memFS(t)
			writes := 0
			fsys.SetFault(func(op vfs.Op) error {
				if op.Kind == vfs.OpWrite {
					if writes++; writes > after {
						return syscall.ENOSPC
					}
				}
				return nil
			})
			rows := &batches{n: 200_000, anyOf: func(i int) vector.Value { return strings.Repeat("y", i%40) }}
			_, err := Query(rows, queryCols, nil, QueryOptions{Path: "/x/out." + format, Format: format, FS: fsys, RowGroupRows: 1000})
			e, ok := errs.As(err)
			if !ok || e.Code != errs.CodeDiskFull {
				t.Fatalf("%s after %d writes: %v", format, after, err)
			}
			if names := leftovers(t, fsys, "/x"); len(names) != 0 {
				t.Fatalf("%s after %d writes: left %v", format, after, names)
			}
		}
	}
}

// A generic column takes its type from the first row group; a later
// value of another type fails the statement with 22000 naming the
// column, and no file is left. A column of mixed values from the start
// is JSON text and takes anything.
func TestQueryGenericColumns(t *testing.T) {
	later := func(i int) vector.Value {
		if i < 150 {
			return int64(i)
		}
		return "late"
	}
	fsys := memFS(t)
	_, err := Query(&batches{n: 300, anyOf: later}, queryCols, nil, QueryOptions{Path: "/x/a.parquet", Format: FormatParquet, FS: fsys, RowGroupRows: 100})
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeData || !strings.Contains(e.Message, "column x") {
		t.Fatalf("%v", err)
	}
	if names := leftovers(t, fsys, "/x"); len(names) != 0 {
		t.Fatalf("left %v", names)
	}
	// The same values in one row group: JSON text.
	sum, err := Query(&batches{n: 300, anyOf: later}, queryCols, nil, QueryOptions{Path: "/x/b.csv", Format: FormatCSV, FS: fsys, Header: true, RowGroupRows: 1000})
	if err != nil || sum.Rows != 300 {
		t.Fatalf("%+v %v", sum, err)
	}
	f, err := fsys.OpenFile("/x/b.csv", os.O_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if lines[0] != "i:INT64,x:STRING" || lines[1] != `0,"0"` || lines[299] != `298,"""late"""` || int64(len(b)) != sum.Bytes {
		t.Fatalf("%q %q %q, %d bytes of %d", lines[0], lines[1], lines[299], len(b), sum.Bytes)
	}
}
