//go:build !linux

package csr

// MakeHuge is make([]T, n) (huge page advice is Linux's).
func MakeHuge[T any](n int) []T { return make([]T, n) }
