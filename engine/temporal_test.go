package engine_test

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/temporal"
)

// Temporal values passed as parameters through the engine API keep their
// type: they compute, compare, store and report their schema type.
func TestTemporalParameters(t *testing.T) {
	db := openTestDB(t)
	d, err := temporal.MakeDate(2015, 7, 21)
	if err != nil {
		t.Fatal(err)
	}
	dur, err := temporal.ParseDuration("P1M2DT3H")
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(context.Background(), "CREATE (n:E {on: $d}) RETURN $d AS d, $d + $dur AS later, n.on = $d AS same, $d.week AS w, $dur AS dur", engine.Params{"d": d, "dur": dur})
	if err != nil {
		t.Fatal(err)
	}
	cols := res.Columns()
	rows, err := drain(res)
	if err != nil {
		t.Fatal(err)
	}
	if cols[0].Type != "DATE" || cols[4].Type != "DURATION" {
		t.Errorf("column types %v, want DATE for $d and DURATION for $dur", cols)
	}
	// 2015-07-21 + 1 month 2 days = 2015-08-23 (the 3 hours do not make a day).
	want := "2015-07-21 | 2015-08-23 | true | 30 | P1M2DT3H"
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("rows %q, want %q", rows, want)
	}
}
