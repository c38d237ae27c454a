package changes_test

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/changes"
	"github.com/quiverdb/quiver/engine/errs"
)

func TestParseChangePatternErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		code string
		col  int // 0: no position
	}{
		{"", "42000", 1},
		{"n:Person", "42000", 1},
		{"(:Person", "42000", 9},
		{"(:)", "42000", 3},
		{"(:Person {name: })", "42000", 17},
		{"(:Person {name 'x'})", "42000", 16},
		{"(:Person {name: 'x})", "42000", 17},
		{"(:Person {name: null})", "42000", 17},
		{"(:Person {n: 1e999})", "42000", 14},
		{"(:Person {n: 'a' + 'b'})", "42000", 18},
		{"(:Person {n: $x})", "42000", 14},
		{"(:Person {n: -'x'})", "42000", 14},
		{"(:Person) (:X)", "42000", 11},
		{"()-[:R]-", "42000", 9},
		{"()-[:R]->()-[:S]->()", "42000", 12},
		{"()-[:R*1..2]->()", "42000", 3},
		{"()-[:R]->+()", "42000", 3},
		{"p = ()-->()", "42000", 1},
		{"()-[:R|]->()", "42000", 8},
		{"()-[:R->()", "42000", 7},
		{"(:`A)", "42000", 3},
		{"(:``)", "42000", 3},
		{"({name: 'x'})-[:R]->()", "0A000", 0},
		{strings.Repeat("(", changes.MaxPatternBytes+1), "42000", 0},
		{"(:\xff)", "42000", 0},
	} {
		_, err := changes.ParsePattern(tc.text)
		e, ok := errs.As(err)
		if !ok || e.Code != tc.code {
			t.Errorf("%q: err %v, want code %s", tc.text, err, tc.code)
			continue
		}
		switch {
		case tc.col == 0 && e.Position != nil:
			t.Errorf("%q: position %v, want none", tc.text, *e.Position)
		case tc.col != 0 && (e.Position == nil || e.Position.Line != 1 || e.Position.Column != tc.col):
			t.Errorf("%q: %v, want column %d", tc.text, err, tc.col)
		}
	}
}

func pattern(t *testing.T, text string) *changes.Pattern {
	t.Helper()
	p, err := changes.ParsePattern(text)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	if p.String() != text {
		t.Fatalf("String() = %q, want %q", p.String(), text)
	}
	return p
}

func TestChangePatternMatches(t *testing.T) {
	props := func(kv ...any) []changes.Property {
		out := []changes.Property{}
		for i := 0; i < len(kv); i += 2 {
			out = append(out, changes.Property{Key: kv[i].(string), Value: kv[i+1]})
		}
		return out
	}
	ann := &changes.Change{Op: changes.Created, Entity: changes.Node, ID: 1, Labels: []string{"Person", "Admin"},
		After: props("name", "Ann", "age", int64(30), "score", 1.5, "ok", true)}
	demoted := &changes.Change{Op: changes.Updated, Entity: changes.Node, ID: 2, Labels: []string{"Person"},
		LabelsRemoved: []string{"Admin"}, Before: props("name", "Bob"), After: props("name", "Bob")}
	renamed := &changes.Change{Op: changes.Updated, Entity: changes.Node, ID: 2, Labels: []string{"Person"},
		Before: props("name", "Bob"), After: props("name", "Rob")}
	gone := &changes.Change{Op: changes.Deleted, Entity: changes.Node, ID: 3, Labels: []string{"City"}, Before: props()}
	knows := &changes.Change{Op: changes.Created, Entity: changes.Relationship, ID: 7, Type: "KNOWS", Start: 1, End: 2,
		StartLabels: []string{"Person", "Admin"}, EndLabels: []string{"Robot"}, After: props("since", int64(2020))}
	for _, tc := range []struct {
		pattern string
		change  *changes.Change
		want    bool
	}{
		{"(n)", ann, true},
		{"()", knows, false},
		{"(:Person)", ann, true},
		{"(:Person:Admin)", ann, true},
		{"(p:Person&Admin)", ann, true},
		{"(:Person:City)", ann, false},
		{"(:Person {name: 'Ann'})", ann, true},
		{`(:Person {name: "Ann", age: 30.0, score: 1.5, ok: TRUE})`, ann, true},
		{"(:Person {name: 'Bob'})", ann, false},
		{"(:Person {nick: 'Ann'})", ann, false},
		{"(:Admin)", demoted, true},        // had it before
		{"(:Admin)", renamed, false},       // never had it
		{"({name: 'Bob'})", renamed, true}, // before
		{"({name: 'Rob'})", renamed, true}, // after
		{"({name: 'Ann'})", renamed, false},
		{"(:City)", gone, true},
		{"(:`City`)", gone, true},
		{"()-[:KNOWS]->()", knows, true},
		{"()-->()", knows, true},
		{"()--()", knows, true},
		{"()-[]-()", knows, true},
		{"()-[:LIKES]->()", knows, false},
		{"()-[r:LIKES|KNOWS]->()", knows, true},
		{"()-[:LIKES|:KNOWS]->()", knows, true},
		{"(:Person)-[:KNOWS]->(:Robot)", knows, true},
		{"(:Robot)-[:KNOWS]->(:Person)", knows, false},
		{"(:Robot)<-[:KNOWS]-(:Admin)", knows, true},
		{"(:Robot)-[:KNOWS]-(:Admin)", knows, true},
		{"(:Robot)<--(:Robot)", knows, false},
		{"()-[:KNOWS {since: 2020}]->()", knows, true},
		{"()-[:KNOWS {since: 2021}]->()", knows, false},
		{"(:Person)", knows, false},
		{"  ( :Person  { name : 'Ann' } )  ", ann, true},
		// The query parser reads them: a pattern is written as in a
		// MATCH (hexadecimal integers, <--> for either direction).
		{"(:Person {age: 0x1E})", ann, true},
		{"(:Person {age: -30})", ann, false},
		{"(:Robot)<-[:KNOWS]->(:Admin)", knows, true},
		{"(:Robot)<-->(:Robot)", knows, false},
		{"/* a comment */ (:Person)", ann, true},
	} {
		if got := pattern(t, tc.pattern).Matches(tc.change); got != tc.want {
			t.Errorf("%s matches change %d (%v): %v, want %v", tc.pattern, tc.change.ID, tc.change.Op, got, tc.want)
		}
	}
	bulk := &changes.Bulk{NodesCreated: 5, Labels: []string{"Person"}, RelationshipsCreated: 2, Types: []string{"KNOWS"}}
	for text, want := range map[string]bool{"(:Person)": true, "(n)": true, "(:City)": false, "()-[:KNOWS]->()": true, "()-[:X]->()": false, "()-->()": true} {
		if got := pattern(t, text).MatchesBulk(bulk); got != want {
			t.Errorf("%s matches the bulk change: %v, want %v", text, got, want)
		}
	}
}
