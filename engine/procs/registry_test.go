package procs

import (
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// Unknown suggests the nearest name only when it is close.
func TestUnknownSuggestion(t *testing.T) {
	r := NewRegistry()
	if e := r.Unknown("db.propertykeys"); e.Code != "42S02" || e.Category != "UnknownProcedure" || e.Suggestion != "did you mean db.propertyKeys?" {
		t.Fatalf("%+v", e)
	}
	if e := r.Unknown("apoc.coll.sum"); e.Suggestion != "" {
		t.Fatalf("suggested %q for a name far from any", e.Suggestion)
	}
}

func TestAccepts(t *testing.T) {
	if !Accepts("FLOAT", int64(1)) || Coerce("FLOAT", int64(1)) != 1.0 {
		t.Fatal("an INTEGER is a FLOAT argument, converted")
	}
	if Accepts("INTEGER", 1.5) || Accepts("STRING", int64(1)) || Accepts("NODE", vector.RelRef(1)) {
		t.Fatal("a value of another type was accepted")
	}
	if !Accepts("LIST", []vector.Value{}) || !Accepts("MAP", map[string]vector.Value{}) || !Accepts("ANY", vector.Path{}) {
		t.Fatal("a value of the type was refused")
	}
	if StaticAccepts("STRING", vector.Int64) || !StaticAccepts("FLOAT", vector.Int64) || !StaticAccepts("STRING", vector.Any) {
		t.Fatal("static checks are wrong")
	}
}
