package plan

import (
	"fmt"

	"github.com/quiverdb/quiver/vector"
)

// scope tracks what the columns of the plan built so far mean: which
// variable each column holds. It mirrors the current root's columns.
type scope struct {
	cols []Column
	anon int
}

// lookup finds a visible variable's column.
func (s *scope) lookup(name string) (int, bool) {
	for i := len(s.cols) - 1; i >= 0; i-- {
		if !s.cols[i].Hidden && s.cols[i].Name == name {
			return i, true
		}
	}
	return -1, false
}

// hiddenName names a column no variable refers to (an anonymous pattern
// element, an aggregate). Lookups skip hidden columns, so the name only
// has to read well in plans.
func (s *scope) hiddenName(kind string) string {
	s.anon++
	return fmt.Sprintf("#%s%d", kind, s.anon)
}

// column returns a column named name (or an anonymous one when name is
// empty) of type t.
func (s *scope) column(name string, t vector.Type) Column {
	if name == "" {
		kind := "node"
		if t == vector.Rel {
			kind = "rel"
		}
		return Column{Name: s.hiddenName(kind), Type: t, Hidden: true}
	}
	return Column{Name: name, Type: t}
}

// ref returns a reference to column i.
func (s *scope) ref(i int) *ColRef {
	return &ColRef{Idx: i, Name: s.cols[i].Name, T: s.cols[i].Type, Kind: s.cols[i].Kind, Elem: s.cols[i].Elem}
}

func appendCols(cols []Column, more ...Column) []Column {
	out := make([]Column, 0, len(cols)+len(more))
	return append(append(out, cols...), more...)
}
