package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// When a runtime guard sends an operator back from the strategy the
// physical pass chose to the general path, PROFILE names the strategy and
// the guard, and the rows are the general path's.
func TestStrategyFallbacksProfiled(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Names repeat (two nodes are called "a") and x holds strings: no
	// integer view, no distinct key.
	setup := "CREATE (a1:K {name: 'a', x: 'p'})-[:T]->(:B {x: 'q', name: 'n'}), " +
		"(a2:K {name: 'a', x: 'r'})-[:T]->(:B {x: 's', name: 'm'}), (a2)-[:T]->(:B {x: 't', name: 'n'})"
	res, err := db.Query(context.Background(), setup, nil)
	if err == nil {
		_, err = drain(res)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query, rows, want string
	}{
		{"MATCH (a:K)-[:T]->(b) WITH a, max(b.x) AS m RETURN a.x AS a, m ORDER BY a",
			"'p' | 'q';'r' | 't'", "factorized-agg: property x has no integer view (nor, for a grouped aggregate, a float view)"},
		{"MATCH (a:K)-[:T]->(b) RETURN a.name AS name, count(*) AS n",
			"'a' | 3", "identity-group: property name is not known distinct for every start node (no integer view of unique values covering them)"},
		{"MATCH (a:K)-[:T]->(b) WHERE b.name = 'n' RETURN a.x AS a ORDER BY a",
			"'p';'r'", "far-set: the rows filtered stayed too few to pay for the set (under an eighth of the candidate nodes)"},
	} {
		res, err := db.Profile(context.Background(), tc.query, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		rows, err := drain(res)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if got := strings.Join(rows, ";"); got != tc.rows {
			t.Errorf("%s: rows %s, want %s", tc.query, got, tc.rows)
		}
		var got []string
		for _, op := range res.Profile().Operators {
			got = append(got, op.Fallbacks...)
		}
		if !slices.Contains(got, tc.want) {
			t.Errorf("%s: fallbacks %q, want %q among them", tc.query, got, tc.want)
		}
	}
	// In a transaction that has written, the views may be stale.
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []string{"CREATE (:Other)", "MATCH (a:K)-[:T]->(b) RETURN a, max(b.x) AS m"} {
		res, err := tx.Run(context.Background(), engine.ModeProfile, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drain(res); err != nil {
			t.Fatal(err)
		}
		if q[0] == 'C' {
			continue
		}
		var got []string
		for _, op := range res.Profile().Operators {
			got = append(got, op.Fallbacks...)
		}
		if want := "factorized-agg: this transaction has written"; !slices.Contains(got, want) {
			t.Errorf("in a transaction that wrote: fallbacks %q, want %q among them", got, want)
		}
	}
}

// label-cover and hop-map give way in a transaction that has written,
// and PROFILE says so.
func TestSnapshotStrategiesFallBackAfterWrites(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, tc := range []struct{ query, rows, want string }{
		{"CREATE (a:L {i: 1})-[:T]->(b:L {i: 2})-[:T]->(a)", "", ""},
		{"MATCH (a:L)-[:T]->(b:L) RETURN a.i AS i ORDER BY i", "1;2", "label-cover: this transaction has written (labels may have changed)"},
		{"MATCH (a)-[:T]->(b)-[:T]->(a) RETURN a.i AS i ORDER BY i", "1;2", "hop-map: this transaction has written"},
	} {
		res, err := tx.Run(context.Background(), engine.ModeProfile, tc.query, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		rows, err := drain(res)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if tc.want == "" {
			continue
		}
		if got := strings.Join(rows, ";"); got != tc.rows {
			t.Errorf("%s: rows %s, want %s", tc.query, got, tc.rows)
		}
		var got []string
		for _, op := range res.Profile().Operators {
			got = append(got, op.Fallbacks...)
		}
		if !slices.Contains(got, tc.want) {
			t.Errorf("%s: fallbacks %q, want %q among them", tc.query, got, tc.want)
		}
	}
}
