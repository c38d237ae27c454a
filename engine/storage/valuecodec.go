package storage

import "github.com/quiverdb/quiver/vector"

// The value encoding of the log and the base, for other durable files of
// the data directory (the change log, engine/changes) so that every file
// writes a value the same way.

// AppendValue appends the encoding of v, a stored value (one read from a
// snapshot).
func AppendValue(b []byte, v vector.Value) []byte { return appendValue(b, v) }

// DecodeValue decodes the value AppendValue wrote at the start of b and
// returns it with the number of bytes it took.
func DecodeValue(b []byte) (vector.Value, int, error) {
	d := &decoder{b: b}
	v := d.value(0)
	return v, d.p, d.err
}
