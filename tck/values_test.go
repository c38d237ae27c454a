package tck

import (
	"math"
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// Expected cells parse and render to the canonical form; spellings the TCK
// treats as equal render alike, and values it tells apart differ.
func TestCanonicalLiterals(t *testing.T) {
	same := [][2]string{
		{"1e-9", "0.000000001"},
		{".5", "0.5"},
		{"-0.0", "0.0"},
		{"{b: 2, a: 'x'}", "{a: 'x', b: 2}"},
		{"(:B:A {k: [1, 2]})", "(:A:B {k: [1, 2]})"},
		{"'it\\'s'", `"it's"`},
		{"<(:A)-[:T {w: 1}]->(:B)<-[:U]-()>", "<(:A)-[:T {w: 1}]->(:B)<-[:U]-()>"},
		{"[]", "[ ]"},
		{"[r:T {k: 1}]", "[:T {k: 1}]"},
	}
	for _, p := range same {
		a, b := mustCanon(t, p[0], false), mustCanon(t, p[1], false)
		if a != b {
			t.Errorf("%s → %s, %s → %s: want equal", p[0], a, p[1], b)
		}
	}
	differ := [][2]string{
		{"1", "1.0"},
		{"'1'", "1"},
		{"[1, 2]", "[2, 1]"},
		{"(:A)", "(:A {k: 1})"},
		{"<(:A)-[:T]->(:B)>", "<(:A)<-[:T]-(:B)>"},
		{"null", "'null'"},
	}
	for _, p := range differ {
		if a, b := mustCanon(t, p[0], false), mustCanon(t, p[1], false); a == b {
			t.Errorf("%s and %s both render %s", p[0], p[1], a)
		}
	}
	if a, b := mustCanon(t, "[[2, 1], 3]", true), mustCanon(t, "[3, [1, 2]]", true); a != b {
		t.Errorf("ignoring list order: %s vs %s", a, b)
	}
}

func mustCanon(t *testing.T, s string, sortLists bool) string {
	t.Helper()
	v, err := parseLiteral(s)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	c := &canon{sortLists: sortLists}
	return c.value(v)
}

// Engine values render like the literals that spell them.
func TestCanonicalEngineValues(t *testing.T) {
	c := &canon{}
	cases := []struct {
		v    vector.Value
		want string
	}{
		{int64(-3), "-3"},
		{2.0, "2.0"},
		{math.Inf(-1), "-Infinity"},
		{[]vector.Value{int64(1), "a", nil}, "[1, 'a', null]"},
		{map[string]vector.Value{"z": true, "a": 1.5}, "{z: true, a: 1.5}"},
	}
	for _, tc := range cases {
		if got, want := c.value(tc.v), mustCanon(t, tc.want, false); got != want {
			t.Errorf("%v renders %s, want %s", tc.v, got, want)
		}
	}
}
