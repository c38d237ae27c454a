package engine

import (
	"testing"
)

// BenchmarkAutocommitCreate runs the write of the commit benchmark
// (bench.WriteStatement) as auto-commit statements through DB.Query, one
// at a time: in memory (no log: the statement and the commit's CPU and
// allocations) and on a data directory (the log's record, write and
// fdatasync too); and beside them the statement without a write of the
// same benchmark (bench.FloorStatement), what a commit adds to.
func BenchmarkAutocommitCreate(b *testing.B) {
	for _, c := range []struct {
		name, text string
		dir        bool
	}{
		{"no-write", "RETURN $id + $c AS x", false},
		{"memory", "CREATE (:W {id: $id, c: $c})", false},
		{"logged", "CREATE (:W {id: $id, c: $c})", true},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := ""
			if c.dir {
				dir = b.TempDir()
			}
			db, err := Open(dir, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			var id int64
			for b.Loop() {
				queryToEnd(b, db, c.text, Params{"id": id, "c": id % 1000})
				id++
			}
		})
	}
}
