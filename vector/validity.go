package vector

import "math/bits"

// Validity is a bitmap with one bit per row, set when the row is valid (not
// null), as in Arrow. A nil Validity means every row is valid, so vectors
// without nulls pay nothing.
type Validity []uint64

// NewValidity returns a bitmap of n rows, all valid.
func NewValidity(n int) Validity {
	v := make(Validity, (n+63)/64)
	for i := range v {
		v[i] = ^uint64(0)
	}
	return v
}

// IsValid reports whether row i is valid.
func (v Validity) IsValid(i int) bool {
	return v == nil || v[i>>6]&(1<<(uint(i)&63)) != 0
}

// SetValid marks row i valid. v must not be nil.
func (v Validity) SetValid(i int) { v[i>>6] |= 1 << (uint(i) & 63) }

// SetInvalid marks row i null. v must not be nil.
func (v Validity) SetInvalid(i int) { v[i>>6] &^= 1 << (uint(i) & 63) }

// CountNulls counts the null rows among the first n.
func (v Validity) CountNulls(n int) int {
	if v == nil {
		return 0
	}
	valid := 0
	full := n >> 6
	for _, w := range v[:full] {
		valid += bits.OnesCount64(w)
	}
	if rem := uint(n) & 63; rem != 0 {
		valid += bits.OnesCount64(v[full] & (1<<rem - 1))
	}
	return n - valid
}
