package engine

import (
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// messagesDB is an LDBC-like message graph of n nodes: three fifths
// Comment, three tenths Post, the rest Person and Forum, every one with a
// distinct id (as LDBC's ids are unique over messages) and a length, with
// indexes on Post's and Comment's id; compacted, as an import leaves it.
func messagesDB(b *testing.B, n int) *DB {
	db, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	cat := db.store.Catalog()
	labels := []catalog.LabelID{cat.EnsureLabel("Comment"), cat.EnsureLabel("Post"), cat.EnsureLabel("Person"), cat.EnsureLabel("Forum")}
	keys := []catalog.KeyID{cat.EnsureKey("id"), cat.EnsureKey("length")}
	const per = 50000
	for lo := 0; lo < n; lo += per {
		tx := db.store.Begin()
		for i := lo; i < min(lo+per, n); i++ {
			l := labels[0]
			switch r := i % 10; {
			case r >= 6 && r < 9:
				l = labels[1]
			case r == 9 && i%20 == 9:
				l = labels[2]
			case r == 9:
				l = labels[3]
			}
			if _, err := tx.CreateNode([]catalog.LabelID{l}, keys, []vector.Value{int64(i), int64(i % 200)}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	runToEnd(b, db, "CREATE INDEX post_id FOR (p:Post) ON (p.id)")
	runToEnd(b, db, "CREATE INDEX comment_id FOR (c:Comment) ON (c.id)")
	db.Compact()
	return db
}

// BenchmarkLabelExprLookup: LDBC's short-read lookup of a message by id
// with a label disjunction, through the union of the two labels' index
// seeks (index-union on) and through the LabelScan (off), beside the same
// lookup on one label; and a filtered count over a LabelScan on one
// worker and two. 400k nodes.
func BenchmarkLabelExprLookup(b *testing.B) {
	const n = 400_000
	db := messagesDB(b, n)
	for _, q := range []struct{ name, text, off string }{
		{"disjunction/index-union", "MATCH (m:Post|Comment {id: $x}) RETURN m.id", ""},
		{"disjunction/scan", "MATCH (m:Post|Comment {id: $x}) RETURN m.id", "index-union"},
		{"one-label", "MATCH (m:Comment {id: $x}) RETURN m.id", ""},
	} {
		b.Run(q.name, func(b *testing.B) {
			defer func() { db.opts.DisabledRules = nil }()
			db.opts.DisabledRules = nil
			if q.off != "" {
				db.opts.DisabledRules = []string{q.off}
			}
			i := 0
			for b.Loop() {
				// Comments' ids: i mod 10 < 6.
				x := int64((i*7919)%(n/10)*10 + i%6)
				queryToEnd(b, db, q.text, Params{"x": x})
				i++
			}
		})
	}
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("scan-filter-count/par%d", par), func(b *testing.B) {
			defer func() { db.opts.Parallelism = 0 }()
			db.opts.Parallelism = par
			for b.Loop() {
				// A FLOAT bound: an INTEGER one would count from the
				// column's view without the scan.
				runToEnd(b, db, "MATCH (m:Post|Comment) WHERE m.length > 99.5 RETURN count(*)")
			}
		})
	}
}
