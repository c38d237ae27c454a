package memory

// Grow returns s extended with zero values to length n, in its own
// array when it has room, else in one new array (append of a made slice
// would zero twice). Charging the growth is the caller's: it knows what
// the elements hold.
func Grow[T any](s []T, n int) []T {
	if n <= cap(s) {
		t := s[:n]
		clear(t[len(s):])
		return t
	}
	t := make([]T, n)
	copy(t, s)
	return t
}
