package exec

import "sort"

// sortCheckEvery is how many comparisons a sort makes between polls of
// the statement's context: a few microseconds of work.
const sortCheckEvery = 1 << 12

// interruptedSort carries the statement's end out of a sort's comparator.
type interruptedSort struct{ err error }

// sortRows sorts perm stably by less, polling the statement's context
// every sortCheckEvery comparisons: sorting millions of rows takes
// seconds, and a deadline or a cancellation must stop it within a few
// milliseconds. The standard sort cannot be told to stop, so the
// comparator panics with interruptedSort and sortRows recovers it.
func sortRows(c *Context, perm []int32, less func(a, b int) bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			is, ok := r.(interruptedSort)
			if !ok {
				panic(r)
			}
			err = is.err
		}
	}()
	n := 0
	sort.SliceStable(perm, func(i, j int) bool {
		if n++; n%sortCheckEvery == 0 {
			if err := c.Interrupted(); err != nil {
				panic(interruptedSort{err})
			}
		}
		return less(int(perm[i]), int(perm[j]))
	})
	return nil
}
