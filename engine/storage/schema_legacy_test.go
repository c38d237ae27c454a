package storage

import (
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// A log written by an older version may drop the index a UNIQUE
// constraint adopted (it allowed that, and the constraint's checks then
// failed on a missing index). Recovery replays it and gives the
// constraint an index again: of its own, or one a later record created on
// the same key. The constraint holds afterwards, and the store checks.
func TestRecoveryGivesLegacyConstraintAnIndex(t *testing.T) {
	for _, tc := range []struct {
		name      string
		recreate  bool   // a later record creates index_person_id again
		wantIndex string // the index the constraint checks through after recovery
	}{
		{"dropped", false, "c"},
		{"dropped and created again", true, "index_person_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &memLog{}
			s := New()
			s.SetLog(l)
			tx := s.Begin()
			must(t, tx.CreateIndex(catalog.Index{Name: "index_person_id", Type: catalog.BTree, Label: "Person", Keys: []string{"id"}}))
			commit(t, tx)
			tx = s.Begin()
			must(t, tx.CreateConstraint(catalog.Constraint{Name: "c", Kind: catalog.Unique, Label: "Person", Key: "id"}))
			commit(t, tx)
			tx = s.Begin()
			if err := tx.DropIndex("index_person_id"); !isCode(err, errs.CodeSyntax) {
				t.Fatalf("dropping the index the constraint uses: got %v, want a 42000 refusal", err)
			}
			tx.Rollback()
			// The records an older version wrote: the drop, a node, and
			// maybe the index again.
			person, id := s.cat.EnsureLabel("Person"), s.cat.EnsureKey("id")
			ts := s.head.ts
			legacy := [][]Op{{{Kind: OpDropIndex, Name: "index_person_id"}},
				{{Kind: OpCreateNode, ID: s.head.nodeBound, Labels: []catalog.LabelID{person}, Keys: []catalog.KeyID{id}, Vals: []vector.Value{int64(1)}}}}
			if tc.recreate {
				legacy = append(legacy, []Op{{Kind: OpCreateIndex, Index: &catalog.Index{Name: "index_person_id", Type: catalog.BTree, Label: "Person", Keys: []string{"id"}}}})
			}
			for i, ops := range legacy {
				names := tailSince(s.cat, s.cat.NumLabels(), s.cat.NumTypes(), s.cat.NumKeys())
				if _, err := l.Append(encodeRecord(nil, ts+uint64(i)+1, names, ops)); err != nil {
					t.Fatal(err)
				}
			}

			r := l.replayInto(t)
			if err := r.Check(); err != nil {
				t.Fatal(err)
			}
			c := r.Snapshot().Schema().Constraint("c")
			if c == nil || c.Index != tc.wantIndex || r.Snapshot().Schema().Index(c.Index) == nil {
				t.Fatalf("constraint after recovery: %+v, want it to check through %s; indexes %v", c, tc.wantIndex, r.Snapshot().Schema().Indexes)
			}
			// The constraint is enforced: a second node with id 1 is refused.
			tx = r.Begin()
			if _, err := tx.CreateNode([]catalog.LabelID{person}, []catalog.KeyID{id}, []vector.Value{int64(1)}); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Commit(); !isCode(err, errs.CodeConstraint) {
				t.Fatalf("a duplicate id after recovery: got %v, want 23000", err)
			}
			tx = r.Begin()
			if _, err := tx.CreateNode([]catalog.LabelID{person}, []catalog.KeyID{id}, []vector.Value{int64(2)}); err != nil {
				t.Fatal(err)
			}
			commit(t, tx)
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func commit(t *testing.T, tx *Tx) {
	t.Helper()
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
