package plan

import (
	"testing"

	"github.com/quiverdb/quiver/vector"
)

func TestElemOf(t *testing.T) {
	i := &ColRef{Name: "i", T: vector.Int64}
	p := &Property{Of: &ColRef{Name: "n", T: vector.Node}, Key: "x"}
	null := &Const{Val: nil, T: vector.Null}
	for _, c := range []struct {
		e    Expr
		want vector.Type
	}{
		{&List{Elems: []Expr{i, null, i}}, vector.Int64},
		{&List{Elems: []Expr{null}}, vector.Null},
		{&List{Elems: []Expr{i, &Const{Val: 0.5, T: vector.Float64}}}, vector.Null},
		{&List{Elems: []Expr{i, p}}, vector.Null}, // a property: any type
		{&List{Elems: []Expr{&List{Elems: []Expr{i}}}}, vector.Null},
		{&Const{Val: []vector.Value{nil, "a", "b"}, T: vector.Any}, vector.String},
		{&Const{Val: []vector.Value{true, int64(1)}, T: vector.Any}, vector.Null},
		{&Const{Val: int64(3), T: vector.Int64}, vector.Null},
		{&Call{Name: "range", T: vector.Any, Kind: "LIST"}, vector.Int64},
		{&Call{Name: "split", T: vector.Any, Kind: "LIST"}, vector.String},
		{&Call{Name: "tail", T: vector.Any, Kind: "LIST"}, vector.Null},
		{&ColRef{Name: "l", T: vector.Any, Kind: "LIST", Elem: vector.Float64}, vector.Float64},
		{&Param{Name: "l", T: vector.Any, Kind: "LIST"}, vector.Null}, // a reused plan sees other values
	} {
		if got := ElemOf(c.e); got != c.want {
			t.Errorf("ElemOf(%s) = %v, want %v", c.e, got, c.want)
		}
	}
}
