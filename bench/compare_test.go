package bench

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		in   any
		want any
	}{
		{int64(3), int64(3)},
		{3.0, int64(3)}, // Kùzu's JSON integer decoded as a float
		{2.5, 2.5},      // a real average
		{"City001", "City001"},
		{nil, nil},
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%#v) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestCompareScalar(t *testing.T) {
	q := Query{Name: "Q1"}
	if err := Compare(q, Rows{{int64(42)}}, Rows{{int64(42)}}); err != nil {
		t.Fatal(err)
	}
	if err := Compare(q, Rows{{int64(42)}}, Rows{{int64(43)}}); err == nil {
		t.Fatal("42 and 43 compared equal")
	}
	if err := Compare(q, Rows{{int64(42)}}, Rows{}); err == nil {
		t.Fatal("a row and no row compared equal")
	}
	// Q7 without a path: both engines answer no row.
	if err := Compare(Query{Name: "Q7"}, nil, Rows{}); err != nil {
		t.Fatal(err)
	}
}

func TestCompareTopKTies(t *testing.T) {
	q := Query{Name: "Q8", TopK: &TopK{Key: 1, Limit: 4}}
	quiver := Rows{{int64(7), int64(9)}, {int64(1), int64(5)}, {int64(2), int64(5)}, {int64(3), int64(4)}}
	// Same groups, ties in another order, and another member of the tie
	// that LIMIT cut (the last group, degree 4).
	kuzu := Rows{{int64(7), int64(9)}, {int64(2), int64(5)}, {int64(1), int64(5)}, {int64(8), int64(4)}}
	if err := Compare(q, quiver, kuzu); err != nil {
		t.Fatalf("ties in another order rejected: %v", err)
	}
	// A different member inside a complete tie group is a real difference.
	bad := Rows{{int64(7), int64(9)}, {int64(1), int64(5)}, {int64(6), int64(5)}, {int64(3), int64(4)}}
	if err := Compare(q, quiver, bad); err == nil || !strings.Contains(err.Error(), "tie group 1") {
		t.Fatalf("a different member of a complete tie accepted: %v", err)
	}
	// Different degrees.
	bad = Rows{{int64(7), int64(9)}, {int64(1), int64(5)}, {int64(2), int64(5)}, {int64(3), int64(3)}}
	if err := Compare(q, quiver, bad); err == nil {
		t.Fatal("a different key accepted")
	}
	// A short answer (fewer rows than the limit) is complete: its last
	// group must match as well.
	short := Query{Name: "Q8", TopK: &TopK{Key: 1, Limit: 10}}
	if err := Compare(short, quiver, kuzu); err == nil {
		t.Fatal("a differing last group of a complete answer accepted")
	}
}

func TestCompareFloats(t *testing.T) {
	q := Query{Name: "Q2", TopK: &TopK{Key: 1, Limit: 10}}
	a := Rows{{"City000", int64(1041), 50.390009606147935}, {"City001", int64(454), 48.5}}
	b := Rows{{"City000", int64(1041), 50.39000960614794}, {"City001", int64(454), 48.5}}
	if err := Compare(q, a, b); err != nil {
		t.Fatalf("averages equal up to rounding rejected: %v", err)
	}
	b[1][2] = 48.6
	if err := Compare(q, a, b); err == nil {
		t.Fatal("averages 48.5 and 48.6 accepted")
	}
}

func TestMedian(t *testing.T) {
	if m := Median([]float64{5, 1, 3}); m != 3 {
		t.Fatalf("median %v", m)
	}
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Fatalf("median %v", m)
	}
}

// An Ordered answer must agree row by row: the same rows in another order
// differ.
func TestCompareOrdered(t *testing.T) {
	q := Query{Name: "W29", Ordered: true}
	a := Rows{{int64(1), "x"}, {int64(2), "y"}}
	if err := Compare(q, a, Rows{{int64(1), "x"}, {int64(2), "y"}}); err != nil {
		t.Fatal(err)
	}
	if err := Compare(q, a, Rows{{int64(2), "y"}, {int64(1), "x"}}); err == nil {
		t.Fatal("rows in another order compared equal")
	}
	if err := Compare(Query{Name: "W32"}, a, Rows{{int64(2), "y"}, {int64(1), "x"}}); err != nil {
		t.Fatalf("unordered: %v", err)
	}
}

// Kùzu's differing answer to a query naming a defect of Kùzu's is that
// defect only with DuckDB's agreement; otherwise it is a mismatch.
func TestCompareAnswersKuzuDefect(t *testing.T) {
	right := Rows{{"Ada", int64(3)}, {"Ada", int64(2)}, {"Bo", int64(9)}}
	wrong := Rows{{"Ada", int64(3)}, {"Bo", int64(9)}, {"Bo", int64(1)}}
	defect := Query{Name: "W30", Ordered: true, KuzuDefect: "ties ordered wrongly"}
	plain := Query{Name: "W30", Ordered: true}
	for _, tc := range []struct {
		name                string
		q                   Query
		kuzu, duck          Rows
		withDuckDB          bool
		mismatches, defects int
	}{
		{"all agree", defect, right, right, true, 0, 0},
		{"defect, DuckDB agrees", defect, wrong, right, true, 0, 2},
		{"defect, no DuckDB", defect, wrong, nil, false, 2, 0},
		{"defect, DuckDB differs too", defect, wrong, wrong, true, 3, 0},
		{"no defect named", plain, wrong, right, true, 2, 0},
		{"DuckDB alone differs", defect, right, wrong, true, 1, 0},
	} {
		rep := &Report{}
		compareAnswers(tc.q, right, right, tc.kuzu, true, tc.duck, tc.withDuckDB, rep)
		if len(rep.Mismatches) != tc.mismatches || len(rep.PeerDefects) != tc.defects {
			t.Errorf("%s: mismatches %q, defects %q; want %d and %d", tc.name, rep.Mismatches, rep.PeerDefects, tc.mismatches, tc.defects)
		}
	}
	rep := &Report{}
	compareAnswers(defect, right, right, wrong, true, right, true, rep)
	if want := "W30: ties ordered wrongly; DuckDB's answer agrees with Quiver's"; rep.PeerDefects[0] != want {
		t.Errorf("defect %q, want %q", rep.PeerDefects[0], want)
	}
}

// A query Kùzu gave no answer to (its process died on it) compares
// Quiver's answers with DuckDB's alone, or with each other without
// DuckDB: a wrong answer is still found.
func TestCompareAnswersWithoutKuzu(t *testing.T) {
	right := Rows{{"Ada", int64(3)}, {"Bo", int64(9)}}
	wrong := Rows{{"Ada", int64(3)}, {"Bo", int64(1)}}
	q := Query{Name: "W15", Ordered: true}
	for _, tc := range []struct {
		name           string
		emb, web, duck Rows
		withDuckDB     bool
		mismatches     int
	}{
		{"DuckDB agrees", right, right, right, true, 0},
		{"HTTP differs from DuckDB", right, wrong, right, true, 1},
		{"both differ from DuckDB", wrong, wrong, right, true, 2},
		{"no DuckDB, Quiver's two agree", right, right, nil, false, 0},
		{"no DuckDB, Quiver's two differ", right, wrong, nil, false, 1},
	} {
		rep := &Report{}
		compareAnswers(q, tc.emb, tc.web, nil, false, tc.duck, tc.withDuckDB, rep)
		if len(rep.Mismatches) != tc.mismatches {
			t.Errorf("%s: mismatches %q; want %d", tc.name, rep.Mismatches, tc.mismatches)
		}
	}
}
