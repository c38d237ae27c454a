package errs

import "testing"

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"", "abc", 3}, {"MATCH", "MATHC", 2}, {"RETRUN", "RETURN", 2}, {"query_timeout", "query_timout", 1}, {"kitten", "sitting", 3}, {"db.lables", "db.labels", 2}, {"db.label", "db.labels", 1}} {
		if got := EditDistance(c.a, c.b); got != c.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := EditDistance(c.b, c.a); got != c.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (symmetry)", c.b, c.a, got, c.d)
		}
	}
}
