package memory

import "testing"

// Grow keeps the values, zeroes the new ones (also in an array reused
// after a shrink) and reuses the array while it has room.
func TestGrow(t *testing.T) {
	s := Grow([]int64{1, 2}, 4)
	if len(s) != 4 || s[0] != 1 || s[1] != 2 || s[2] != 0 || s[3] != 0 {
		t.Fatalf("grown: %v", s)
	}
	s[2], s[3] = 7, 8
	shrunk := s[:2]
	again := Grow(shrunk, 3)
	if &again[0] != &s[0] || again[2] != 0 {
		t.Fatalf("regrown in place: %v (same array %v)", again, &again[0] == &s[0])
	}
	if g := Grow([]string(nil), 0); len(g) != 0 {
		t.Fatalf("grown to nothing: %v", g)
	}
}
